"""The differential test's outputs (issue 23, item 1): a table for the terminal and a
Markdown report — the agreement rates, the causes of disagreement counted, and per
disagreeing or ambiguous pattern the first differing transmission with the engine's
reasoning at that point."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from ..table import render
from .differential import Outcome, summary


def _yn(v: Any) -> str:
    return "-" if v is None else ("yes" if v else "no")


def _ms(v: Any) -> str:
    return "-" if v is None else f"{v:.1f}"


def table(outs: Sequence[Outcome]) -> str:
    """One row per pattern, then the summary lines."""
    rows = []
    for o in outs:
        p = o.pattern
        rows.append([p["name"], p["describe"], o.verdict, _yn(o.sequence_ok), _yn(o.fct_ok),
                     _yn(o.counters_ok), _ms(o.fct_ms.get("kernel")), _ms(o.fct_ms.get("engine")),
                     f"{o.modal_runs}/{o.kernel_runs}", o.why])
    head = ["pattern", "drops", "verdict", "seq", "fct", "counters", "kernel ms", "engine ms",
            "modal", "cause / why"]
    return render(head, rows, align_left=2) + "\n\n" + "\n".join(_summary_lines(summary(outs)))


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f} %"


def _summary_lines(s: Dict[str, Any]) -> List[str]:
    lines = [
        f"{s['patterns']} patterns: {s['agree']} agree, {s['disagree']} disagree, "
        f"{s['ambiguous']} ambiguous (the emulator's timing decides; not counted), "
        f"{s['errors']} failed",
        f"agreement over {s['judged']} judged: {_pct(s['agreement_rate'])} on all three; "
        f"sequence {_pct(s['sequence_rate'])}, FCT {_pct(s['fct_rate'])}, "
        f"counters {_pct(s['counters_rate'])}",
    ]
    w = s.get("engine_wire") or {}
    if w.get("runs"):
        lines.append(f"the engine on the wire: the kernel's sequence in {w['sequence_as_kernel']} "
                     f"of {w['runs']} patterns, the simulator's in {w['sequence_as_simulator']}")
    if s["causes"]:
        lines.append("causes of disagreement: " + "; ".join(f"{c} ×{n}" for c, n in s["causes"]))
    return lines


def _detail(o: Outcome) -> List[str]:
    p = o.pattern
    out = [f"### {p['name']}: {o.verdict}", "", f"{p['describe']}.", ""]
    if o.error:
        return out + [f"Failed: {o.error}", ""]
    if o.ambiguity:
        out += [f"Ambiguous: {o.ambiguity}." + (f" (Had it counted: {o.cause}.)" if o.cause else ""), ""]
    out.append(f"Kernel runs {o.kernel_runs}, {o.distinct_sequences} distinct sequence(s), modal "
               f"in {o.modal_runs}. FCT kernel {_ms(o.fct_ms.get('kernel'))} ms, engine "
               f"{_ms(o.fct_ms.get('engine'))} ms (allowance {_ms(o.fct_ms.get('allowance'))} ms).")
    bad = {k: v for k, v in o.counters.items() if v[0] != v[1]}
    if bad:
        out.append("Counters (kernel / engine): "
                   + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in bad.items()) + ".")
    d = o.first_difference
    if d is not None:
        st = d["engine_state"]
        what = "First difference"
        if "timing" in d:
            t = d["timing"]
            what = (f"Same sequence; first difference in time ({t['kernel_ms']} ms against "
                    f"{t['engine_ms']} ms after each side's first transmission)")
        out += ["", f"{what} at transmission {d['index']}: kernel "
                    f"{d['kernel'] or 'sent nothing more'}; engine {d['engine'] or 'sent nothing more'}.",
                "", "The engine there: " + ", ".join(
                    f"{k} {st[k]}" for k in ("why", "state", "cwnd", "pipe", "ssthresh", "srtt_us",
                                             "rto_us", "reo_wnd_us", "timer", "timer_at_us",
                                             "after_ack_ms") if st.get(k) is not None) + "."]
        if st.get("events"):
            out += ["", "Its decisions since its previous transmission:", ""]
            out += [f"- {e}" for e in st["events"]]
    if o.engine_wire is not None:
        w = o.engine_wire
        out += ["", f"The engine on the wire: sequence {'equals' if w['sequence_ok'] else 'differs from'} "
                    f"the kernel's; {'same as' if w['same_as_sim'] else 'differs from'} the simulator's."]
    return out + [""]


def markdown(outs: Sequence[Outcome], meta: Dict[str, Any]) -> str:
    """The report: settings, summary, causes, and details of every pattern not agreeing."""
    s = summary(outs)
    lines = ["# Differential test: the `linux` preset against the kernel", "",
             f"Seed {meta.get('seed')}, {s['patterns']} patterns, kernel runs per pattern "
             f"{meta.get('kernel_runs')}, kernel {meta.get('kernel', '?')}. Command: "
             f"`{meta.get('command', '')}`.", ""]
    lines += [f"- {x}" for x in _summary_lines(s)] + [""]
    lines += ["| pattern | drops | verdict | seq | FCT | counters | kernel ms | engine ms | cause / why |",
              "|---|---|---|---|---|---|---|---|---|"]
    for o in outs:
        p = o.pattern
        lines.append(f"| {p['name']} | {p['describe']} | {o.verdict} | {_yn(o.sequence_ok)} "
                     f"| {_yn(o.fct_ok)} | {_yn(o.counters_ok)} | {_ms(o.fct_ms.get('kernel'))} "
                     f"| {_ms(o.fct_ms.get('engine'))} | {o.why} |")
    lines += ["", "## Patterns that do not agree", ""]
    for o in outs:
        if o.verdict != "agree":
            lines += _detail(o)
    return "\n".join(lines) + "\n"
