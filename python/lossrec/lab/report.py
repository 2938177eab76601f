"""Markdown reports: one per study (``report.md``) and the index of ``--all``."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from . import calibration as calibration_mod
from . import frozen
from .claims import FAILS, HOLDS, NOT_COMPARABLE, NOT_SIGNIFICANT, SEED_INCONSISTENT, Verdict
from .markdown import cell as cell, table as table  # studies use lossrec.lab.report.table

if TYPE_CHECKING:  # pragma: no cover
    from .study import Study

MARK = {HOLDS: "✅ holds", FAILS: "❌ does not hold", NOT_COMPARABLE: "➖ not comparable",
        NOT_SIGNIFICANT: "〰 not significant", SEED_INCONSISTENT: "⚠ seed inconsistent"}


def _values(vs: Any) -> str:
    return ", ".join(str(v) for v in vs) if isinstance(vs, (list, tuple)) else str(vs)


def _published_value(c: Dict[str, Any]) -> str:
    v, unit = c.get("value"), c.get("unit")
    return f"{v} {unit}" if unit and not isinstance(v, str) else str(v)


def _rule_values(c: Dict[str, Any]) -> str:
    """The rule's parameters as values and the bounds they make (the HTML page's
    :func:`lossrec.html.report_page.rule_html` in Markdown): a reader checks a verdict
    against numbers, not parameter names (issue 28 item 9)."""
    from ..html.report_page import NOT_PARAMS, bounds

    params = {k: v for k, v in c.items() if k not in NOT_PARAMS and not isinstance(v, (dict, list))}
    text = ""
    if params:
        text += " — *with the values:* " + "; ".join(f"`{k}` = {v}" for k, v in params.items())
    b = bounds(c)
    if b:
        text += " — *so:* " + "; ".join(b)
    return text


def _rule(c: Dict[str, Any]) -> str:
    """The agreement rule with its values, the seed's metric definition (``metric``) and
    the other rule."""
    text = str(c["agreement"]) + _rule_values(c)
    if c.get("metric"):
        text += f" — *metric, as the seed defines it:* {c['metric']}"
    other = c.get("other_rule")
    if other:
        text += f" — *{other.get('label', 'other rule')}:* {other['agreement']}{_rule_values(other)}"
    return text


def _verdict_cell(v: Verdict, c: Dict[str, Any]) -> str:
    if v.other is None:
        return MARK[v.verdict]
    label = c.get("other_rule", {}).get("label", "other rule")
    return f"{MARK[v.verdict]} (*{label}:* {MARK[v.other.verdict]}, {v.other.ours})"


def _claim_rows(verdicts: Sequence[Verdict], pub: Dict[str, Dict[str, Any]]) -> List[List[str]]:
    return [[f"**{v.claim}**: {pub[v.claim]['statement']}", _published_value(pub[v.claim]),
             pub[v.claim]["where"], _rule(pub[v.claim]), v.ours, _verdict_cell(v, pub[v.claim]), v.why]
            for v in verdicts]


HEAD = ["claim", "published", "where in the seed", "agreement rule", "ours", "verdict", "why"]


def frozen_section(verdicts: Sequence[Verdict], expected: Dict[str, Dict[str, str]],
                   quick: bool) -> List[str]:
    """The verdicts that differ from the frozen ones, and what a quick run cannot judge."""
    m = frozen.mode(quick)
    lines = ["## Against the frozen verdicts", ""]
    if not expected:
        return lines + ["No `expected.toml`: nothing frozen yet (`lossrec reproduce NAME --freeze`).", ""]
    diff = frozen.differences(expected, verdicts, quick)
    if diff:
        lines += [f"{len(diff)} verdict(s) differ from the frozen `{m}` ones (`expected.toml`):", "",
                  table(["claim", "frozen", "this run"], [[f"**{c}**", e, g] for c, e, g in diff]), ""]
    else:
        lines += [f"Every verdict equals the frozen `{m}` one (`expected.toml`).", ""]
    cannot = frozen.quick_cannot_judge(expected)
    if quick and cannot:
        lines += ["The quick run **cannot judge** these claims (its frozen verdict is not the full "
                  "run's; run without `--quick`):", "",
                  table(["claim", "full", "quick"], [[f"**{c}**", f, q] for c, f, q in cannot]), ""]
    return lines


def truncation_lines(df: pd.DataFrame) -> List[str]:
    """A run that hit its scenario's time limit (``max_time_s``) leaves flows without a
    completion time, and every FCT statistic is then over the flows that finished: said
    beside the verdicts, per sweep label (issue 25 item 4). Nothing when every run ended."""
    if df.empty or "time_limit_hit" not in df.columns or not df["time_limit_hit"].astype(bool).any():
        return []
    swept = [c for c in df.columns if "." in c or c in ("arm", "rep", "seed")]
    # as text: a swept value may be a list (a drop list), which cannot be a group key
    keys = df[swept].astype(str) if swept else None
    runs = df["time_limit_hit"].astype(bool).groupby([keys[c] for c in swept]).any() if keys is not None \
        else pd.Series([bool(df["time_limit_hit"].any())])
    no_fct = int(df["fct_ms"].isna().sum()) if "fct_ms" in df.columns else 0
    text = (f"**Truncated by the time limit:** {int(runs.sum())} of {len(runs)} runs hit their "
            f"scenario's `max_time_s`; {no_fct} of {len(df)} flows ({no_fct / len(df) * 100:.1f} %) "
            f"have no completion time, so completion-time statistics are over the flows that "
            f"finished")
    if "arm" in df.columns:
        per = df[df["time_limit_hit"].astype(bool)].groupby("arm", observed=True).size()
        text += " (truncated flow rows per arm: " + ", ".join(f"{a}: {n}" for a, n in per.items()) + ")"
    return [text + ".", ""]


def moved_section(pub: Dict[str, Dict[str, Any]]) -> List[str]:
    """Why frozen verdicts moved: each ``verdict_changes`` entry of published.toml
    (:func:`lossrec.lab.frozen.changes`), so the reason travels with the frozen value."""
    moved = frozen.changes(pub)
    if not moved:
        return []
    return ["## Why frozen verdicts moved", "",
            "Each re-freeze that moved a verdict, with the reason recorded in the claim's "
            "`published.toml` entry (`verdict_changes`):", "",
            table(["claim", "date", "mode", "verdict", "why"],
                  [[f"**{c}**", e["date"], e["mode"], f"{e['was']} → {e['now']}", e["why"]]
                   for c, e in moved]), ""]


def write_report(study: "Study", d: Path, quick: bool, runs: List[Dict[str, Any]],
                 df: pd.DataFrame, figures: List[Tuple[str, str]], verdicts: List[Verdict],
                 wall_s: float, version: str,
                 sections: Sequence[Tuple[str, str]] = (),
                 data_files: Sequence[Tuple[str, pd.DataFrame, str]] = (),
                 provenance: Any = None, expected: Any = None, calibration: Any = None,
                 notes: Optional[str] = None) -> Path:
    """``sections`` are extra (title, markdown) parts a study adds after its figures (its
    ``sections(df, ctx)``); ``data_files`` further data files (name, frame, what a row is);
    ``provenance`` the study's record (:func:`lossrec.lab.jobs.provenance`); ``expected``
    its frozen verdicts (:func:`lossrec.lab.frozen.load`); ``calibration`` the workload's
    fingerprint checks (:func:`lossrec.lab.calibration.evaluate`), shown before the claims;
    ``notes`` the Notes section as the study's ``notes(df, ctx)`` wrote it from the run
    (None: its ``NOTES`` text)."""
    pub = study.claims_published
    claims = [v for v in verdicts if not frozen.is_calibration(pub, v.claim)]
    calib = [v for v in verdicts if frozen.is_calibration(pub, v.claim)]
    n_claims, n_cal = frozen.counts(pub, verdicts)
    lines = [f"# {study.name}: {study.title}", ""]
    if study.seed:
        lines += [f"Seed {study.seed}" + (f" — {study.published['source']}"
                                          if study.published.get("source") else ""), ""]
    summary = getattr(study.module, "SUMMARY", "")
    if summary:
        lines += [summary.strip(), ""]
    lines += [f"**Verdicts:** {frozen.counts_text(n_claims)}."
              + (f" Calibration checks (not claims): {frozen.counts_text(n_cal)}." if calib else "")
              + (f" Workload calibration (not claims): "
                 f"{calibration_mod.counts_text(calibration_mod.counts(calibration))}."
                 if calibration and calibration.get("checks") else ""), ""]
    lines += truncation_lines(df)
    lines += calibration_mod.section(calibration)
    lines += ["## Published vs ours", "", table(HEAD, _claim_rows(claims, pub)), ""]
    if calib:
        lines += ["## Calibration and cross-checks", "",
                  "Checks of our workload against the seed's own fingerprints (the numbers it was "
                  "tuned to), and against other tools on the same scenario; they are not claims "
                  "of the seed and never count as holding.",
                  "", table(HEAD, _claim_rows(calib, pub)), ""]
    lines += frozen_section(verdicts, dict(expected or {}), quick)
    lines += moved_section(pub)
    lines += [
        "## What was run",
        "",
        f"`lossrec reproduce {study.name}{' --quick' if quick else ''}` — "
        f"{'the quick (CI) version' if quick else 'the full version'}, lossrec {version}, "
        f"{wall_s:.1f} s wall.",
        "",
        table(["scenario", "swept", "reps", "seeds", "constant columns", "scenarios", "flow rows"],
              [[f"`{r['scenario']}`" + (" (detailed)" if r.get("details") else "")
                + (" (resumed: run before an interruption)" if r.get("resumed") else ""),
                "; ".join(f"`{k}` = {_values(v)}" for k, v in r["params"].items()) or "—",
                r["reps"], "common per rep" if r["common_seeds"] else "per point and rep",
                ", ".join(f"`{k}` = {v}" for k, v in r["labels"].items()) or "—",
                r["scenarios"], r["rows"]] for r in runs]),
        "",
        "Scenario files are in `experiments/" + study.name + "/`; each repetition's seed is "
        "derived from the scenario's seed, the point and the repetition index "
        "(`lossrec.sweep_seed`), so the numbers are reproducible bit for bit.",
        "",
    ]
    lines += _provenance(study, runs, provenance)
    if notes is None:
        notes = getattr(study.module, "NOTES", "")
    if notes:
        lines += ["## Notes", "", notes.strip(), ""]
    if figures:
        lines += ["## Figures", ""]
        for name, caption in figures:
            lines += [f"![{cell(caption)}]({name}.png)", "",
                      f"*{caption}* ([SVG]({name}.svg))", ""]
    for title, body in sections:
        lines += [f"## {title}", "", body.strip(), ""]
    lines += ["## Data", "",
              f"[`results.parquet`](results.parquet) (Parquet, zstd; `pandas.read_parquet`, the "
              f"provenance in its metadata under `lossrec.provenance`): {len(df):,} rows, one "
              f"per flow; columns: "
              + ", ".join(f"`{c}`" for c in df.columns) + ".", ""]
    for name, frame, what in data_files:
        lines += [f"[`{name}`]({name}): {len(frame):,} rows, {what}; columns: "
                  + ", ".join(f"`{c}`" for c in frame.columns) + ".", ""]
    path = d / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _build() -> Dict[str, str]:
    from .._provenance import build

    return build()


def _provenance(study: "Study", runs: List[Dict[str, Any]], prov: Any = None) -> List[str]:
    """The report's provenance: lossrec's version and commit, each scenario file's hash
    and base seed, the seed rule and the rows' seeds."""
    from .jobs import provenance

    p = prov or provenance(study, False, [])
    files = p["scenarios"] or {}
    rows = [[f"`{n}`", f"`{f['sha256']}`" if f["sha256"] else "—",
             "—" if f.get("seed") is None else f["seed"]] for n, f in files.items()]
    seeds = p.get("seeds", {})
    extra = (f" The rows use {seeds['distinct']:,} distinct seeds (SHA-256 of the sorted list "
             f"`{seeds['sha256'][:16]}…`)." if seeds.get("distinct") else "")
    co = p.get("study_checkout")
    where = (f" The study folder is at commit `{co['commit']}`"
             + (" with uncommitted changes." if co["modified"] else ".") if co else "")
    return ["## Provenance", "",
            f"lossrec {p['lossrec']}, engine built from commit `{p['commit']}`, Python {p['python']};{where} Study "
            f"definition `{p['definition'][:16]}` (a hash of the study folder, the mode and "
            f"the build; `run.json` holds the whole record). Seeds: {p['seed_rule']}.{extra}", "",
            table(["scenario", "SHA-256", "base seed"], rows), ""]


#: The first line of every index.md lossrec writes (how a rerun recognises its own).
INDEX_TITLE = "# lossrec reproductions"


def check_index(out: Path) -> None:
    """Refuses an ``index.md``, ``index.json`` or ``index.html`` in ``out`` that lossrec did not write
    (``--force`` does not overwrite it either: it keeps foreign files)."""
    from ..errors import OutputExistsError

    for name, ours in (("index.md", _is_our_index_md), ("index.json", _is_our_index_json),
                       ("index.html", _is_our_index_html)):
        p = out / name
        if (p.exists() or p.is_symlink()) and not ours(p):
            raise OutputExistsError(
                f"{p}: already exists and lossrec did not write it; `lossrec reproduce --all` "
                f"writes its index there: move it away or choose another output", str(p))


def _is_our_index_md(p: Path) -> bool:
    try:
        with p.open(encoding="utf-8") as f:
            return p.is_file() and f.readline().rstrip("\n") == INDEX_TITLE
    except (OSError, UnicodeDecodeError):
        return False


def _is_our_index_html(p: Path) -> bool:
    """lossrec's index page carries the index's title as its heading
    (:func:`lossrec.html.report_page.write_index`)."""
    try:
        return p.is_file() and "<h1>lossrec reproductions</h1>" in p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _is_our_index_json(p: Path) -> bool:
    import json

    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and {"quick", "build", "studies"} <= set(data)


def write_index(out: Path, rows: List[Tuple["Study", Path, List[Verdict]]], quick: bool) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    check_index(out)
    body = [
        INDEX_TITLE, "",
        f"`lossrec reproduce --all{' --quick' if quick else ''}` — "
        f"{'quick (CI) versions' if quick else 'full versions'}, written "
        f"{_dt.date.today().isoformat()}, by lossrec {_build()['version']} "
        f"(commit `{_build()['commit']}`).", "",
        table(["study", "seed", "title", "holds", "does not hold", "not significant",
               "not comparable", "seed inconsistent", "calibration ok / off",
               "workload calibration ok / off", "differ from frozen"],
              [_index_row(out, s, report, vs, quick) for s, report, vs in rows]),
        "",
    ]
    t = totals(rows)
    body += ["## Totals", "",
             f"- **The seeds' claims** ({sum(t['seed_claims'].values())}): "
             f"{frozen.counts_text(t['seed_claims'])}.",
             f"- **Kernel conformance checks**, counted apart (the `linux` preset against this "
             f"machine's kernel, not a seed's claim; {sum(t['kernel_checks'].values())}): "
             f"{frozen.counts_text(t['kernel_checks'])}.",
             f"- **Calibration and cross-checks**, never counted as claims "
             f"({sum(t['apart'].values())}): {frozen.counts_text(t['apart'])}.", ""]
    body += _index_diffs(rows, quick)
    path = out / "index.md"
    _write_atomic(path, "\n".join(body))
    _write_index_json(out, rows, quick)
    return path


#: The study whose "published" side is this machine's kernel: its checks are conformance, not
#: a seed's claims, and are counted apart.
KERNEL_SEED = "kernel"


def totals(rows: List[Tuple["Study", Path, List[Verdict]]]) -> Dict[str, Dict[str, int]]:
    """Verdict counts over every study: the seeds' claims, the kernel conformance checks
    (the study whose seed is :data:`KERNEL_SEED`) and the checks reported apart
    (calibration, cross-checks)."""
    out: Dict[str, Dict[str, int]] = {k: {v: 0 for v in MARK} for k in
                                      ("seed_claims", "kernel_checks", "apart")}
    for s, _, vs in rows:
        c, cal = frozen.counts(s.claims_published, vs)
        key = "kernel_checks" if str(s.seed) == KERNEL_SEED else "seed_claims"
        for v in MARK:
            out[key][v] += c[v]
            out["apart"][v] += cal[v]
    return out


def _write_atomic(path: Path, text: str) -> None:
    import os

    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _index_row(out: Path, s: "Study", report: Path, vs: List[Verdict], quick: bool) -> List[Any]:
    c, cal = frozen.counts(s.claims_published, vs)
    diff = frozen.differences(frozen.load(s), vs, quick)
    return [f"[{s.name}]({report.relative_to(out).as_posix()})", s.seed, s.title, c[HOLDS],
            c[FAILS], c[NOT_SIGNIFICANT], c[NOT_COMPARABLE], c[SEED_INCONSISTENT],
            f"{cal[HOLDS]} / {sum(cal.values()) - cal[HOLDS]}", _workload_counts(report), len(diff)]


def _workload_counts(report: Path) -> str:
    """The study's workload calibration (``calibration.toml``) as "ok / off", from the
    ``run.json`` beside its report; "—" for a study without one."""
    run = report.parent / "run.json"
    checks = json.loads(run.read_text()).get("calibration") if run.exists() else None
    if not checks:
        return "—"
    ok = sum(c.get("status") == "ok" for c in checks)
    off = sum(c.get("status") == "off" for c in checks)
    return f"{ok} / {off}"


def _index_diffs(rows: List[Tuple["Study", Path, List[Verdict]]], quick: bool) -> List[str]:
    diff, cannot = [], []
    for s, _, vs in rows:
        exp = frozen.load(s)
        diff += [[s.name, f"**{c}**", e, g] for c, e, g in frozen.differences(exp, vs, quick)]
        cannot += [[s.name, f"**{c}**", f, q] for c, f, q in frozen.quick_cannot_judge(exp)]
    out = ["## Verdicts that differ from the frozen ones", ""]
    out += ([table(["study", "claim", "frozen", "this run"], diff), ""] if diff
            else ["None: every verdict equals its study's `expected.toml`.", ""])
    if quick and cannot:
        out += ["## What the quick run cannot judge", "",
                "Claims whose frozen quick verdict differs from the full run's: run without "
                "`--quick` to judge them.", "",
                table(["study", "claim", "full", "quick"], cannot), ""]
    return out


def _write_index_json(out: Path, rows: List[Tuple["Study", Path, List[Verdict]]], quick: bool) -> None:
    import json

    from .jobs import provenance

    data = {"quick": quick, "build": _build(), "totals": totals(rows), "studies": [
        {"study": s.name, "report": report.relative_to(out).as_posix(),
         "provenance": provenance(s, quick, s.sweeps(quick)),
         "verdicts": [v.to_dict() for v in vs],
         "differ_from_frozen": frozen.differences(frozen.load(s), vs, quick)}
        for s, report, vs in rows]}
    _write_atomic(out / "index.json", json.dumps(data, indent=1, default=str))
