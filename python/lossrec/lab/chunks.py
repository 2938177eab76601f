"""The columns kind of run: a chunk of a plan through ``_core.run_batch`` (the per-flow
results as columns, built in Rust on a rayon pool with the GIL released), and one
DataFrame from the chunks' results (:func:`frame`)."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from .. import _core
from .plan import INT_FIELDS, RESULT_COLUMNS, Plan, Unit

#: The arrays a chunk result holds (besides its scalar figures).
ARRAYS = ("point", "ints", "fct_ms", "preset", "presets", "time_limit_hit")


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
