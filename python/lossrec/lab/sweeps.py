"""Parameter sweeps: every combination of ``--set`` values × repetitions of one scenario.

The work is split so that Python never touches a single scenario run:

1. *Points and chunks* (:mod:`lossrec.lab.plan`): the validated scenario of every point,
   the seeds, and the (point, repetition) pairs cut into chunks.
2. *The runner* (:mod:`lossrec.lab.runner`): chunks run here on ``jobs`` threads or on a
   Dask cluster; finished chunks are kept (:mod:`lossrec.lab.store`) so that a sweep with
   an output resumes.
3. *Batches* (:mod:`lossrec.lab.chunks`): ``_core.run_batch`` parses each point of a chunk
   once, runs its scenarios on a rayon pool with the GIL released and returns the per-flow
   results as columns; Python builds one DataFrame from them.

Seeds depend only on the scenario's seed, the point's canonical override string and the
repetition index (:func:`sweep_seed`), so results are identical whatever ``jobs``,
``chunk_size`` or Dask do.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, List, Mapping, Optional, Tuple, Union

import pandas as pd

from .. import _args
from ..outputs import check_new_files
from ..scenario import ScenarioLike
from .._provenance import sweep_provenance
from . import chunks
from .chunks import ARRAYS as ARRAYS, frame as frame, run_chunk as run_chunk
from .plan import (FLOW_FIELDS as FLOW_FIELDS, INT_FIELDS as INT_FIELDS, MAX_CHUNK as MAX_CHUNK,
                   MIN_CHUNK as MIN_CHUNK, RESULT_COLUMNS as RESULT_COLUMNS,
                   TARGET_CHUNKS as TARGET_CHUNKS, Plan as Plan, Unit as Unit, Value as Value,
                   canonical as canonical, cut_chunks as cut_chunks, make_plan as make_plan,
                   globalise, point_scenario as point_scenario, sweep_seed as sweep_seed,
                   units_of as units_of)
from .runner import (ProgressLike as ProgressLike, _want_progress, default_jobs as default_jobs,
                     dispatch as dispatch, run_plan)
from .store import ChunkStore, write_table, written_files
from .stream import is_dataset, sweep_dataset


def parse_set(item: str) -> Tuple[str, List[Value]]:
    """``"path.rtt_ms=10,20"`` → ``("path.rtt_ms", [10, 20])``: the one ``--set`` grammar
    (:func:`lossrec.sets.parse_set`: TOML values, lists, ranges, bare axis names)."""
    from ..sets import parse_set as parse

    return parse(item)


def sweep(
    scenario: ScenarioLike,
    params: Optional[Mapping[str, Any]] = None,
    reps: int = 1,
    jobs: Optional[int] = None,
    dask: Any = None,
    output: Union[None, str, "os.PathLike[str]"] = None,
    progress: ProgressLike = None,
    *,
    common_seeds: bool = False,
    chunk_size: Optional[int] = None,
    force: bool = False,
) -> pd.DataFrame:
    """Runs every combination of ``params`` × ``reps`` repetitions of ``scenario``.

    Args:
        scenario: a path, a dict or TOML text (as for :func:`lossrec.run`).
        params: dotted scenario key → list of values, e.g. ``{"path.rtt_ms": [10, 40],
            "sender.preset": ["rfc", "linux-classic"]}``; a scalar is a single value.
        reps: repetitions per point, each with its own seed.
        jobs: threads for local runs (default: every core).
        dask: a Dask scheduler address (``"tcp://host:port"``) or a ``distributed.Client``;
            the chunks run on its workers instead.
        output: write the results here (``.csv`` or ``.parquet``). Completed chunks are kept
            in ``OUTPUT.partial/`` until the sweep finishes, so an interrupted sweep
            re-run with the same arguments resumes. A folder (a path without a suffix)
            streams instead: each chunk becomes a Parquet partition as it finishes and no
            rows are kept in memory (see :mod:`lossrec.lab.stream`); the DataFrame
            returned is then empty, with ``attrs["sweep"]["rows"]``.
        progress: a progress bar with ETA on stderr (default: when stderr is a terminal),
            or a callable ``f(done_scenarios, total)``.
        common_seeds: give every point the same seed per repetition (common random
            numbers across arms) instead of seeds that depend on the point.
        chunk_size: scenarios per chunk (default: about 1 % of the sweep, 64 to 4096).
        force: overwrite an existing output file (an existing one is refused otherwise),
            discard another sweep's partial results at ``OUTPUT.partial/``, or replace
            another sweep's partitions in a folder output (files lossrec did not write
            there are kept).

    Returns:
        One row per flow: a column per swept key (by its dotted name), ``rep``, ``seed``,
        the flow results (``id``, ``preset``, ``bytes``, ``fct_ms`` (NaN if unfinished),
        ``data_packets_sent``, ``retransmits``, ``fast_recoveries``, ``rtos``,
        ``spurious_rtos``, ``tlp_probes``, ``undos``, ``final_cwnd``) and
        ``time_limit_hit``; rows in point, repetition, flow order. ``df.attrs["sweep"]``
        holds the figures of the run (``scenarios``, ``wall_s``, ``sim_wall_s``, ...),
        ``df.attrs["provenance"]`` lossrec's version, the commit, the scenario's hash and
        the seed rule (kept in Parquet files; beside a CSV as ``FILE.csv.json``).

    Raises:
        ValueError (``lossrec.ScenarioError``): a point is invalid; the message names the
            base file, the overrides and the field.
    """
    t0 = time.perf_counter()
    _check_sweep_args(scenario, params, reps, jobs, dask, output, progress, common_seeds,
                      chunk_size, force)
    if jobs is None:
        jobs = default_jobs()
    out_path = Path(output) if output is not None else None
    dataset = out_path is not None and is_dataset(out_path)
    if out_path is not None and not dataset:
        write_table(None, out_path, check_only=True)
        check_new_files(written_files(out_path), force, "sweep output")
    show = _want_progress(progress)
    chunked = out_path is not None or dask is not None or bool(show) or chunk_size is not None
    plan = make_plan(scenario, params, reps, common_seeds,
                     chunk_size if chunked else None, jobs)
    if not chunked:
        return _sweep_direct(plan, jobs, t0, scenario)
    if dataset and out_path is not None:
        return sweep_dataset(plan, out_path, jobs, dask, show, force, t0)

    store = ChunkStore(out_path, plan.digest, plan.describe(), len(plan.chunks), force) if out_path else None
    ordered, resumed = run_plan(plan, jobs, dask, store=store, progress=show)
    df = frame(plan, ordered)
    df.attrs["provenance"] = sweep_provenance(scenario, plan)
    if store:
        store.finish(df)
    df.attrs["sweep"] = {
        **plan.describe(),
        "jobs": jobs if dask is None else None,
        "dask": None if dask is None else (dask if isinstance(dask, str) else repr(dask)),
        "chunks": len(plan.chunks),
        "resumed_chunks": resumed,
        "sim_wall_s": float(sum(p["sim_wall_s"] for p in ordered)),
        "wall_s": time.perf_counter() - t0,
        "definition": plan.digest,
    }
    return df


def _sweep_direct(plan: Plan, jobs: int, t0: float, plan_scenario: Any = None) -> pd.DataFrame:
    """A local sweep without output, progress or chunks: one call into the Rust core
    (which stops promptly on Ctrl-C)."""
    gids, specs, units = plan.payload_of(units_of(0, plan.scenarios, plan.reps))
    part = globalise(chunks.run_chunk(specs, units, jobs), gids)
    df = frame(plan, [part])
    df.attrs["provenance"] = sweep_provenance(plan_scenario, plan)
    df.attrs["sweep"] = {**plan.describe(), "jobs": jobs, "dask": None, "chunks": 1,
                         "resumed_chunks": 0, "sim_wall_s": float(part["sim_wall_s"]),
                         "wall_s": time.perf_counter() - t0, "definition": plan.digest}
    return df


def _check_sweep_args(scenario: Any, params: Any, reps: Any, jobs: Any, dask: Any, output: Any,
                      progress: Any, common_seeds: Any, chunk_size: Any, force: Any) -> None:
    """:func:`sweep`'s arguments, each named in its error (see :mod:`lossrec._args`)."""
    fn = "sweep"
    _args.scenario(fn, scenario)
    _args.mapping(fn, "params", params)
    _args.integer(fn, "reps", reps, 1)
    _args.integer(fn, "jobs", jobs, 1, optional=True)
    _args.dask(fn, dask)
    _args.path(fn, "output", output, optional=True)
    _args.progress(fn, progress)
    _args.boolean(fn, "common_seeds", common_seeds)
    _args.integer(fn, "chunk_size", chunk_size, 1, optional=True)
    _args.boolean(fn, "force", force)
