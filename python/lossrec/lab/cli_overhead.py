"""``lossrec bench --only cli_flows``: what ``lossrec run`` costs beyond its simulation on a
run of many flows (issue 29 item 3: under 20 % of the simulation at 100,000 flows).

The command runs in this process, its output to ``os.devnull``; the CPU time spent inside
``_core.run_scenario`` on the calling thread (the simulation, and the result's buffers and
text) is set against the process's CPU time over the whole command (user + system: the
heap's fresh pages count on both sides). Import costs are not included (the modules are
loaded before the first round); a child process adds ~0.2 s of interpreter start and
imports to any command.
"""

from __future__ import annotations

import os
import resource
import statistics
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, Dict, List



def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _once(path: Path, args: List[str]) -> Dict[str, float]:
    from .. import _core
    from ..cli import main

    inner = [0.0]
    orig = _core.run_scenario

    def timed(*a: Any, **k: Any) -> Any:
        t0 = time.thread_time()
        try:
            return orig(*a, **k)
        finally:
            inner[0] += time.thread_time() - t0

    _core.run_scenario = timed  # type: ignore[assignment]
    try:
        with open(os.devnull, "w") as null, redirect_stdout(null):
            c0 = _cpu()
            main(["run", str(path), *args], standalone_mode=False)
            total = _cpu() - c0
    finally:
        _core.run_scenario = orig  # type: ignore[assignment]
    return {"sim_cpu_s": inner[0], "cli_cpu_s": total, "overhead_cpu_s": total - inner[0]}


def cli_overhead(flows: int = 100_000, rounds: int = 3) -> Dict[str, Any]:
    """Per output mode (``table``, ``json``): each round's simulation CPU, whole-command
    CPU and their difference, and the median overhead in % of the simulation."""
    from .. import _core

    out: Dict[str, Any] = {"flows": flows, "rounds": rounds}
    with tempfile.TemporaryDirectory(prefix="lossrec-bench-") as d:
        p = Path(d) / "flows.toml"
        # The `flows` benchmark's scenario (crates/sim/src/bench/flows.rs): 1,000,000
        # segments split over `flows` concurrent flows; 10 Gb/s, 40 ms, 1 % loss, linux.
        p.write_text(_core.bench_flows_scenario(flows, 3600.0))
        for mode, args in (("table", []), ("json", ["--json"])):
            runs = [_once(p, args) for _ in range(rounds)]
            pct = [r["overhead_cpu_s"] / r["sim_cpu_s"] * 100 for r in runs if r["sim_cpu_s"] > 0]
            out[mode] = {k: [r[k] for r in runs] for k in runs[0]}
            out[mode]["overhead_pct_median"] = statistics.median(pct) if pct else float("nan")
    return out
