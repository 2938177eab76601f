"""``reproduce`` as a long job: progress, resume, atomic folders and provenance.

* **Atomic.** A study is written to ``OUT/.<study>.tmp-<pid>/`` and renamed to
  ``OUT/<study>/`` when complete, so a folder under ``OUT`` is always a finished study.
* **Only its own files.** ``OUT/<study>/.lossrec-files.json`` lists what the run wrote; a
  rerun replaces those files and nothing else. A study folder holding other files is
  refused before the run starts unless ``force`` (``--force``), which writes beside them
  and keeps them (:mod:`lossrec.outputs`).
* **Resume.** Each finished sweep is kept in ``OUT/.partial/<study>/`` (a simulator sweep
  also keeps its finished chunks, as ``lossrec sweep -o`` does), and each finished study has
  ``run.json`` naming its definition (a hash of the study folder, the mode and the build):
  re-running the same command skips finished studies and sweeps, and reruns a study whose
  files or build changed.
* **Progress.** Two bars with ETA (tqdm.auto): every study together, and the current one;
  both count scenarios.
* **Provenance.** ``run.json`` and the Parquet files carry lossrec's version, the commit,
  each scenario file's SHA-256 and the seeds (each file's base seed; every row has its own
  in the ``seed`` column).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Set

import pandas as pd

from .._provenance import build, scenario_hash
from ..errors import OutputExistsError
from ..outputs import Manifest, files_under, prune_empty, remove_written
from ..scenario import _toml_loads
from .claims import Verdict

if TYPE_CHECKING:  # pragma: no cover
    from .study import Study, Sweep

PARTIAL = ".partial"
RUN_FILE = "run.json"
#: The list of files a run wrote into ``OUT/<study>/`` (see :mod:`lossrec.outputs`).
MANIFEST = ".lossrec-files.json"
SEED_RULE = ("each row's seed = splitmix64(splitmix64(scenario seed ^ fnv1a64(point key)) ^ rep) "
             ">> 1, with an empty point key for sweeps with common seeds")
#: Files of a study folder that do not change what it computes.
_IGNORED = {"expected.toml"}


def _digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, default=str).encode())
        h.update(b"\0")
    return h.hexdigest()


_ENGINE: Dict[str, str] = {}


def engine_hash() -> str:
    """SHA-256 of the compiled extension: a rebuild of a modified checkout keeps the commit
    but changes this, so a finished study is not reused across engine builds."""
    if "h" not in _ENGINE:
        from .. import _core

        try:
            _ENGINE["h"] = hashlib.sha256(Path(_core.__file__ or "").read_bytes()).hexdigest()
        except (OSError, TypeError):
            _ENGINE["h"] = "unknown"
    return _ENGINE["h"]


def study_definition(study: "Study", quick: bool) -> str:
    """A hash of everything a study's output depends on: its files, the mode, the build
    (version, commit and the extension's own hash)."""
    files = []
    for p in sorted(study.dir.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.name not in _IGNORED:
            files.append((p.relative_to(study.dir).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest()))
    b = build()
    return _digest(files, quick, b["version"], b["commit"], engine_hash())


def scenarios(sw: "Sweep") -> int:
    """The number of scenarios (points × repetitions) of a sweep."""
    n = 1
    for v in sw.params.values():
        n *= len(v) if isinstance(v, (list, tuple)) else 1
    return n * sw.reps


def provenance(study: "Study", quick: bool, sweeps: Sequence["Sweep"]) -> Dict[str, Any]:
    """The study's provenance: build, every scenario file's hash and base seed."""
    b = build()
    files: Dict[str, Any] = {}
    for name in dict.fromkeys(sw.scenario for sw in sweeps):
        try:
            text = (study.dir / name).read_text(encoding="utf-8")
            files[name] = {"sha256": scenario_hash(text), "seed": _toml_loads(text).get("seed")}
        except (OSError, ValueError):
            files[name] = {"sha256": None, "seed": None}
    return {"study": study.name, "seed_document": study.seed, "quick": quick,
            "lossrec": b["version"], "commit": b["commit"], "python": platform.python_version(),
            "engine_sha256": engine_hash(), "study_checkout": _checkout(study.dir),
            "scenarios": files, "seed_rule": SEED_RULE,
            "definition": study_definition(study, quick)}


def _checkout(folder: Path) -> Optional[Dict[str, Any]]:
    """The git commit of the study folder's checkout and whether the folder has changes
    beside it (the engine's commit, ``commit``, is the build's), or None outside git."""
    import subprocess

    try:
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10)
        return {"commit": head.stdout.strip(), "modified": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def write_parquet(df: pd.DataFrame, path: Path, prov: Optional[Dict[str, Any]] = None) -> None:
    """``df`` as Parquet (zstd) via a temporary name, with ``prov`` in the file's metadata
    (key ``lossrec.provenance``). Object columns of mixed types are stored as text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = df.copy()
    df.attrs = {}
    for c in df.columns:
        if df[c].dtype == object:
            kinds = {type(x) for x in df[c].dropna()}
            if len(kinds) > 1 or kinds & {list, dict, tuple}:
                df[c] = df[c].map(lambda x: None if x is None or (isinstance(x, float) and math.isnan(x))
                                  else (json.dumps(x) if isinstance(x, (list, dict, tuple)) else str(x)))
    table = pa.Table.from_pandas(df, preserve_index=False)
    if prov is not None:
        meta = dict(table.schema.metadata or {})
        meta[b"lossrec.provenance"] = json.dumps(prov, default=str).encode()
        table = table.replace_schema_metadata(meta)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def read_provenance(path: Path) -> Dict[str, Any]:
    """The provenance stored in a Parquet file by :func:`write_parquet`."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    return json.loads(meta.get(b"lossrec.provenance", b"{}"))


class StudyJob:
    """Where one study's run lives: the finished folder, the staging folder and the
    finished sweeps of an interrupted run. ``force``: write into a study folder that holds
    files lossrec did not write (they are kept)."""

    def __init__(self, out: Path, study: "Study", quick: bool, force: bool = False):
        self.out, self.study, self.quick, self.force = out, study, quick, force
        self.final = out / study.name
        self.work = out / PARTIAL / study.name
        self.definition = study_definition(study, quick)
        self.manifest = Manifest(self.final, MANIFEST, legacy=self._legacy_files)

    def _legacy_files(self) -> Set[str]:
        """What a run of an older lossrec (no manifest) wrote: ``run.json`` naming this
        study, its ``report.md`` and the files the report links to."""
        try:
            run = json.loads((self.final / RUN_FILE).read_text(encoding="utf-8"))
            report = (self.final / "report.md").read_text(encoding="utf-8")
        except (OSError, ValueError):
            return set()
        if not isinstance(run, dict) or run.get("provenance", {}).get("study") != self.study.name:
            return set()
        linked = {m for m in re.findall(r"\]\(([^)\s/]+)\)", report) if (self.final / m).is_file()}
        return linked | {RUN_FILE, "report.md"}

    def check_output(self) -> None:
        """Refuses, before any work, a study folder holding files lossrec did not write
        (unless ``force``)."""
        foreign = self.manifest.refuse_foreign(self.force, f"`lossrec reproduce {self.study.name}`")
        in_the_way = sorted(set(foreign) & {MANIFEST, RUN_FILE, "report.md", "results.parquet"})
        if in_the_way:
            raise self._in_the_way(in_the_way)

    def _in_the_way(self, names: List[str]) -> OutputExistsError:
        return OutputExistsError(
            f"{self.final}: {', '.join(names)} would be overwritten, and lossrec did not write "
            f"it: move it away or choose another output (--force keeps foreign files, it does "
            f"not overwrite them)", str(self.final))

    # ------------------------------------------------------------------ finished studies
    def finished(self) -> Optional[Dict[str, Any]]:
        """The ``run.json`` of a finished run of this very definition, else None."""
        try:
            run = json.loads((self.final / RUN_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        ok = run.get("provenance", {}).get("definition") == self.definition
        return run if ok and (self.final / "report.md").exists() else None

    @staticmethod
    def verdicts(run: Dict[str, Any]) -> List[Verdict]:
        return [Verdict.from_dict(v) for v in run.get("verdicts", [])]

    # ------------------------------------------------------------------------- sweeps
    def sweep_key(self, i: int, sw: "Sweep") -> str:
        try:
            text = (self.study.dir / sw.scenario).read_text(encoding="utf-8")
        except OSError:
            text = ""
        b = build()
        return _digest(i, sw.scenario, text, sw.params, sw.reps, sw.common_seeds, sw.labels,
                       sw.details, sw.runner, sw.wire, self.quick, b["version"], b["commit"],
                       engine_hash())[:16]

    def sweep_path(self, i: int, sw: "Sweep") -> Path:
        self.work.mkdir(parents=True, exist_ok=True)
        return self.work / f"sweep-{i:02d}-{self.sweep_key(i, sw)}"

    def load_sweep(self, base: Path) -> Optional[Dict[str, Any]]:
        """A finished sweep: ``{"df", "recoveries", "run"}``, or None."""
        meta = base.with_suffix(".json")
        rows = base.with_suffix(".parquet")
        if not (meta.exists() and rows.exists()):
            return None
        try:
            run = json.loads(meta.read_text(encoding="utf-8"))
            df = pd.read_parquet(rows)
            rec_path = base.with_name(base.name + "-recoveries.parquet")
            rec = pd.read_parquet(rec_path) if rec_path.exists() else None
        except (OSError, ValueError):
            return None
        return {"df": df, "recoveries": rec, "run": run}

    def save_sweep(self, base: Path, df: pd.DataFrame, rec: Optional[pd.DataFrame],
                   run: Dict[str, Any], rows_written: bool = False) -> None:
        if not rows_written:
            write_parquet(df, base.with_suffix(".parquet"))
        if rec is not None:
            write_parquet(rec, base.with_name(base.name + "-recoveries.parquet"))
        meta = base.with_suffix(".json")
        tmp = meta.with_name(meta.name + ".tmp")
        tmp.write_text(json.dumps(run, default=str, indent=1), encoding="utf-8")
        os.replace(tmp, meta)

    # ------------------------------------------------------------------ atomic output
    def staging(self) -> Path:
        d = self.out / f".{self.study.name}.tmp-{os.getpid()}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        return d

    def commit(self, staging: Path) -> None:
        """Puts ``staging`` in place as ``OUT/<study>`` with a manifest of its files, and
        drops the finished sweeps. Without foreign files: two renames (the old folder is
        set aside, then only the files its manifest lists are removed). With foreign files
        (``force``): file by file, replacing only what lossrec wrote before; a foreign
        file in the way of one of ours is refused even then."""
        written = files_under(staging)
        self.manifest.write(written, into=staging)
        foreign = self.manifest.refuse_foreign(self.force, f"`lossrec reproduce {self.study.name}`")
        ours = self.manifest.files()
        if not self.final.exists():
            os.replace(staging, self.final)
        elif not foreign:
            old = self.out / f".{self.study.name}.old-{os.getpid()}"
            os.replace(self.final, old)
            os.replace(staging, self.final)
            remove_written(old, ours | {MANIFEST})
            prune_empty(old)  # a file that appeared meanwhile is not ours: it stays
        else:
            in_the_way = sorted(set(written) & set(foreign))
            if in_the_way:
                raise self._in_the_way(in_the_way)
            remove_written(self.final, ours - set(written))
            for rel in written + [MANIFEST]:
                (self.final / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / rel, self.final / rel)
            shutil.rmtree(staging, ignore_errors=True)  # our staging, emptied above
        shutil.rmtree(self.work, ignore_errors=True)
        try:
            (self.out / PARTIAL).rmdir()
        except OSError:
            pass


class Progress:
    """Two tqdm bars (every study, the current study) counting scenarios, or nothing;
    ``callback(study, done, total)`` is called too when given."""

    def __init__(self, show: bool, total: int,
                 callback: Optional[Callable[[str, int, int], None]] = None):
        self.callback = callback
        self.all = self.one = None
        self.name, self.total_one, self.done_one = "", 0, 0
        if show:
            from tqdm.auto import tqdm

            self._tqdm = tqdm
            self.all = tqdm(total=total, unit="scenario", desc="all studies", position=0,
                            file=sys.stderr, dynamic_ncols=True, smoothing=0.05)

    def study(self, name: str, total: int, done: int = 0) -> None:
        self.close_study()
        self.name, self.total_one, self.done_one = name, total, done
        if self.all is not None:
            self.one = self._tqdm(total=total, initial=done, unit="scenario", desc=name,
                                  position=1, leave=False, file=sys.stderr, dynamic_ncols=True,
                                  smoothing=0.1)
            if done:
                self.all.update(done)
        self._notify()

    def advance(self, n: int) -> None:
        if n <= 0:
            return
        self.done_one += n
        for b in (self.all, self.one):
            if b is not None:
                b.update(n)
        self._notify()

    def phase(self, text: str) -> None:
        if self.one is not None:
            self.one.set_postfix_str(text)

    def sweep_callback(self) -> Callable[[int, int], None]:
        """For :func:`~lossrec.lab.sweeps.sweep`: advances by the scenarios done since the
        last call (its count includes chunks resumed from disk)."""
        last = [0]

        def cb(done: int, total: int) -> None:
            self.advance(done - last[0])
            last[0] = done

        return cb

    def _notify(self) -> None:
        if self.callback is not None:
            self.callback(self.name, self.done_one, self.total_one)

    def close_study(self) -> None:
        if self.one is not None:
            self.one.close()
            self.one = None

    def close(self) -> None:
        self.close_study()
        if self.all is not None:
            self.all.close()
            self.all = None
