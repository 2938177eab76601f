"""The sweep benchmark (``lossrec bench --only sweep``): scaling and per-scenario overhead.

Two sweeps of 1,000 scenarios each (10 RTTs × 2 presets × 50 repetitions), 10-segment
flows whose last segment is lost:

* **scaling** (``speedup``): 1,000 short-flow scenarios of 100 sequential flows each (the
  ``short_flows`` benchmark's workload, scaled down), so that a sweep lasts long enough
  (~0.3 s) for two threads to be measured against one; ``wall_s_jobs1`` /
  ``wall_s_jobs2`` are the whole ``lossrec.sweep`` call, best of the rounds.
* **overhead**: 1,000 scenarios of ONE 10-segment flow each (~5 ms of simulation in all:
  the worst case for per-scenario cost). Measured, alternating so that both see the same
  machine load:

* ``speedup_one_flow``: the one-flow sweep with 1 and 2 threads; at ~5 ms a sweep is too
  short for thread scheduling on a shared machine to give a stable ratio.
* ``overhead_pct``: (sweep wall − Σ simulation wall) / Σ simulation wall at 1 thread
  (medians over the rounds) — everything that is not simulating: building and
  validating the points, the calls into Rust, the result columns, the DataFrame.
* ``overhead_pct_per_scenario``: the same for the *marginal* scenario, from the
  difference between this sweep and one ten times larger, so that the fixed per-sweep cost
  (``fixed_overhead_ms``: the DataFrame, the point validation) is separated out.
* ``machine_speedup``: the same simulations on 2 plain threads against 1, with no sweep
  machinery at all — what this machine's cores give, the ceiling for ``speedup``.
* ``speedup_10k``: ``speedup`` for the sweep ten times larger (fixed costs amortised).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Dict, List

from .. import _core
from .sweeps import make_plan, sweep

SCENARIO = """
seed = 1
[path]
rtt_ms = 40
rate_mbps = 10
[path.loss]
model = "tail"
count = 1
[sender]
preset = "rfc"
[workload]
kind = "flows"
flows = 1
segments = 10
"""
#: The scaling sweep's scenarios: 100 sequential short flows each.
SCENARIO_SHORT_FLOWS = SCENARIO.replace("flows = 1\n", "flows = 100\n")
PARAMS = {"path.rtt_ms": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
          "sender.preset": ["rfc", "linux-classic"]}
REPS = 50
TARGETS = {"speedup": 1.8, "overhead_pct": 5.0}
DESCRIPTION = ("1,000 short-flow scenarios (100 sequential 10-segment flows each, last segment "
               "lost) with jobs 1 vs 2; overhead on 1,000 one-flow scenarios")


def _run(reps: int, jobs: int, scenario: str = SCENARIO) -> Dict[str, float]:
    t0 = time.perf_counter()
    df = sweep(scenario, PARAMS, reps=reps, jobs=jobs, progress=False)
    wall = time.perf_counter() - t0
    return {"wall": wall, "sim": df.attrs["sweep"]["sim_wall_s"]}


def sweep_bench(min_wall_s: float = 1.0, min_rounds: int = 15) -> Dict[str, Any]:
    """Runs the sweep benchmark; see the module doc for the figures returned."""
    plan = make_plan(SCENARIO, PARAMS, REPS)
    specs = list(plan.specs)
    units = [(p, 0, REPS) for p in range(len(plan.points))]
    for jobs in (1, 2):  # warm-up: thread pools, caches
        _run(REPS, jobs)
        _core.simulate_only(specs, units, jobs)
    r1: List[Dict[str, float]] = []
    r2: List[Dict[str, float]] = []
    m1: List[float] = []
    m2: List[float] = []
    t_start = time.perf_counter()
    while len(r1) < min_rounds or time.perf_counter() - t_start < min_wall_s:
        r1.append(_run(REPS, 1))
        r2.append(_run(REPS, 2))
        m1.append(_core.simulate_only(specs, units, 1))
        m2.append(_core.simulate_only(specs, units, 2))
    big1: List[Dict[str, float]] = []
    big2: List[Dict[str, float]] = []
    for _ in range(10):
        big1.append(_run(REPS * 10, 1))
        big2.append(_run(REPS * 10, 2))

    # Scaling, on sweeps long enough to measure (alternating 1 and 2 threads).
    s1: List[float] = []
    s2: List[float] = []
    _run(REPS, 2, SCENARIO_SHORT_FLOWS)
    for _ in range(5):
        s1.append(_run(REPS, 1, SCENARIO_SHORT_FLOWS)["wall"])
        s2.append(_run(REPS, 2, SCENARIO_SHORT_FLOWS)["wall"])

    def over(r: Dict[str, float]) -> float:
        return r["wall"] - r["sim"]

    # Medians: the overhead is measured within each run (wall and simulation together),
    # so its median is stable even when the machine's speed drifts between runs.
    small_over = statistics.median(over(r) for r in r1)
    small_sim = statistics.median(r["sim"] for r in r1)
    big_over = statistics.median(over(r) for r in big1)
    big_sim = statistics.median(r["sim"] for r in big1)
    marginal = (big_over - small_over) / max(big_sim - small_sim, 1e-9)
    fixed = max(small_over - marginal * small_sim, 0.0)
    wall1 = min(r["wall"] for r in r1)
    wall2 = min(r["wall"] for r in r2)
    return {
        "scenarios": plan.scenarios,
        "wall_s_jobs1": min(s1),
        "wall_s_jobs2": min(s2),
        "speedup": min(s1) / min(s2),
        "flows_per_scenario": 100,
        "wall_s_one_flow_jobs1": wall1,
        "wall_s_one_flow_jobs2": wall2,
        "speedup_one_flow": wall1 / wall2,
        "overhead_pct": small_over / small_sim * 100.0,
        "overhead_pct_per_scenario": marginal * 100.0,
        "fixed_overhead_ms": fixed * 1000.0,
        "sim_us_per_scenario": small_sim / plan.scenarios * 1e6,
        "machine_speedup": min(m1) / min(m2),
        "speedup_10k": min(r["wall"] for r in big1) / min(r["wall"] for r in big2),
        "rounds": len(r1),
    }
