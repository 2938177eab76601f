"""tlp: seed 000 — Tail Loss Probe, draft-dukkipati-tcpm-tcp-loss-probe-01.

Items (issue #6): the §2.1 example as a time-sequence graph and the §4.2 taxonomy, traced
in the simulator and from the engine's own vectors (`examples.py`); the §5 measurements on
a synthetic web workload (`web.py`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab.claims import within_factor
from lossrec.lab.significance import judge_difference
from lossrec.lab import Verdict, within
from lossrec.lab import tail
from lossrec.lab.report import table



from . import examples
from . import web
from . import ptostate
from . import notes as notes_mod

TITLE = "Tail Loss Probe (draft-01): the example, the taxonomy and the web measurements"
SEED = "000"
SUMMARY = """
Seed 000 specifies Tail Loss Probe: when no ACK has come for max(2·SRTT, 10 ms) — with one
segment out, max(2·SRTT, 1.5·SRTT + WCDelAckT) — send the last segment again (or a new
one), so that its SACK starts fast recovery instead of waiting for the RTO; §3 detects
when the probe itself repaired the loss and cuts cwnd. It walks through an example (§2.1)
and a taxonomy of 1-5 tail losses (§4.2), and reports measurements on Google's web
servers (§5): probe overhead, what probes achieved, fewer timeouts, lower latency, the
WCDelAckT sweep and one probe vs two. This study traces the example and the taxonomy in
the simulator (and compares them with the engine's own vectors), and runs the §5
comparisons on a synthetic web workload with the `tlp-draft` preset against the same
preset with `probe = none`.
"""
NOTES = """
* **Arms.** `tlp-draft` is the seed's Linux 2013: FACK, PRR (RFC 6937), CUBIC, delayed
  early retransmit with the §4.2 enhancement, 200 ms minimum RTO and TLP draft-01 with one
  probe and WCDelAckT 200 ms. The baseline sets `probe = none` and nothing else, as the
  seed's "on/off switch". WCDelAckT and two probes are the `tlp_max_ack_delay_ms` and
  `tlp_max_probes` axes.
* **Latency** here is from the response's write to its last byte's arrival at the client
  (the seed: from the first byte sent to the ACK of the last byte, one return trip more).
  Relative changes are computed on all responses, lost or not, as the seed's table.
* **Probe outcomes** are counted two ways: what the sender's counters say (the trace's
  `tlp_recovery` events = TCPLossProbeRecovery; DSACKs covering a probe = the duplicate
  ACK of an unnecessary probe), as the seed measured them, and the ground truth from the
  path's drops (`lossrec.lab.tail.probe_outcomes`).
* **Undo.** Linux 2013 undid spurious reductions (F-RTO, DSACK, timestamps); the
  `tlp-draft` preset predates the engine's undo axes, so the web scenarios set
  `spurious_detection = linux` and `spurious_response = full-undo` in both arms.
* **§2.1 and §4.2** are traced in the simulator (1448-byte segments, RTT 100 ms, an ACK per
  segment); the engine's own vectors (`lossrec::vectors::tail`, 1000-byte segments) are
  read through `lossrec._core.tail_vectors()` when this build has it.
* **FlightSize and cwnd at the probes** (`ptostate.py`): from the traced TLP arm, at each
  `loss_probe` event: FlightSize = highest byte sent − cumulative ACK (RFC 5681: SACKed
  bytes still count), cwnd as the last ACK left it, both in segments. The seed measured
  "when a PTO is scheduled" / "when a probe segment is transmitted"; we take the latter.
"""


def notes(df: pd.DataFrame, ctx: Any) -> str:
    """The report's Notes: the workload and the timeouts as this run ran and measured them
    (notes.py), then the design notes above."""
    return "\n".join(notes_mod.bullets(df, ctx, web)) + "\n" + NOTES.strip()


def sweeps(quick: bool) -> List[Any]:
    return web.sweeps(quick)


def prepare(df: pd.DataFrame) -> pd.DataFrame:
    if len(df) and "app" in df:
        df["arm"] = web.arm_of(df)
    return df


def taxonomy_section(df: pd.DataFrame, ctx: Any) -> str:
    return examples.taxonomy_markdown(ctx, examples_vectors(ctx))


def examples_vectors(ctx: Any) -> Any:
    if "vectors" not in ctx.cache:
        ctx.cache["vectors"] = tail.engine_vectors()
    return ctx.cache["vectors"]


def sections(df: pd.DataFrame, ctx: Any) -> List[Tuple[str, str]]:
    t = web.by_arm(df, ("app",))
    cols = ["app", "arm", "responses", "segments", "probes", "overhead_pct", "retrans_pct", "rtos",
            "mean_ms", "p50_ms", "p90_ms", "p99_ms"]
    t = t[[c for c in cols if c in t]]
    tab = table(list(t.columns), [[f"{v:.3g}" if isinstance(v, float) else v for v in row]
                                  for row in t.itertuples(index=False)])
    return [("§4.2 taxonomy: published, simulated, engine vector", taxonomy_section(df, ctx)),
            ("§5 per application and arm", tab)]


FIGURES = {
    "s2.1-timeline": examples.s21_figure,
    "s4.2-taxonomy": examples.taxonomy_figure,
    "s5-latency": web.latency_figure,
    "s5-percentiles": web.percentile_figure,
    "s5-wcdelackt": web.overhead_figure,
    "s5-probes": web.probe_figure,
    "s5-pto-state": ptostate.figure,
}


# ------------------------------------------------------------------------------ claims




def _example_claims(published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    out = []
    c = published["s21_example"]
    (_, tlp), (_, base) = examples.example_runs(ctx)
    recs = tlp["records"]
    mss = examples.MSS
    probe = next((r for r in recs if r.get("kind") == "send" and r.get("why") in tail.PROBES), None)
    srtt_us = next((r["t_us"] for r in recs if r.get("kind") == "ack" and r.get("syn")), 0)
    ack5 = next((r for r in recs if r.get("kind") == "ack" and r.get("ack") == 5 * mss), None)
    after = next((r for r in recs if probe and r.get("kind") == "ack" and r["t_us"] > probe["t_us"]), None)
    enter = next((r for r in recs if r.get("name") == "enter_recovery"), None)
    fr = sorted({tuple(r["seq"]) for r in recs if r.get("kind") == "send" and r.get("why") == "fast_retransmit"})
    want_fr = [(i * mss, (i + 1) * mss) for i in range(5, 9)]
    ok = bool(probe and ack5 and after and enter)
    gap = (probe["t_us"] - ack5["t_us"]) if ok else None
    if ok:
        ok = (tuple(probe["seq"]) == (9 * mss, 10 * mss) and probe["why"] == "probe_retransmit"
              and abs(gap - 2 * srtt_us) <= 2 * srtt_us * c["tolerance_pct"] / 100
              and tail.scoreboard(after, 10, mss) == "AAAAALLLLS"
              and enter["t_us"] == after["t_us"] and fr == want_fr
              and tlp["flow"]["rtos"] == 0 and base["flow"]["rtos"] >= 1)
    ours = (f"probe of 10 at ACK(5) + {gap / 1000:.1f} ms (2·SRTT = {2 * srtt_us / 1000:.0f} ms); "
            f"its ACK: {tail.scoreboard(after, 10, mss) if after else '?'}; recovery retransmits "
            f"{', '.join(str(s // mss + 1) for s, _ in fr)}; {tlp['flow']['rtos']} RTO, done in "
            f"{tlp['flow']['fct_ms']:.0f} ms; baseline {base['flow']['rtos']} RTO, "
            f"{base['flow']['fct_ms']:.0f} ms") if gap is not None else "no probe"
    out.append(Verdict.judge(
        "s21_example", ok, ours,
        "the PTO is re-armed on each ACK, so it fires 2·SRTT after the ACK of 5; the probe's SACK "
        "puts SND.FACK − SND.UNA at 5 segments > DupThresh, FACK recovery starts at once"))

    rows = examples.taxonomy_rows(ctx)
    matches = [examples.row_matches(p, r) for p, r in zip(examples.PUBLISHED, rows)]
    ours = "; ".join(f"{r['row']}: {r['before']}→{r['after_probe']} {r['mechanism']}, "
                     f"{r['timeouts']} RTO" for r in rows)
    out.append(Verdict.judge(
        "taxonomy", all(matches) and all(r["timeouts"] == 0 for r in rows), ours,
        "every row as published (see the table below)" if all(matches) else
        "rows " + ", ".join(r["row"] for r, m in zip(rows, matches) if not m) + " differ"))

    v = examples_vectors(ctx)
    if v is None:
        out.append(Verdict.not_comparable("taxonomy_engine_vectors", tail.BINDING_MISSING))
    else:
        vm = [examples.row_matches(p, r) for p, r in zip(examples.PUBLISHED, v["taxonomy"])]
        same_pub = [tuple(p) for p in v["published_taxonomy"]] == examples.PUBLISHED
        out.append(Verdict.judge(
            "taxonomy_engine_vectors", all(vm) and same_pub and len(vm) == 5,
            "; ".join(f"{r['losses']}: {r['before']}→{r['after_probe']} {r['mechanism']}"
                      for r in v["taxonomy"]),
            "tlp_taxonomy() matches PUBLISHED_TAXONOMY row by row" if all(vm) else "rows differ"))
    return out


def _pct(a: float, b: float) -> float:
    return (a - b) / b * 100 if b else float("nan")


def _web_claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    out = []
    pooled = web.by_arm(df).set_index("arm")
    per_app = web.by_arm(df, ("app",)).set_index(["app", "arm"])
    tr = web.traced(ctx)
    T, B = web.TLP, web.BASELINE

    c = published["probe_overhead"]
    ov = pooled.loc[T, "overhead_pct"]
    out.append(Verdict.judge("probe_overhead", within_factor(ov, c["value"], c["factor"]),
                             f"{ov:.2f} % ({int(pooled.loc[T, 'probes'])} probes / "
                             f"{int(pooled.loc[T, 'segments'])} segments)",
                             "probes fire on tails (every response has one) when the ACK is late "
                             "or lost; the 200 ms allowance keeps single-segment tails quiet"))

    n = tr["probes"].sum()
    c = published["probes_repaired_only_loss"]
    eng = tr["tlp_recoveries"].sum() / n * 100 if n else float("nan")
    truth = tr["probes_repaired_the_only_loss"].sum() / n * 100 if n else float("nan")
    out.append(Verdict.judge(
        "probes_repaired_only_loss", within(eng, c["value"], tol_abs=c["tol_abs"]),
        f"{eng:.0f} % by TLP loss detection ({int(tr['tlp_recoveries'].sum())} of {int(n)}); "
        f"ground truth {truth:.0f} %",
        "§3 declares a loss when no TLP dupack came back before the episode ended; delayed or "
        "lost ACKs make it conservative (the draft says so), hence above the ground truth"
        if eng > truth else "§3's verdict follows the ground truth closely"))

    c = published["probes_unnecessary"]
    ds = tr["probes_dsacked"].sum() / n * 100 if n else float("nan")
    un = tr["probes_unnecessary"].sum() / n * 100 if n else float("nan")
    out.append(Verdict.judge(
        "probes_unnecessary", within(ds, c["value"], tol_abs=c["tol_abs"]),
        f"{ds:.0f} % DSACKed; ground truth {un:.0f} % unnecessary",
        "an unnecessary probe is one whose ACK was only late: delayed ACKs (above all the 200 ms "
        "of Windows-like receivers on short RTTs) and queueing behind concurrent responses"))

    c = published["new_data_probes"]
    nd = tr["probes_new_data"].sum() / n * 100 if n else float("nan")
    out.append(Verdict.judge(
        "new_data_probes", within_factor(nd, c["value"], c["factor"]), f"{nd:.1f} %",
        "a probe is new data only when the response is not yet all sent (cwnd-limited, not "
        "application-limited); short responses fit in the initial window"))

    for cid, col, extra in (("rto_change", "rtos", ""), ("retrans_change", "retransmits", ""),
                            ("slow_start_retrans_change", "slow_start_retransmits", "")):
        c = published[cid]
        if col not in pooled:
            out.append(Verdict.not_comparable(cid, f"the flow results have no `{col}`"))
            continue
        ch = _pct(pooled.loc[T, col], pooled.loc[B, col])
        per = "; ".join(f"{a} {_pct(per_app.loc[(a, T), col], per_app.loc[(a, B), col]):+.0f} %"
                        for a in web.APPS)
        by_state = ""
        if {"rtos_in_open", "rtos_in_recovery"} <= set(df.columns):
            s_ = df.groupby("arm")[["rtos_in_open", "rtos_in_disorder", "rtos_in_recovery"]].sum()
            by_state = (f"; by state: in Open {int(s_.loc[B, 'rtos_in_open'])} → "
                        f"{int(s_.loc[T, 'rtos_in_open'])}, in Disorder "
                        f"{int(s_.loc[B, 'rtos_in_disorder'])} → {int(s_.loc[T, 'rtos_in_disorder'])}, "
                        f"in fast recovery {int(s_.loc[B, 'rtos_in_recovery'])} → "
                        f"{int(s_.loc[T, 'rtos_in_recovery'])}")
        why = {
            "rto_change": "TLP removes the timeouts of tails whose probe gets through (Open state); "
                          "many of the recoveries it starts still end in a timeout (a lost "
                          "retransmission, which nothing before RACK detects, or the RTO racing "
                          "the recovery)" + by_state,
            "retrans_change": "the probes add retransmissions (most of them spurious) and a timeout "
                              "that is avoided saves at most a few",
            "slow_start_retrans_change": "fewer timeouts, fewer go-back-N retransmissions after them",
        }[cid]
        # TLP − baseline per (application, receiver, RTT, repetition): the arms share seeds
        d = web.unit_diff(df, col)
        out.append(judge_difference(cid, within_factor(ch, c["value"], c["factor"]),
                                    f"{ch:+.1f} % ({int(pooled.loc[B, col])} → {int(pooled.loc[T, col])}; "
                                    f"{per})", why, signs=[(d, "<" if c["value"] < 0 else ">")],
                                    events=int(pooled.loc[B, col]), min_events=c["min_events"]))

    c = published["retrans_rate"]
    rr = pooled.loc[B, "retrans_pct"]
    out.append(Verdict.judge("retrans_rate", within_factor(rr, c["value"], c["factor"]),
                             f"{rr:.2f} % (baseline)",
                             "the loss model's rate was set for this before the TLP numbers were seen"))

    for cid, stat in (("latency_avg", "mean"), ("latency_p99", 99)):
        c = published[cid]
        ch = web.latency_change(df, stat)
        ok = all(within_factor(ch[a], c[a], c["factor"]) for a in web.APPS)
        if cid == "latency_avg":
            ok = ok and ch["images"] <= min(ch.values())
        # The original rule: the same thresholds on the changes of the pooled responses.
        col = "mean_ms" if stat == "mean" else "p99_ms"
        po = {a: _pct(per_app.loc[(a, T), col], per_app.loc[(a, B), col]) for a in web.APPS}
        ok_po = all(within_factor(po[a], c[a], c["factor"]) for a in web.APPS)
        if cid == "latency_avg":
            ok_po = ok_po and po["images"] <= min(po.values())
        # per application: the change per (receiver, RTT, repetition), paired, its interval
        ds = {a: web.unit_stat_diff(df, web.latency_stat(stat), T, B, app=a, relative=True) for a in web.APPS}
        band = {a: sorted((c[a] * c["factor"], c[a] / c["factor"])) for a in web.APPS}
        out.append(judge_difference(
            cid, ok, "; ".join(f"{a} {ch[a]:+.1f} % (seed {c[a]:+d})" for a in web.APPS)
            + " (differences: per-unit change, search, maps, images)",
            "TLP shortens only responses that lost their tail: a timeout (≥ 200 ms plus backoff) "
            "becomes a probe at 2·SRTT and one recovery round; the share of such responses and the "
            "RTO/RTT ratio of the path set the size", signs=[(ds[a], "<") for a in web.APPS],
            expect=[(ds[a], band[a][0], band[a][1]) for a in web.APPS],
            events=int(pooled.loc[B, "responses"]) if "responses" in pooled else int((df["arm"] == B).sum()),
            min_events=c["min_events"], unit="%").with_other(
            ok_po, "pooled: " + "; ".join(f"{a} {po[a]:+.1f} %" for a in web.APPS)))

    c = published["tail_only"]
    p50, p90, p99 = (web.latency_change(df, q)["all"] for q in (50, 90, 99))
    q50, q99 = (_pct(pooled.loc[T, f"p{q}_ms"], pooled.loc[B, f"p{q}_ms"]) for q in (50, 99))
    d50, d99 = (web.unit_stat_diff(df, web.latency_stat(q), T, B, relative=True) for q in (50, 99))
    out.append(judge_difference("tail_only", abs(p50) < c["max_median_pct"] and p99 < 0,
                                f"median {p50:+.2f} %, 90th {p90:+.2f} %, 99th {p99:+.2f} % (differences: "
                                "per-unit change of the median, of the 99th)",
                                "only responses that lost their tail change, a few percent of them",
                                signs=[(d99, "<")], same=[(d50, c["max_median_pct"])], show=[d50, d99],
                                events=int((df["arm"] == B).sum()), min_events=c["min_events"], unit="%",
                                ).with_other(abs(q50) < c["max_median_pct"] and q99 < 0,
                                          f"pooled: median {q50:+.2f} %, 99th {q99:+.2f} %"))

    c = published["wcdelackt_overhead"]
    o = [pooled.loc[a, "overhead_pct"] for a in (web.D0, web.D50, T)]
    ok = o[0] > o[1] > o[2] and o[0] / o[2] >= c["min_ratio"]
    def ovh(g: pd.DataFrame) -> float:
        n = float(g["data_packets_sent"].sum())
        return float(g["tlp_probes"].sum()) / n * 100 if n else float("nan")
    out.append(judge_difference(
        "wcdelackt_overhead", ok, f"0 ms: {o[0]:.2f} %, 50 ms: {o[1]:.2f} %, 200 ms: {o[2]:.2f} % "
        f"(ratio 0/200 = {o[0] / o[2]:.1f}; differences 0 − 50 ms, 50 − 200 ms, pp)",
        "with one segment out the ACK may wait for the receiver's delayed-ACK timer: a PTO of "
        "2·SRTT fires first whenever the timer (200 or 40 ms) exceeds SRTT; 1.5·SRTT + 50 ms "
        "covers the 40 ms timers and 200 ms covers all",
        signs=[(web.unit_stat_diff(df, ovh, web.D0, web.D50), ">"), (web.unit_stat_diff(df, ovh, web.D50, T), ">")],
        events=int(pooled.loc[T, "probes"]), min_events=c["min_events"], unit="pp"))

    c = published["one_probe_enough"]
    b1 = pooled.loc[B, "mean_ms"] - pooled.loc[T, "mean_ms"]
    b2 = pooled.loc[B, "mean_ms"] - pooled.loc[web.TWO, "mean_ms"]
    share = b1 / b2 * 100 if b2 > 0 else float("nan")
    mean = web.latency_stat("mean")
    one, two = web.unit_stat_diff(df, mean, T, B), web.unit_stat_diff(df, mean, web.TWO, T)
    out.append(judge_difference(
        "one_probe_enough", bool(np.isfinite(share) and share >= c["min_pct"]) or (b2 <= 0 < b1),
        f"one probe saves {b1:.2f} ms on average, two save {b2:.2f} ms"
        + (f": {share:.0f} % of the benefit" if np.isfinite(share) else "")
        + " (differences: one probe − none, two − one, mean latency)",
        "a second probe helps only when the first is lost and the second is not, before the RTO",
        signs=[(one, "<")], show=[one, two], events=int(pooled.loc[T, "probes"]),
        min_events=c["min_events"], unit="ms"))

    c = published["undo_events"]
    ub, ut = pooled.loc[B, "undos"], pooled.loc[T, "undos"]
    if ub == 0:
        out.append(Verdict.not_comparable("undo_events", "no undo events in the baseline"))
    else:
        ch = _pct(ut, ub)
        out.append(judge_difference(
            "undo_events", within_factor(ch, c["value"], c["factor"]), f"{ch:+.1f} % ({int(ub)} → {int(ut)})",
            "undos follow spurious timeouts and fast retransmits (F-RTO, DSACK, timestamps); TLP "
            "replaces some timeouts, among them spurious ones, by a probe",
            signs=[(web.unit_diff(df, "undos"), "<")], events=int(ub), min_events=c["min_events"]))
    return out


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    return (_example_claims(published, ctx) + _web_claims(df, published, ctx)
            + ptostate.claims(web.traced(ctx), published))
