"""Markdown reports: one per study (``report.md``) and the index of ``--all``."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Sequence, Tuple

import pandas as pd

from .claims import FAILS, HOLDS, NOT_COMPARABLE, Verdict

if TYPE_CHECKING:  # pragma: no cover
    from .studies import Study

MARK = {HOLDS: "✅ holds", FAILS: "❌ does not hold", NOT_COMPARABLE: "➖ not comparable"}


def cell(x: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(x).replace("|", "\\|").replace("\n", " ").strip()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(cell(h) for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _values(vs: Any) -> str:
    return ", ".join(str(v) for v in vs) if isinstance(vs, (list, tuple)) else str(vs)


def _published_value(c: Dict[str, Any]) -> str:
    v, unit = c.get("value"), c.get("unit")
    return f"{v} {unit}" if unit and not isinstance(v, str) else str(v)


def write_report(study: "Study", d: Path, quick: bool, runs: List[Dict[str, Any]],
                 df: pd.DataFrame, figures: List[Tuple[str, str]], verdicts: List[Verdict],
                 wall_s: float, version: str,
                 sections: Sequence[Tuple[str, str]] = (),
                 data_files: Sequence[Tuple[str, pd.DataFrame, str]] = ()) -> Path:
    """``sections`` are extra (title, markdown) parts a study adds after its figures (its
    ``sections(df, ctx)``); ``data_files`` further CSV files (name, frame, what a row is)."""
    pub = study.claims_published
    counts = {k: sum(v.verdict == k for v in verdicts) for k in (HOLDS, FAILS, NOT_COMPARABLE)}
    lines = [f"# {study.name}: {study.title}", ""]
    if study.seed:
        lines += [f"Seed {study.seed}" + (f" — {study.published['source']}"
                                          if study.published.get("source") else ""), ""]
    summary = getattr(study.module, "SUMMARY", "")
    if summary:
        lines += [summary.strip(), ""]
    lines += [
        f"**Verdicts:** {counts[HOLDS]} hold, {counts[FAILS]} do not hold, "
        f"{counts[NOT_COMPARABLE]} not comparable.", "",
        "## Published vs ours", "",
        table(["claim", "published", "where in the seed", "agreement rule", "ours", "verdict", "why"],
              [[f"**{v.claim}**: {pub[v.claim]['statement']}", _published_value(pub[v.claim]),
                pub[v.claim]["where"], pub[v.claim]["agreement"], v.ours, MARK[v.verdict], v.why]
               for v in verdicts]),
        "",
        "## What was run",
        "",
        f"`lossrec reproduce {study.name}{' --quick' if quick else ''}` — "
        f"{'the quick (CI) version' if quick else 'the full version'}, lossrec {version}, "
        f"{wall_s:.1f} s wall.",
        "",
        table(["scenario", "swept", "reps", "seeds", "constant columns", "scenarios", "flow rows"],
              [[f"`{r['scenario']}`" + (" (detailed)" if r.get("details") else ""),
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
    lines += _provenance(study, runs)
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
              f"[`results.csv`](results.csv): {len(df):,} rows, one per flow; columns: "
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


def _provenance(study: "Study", runs: List[Dict[str, Any]]) -> List[str]:
    """The report's provenance: lossrec's version and commit, each scenario file's hash."""
    from .._provenance import build, scenario_hash

    b = build()
    rows = []
    for name in dict.fromkeys(str(r["scenario"]) for r in runs):
        try:
            text = (study.dir / name).read_text(encoding="utf-8")
            rows.append([f"`{name}`", f"`{scenario_hash(text)}`"])
        except (OSError, ValueError, KeyError):
            rows.append([f"`{name}`", "—"])
    return ["## Provenance", "",
            f"lossrec {b['version']}, commit `{b['commit']}`; seeds as above.", "",
            table(["scenario", "SHA-256"], rows), ""]


def write_index(out: Path, rows: List[Tuple["Study", Path, List[Verdict]]], quick: bool) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    body = [
        "# lossrec reproductions", "",
        f"`lossrec reproduce --all{' --quick' if quick else ''}` — "
        f"{'quick (CI) versions' if quick else 'full versions'}, written "
        f"{_dt.date.today().isoformat()}, by lossrec {_build()['version']} "
        f"(commit `{_build()['commit']}`).", "",
        table(["study", "seed", "title", "holds", "does not hold", "not comparable"],
              [[f"[{s.name}]({report.relative_to(out).as_posix()})", s.seed, s.title,
                sum(v.verdict == HOLDS for v in vs), sum(v.verdict == FAILS for v in vs),
                sum(v.verdict == NOT_COMPARABLE for v in vs)] for s, report, vs in rows]),
        "",
    ]
    path = out / "index.md"
    path.write_text("\n".join(body), encoding="utf-8")
    return path
