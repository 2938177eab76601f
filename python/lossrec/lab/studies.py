"""``lossrec reproduce``: studies under ``experiments/<name>/`` and their reports.

A study is a folder holding ``study.py``, ``published.toml`` and its scenario files (see
``experiments/README.md`` for the contract). :func:`reproduce` runs its sweeps, writes
``DIR/<name>/results.parquet``, the figures as PNG and SVG, ``report.md`` with the
published-vs-ours verdict table and ``run.json`` (provenance and verdicts);
:func:`reproduce_all` does every study and writes ``DIR/index.md``. Resume, atomic
folders and progress: :mod:`lossrec.lab.jobs`; expected verdicts: :mod:`lossrec.lab.frozen`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import json
import os
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import pandas as pd

from .. import _args, _core
from ..errors import ArgumentError
from ..scenario import _toml_loads
from . import calibration, frozen, phase
from . import jobs as jobs_mod
from .claims import NOT_COMPARABLE, Verdict, check_kind, missing_intervals
from .jobs import Progress, StudyJob
from .. import html as html_pages
from .report import check_index, write_index, write_report
from .details import detailed_sweep
from .sweeps import sweep as run_sweep
from .study import Context, Study, Sweep

PathLike = Union[str, "os.PathLike[str]"]
#: Environment variable naming the experiments folder.
ENV = "LOSSREC_EXPERIMENTS"


# --------------------------------------------------------------------------- finding


def experiments_root(explicit: Optional[PathLike] = None) -> Path:
    """The experiments folder: ``explicit``, else ``$LOSSREC_EXPERIMENTS``, else
    ``experiments/`` in the current folder or a parent, else the source checkout's."""
    if explicit is not None:
        p = Path(explicit)
        if not p.is_dir():
            raise ValueError(f"{p}: no such experiments folder")
        return p
    env = os.environ.get(ENV)
    if env:
        p = Path(env)
        if not p.is_dir():
            raise ValueError(f"${ENV}={env}: no such folder")
        return p
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "experiments").is_dir() and any((d / "experiments").glob("*/study.py")):
            return d / "experiments"
    src = Path(__file__).resolve().parents[3] / "experiments"
    if src.is_dir():
        return src
    raise ValueError("no experiments folder found: run from the lossrec checkout, set "
                     f"${ENV}, or pass --experiments DIR")


def find_studies(root: Optional[PathLike] = None) -> Dict[str, Path]:
    """Study name → folder, for every ``<root>/<name>/study.py``, sorted by name."""
    r = experiments_root(root)
    return {p.parent.name: p.parent for p in sorted(r.glob("*/study.py"))}


def load_study(name: str, root: Optional[PathLike] = None) -> Study:
    """Imports ``<root>/<name>/study.py`` and reads its ``published.toml``."""
    studies = find_studies(root)
    if name not in studies:
        valid = ", ".join(studies) or "none"
        from ..suggest import did_you_mean

        raise ValueError(f"unknown study `{name}`; studies: {valid}{did_you_mean(name, studies)}")
    d = studies[name]
    # A fresh study module on every load (as a file re-read); its helper modules are
    # imported by the study itself (`from . import figures`), once per folder.
    key = f"{package(d)}.study"
    sys.modules.pop(key, None)
    module = importlib.import_module(key)
    for attr in ("sweeps", "claims"):
        if not callable(getattr(module, attr, None)):
            raise ValueError(f"{d / 'study.py'}: defines no {attr}() function")
    pub_path = d / "published.toml"
    try:
        published = _toml_loads(pub_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{pub_path}: missing (the published numbers of the study)") from None
    except ValueError as e:
        raise ValueError(f"{pub_path}: {e}") from None
    for cid, c in published.get("claims", {}).items():
        for k in ("statement", "value", "where", "agreement"):
            if k not in c:
                raise ValueError(f"{pub_path}: claims.{cid}: missing `{k}`")
        for sub, keys in (("other_rule", ("label", "agreement")), ("seed_inconsistent", ("why", "differences"))):
            for k in keys if sub in c else ():
                if k not in c[sub]:
                    raise ValueError(f"{pub_path}: claims.{cid}.{sub}: missing `{k}`")
        if "not_comparable" in c and not str(c["not_comparable"]).strip():
            raise ValueError(f"{pub_path}: claims.{cid}.not_comparable: say why the setup cannot "
                             f"judge the claim (a non-empty string)")
        bad = check_kind(cid, c) or frozen.check_changes(cid, c)
        if bad:
            raise ValueError(f"{pub_path}: {bad}")
    return Study(name, d, module, published)


# ----------------------------------------------------------------------------- running


def run_study_sweeps(study: Study, quick: bool, jobs: Optional[int] = None,
                     progress: Any = False,
                     extras: Optional[Dict[str, Any]] = None,
                     job: Optional[StudyJob] = None) -> Tuple[pd.DataFrame, List[Dict[str, Any]]]:
    """Runs every sweep of ``study``; returns the concatenated rows and a description of
    each sweep for the report. The recovery episodes of ``details`` sweeps go to
    ``extras["recoveries"]`` (passed through the study's ``prepare`` too) when given.
    ``progress`` is False, True (a bar per sweep) or a :class:`~lossrec.lab.jobs.Progress`;
    with a ``job``, finished sweeps are kept in its partial folder and reused."""
    frames, runs, recs = [], [], []
    bar = progress if isinstance(progress, Progress) else None
    for i, sw in enumerate(study.sweeps(quick)):
        base = job.sweep_path(i, sw) if job is not None else None
        cached = job.load_sweep(base) if job is not None and base is not None else None
        if cached is not None:
            df, rec, run = cached["df"], cached["recoveries"], cached["run"]
            run["resumed"] = True
            for k, v in sw.labels.items():
                df[k] = v
            if bar is not None:
                bar.advance(jobs_mod.scenarios(sw))
        else:
            df, rec, run = _run_sweep(study, sw, jobs, progress, bar, base)
            if job is not None and base is not None:
                job.save_sweep(base, df, rec, run, rows_written=sw.runner == "sim" and not sw.details)
        if rec is not None:
            recs.append(rec)
        frames.append(df)
        runs.append(run)
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    rec_df = pd.concat(recs, ignore_index=True) if recs else None
    prepare: Optional[Callable[[pd.DataFrame], pd.DataFrame]] = getattr(study.module, "prepare", None)
    if prepare is not None:
        df = prepare(df)
        if rec_df is not None:
            rec_df = prepare(rec_df)
    if extras is not None:
        extras["recoveries"] = rec_df
    return df, runs


def _run_sweep(study: Study, sw: Sweep, jobs: Optional[int], progress: Any, bar: Optional[Progress],
               base: Optional[Path]) -> Tuple[pd.DataFrame, Optional[pd.DataFrame], Dict[str, Any]]:
    t0 = time.perf_counter()
    rec = None
    if sw.runner == "wire":
        from .wire_sweeps import wire_sweep

        df = wire_sweep(study.dir / sw.scenario, sw.params, reps=sw.reps, **sw.wire)
    elif sw.details:
        # Finished chunks are kept beside the simulator sweeps' (resumable, as they are).
        df, rec = detailed_sweep(study.dir / sw.scenario, sw.params, reps=sw.reps, jobs=jobs,
                                 common_seeds=sw.common_seeds,
                                 keep=base.with_suffix(".details") if base is not None else None)
        for k, v in sw.labels.items():
            rec[k] = v
    else:
        # The rows of a simulator sweep go to the partial folder chunk by chunk (resumable).
        out = base.with_suffix(".parquet") if base is not None else None
        df = run_sweep(study.dir / sw.scenario, sw.params, reps=sw.reps, jobs=jobs,
                       progress=bar.sweep_callback() if bar is not None else bool(progress),
                       common_seeds=sw.common_seeds, output=out, force=True)
    if bar is not None and (sw.runner == "wire" or sw.details):
        bar.advance(jobs_mod.scenarios(sw))
    for k, v in sw.labels.items():
        df[k] = v
    run = {"scenario": sw.scenario, "params": sw.params, "reps": sw.reps,
           "labels": sw.labels, "scenarios": df.attrs["sweep"]["scenarios"],
           "rows": len(df), "wall_s": time.perf_counter() - t0,
           "common_seeds": sw.common_seeds, "details": sw.details}
    return df, rec, run


def reproduce(name: str, out: PathLike = "out", quick: bool = False, jobs: Optional[int] = None,
              root: Optional[PathLike] = None, progress: Any = False, resume: bool = True,
              force: bool = False) -> Path:
    """Runs study ``name`` and writes ``out/<name>/`` (report.md, figures, results.parquet,
    run.json, and ``.lossrec-files.json`` listing them). Returns the report's path.

    A rerun replaces only the files its previous run wrote; a study folder holding other
    files is refused (:class:`~lossrec.errors.OutputExistsError`) unless ``force``, which
    writes beside them and keeps them."""
    fn = "reproduce"
    _check_common(fn, out, quick, jobs, root, progress, resume, force)
    if not isinstance(name, str) or not name:
        raise _args.fail(fn, "name", "a study name (a folder of experiments/)", name)
    try:
        study = load_study(name, root)
    except ValueError as e:
        if str(e).startswith("unknown study"):
            raise ArgumentError(fn, "name", f"{fn}(): name: {e}") from None
        raise
    return run_study(study, Path(out), quick, jobs, progress, resume=resume, force=force)[0]


def _check_common(fn: str, out: Any, quick: Any, jobs: Any, root: Any, progress: Any,
                  resume: Any, force: Any) -> None:
    """The arguments :func:`reproduce` and :func:`reproduce_all` share."""
    _args.path(fn, "out", out)
    _args.boolean(fn, "quick", quick)
    _args.integer(fn, "jobs", jobs, 1, optional=True)
    _args.path(fn, "root", root, optional=True)
    if not (isinstance(progress, (bool, Progress)) or progress is None or callable(progress)):
        raise _args.fail(fn, "progress", "True, False or a callable", progress)
    _args.boolean(fn, "resume", resume)
    _args.boolean(fn, "force", force)


def run_study(study: Study, out: Path, quick: bool, jobs: Optional[int],
              progress: Any, resume: bool = True, freeze: bool = False,
              force: bool = False) -> Tuple[Path, List[Verdict]]:
    """Runs one study into ``out/<study>/`` (atomically); with ``resume``, a finished run of
    the same definition is reused and an interrupted one continues from its finished sweeps.
    ``freeze`` writes the verdicts as the study's expected ones; ``force`` writes into a
    study folder holding files lossrec did not write (keeping them)."""
    job = StudyJob(out, study, quick, force)
    bar = progress if isinstance(progress, Progress) else None
    done = job.finished() if resume else None
    if done is not None:
        if bar is not None:
            bar.study(study.name, sum(jobs_mod.scenarios(s) for s in study.sweeps(quick)))
            bar.advance(bar.total_one)
        verdicts = StudyJob.verdicts(done)
        if freeze:
            frozen.freeze(study, verdicts, quick)
        return job.final / "report.md", verdicts
    job.check_output()  # before the work, not after it
    if not resume:
        shutil.rmtree(job.work, ignore_errors=True)
    sweeps = study.sweeps(quick)
    if bar is not None:
        bar.study(study.name, sum(jobs_mod.scenarios(s) for s in sweeps))
    t0 = time.perf_counter()
    extras: Dict[str, Any] = {}
    df, runs = run_study_sweeps(study, quick, jobs, progress, extras, job)
    if bar is not None:
        bar.phase("figures and verdicts")
    d = job.staging()
    try:
        # the traced sweeps of the figures and claims are kept in the job's partial folder
        # (removed by commit) and shown on the bar: an interrupted phase resumes
        with phase.figure_phase(job.work / "figures", bar):
            report, verdicts = _write_study(study, d, quick, df, runs, extras, t0, freeze)
        job.commit(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return job.final / report.name, verdicts


def _write_study(study: Study, d: Path, quick: bool, df: pd.DataFrame, runs: List[Dict[str, Any]],
                 extras: Dict[str, Any], t0: float, freeze: bool) -> Tuple[Path, List[Verdict]]:
    prov = jobs_mod.provenance(study, quick, study.sweeps(quick))
    prov["seeds"] = _seed_summary(df)
    jobs_mod.write_parquet(df, d / "results.parquet", prov)
    ctx = Context(study, quick, d, recoveries=extras.get("recoveries"))
    data_files: List[Tuple[str, pd.DataFrame, str]] = []
    if ctx.recoveries is not None:
        jobs_mod.write_parquet(ctx.recoveries, d / "recoveries.parquet", prov)
        data_files.append(("recoveries.parquet", ctx.recoveries, "one per recovery episode: kind fast or rto"))
    figures: List[Tuple[str, str]] = []
    ph = phase.active()
    all_figures = dict(getattr(study.module, "FIGURES", {}))
    for i, (fname, fn) in enumerate(all_figures.items()):
        if ph is not None:
            ph.show(f"figure {fname} ({i + 1}/{len(all_figures)})")
        fig, caption = fn(df, ctx)
        fig.savefig(d / f"{fname}.png", dpi=150)
        fig.savefig(d / f"{fname}.svg", metadata={"Date": None})
        import matplotlib.pyplot as plt

        plt.close(fig)
        figures.append((fname, caption))
    if ph is not None:
        ph.show("verdicts")
    verdicts = list(study.module.claims(df, study.claims_published, ctx))
    verdicts = frozen.apply_published(study.claims_published, _complete(study, verdicts))
    bare = missing_intervals(study.claims_published, verdicts)
    if bare:
        raise ValueError(f"{study.dir / 'study.py'}: claims {', '.join(bare)} compare arms (no `kind` "
                         f"in published.toml) but their verdicts carry no interval or event count: "
                         f"judge them with lossrec.lab.significance.judge_difference")
    if freeze:
        frozen.freeze(study, verdicts, quick)
    sections_fn = getattr(study.module, "sections", None)
    sections = list(sections_fn(df, ctx)) if callable(sections_fn) else []
    cal = calibration.evaluate(study, df, ctx)
    # notes(df, ctx): the Notes written from this run's data (issue 25 item 6)
    notes_fn = getattr(study.module, "notes", None)
    notes = str(notes_fn(df, ctx)) if callable(notes_fn) else None
    report = write_report(study, d, quick, runs, df, figures, verdicts,
                          wall_s=time.perf_counter() - t0, version=_core.__version__,
                          sections=sections, data_files=data_files, provenance=prov,
                          expected=frozen.load(study), calibration=cal, notes=notes)
    html_pages.write_study(study, d, quick, verdicts, figures)
    run = {"provenance": prov, "sweeps": runs, "verdicts": [v.to_dict() for v in verdicts],
           "wall_s": time.perf_counter() - t0}
    if cal is not None:
        run["calibration"] = [c.to_dict() for c in cal["checks"]]
    (d / jobs_mod.RUN_FILE).write_text(json.dumps(run, indent=1, default=str), encoding="utf-8")
    return report, verdicts


def _seed_summary(df: pd.DataFrame) -> Dict[str, Any]:
    if "seed" not in df.columns or df.empty:
        return {"distinct": 0}
    s = pd.to_numeric(df["seed"], errors="coerce").dropna().astype("uint64").unique()
    return {"distinct": int(len(s)), "sha256": hashlib.sha256(
        ",".join(map(str, sorted(s.tolist()))).encode()).hexdigest()}


def _complete(study: Study, verdicts: List[Verdict]) -> List[Verdict]:
    """Every published claim gets exactly one verdict, in published order."""
    published = study.claims_published
    by_id: Dict[str, Verdict] = {}
    for v in verdicts:
        if v.claim not in published:
            raise ValueError(f"{study.dir / 'study.py'}: verdict for `{v.claim}`, which "
                             f"published.toml does not declare")
        by_id[v.claim] = v
    return [by_id.get(cid) or Verdict(cid, "—", NOT_COMPARABLE, "the study does not evaluate it")
            for cid in published]


def reproduce_all(out: PathLike = "out", quick: bool = False, jobs: Optional[int] = None,
                  root: Optional[PathLike] = None, progress: Any = False,
                  on_study: Optional[Callable[[str], None]] = None, resume: bool = True,
                  freeze: bool = False,
                  on_progress: Optional[Callable[[str, int, int], None]] = None,
                  force: bool = False) -> Path:
    """Runs every study and writes ``out/index.md`` (and ``index.json``) linking their
    reports; returns its path. ``progress``: bars with ETA on stderr (every study, and the
    current one); ``on_progress(study, done, total)`` is called as scenarios finish.
    ``force``: as for :func:`reproduce`; an index lossrec did not write is always refused."""
    fn = "reproduce_all"
    _check_common(fn, out, quick, jobs, root, progress, resume, force)
    _args.boolean(fn, "freeze", freeze)
    _args.function(fn, "on_study", on_study)
    _args.function(fn, "on_progress", on_progress)
    outp = Path(out)
    loaded = [load_study(name, root) for name in find_studies(root)]
    # Every refusal before the first study runs, not hours into the run.
    check_index(outp)
    for st in loaded:
        StudyJob(outp, st, quick, force).check_output()
    outp.mkdir(parents=True, exist_ok=True)
    total = sum(jobs_mod.scenarios(s) for st in loaded for s in st.sweeps(quick))
    bar = Progress(bool(progress), total, on_progress)
    rows = []
    try:
        for study in loaded:
            if on_study is not None:
                on_study(study.name)
            report, verdicts = run_study(study, outp, quick, jobs, bar, resume, freeze, force)
            rows.append((study, report, verdicts))
    finally:
        bar.close()
    index = write_index(outp, rows, quick)
    html_pages.write_index(outp, rows, quick)
    return index


def list_studies(root: Optional[PathLike] = None) -> List[Tuple[str, str, str]]:
    """(name, seed, title) of every study."""
    out = []
    for name in find_studies(root):
        s = load_study(name, root)
        out.append((name, s.seed, s.title))
    return out


#: The package the study folders are imported under: ``lossrec_experiments.<folder>``
#: (``-`` becomes ``_``), whatever the experiments folder's own path.
PACKAGE = "lossrec_experiments"


def package(folder: Path) -> str:
    """Registers the study ``folder`` as the package ``lossrec_experiments.<folder>`` and
    returns that name, so that a study and its helper modules import each other as a
    package does (``from . import figures``) — no path-import shims. Another folder of
    the same name (a second experiments root) replaces the first and its modules."""
    folder = Path(folder).resolve()
    top = sys.modules.get(PACKAGE)
    if top is None:
        top = ModuleType(PACKAGE, "Study folders, imported by lossrec.lab.studies.")
        top.__spec__ = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
        top.__path__ = []
        sys.modules[PACKAGE] = top
    name = f"{PACKAGE}.{folder.name.replace('-', '_')}"
    pkg = sys.modules.get(name)
    if pkg is None or list(getattr(pkg, "__path__", [])) != [str(folder)]:
        for k in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[k]
        pkg = ModuleType(name, f"The study folder {folder}.")
        pkg.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        pkg.__spec__.submodule_search_locations = [str(folder)]
        pkg.__path__ = [str(folder)]
        pkg.__package__ = name
        sys.modules[name] = pkg
        setattr(top, name.rsplit(".", 1)[1], pkg)
    return name


def sibling(study_file: str, name: str) -> Any:
    """The module ``name`` of the study folder holding ``study_file``, imported as
    :func:`package` does (the same module object the study itself uses): for tests and
    notebooks that reach into a study."""
    return importlib.import_module(f"{package(Path(study_file).parent)}.{name}")
