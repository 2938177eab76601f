"""A sweep made concrete: its points, their validated scenario texts, seeds and chunks.

1. *Points.* The cartesian product of the swept values (the last key varies fastest). The
   Rust core applies each point's overrides to the parsed base document and validates it
   once (``_core.sweep_points``); an error names the base file and the overrides.
2. *Chunks.* The (point, repetition) pairs, point-major, cut into consecutive blocks of
   ``chunk_size`` scenarios. A chunk is what a worker runs (:mod:`lossrec.lab.runner`),
   what the progress bar counts and what a resumable output saves.

Seeds depend only on the scenario's seed, the point's canonical override string and the
repetition index (:func:`sweep_seed`), so results are identical whatever ``jobs``,
``chunk_size`` or Dask do — and whichever kind of run (columns, details, traces) runs them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _args, _core
from ..scenario import ScenarioLike, load

#: FlowResult fields, in output order (after the swept parameters, ``rep`` and ``seed``):
#: the simulator's one schema (``lossrec_sim::FlowResult::FIELDS``), every field.
FLOW_FIELDS = tuple(name for name, _ in _core.flow_fields())
#: Columns every sweep DataFrame has besides the swept parameters.
RESULT_COLUMNS = ("rep", "seed") + FLOW_FIELDS + ("time_limit_hit",)
INT_FIELDS = ("rep", "seed") + tuple(name for name, kind in _core.flow_fields() if kind == "int")
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


def globalise(res: Dict[str, Any], gids: Any) -> Dict[str, Any]:
    """A chunk result whose ``point`` (indices into the chunk's specs) become the plan's
    point ids; results without a ``point`` array are returned as they are."""
    if "point" not in res:
        return res
    res = dict(res)
    res["point"] = gids[res["point"]]
    return res


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
