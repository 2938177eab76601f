"""Resumable sweep output: completed chunks live in ``OUTPUT.partial/`` until the end.

``OUTPUT.partial/manifest.json`` names the sweep definition (a hash of the scenario text,
the swept values, the repetitions, the seed rule, the chunk size and the lossrec version);
each completed chunk is ``chunk-NNNNNN.npz`` (numpy arrays only, no pickle), written to a
temporary name and renamed, so an interruption never leaves a half-written chunk behind.
A re-run with the same definition loads the saved chunks and runs the rest; a different
definition is refused unless ``force``. When every chunk is done the output file is written
(also via a temporary name) and the folder removed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from ..errors import OutputExistsError
from ..outputs import check_new_files

SUFFIXES = (".csv", ".parquet")
_SCALARS = ("sim_wall_s", "scenarios")


def partial_dir(output: Path) -> Path:
    return output.with_name(output.name + ".partial")


def written_files(path: Path) -> List[Path]:
    """The files a sweep output ``path`` writes: the table, and beside a CSV its provenance
    (``FILE.csv.json``)."""
    side = [path.with_name(path.name + ".json")] if path.suffix.lower() == ".csv" else []
    return [path] + side


def write_table(df: Optional[pd.DataFrame], path: Path, check_only: bool = False,
                force: bool = False) -> None:
    """Writes ``df`` as CSV or Parquet by ``path``'s suffix (via a temporary file). An
    existing file is refused unless ``force`` (:mod:`lossrec.outputs`)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{path}: the output must end in .csv or .parquet, or be a folder "
                         f"(a partitioned Parquet dataset)")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow)") from None
    if path.parent and not path.parent.exists():
        raise ValueError(f"{path}: folder {path.parent} does not exist")
    if check_only or df is None:
        return
    # Checked before the run too (sweep); again here, for whatever appeared meanwhile.
    check_new_files(written_files(path), force)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        if suffix == ".csv":
            df.to_csv(tmp, index=False)
            if df.attrs.get("provenance"):
                # CSV has no metadata: the provenance goes beside it (FILE.csv.json).
                side = path.with_name(path.name + ".json")
                side.write_text(json.dumps({"provenance": df.attrs["provenance"]}, indent=2) + "\n")
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


class ChunkStore:
    """The partial results of one sweep definition at ``OUTPUT.partial/``."""

    def __init__(self, output: Path, digest: str, description: Dict[str, Any], chunks: int,
                 force: bool = False):
        self.output, self.force = output, force
        self.dir = partial_dir(output)
        self.digest = digest
        self.chunks = chunks
        manifest = self.dir / "manifest.json"
        if self.dir.exists():
            try:
                old = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                old = {}
            if old.get("definition") != digest:
                if not force:
                    what = json.dumps(old.get("sweep", "unknown"), sort_keys=True)
                    raise OutputExistsError(
                        f"{output}: {self.dir} holds the partial results of a different sweep "
                        f"({what}); re-run that sweep to finish it, choose another output, or "
                        f"pass --force (force=True) to discard them", str(self.dir))
                self._discard()
        self.dir.mkdir(exist_ok=True)
        if not manifest.exists():
            _atomic_write(manifest, json.dumps(
                {"definition": digest, "chunks": chunks, "sweep": description}, indent=2).encode())

    def _path(self, i: int) -> Path:
        return self.dir / f"chunk-{i:06d}.npz"

    def load(self) -> Dict[int, Dict[str, Any]]:
        """The chunks saved so far (an unreadable file is ignored and its chunk redone)."""
        out: Dict[int, Dict[str, Any]] = {}
        for i in range(self.chunks):
            p = self._path(i)
            if not p.exists():
                continue
            try:
                with np.load(p, allow_pickle=False) as z:
                    res: Dict[str, Any] = {k: z[k] for k in z.files}
            except (OSError, ValueError, KeyError):
                continue
            for k in _SCALARS:
                res[k] = res[k].item()
            res["version"] = str(res["version"])
            out[i] = res
        return out

    def save(self, i: int, res: Dict[str, Any]) -> None:
        arrays = {k: np.asarray(v) for k, v in res.items()}
        tmp = self.dir / f".chunk-{i:06d}.tmp.npz"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, self._path(i))

    def finish(self, df: pd.DataFrame) -> None:
        write_table(df, self.output, force=self.force)
        self._discard()

    def _discard(self) -> None:
        """Removes what a sweep writes here (the manifest, chunks and their temporary
        names), then the folder if that emptied it: a file lossrec did not write stays."""
        for p in self.dir.iterdir():
            n = p.name
            if p.is_file() and (n in ("manifest.json", "manifest.json.tmp")
                                or (n.startswith(("chunk-", ".chunk-")) and n.endswith(".npz"))):
                p.unlink()
        try:
            self.dir.rmdir()
        except OSError:
            pass


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
