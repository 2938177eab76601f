"""``lossrec reproduce``'s HTML: ``report.html`` beside each study's ``report.md`` (the
verdict table with each rule's parameters written as values, the figures inline) and
``index.html`` beside ``index.md``. Each page is one self-contained file."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Tuple

from . import page

if TYPE_CHECKING:  # pragma: no cover
    from ..lab.claims import Verdict
    from ..lab.study import Study

#: Keys of a published claim that are not parameters of its rule.
NOT_PARAMS = {"statement", "value", "unit", "where", "agreement", "metric", "kind", "no_interval",
              "label", "other_rule", "seed_inconsistent", "not_comparable", "verdict_changes"}
#: Verdict → (mark, background colour) of its cell.
MARKS = {"holds": ("✅ holds", "#e6f4e6"), "does not hold": ("❌ does not hold", "#fbe3e3"),
         "not significant": ("〰 not significant", "#f3f3f3"),
         "not comparable": ("➖ not comparable", "#f3f3f3"),
         "seed inconsistent": ("⚠ seed inconsistent", "#fff4d6")}


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _g(x: float) -> str:
    return f"{x:.4g}"


def bounds(c: Mapping[str, Any]) -> List[str]:
    """The rule's parameters turned into the numbers they bound, e.g. ``tolerance_pct = 5``
    on a published 120 ms reads "within [114, 126] ms"."""
    unit = f" {c['unit']}" if c.get("unit") else ""
    out: List[str] = []
    v = float(c["value"]) if _num(c.get("value")) else None
    for key in ("tolerance_pct", "tol_pct"):
        if v is not None and _num(c.get(key)):
            p = float(c[key]) / 100.0
            lo, hi = sorted((v * (1 - p), v * (1 + p)))
            out.append(f"within ±{_g(c[key])} % of {_g(v)}: [{_g(lo)}, {_g(hi)}]{unit}")
    if v is not None and _num(c.get("tol_abs")):
        out.append(f"within ±{_g(c['tol_abs'])} of {_g(v)}: [{_g(v - c['tol_abs'])}, {_g(v + c['tol_abs'])}]{unit}")
    if v is not None and _num(c.get("factor")) and c["factor"] > 0:
        f = float(c["factor"])
        lo, hi = sorted((v / f, v * f))
        out.append(f"within a factor {_g(f)} of {_g(v)}: [{_g(lo)}, {_g(hi)}]{unit}")
    if _num(c.get("lo")) and _num(c.get("hi")):
        out.append(f"within [{_g(c['lo'])}, {_g(c['hi'])}]{unit}")
    return out + _pct_bounds(c)


def _pct_bounds(c: Mapping[str, Any]) -> List[str]:
    """Bounds in percent that need no published value."""
    out: List[str] = []
    if _num(c.get("lo_pct")) and _num(c.get("hi_pct")):
        out.append(f"within [{_g(c['lo_pct'])} %, {_g(c['hi_pct'])} %]")
    if _num(c.get("min_pct")):
        out.append(f"at least {_g(c['min_pct'])} %")
    if _num(c.get("max_pct")):
        out.append(f"at most {_g(c['max_pct'])} %")
    return out


def rule_html(c: Mapping[str, Any]) -> str:
    """The agreement rule in words, then its parameters as values and the bounds they
    make; the other rule (before a revision) after it."""
    params = {k: v for k, v in c.items() if k not in NOT_PARAMS and not isinstance(v, dict)}
    text = page.esc(c.get("agreement", ""))
    if params:
        text += ("<br><b>with the values:</b> "
                 + "; ".join(f"<code>{page.esc(k)}</code> = {page.esc(v)}" for k, v in params.items()))
    b = bounds(c)
    if b:
        text += "<br><b>so:</b> " + page.esc("; ".join(b))
    if c.get("metric"):
        text += f"<br><i>metric, as the seed defines it:</i> {page.esc(c['metric'])}"
    other = c.get("other_rule")
    if isinstance(other, dict) and other.get("agreement"):
        text += f"<br><i>{page.esc(other.get('label', 'other rule'))}:</i> {rule_html(other)}"
    return text


def _verdict_cell(v: "Verdict", c: Mapping[str, Any]) -> str:
    mark, bg = MARKS.get(v.verdict, (v.verdict, "#fff"))
    text = page.esc(mark)
    if v.other is not None:
        label = (c.get("other_rule") or {}).get("label", "other rule")
        text += (f" (<i>{page.esc(label)}:</i> {page.esc(MARKS.get(v.other.verdict, (v.other.verdict,))[0])}, "
                 f"{page.esc(v.other.ours)})")
    return f"<span class=\"verdict\" style=\"background:{bg}\">{text}</span>"


def claims_table(verdicts: Sequence["Verdict"], pub: Mapping[str, Mapping[str, Any]]) -> str:
    """The verdict table: claim, published value, where, the rule with its values, ours,
    verdict, why."""
    rows = []
    for v in verdicts:
        c = pub.get(v.claim, {})
        value = f"{c.get('value')} {c.get('unit')}" if c.get("unit") and not isinstance(c.get("value"), str) \
            else str(c.get("value", ""))
        rows.append([f"<b>{page.esc(v.claim)}</b>: {page.esc(c.get('statement', ''))}", page.esc(value),
                     page.esc(c.get("where", "")), rule_html(c), page.esc(v.ours), _verdict_cell(v, c),
                     page.esc(v.why)])
    return page.table(["claim", "published", "where in the seed", "agreement rule", "ours", "verdict", "why"],
                      rows, raw=True)


def _figure(d: Path, name: str, caption: str) -> str:
    png = d / f"{name}.png"
    if not png.exists():
        return f"<p class=\"note\">(figure {page.esc(name)} missing)</p>"
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return (f"<figure><img class=\"figure\" alt=\"{page.esc(caption)}\" src=\"data:image/png;base64,{data}\">"
            f"<figcaption><i>{page.esc(caption)}</i></figcaption></figure>")


def write_study(study: "Study", d: Path, quick: bool, verdicts: Sequence["Verdict"],
                figures: Sequence[Tuple[str, str]]) -> Path:
    """Writes ``d/report.html`` (``d`` is the study's folder being written, as
    ``report.md``): the claims with their rules as values, then the figures."""
    from ..lab import frozen

    pub: Dict[str, Mapping[str, Any]] = dict(study.claims_published)
    claims = [v for v in verdicts if not frozen.is_calibration(pub, v.claim)]
    calib = [v for v in verdicts if frozen.is_calibration(pub, v.claim)]
    n, n_cal = frozen.counts(pub, verdicts)
    title = f"{study.name}: {study.title}"
    parts = [f"<h1>{page.esc(title)}</h1>"]
    if study.seed:
        src = study.published.get("source")
        parts.append(f"<p>Seed {page.esc(study.seed)}{' — ' + page.esc(src) if src else ''}</p>")
    summary = getattr(study.module, "SUMMARY", "")
    if summary:
        parts.append(f"<p>{page.esc(summary.strip())}</p>")
    parts.append(f"<p><b>Verdicts:</b> {page.esc(frozen.counts_text(n))}."
                 + (f" Calibration checks (not claims): {page.esc(frozen.counts_text(n_cal))}." if calib else "")
                 + f" <code>lossrec reproduce {page.esc(study.name)}{' --quick' if quick else ''}</code>; "
                 "the whole report (what was run, provenance, data) is <a href=\"report.md\">report.md</a>.</p>")
    parts += ["<h2>Published vs ours</h2>", claims_table(claims, pub)]
    if calib:
        parts += ["<h2>Calibration and cross-checks</h2>",
                  "<p class=\"note\">Checks of the workload against the seed's own fingerprints and "
                  "other tools; never counted as claims.</p>", claims_table(calib, pub)]
    moved = frozen.changes(pub)
    if moved:  # the reasons recorded with each re-frozen verdict, as report.md lists them
        parts += ["<h2>Why frozen verdicts moved</h2>",
                  page.table(["claim", "date", "mode", "verdict", "why"],
                             [[f"<b>{page.esc(c)}</b>", page.esc(e["date"]), page.esc(e["mode"]),
                               page.esc(f"{e['was']} → {e['now']}"), page.esc(e["why"])] for c, e in moved],
                             raw=True)]
    if figures:
        parts.append("<h2>Figures</h2>")
        parts += [_figure(d, name, caption) for name, caption in figures]
    return page.write_atomic(d / "report.html", page.document(title, "\n".join(parts)))


def write_index(out: Path, rows: Sequence[Tuple["Study", Path, Sequence["Verdict"]]], quick: bool) -> Path:
    """Writes ``out/index.html``: one row per study linking its ``report.html`` (its
    ``report.md`` when a resumed study was written before the HTML existed)."""
    from ..lab import frozen

    head = ["study", "seed", "title", "holds", "does not hold", "not significant", "not comparable",
            "seed inconsistent", "calibration ok / off", "differ from frozen"]
    body = []
    for s, report, vs in rows:
        c, cal = frozen.counts(s.claims_published, vs)
        html_report = report.with_name("report.html")
        target = (html_report if html_report.exists() else report).relative_to(out).as_posix()
        diff = frozen.differences(frozen.load(s), list(vs), quick)
        body.append([f"<a href=\"{page.esc(target)}\">{page.esc(s.name)}</a>", page.esc(s.seed),
                     page.esc(s.title), c["holds"], c["does not hold"], c["not significant"],
                     c["not comparable"], c["seed inconsistent"],
                     page.esc(f"{cal['holds']} / {sum(cal.values()) - cal['holds']}"), len(diff)])
    text = page.document("lossrec reproductions", "<h1>lossrec reproductions</h1>"
                         f"<p><code>lossrec reproduce --all{' --quick' if quick else ''}</code> — "
                         f"{'quick (CI) versions' if quick else 'full versions'}; the Markdown index is "
                         "<a href=\"index.md\">index.md</a>.</p>" + page.table(head, body, raw=True))
    return page.write_atomic(out / "index.html", text)
