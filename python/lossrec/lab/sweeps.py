"""Parameter sweeps: every combination of ``--set`` values × repetitions of one scenario.

The work is split so that Python never touches a single scenario run:

1. *Points.* The cartesian product of the swept values (the last key varies fastest). The
   Rust core applies each point's overrides to the parsed base document and validates it
   once (``_core.sweep_points``); an error names the base file and the overrides.
2. *Chunks.* The (point, repetition) pairs, point-major, cut into consecutive blocks of
   ``chunk_size`` scenarios. A chunk is what a Dask task runs, what the progress bar counts
   and what the resumable output saves.
3. *Batches.* ``_core.run_batch`` parses each point of a chunk once, runs its scenarios on a
   rayon pool with the GIL released and returns the per-flow results as columns; Python
   builds one DataFrame from them.

Seeds depend only on the scenario's seed, the point's canonical override string and the
repetition index (:func:`sweep_seed`), so results are identical whatever ``jobs``,
``chunk_size`` or Dask do.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from .. import _args, _core
from ..outputs import check_new_files
from ..scenario import ScenarioLike, load
from .._provenance import sweep_provenance
from .store import ChunkStore, write_table, written_files
from .stream import is_dataset, sweep_dataset

#: FlowResult fields, in output order (after the swept parameters, ``rep`` and ``seed``):
#: the simulator's one schema (``lossrec_sim::FlowResult::FIELDS``), every field.
FLOW_FIELDS = tuple(name for name, _ in _core.flow_fields())
#: Columns every sweep DataFrame has besides the swept parameters.
RESULT_COLUMNS = ("rep", "seed") + FLOW_FIELDS + ("time_limit_hit",)
INT_FIELDS = ("rep", "seed") + tuple(name for name, kind in _core.flow_fields() if kind == "int")
#: The arrays a chunk result holds (besides its scalar figures).
ARRAYS = ("point", "ints", "fct_ms", "preset", "presets", "time_limit_hit")
#: Automatic chunking: about this many chunks, each at least MIN_CHUNK scenarios and at
#: most MAX_CHUNK (so that a chunk's rows, all a streaming sweep holds, stay bounded).
TARGET_CHUNKS = 100
MIN_CHUNK = 64
MAX_CHUNK = 4096

Value = Union[bool, int, float, str]
Unit = Tuple[int, int, int]  # (point, first rep, end rep)


def sweep_seed(base: int, key: str, rep: int) -> int:
    """The seed of repetition ``rep`` of a point: ``splitmix64(splitmix64(base ^
    fnv1a64(key)) ^ rep) >> 1``, where ``base`` is the point's scenario seed and ``key`` its
    canonical override string (``""`` with ``common_seeds``)."""
    _args.integer("sweep_seed", "base", base, 0, _args.U64_MAX)
    _args.text("sweep_seed", "key", key)
    _args.integer("sweep_seed", "rep", rep, 0, _args.U64_MAX)
    return _core.sweep_seed(base, key, rep)


# ---------------------------------------------------------------------------- values



def parse_set(item: str) -> Tuple[str, List[Value]]:
    """``"path.rtt_ms=10,20"`` → ``("path.rtt_ms", [10, 20])``: the one ``--set`` grammar
    (:func:`lossrec.sets.parse_set`: TOML values, lists, ranges, bare axis names)."""
    from ..sets import parse_set as parse

    return parse(item)


def canonical(v: Any) -> str:
    """A value's canonical text (the seed depends on it): TOML-like, floats by repr."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    return json.dumps(str(v))


def _plain(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (list, tuple, str)):
        return v.item()  # numpy scalars
    return v


# ------------------------------------------------------------------------------ plan


@dataclass
class Plan:
    """A sweep definition made concrete: points, their scenario texts and the chunks."""

    origin: str
    keys: Tuple[str, ...]
    values: Tuple[Tuple[Any, ...], ...]
    reps: int
    common_seeds: bool
    points: List[Tuple[int, ...]]  # value index per key, per point
    specs: List[Tuple[str, str, str]]  # (text, origin, seed key) per point
    chunk_size: int
    chunks: List[List[Unit]]
    digest: str

    @property
    def scenarios(self) -> int:
        return len(self.points) * self.reps

    def describe(self) -> Dict[str, Any]:
        return {"scenario": self.origin, "set": {k: list(v) for k, v in zip(self.keys, self.values)},
                "reps": self.reps, "common_seeds": self.common_seeds, "chunk_size": self.chunk_size,
                "points": len(self.points), "scenarios": self.scenarios}

    def chunk_scenarios(self, i: int) -> int:
        return sum(b - a for _, a, b in self.chunks[i])

    def payload(self, i: int) -> Tuple[np.ndarray, List[Tuple[str, str, str]], List[Unit]]:
        """Chunk ``i`` for ``run_batch``: (global point ids, their specs, local units)."""
        return self.payload_of(self.chunks[i])

    def payload_of(self, chunk: Sequence[Unit]) -> Tuple[np.ndarray, List[Tuple[str, str, str]], List[Unit]]:
        gids: List[int] = []
        local: Dict[int, int] = {}
        units: List[Unit] = []
        for p, a, b in chunk:
            if p not in local:
                local[p] = len(gids)
                gids.append(p)
            units.append((local[p], a, b))
        return np.asarray(gids, dtype=np.int64), [self.specs[g] for g in gids], units


def units_of(a: int, b: int, reps: int) -> List[Unit]:
    """The (point, first rep, end rep) units covering scenarios [a, b) in point-major order."""
    return [(p, max(a - p * reps, 0), min(b - p * reps, reps))
            for p in range(a // reps, (b - 1) // reps + 1)] if b > a else []


def cut_chunks(points: int, reps: int, size: int) -> List[List[Unit]]:
    """Consecutive blocks of ``size`` (point, rep) pairs in point-major order, as units."""
    total = points * reps
    return [units_of(a, min(a + size, total), reps) for a in range(0, total, size)]


def _normalise_params(params: Optional[Mapping[str, Any]]) -> Tuple[Tuple[str, ...], Tuple[Tuple[Any, ...], ...]]:
    if params is None:
        return (), ()
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a dict of key → list of values, not {type(params).__name__}")
    keys, values = [], []
    for k, vs in params.items():
        if not isinstance(k, str) or not k.strip():
            raise ValueError(f"a swept key must be a dotted scenario key such as path.rtt_ms, got {k!r}")
        if k in RESULT_COLUMNS:
            hint = " (use reps to vary seeds: every repetition gets its own)" if k == "seed" else ""
            raise ValueError(f"--set {k}: cannot be swept, it is a result column{hint}")
        if isinstance(vs, (str, bytes)) or not isinstance(vs, Iterable):
            vs = [vs]
        vs = [_plain(v) for v in vs]
        if not vs:
            raise ValueError(f"--set {k}: no values")
        seen = set()
        for v in vs:
            c = canonical(v)
            if c in seen:
                raise ValueError(f"--set {k}: value {c} is given twice")
            seen.add(c)
        keys.append(k)
        values.append(tuple(vs))
    return tuple(keys), tuple(values)


def make_plan(
    scenario: ScenarioLike,
    params: Optional[Mapping[str, Any]] = None,
    reps: int = 1,
    common_seeds: bool = False,
    chunk_size: Optional[int] = None,
    threads: int = 1,
) -> Plan:
    """Builds and validates every point of a sweep (see the module doc)."""
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise ValueError(f"reps must be a positive integer, got {reps!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    text, origin = load(scenario)
    keys, values = _normalise_params(params)
    points = list(itertools.product(*[range(len(v)) for v in values]))
    overrides = [[(k, values[j][i]) for j, (k, i) in enumerate(zip(keys, pt))] for pt in points]
    built = _core.sweep_points(text, origin, overrides, threads)
    seed_keys = ["" if common_seeds else ";".join(f"{k}={canonical(v)}" for k, v in sorted(ov))
                 for ov in overrides]
    specs = [(t, o, sk) for (t, o), sk in zip(built, seed_keys)]
    total = len(points) * reps
    size = chunk_size or max(MIN_CHUNK, min(MAX_CHUNK, math.ceil(total / TARGET_CHUNKS)))
    h = hashlib.sha256()
    for part in (_core.__version__, text, json.dumps([keys, [[canonical(v) for v in vs] for vs in values]]),
                 str(reps), str(common_seeds), str(size)):
        h.update(part.encode())
        h.update(b"\0")
    return Plan(origin, keys, values, reps, common_seeds, points, specs, size,
                cut_chunks(len(points), reps, size), h.hexdigest())


def point_scenario(scenario: ScenarioLike, overrides: Mapping[str, Any]) -> str:
    """The TOML text of one sweep point: ``scenario`` with the dotted-key ``overrides``
    applied and validated (e.g. to trace one point of a sweep with :func:`lossrec.run`)."""
    _args.scenario("point_scenario", scenario)
    _args.mapping("point_scenario", "overrides", overrides, optional=False)
    text, origin = load(scenario)
    [(out, _)] = _core.sweep_points(text, origin, [[(k, _plain(v)) for k, v in overrides.items()]])
    return out


# ----------------------------------------------------------------------------- chunks


def run_chunk(specs: Sequence[Tuple[str, str, str]], units: Sequence[Unit], threads: int = 1) -> Dict[str, Any]:
    """Runs one chunk in the Rust core; returns its columns as numpy arrays — ``point``
    (the index into ``specs``), ``ints`` (one (len(INT_FIELDS), rows) block of ``INT_FIELDS``),
    ``fct_ms``, ``preset`` (codes into ``presets``), ``time_limit_hit`` — plus
    ``sim_wall_s``, ``scenarios`` and ``version``. A top-level function so that Dask
    workers can run it. The arrays view the buffers Rust wrote where they can."""
    d = _core.run_batch(list(specs), list(units), threads)
    n = d["rows"]
    return {
        "point": np.frombuffer(d["point"], "<u4").astype(np.int64),
        "ints": np.frombuffer(d["ints"], "<i8").reshape(len(INT_FIELDS), n),
        "fct_ms": np.frombuffer(d["fct_ms"], "<f8"),
        "preset": np.frombuffer(d["preset"], "<u4").astype(np.int32),
        "presets": np.asarray(d["presets"], dtype=str),
        "time_limit_hit": np.frombuffer(d["time_limit_hit"], np.uint8).astype(bool),
        "sim_wall_s": d["sim_wall_s"],
        "scenarios": d["scenarios"],
        "version": _core.__version__,
    }


def _globalise(res: Dict[str, Any], gids: np.ndarray) -> Dict[str, Any]:
    res = dict(res)
    res["point"] = gids[res["point"]]
    return res


def _objects(vals: Sequence[Any]) -> np.ndarray:
    arr = np.empty(len(vals), dtype=object)
    arr[:] = vals
    return arr


def _column(vals: Sequence[Any], codes: np.ndarray) -> Any:
    """A swept key's column from its values and per-row value codes: numeric and boolean
    values keep their dtype; strings become a categorical (no per-row string work)."""
    if all(isinstance(v, bool) for v in vals):
        return np.asarray(vals, dtype=bool)[codes]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return np.asarray(vals)[codes]
    if all(isinstance(v, str) for v in vals):
        return pd.Categorical.from_codes(codes, categories=list(vals))
    return _objects(vals)[codes]


def frame(plan: Plan, parts: Sequence[Dict[str, Any]]) -> pd.DataFrame:
    """One DataFrame from chunk results in chunk order (columns as documented at :func:`sweep`)."""
    if not parts:
        parts = [{"point": np.zeros(0, np.int64), "ints": np.zeros((len(INT_FIELDS), 0), np.int64),
                  "fct_ms": np.zeros(0), "preset": np.zeros(0, np.int32),
                  "presets": np.zeros(0, str), "time_limit_hit": np.zeros(0, bool)}]
    one = len(parts) == 1

    def cat(k: str, axis: int = 0) -> np.ndarray:
        return parts[0][k] if one else np.concatenate([p[k] for p in parts], axis=axis)

    # Preset names: one table over every chunk, in order of first appearance.
    names: List[str] = []
    codes = []
    for p in parts:
        local = [str(n) for n in p["presets"]]
        for n in local:
            if n not in names:
                names.append(n)
        remap = np.asarray([names.index(n) for n in local] or [0], dtype=np.int32)
        codes.append(remap[p["preset"]])
    point = cat("point")
    ints = dict(zip(INT_FIELDS, cat("ints", axis=1)))
    data: Dict[str, Any] = {}
    pcodes = np.asarray(plan.points, dtype=np.int64).reshape(len(plan.points), len(plan.keys))
    for j, key in enumerate(plan.keys):
        data[key] = _column(plan.values[j], pcodes[point, j])
    for k in RESULT_COLUMNS:
        if k == "preset":
            data[k] = pd.Categorical.from_codes(codes[0] if one else np.concatenate(codes),
                                                categories=names)
        elif k in ints:
            data[k] = ints[k]
        else:
            data[k] = cat(k)
    return pd.DataFrame(data)


ProgressLike = Optional[Union[bool, Callable[[int, int], None]]]


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
    parts: Dict[int, Dict[str, Any]] = store.load() if store else {}
    resumed = len(parts)
    done = sum(plan.chunk_scenarios(i) for i in parts)
    bar = _Progress(show, plan.scenarios, done)

    def finished(i: int, res: Dict[str, Any]) -> None:
        if store:
            store.save(i, res)
        parts[i] = res
        bar.update(plan.chunk_scenarios(i))

    todo = [i for i in range(len(plan.chunks)) if i not in parts]
    try:
        dispatch(plan, todo, jobs, dask, finished)
    finally:
        bar.close()
    ordered = [parts[i] for i in range(len(plan.chunks))]
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


def dispatch(plan: Any, todo: List[int], jobs: int, dask: Any,
             finished: Callable[[int, Dict[str, Any]], None]) -> None:
    """Runs the chunks `todo` of `plan` here (`jobs` threads) or on a Dask cluster, calling
    `finished(i, result)` as each completes; refuses a worker of another lossrec version."""

    def checked(i: int, res: Dict[str, Any]) -> None:
        if res.get("version") != _core.__version__:
            raise ValueError(f"a worker runs lossrec {res.get('version')}, this client "
                             f"{_core.__version__}; install the same version everywhere")
        finished(i, res)

    if dask is not None:
        from .cluster import run_on_dask

        run_on_dask(dask, plan, todo, checked)
    else:
        for i in todo:
            gids, specs, units = plan.payload(i)
            checked(i, _globalise(run_chunk(specs, units, jobs), gids))


def _sweep_direct(plan: Plan, jobs: int, t0: float, plan_scenario: Any = None) -> pd.DataFrame:
    """A local sweep without output, progress or chunks: one call into the Rust core
    (which stops promptly on Ctrl-C)."""
    gids, specs, units = plan.payload_of(units_of(0, plan.scenarios, plan.reps))
    part = _globalise(run_chunk(specs, units, jobs), gids)
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


def default_jobs() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _want_progress(progress: ProgressLike) -> Union[bool, Callable[[int, int], None]]:
    if progress is None:
        try:
            return sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False
    return progress


class _Progress:
    """tqdm on stderr (with ETA), a callback, or nothing."""

    def __init__(self, how: Union[bool, Callable[[int, int], None]], total: int, done: int):
        self.cb = how if callable(how) else None
        self.total, self.done = total, done
        self.bar = None
        if how is True:
            from tqdm.auto import tqdm  # a widget in notebooks, text on a terminal

            self.bar = tqdm(total=total, initial=done, unit="scenario",
                            file=sys.stderr, desc="sweep", dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        if self.cb is not None:
            self.cb(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
