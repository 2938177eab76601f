"""Streaming sweeps: the rows go to a partitioned Parquet dataset as chunks finish.

A sweep whose output is a folder (``output="results/"``, ``lossrec sweep -o results/``)
writes each finished chunk as ``results/part-NNNNNN.parquet`` (chunk order, so reading
the folder gives the rows in point, repetition, flow order) and keeps nothing of it: the
sweep's memory is one chunk's, whatever the number of scenarios, locally and through
Dask. ``pandas.read_parquet("results/")`` (or ``pyarrow.dataset``) reads the dataset.

``results/_sweep.json`` names the sweep definition (as ``OUTPUT.partial/manifest.json``
does for a single file) and, once every chunk is written, ``"complete": true`` with the
figures of the run. Partitions are written to a hidden temporary name and renamed, so a
reader never sees half a file; an interrupted sweep re-run with the same arguments
writes only the missing partitions. Files starting with ``_`` or ``.`` are skipped by
Parquet readers.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Set, Union, TYPE_CHECKING

import pandas as pd

from ..errors import OutputExistsError
from .store import _atomic_write

if TYPE_CHECKING:  # pragma: no cover
    from .plan import Plan

MANIFEST = "_sweep.json"


def is_dataset(path: Path) -> bool:
    """A folder output: an existing folder, or a path without a suffix."""
    return path.is_dir() or path.suffix == ""


#: The temporary names a sweep writes through (``PartitionStore.save``, ``_atomic_write``).
_TEMPORARY = re.compile(r"^(\.part-\d{6}\.parquet\.tmp-\d+|_sweep\.json\.tmp)$")


def _written(manifest: Dict[str, Any]) -> Set[str]:
    """The files a sweep whose manifest is ``manifest`` wrote into its folder."""
    parts = manifest.get("partitions", [])
    names = {str(n) for n in parts if isinstance(n, str) and "/" not in n} if isinstance(parts, list) else set()
    return names | {MANIFEST}


def partition_name(i: int) -> str:
    return f"part-{i:06d}.parquet"


class PartitionStore:
    """The partitions of one sweep definition in folder ``out``."""

    def __init__(self, out: Path, digest: str, description: Dict[str, Any], chunks: int,
                 force: bool = False):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(f"{out}: a folder output is a Parquet dataset, which needs pyarrow "
                             f"(pip install pyarrow)") from None
        if out.exists() and not out.is_dir():
            raise ValueError(f"{out}: exists and is not a folder")
        if not out.parent.exists():
            raise ValueError(f"{out}: folder {out.parent} does not exist")
        self.out, self.digest, self.chunks = out, digest, chunks
        manifest = out / MANIFEST
        old: Dict[str, Any] = {}
        if manifest.exists():
            try:
                old = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                old = {}
        ours = _written(old) if manifest.exists() else set()
        if out.is_dir():  # with the temporary files an interrupted run of ours left
            ours |= {p.name for p in out.iterdir() if _TEMPORARY.match(p.name)}
        foreign = sorted(p.name for p in out.iterdir() if p.name not in ours) if out.is_dir() else []
        if (manifest.exists() or foreign) and old.get("definition") != digest:
            if not force:
                what = json.dumps(old.get("sweep", "files that are not a lossrec sweep's"),
                                  sort_keys=True)
                raise OutputExistsError(
                    f"{out}: holds the results of a different sweep ({what}); choose another "
                    f"folder, or pass --force (force=True) to replace them (files lossrec did "
                    f"not write are kept)", str(out))
            # A partition name held by a foreign file would be read as a finished chunk.
            clash = [n for n in foreign if n == MANIFEST or n.startswith("part-")]
            if clash:
                raise OutputExistsError(
                    f"{out}: {', '.join(clash[:5])} is not lossrec's, and a sweep writes files "
                    f"of that name: move it away or choose another folder (--force keeps "
                    f"foreign files, it does not overwrite them)", str(out))
            for name in ours:  # the other sweep's files, and only those
                p = out / name
                if p.is_file():
                    p.unlink()
        out.mkdir(exist_ok=True)
        self.description = description
        if not manifest.exists() or old.get("complete"):
            self._manifest(complete=False)

    def _manifest(self, complete: bool, figures: Optional[Dict[str, Any]] = None) -> None:
        body = {"definition": self.digest, "chunks": self.chunks, "sweep": self.description,
                "complete": complete, "partitions": [partition_name(i) for i in range(self.chunks)]}
        if figures:
            body["figures"] = figures
        _atomic_write(self.out / MANIFEST, json.dumps(body, indent=2).encode())

    def done(self) -> Set[int]:
        """Chunks whose partition is on disk (complete: it was renamed into place)."""
        return {i for i in range(self.chunks) if (self.out / partition_name(i)).exists()}

    def rows(self, chunks: Set[int]) -> int:
        """Rows in the partitions of ``chunks`` (from their footers, not their data)."""
        import pyarrow.parquet as pq

        return sum(pq.read_metadata(self.out / partition_name(i)).num_rows for i in chunks)

    def save(self, i: int, df: pd.DataFrame) -> None:
        tmp = self.out / f".{partition_name(i)}.tmp-{os.getpid()}"
        try:
            df.to_parquet(tmp, index=False)
            os.replace(tmp, self.out / partition_name(i))
        finally:
            if tmp.exists():
                tmp.unlink()

    def finish(self, figures: Dict[str, Any]) -> None:
        self._manifest(complete=True, figures=figures)


def sweep_dataset(plan: "Plan", out: Path, jobs: int, dask: Any,
                  show: Union[bool, Callable[[int, int], None]], force: bool,
                  t0: float) -> pd.DataFrame:
    """Runs ``plan`` writing partitions to ``out`` (see the module doc). Returns an empty
    DataFrame with the result columns and ``attrs["sweep"]`` (``rows``, ``output``,
    ``partitions`` besides the usual figures): the rows themselves are in the folder."""
    from .chunks import frame
    from .runner import _Progress, dispatch

    store = PartitionStore(out, plan.digest, plan.describe(), len(plan.chunks), force)
    done = store.done()
    bar = _Progress(show, plan.scenarios, sum(plan.chunk_scenarios(i) for i in done))
    figures = {"rows": store.rows(done), "sim_wall_s": 0.0}

    def finished(i: int, res: Dict[str, Any]) -> None:
        df = frame(plan, [res])
        store.save(i, df)
        figures["rows"] += len(df)
        figures["sim_wall_s"] += float(res["sim_wall_s"])
        bar.update(plan.chunk_scenarios(i))

    todo = [i for i in range(len(plan.chunks)) if i not in done]
    try:
        dispatch(plan, todo, jobs, dask, finished)
    finally:
        bar.close()
    attrs = {
        **plan.describe(),
        "jobs": jobs if dask is None else None,
        "dask": None if dask is None else (dask if isinstance(dask, str) else repr(dask)),
        "chunks": len(plan.chunks),
        "resumed_chunks": len(done),
        "rows": figures["rows"],
        # The chunks this call ran (resumed ones were simulated before).
        "sim_wall_s": figures["sim_wall_s"],
        "wall_s": time.perf_counter() - t0,
        "definition": plan.digest,
        "output": str(out),
        "partitions": len(plan.chunks),
    }
    store.finish({k: attrs[k] for k in ("rows", "sim_wall_s", "wall_s", "resumed_chunks")})
    empty = frame(plan, [])
    empty.attrs["sweep"] = attrs
    return empty
