"""Detailed sweeps: every flow field and every recovery episode.

The batch runner behind :func:`lossrec.lab.sweep` returns a fixed set of per-flow columns
(``FLOW_FIELDS``) and nothing per recovery. A detailed sweep runs the same points with the
same seeds through :func:`lossrec.run`'s core call instead — one scenario at a time on a
thread pool (the simulation releases the GIL) — and keeps everything the ``--json``
object holds: every flow field (``fast_retransmits``, ``lost_retransmits``, the timeouts
by state, ``dsacks``, ``early_retransmits``, …) and the ``recoveries`` list, one record
per recovery episode, fast or RTO (``kind``, ``start_ms``, ``end_ms``, ``ended_by``, ``backoffs``, ``prior_cwnd``,
``ssthresh``, ``pipe_at_entry``, ``cwnd_at_end``, ``cwnd_after``, ``sent``, …; see
``lossrec_sim::episodes``). It is slower than the batch runner (a JSON object per
scenario) and meant for studies of a few thousand scenarios.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pandas as pd

from .. import _core
from ..scenario import ScenarioLike
from .sweeps import default_jobs, make_plan

#: Columns of the recoveries frame before the swept keys are added: the fields of
#: ``crates/sim/src/episodes.rs::Recovery``. ``kind`` is ``fast`` or ``rto`` (a timeout's loss
#: recovery, with its ``backoffs``); code that means fast recovery filters on it.
RECOVERY_FIELDS = ("kind", "flow", "id", "start_ms", "end_ms", "ended_by", "rto_ms", "backoffs", "prior_cwnd",
                   "ssthresh", "pipe_at_entry", "cwnd_at_end", "pipe_at_end", "cwnd_after",
                   "ssthresh_after", "sent", "retransmits", "lost_retransmits")


def detailed_sweep(
    scenario: ScenarioLike,
    params: Optional[Mapping[str, Any]] = None,
    reps: int = 1,
    jobs: Optional[int] = None,
    *,
    common_seeds: bool = False,
) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """Runs every point × ``reps`` of ``scenario`` like :func:`lossrec.lab.sweep` (same
    points, same seeds) and returns ``(flows, recoveries)``.

    ``flows`` has one row per flow with the swept keys, ``rep``, ``seed``, every field of
    the JSON ``flows[]`` entries and ``time_limit_hit``; ``recoveries`` one row per
    recovery episode (fast or RTO: ``kind``) with the swept keys, ``rep``, ``seed`` and the episode's fields
    (``RECOVERY_FIELDS``). Rows are in point, repetition, flow order.
    """
    jobs = jobs or default_jobs()
    plan = make_plan(scenario, params, reps, common_seeds, None, jobs)
    tasks = [(p, r) for p in range(len(plan.points)) for r in range(reps)]
    bases = [_core.validate_scenario(text, origin) for text, origin, _ in plan.specs]

    def one(task: Tuple[int, int]) -> Tuple[int, int, int, Dict[str, Any]]:
        p, rep = task
        text, origin, key = plan.specs[p]
        seed = _core.sweep_seed(bases[p], key, rep)
        js, *_ = _core.run_scenario(text, origin, seed, False, False)
        return p, rep, seed, json.loads(js)

    if jobs > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(one, tasks))
    else:
        results = [one(t) for t in tasks]

    flow_rows: List[Dict[str, Any]] = []
    rec_rows: List[Dict[str, Any]] = []
    for p, rep, seed, obj in results:
        point = {k: plan.values[j][plan.points[p][j]] for j, k in enumerate(plan.keys)}
        limit = bool((obj.get("sim") or {}).get("time_limit_hit", False))
        for f in obj.get("flows", []):
            flow_rows.append({**point, "rep": rep, "seed": seed, **f, "time_limit_hit": limit})
        for r in obj.get("recoveries", []):
            rec_rows.append({**point, "rep": rep, "seed": seed, **r})
    flows = pd.DataFrame(flow_rows)
    if "fct_ms" in flows:
        flows["fct_ms"] = flows["fct_ms"].astype(float)  # None (unfinished) → NaN
    recoveries = pd.DataFrame(rec_rows, columns=list(plan.keys) + ["rep", "seed"] + list(RECOVERY_FIELDS))
    for c in ("end_ms", "rto_ms", "cwnd_at_end", "pipe_at_end", "cwnd_after", "ssthresh_after"):
        recoveries[c] = recoveries[c].astype(float)
    for frame in (flows, recoveries):
        for k in plan.keys:
            if k in frame and all(isinstance(v, str) for v in plan.values[plan.keys.index(k)]):
                frame[k] = pd.Categorical(frame[k], categories=list(plan.values[plan.keys.index(k)]))
    flows.attrs["sweep"] = {**plan.describe(), "jobs": jobs, "details": True}
    return flows, recoveries


def quantiles(x: Any, qs: Any) -> np.ndarray:
    """Quantiles (``qs`` in percent) of the finite values of ``x``; NaN when empty."""
    a = np.asarray(x, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return np.full(len(qs), np.nan)
    return np.percentile(a, qs)
