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

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from .. import _core
from ..scenario import ScenarioLike
from .plan import Plan, Unit, make_plan
from .runner import default_jobs, run_plan, scenario_runs
from .store import ChunkStore

#: Columns of the recoveries frame before the swept keys are added: the fields of
#: ``crates/sim/src/episodes.rs::Recovery`` as the Rust core exports them
#: (``_core.recovery_fields()``), never a copy. ``kind`` is ``fast`` or ``rto`` (a
#: timeout's loss recovery, with its ``backoffs``); code that means fast recovery filters on it.
RECOVERY_FIELDS = tuple(name for name, _ in _core.recovery_fields())
#: The recovery fields that may be missing (an episode the run ended first): NaN, as floats.
_NULLABLE = tuple(name for name, kind in _core.recovery_fields() if kind == "float")

PathLike = Union[str, "os.PathLike[str]"]


def _json_of_run(text: str, origin: str, seed: int) -> str:
    js, *_ = _core.run_scenario(text, origin, seed, False, False)
    return str(js)


def run_detailed(specs: Sequence[Tuple[str, str, str]], units: Sequence[Unit], threads: int = 1) -> Dict[str, Any]:
    """The details kind of run for :mod:`lossrec.lab.runner`: each scenario of a chunk
    through :func:`lossrec.run`'s core call, keeping its whole ``--json`` text (``out``)."""
    return scenario_runs(specs, units, threads, _json_of_run)


def keep_store(plan: Plan, keep: Optional[PathLike], kind: str, *extra: str) -> Optional[ChunkStore]:
    """Where a details or traced sweep keeps its finished chunks (``KEEP.partial/``), for
    a definition that adds ``kind`` and ``extra`` (e.g. the summariser's code) to the plan's."""
    if keep is None:
        return None
    h = hashlib.sha256("\0".join((plan.digest, kind, *extra)).encode()).hexdigest()
    Path(keep).parent.mkdir(parents=True, exist_ok=True)
    return ChunkStore(Path(keep), h, {**plan.describe(), "kind": kind}, len(plan.chunks), force=True)


def detailed_sweep(
    scenario: ScenarioLike,
    params: Optional[Mapping[str, Any]] = None,
    reps: int = 1,
    jobs: Optional[int] = None,
    *,
    common_seeds: bool = False,
    dask: Any = None,
    keep: Optional[PathLike] = None,
    progress: Any = False,
) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """Runs every point × ``reps`` of ``scenario`` like :func:`lossrec.lab.sweep` (same
    points, same seeds, the same runner: local threads or ``dask``) and returns
    ``(flows, recoveries)``.

    ``flows`` has one row per flow with the swept keys, ``rep``, ``seed``, every field of
    the JSON ``flows[]`` entries and ``time_limit_hit``; ``recoveries`` one row per
    recovery episode (fast or RTO: ``kind``) with the swept keys, ``rep``, ``seed`` and the
    episode's fields (``RECOVERY_FIELDS``). Rows are in point, repetition, flow order.
    ``keep``: a path whose ``KEEP.partial/`` folder holds the finished chunks, so that
    the same call after an interruption resumes (the folder goes when it completes).
    ``progress``: as for :func:`lossrec.lab.sweep`.
    """
    jobs = jobs or default_jobs()
    # Chunks of a few scenarios per thread: what a resumed call need not run again.
    plan = make_plan(scenario, params, reps, common_seeds, 4 * jobs, jobs)
    store = keep_store(plan, keep, "details")
    parts, _ = run_plan(plan, jobs, dask, work=run_detailed, store=store, progress=progress)
    flow_rows: List[Dict[str, Any]] = []
    rec_rows: List[Dict[str, Any]] = []
    for part in parts:
        for p, rep, seed, js in zip(part["point"], part["rep"], part["seed"], part["out"]):
            obj = json.loads(str(js))
            point = point_values(plan, int(p))
            run = {**point, "rep": int(rep), "seed": int(seed)}
            limit = bool((obj.get("sim") or {}).get("time_limit_hit", False))
            for f in obj.get("flows", []):
                flow_rows.append({**run, **f, "time_limit_hit": limit})
            for r in obj.get("recoveries", []):
                rec_rows.append({**run, **r})
    flows = pd.DataFrame(flow_rows)
    if "fct_ms" in flows:
        flows["fct_ms"] = flows["fct_ms"].astype(float)  # None (unfinished) → NaN
    recoveries = pd.DataFrame(rec_rows, columns=list(plan.keys) + ["rep", "seed"] + list(RECOVERY_FIELDS))
    for c in _NULLABLE:
        recoveries[c] = recoveries[c].astype(float)
    for frame in (flows, recoveries):
        categorical(plan, frame)
    if store is not None:
        store._discard()
    flows.attrs["sweep"] = {**plan.describe(), "jobs": jobs, "details": True}
    return flows, recoveries


def point_values(plan: Plan, p: int) -> Dict[str, Any]:
    """The swept keys' values of point ``p``."""
    return {k: plan.values[j][plan.points[p][j]] for j, k in enumerate(plan.keys)}


def categorical(plan: Plan, frame: pd.DataFrame) -> None:
    """Swept keys whose values are all text become categoricals (in the swept order)."""
    for j, k in enumerate(plan.keys):
        if k in frame and all(isinstance(v, str) for v in plan.values[j]):
            frame[k] = pd.Categorical(frame[k], categories=list(plan.values[j]))


def quantiles(x: Any, qs: Any) -> np.ndarray:
    """Quantiles (``qs`` in percent) of the finite values of ``x``; NaN when empty."""
    a = np.asarray(x, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0:
        return np.full(len(qs), np.nan)
    return np.percentile(a, qs)
