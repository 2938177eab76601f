"""rack: seed 001 — RACK + TLP (draft-ietf-tcpm-rack-01, IETF 97 slides).

Items (issue #6): slide 5's A/B on a web-like workload (`web.py`); slide 6's throughput
under 1 % random loss with and without RACK; the timelines of slides 7-8 and 15-23 and
slides 10-12's spurious timeout, traced in the simulator (`examples.py`) and, when the
binding exists, from the engine's own vectors.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab.claims import within_factor
from lossrec.lab.significance import judge_difference
from lossrec.lab import Sweep, Verdict, style
from lossrec.lab.claims import NOT_SIGNIFICANT



from . import examples
from . import web
from . import bbr
from . import reorder
from . import slide7

TITLE = "RACK + TLP: time-based loss detection and tail loss probes"
SEED = "001"
SUMMARY = """
Seed 001 presents RACK (a segment is lost once a segment sent after it was delivered and a
quarter RTT has passed) with TLP (a probe 2 RTTs after the last ACK turns a tail loss into
RACK recovery). It reports an A/B test on Google.com (slide 5: RFC 3517 recovery with early
retransmit vs RACK + TLP), a throughput comparison under 1 % random loss where lost
retransmissions cost a timeout without RACK (slide 6), example timelines (slides 7-8,
15-23), and the retransmission storm a spurious timeout causes when every outstanding
packet is marked lost, which RACK's timeout marking avoids (slides 10-12). This study runs
the A/B on a synthetic web workload, the random-loss transfer with the congestion controls
we have, and the examples in the simulator (and from the engine's vectors), tracing each.
"""
NOTES = """
* **F-RTO.** Both of the seed's arms ran F-RTO; both of ours run the `linux` preset's
  `spurious_detection = linux` (F-RTO as Linux's `tcp_process_loss` runs it, plus DSACK and
  timestamp undo) with `spurious_response = full-undo`.
* **Arm A** is the `linux` preset with RACK and TLP replaced: `loss_detection =
  dupthresh-3517` (RFC 3517: DupThresh duplicate ACKs or DupThresh·SMSS SACKed bytes),
  `probe = none`, `early_retransmit = rfc5827` delayed and off after reordering (Linux
  `tcp_early_retrans = 2`). Everything else — PRR (Linux's), CUBIC, the Linux RTT
  estimator, 200 ms minimum RTO, F-RTO and undo — is the same in both arms, as in the seed's kernel A/B.
  **Arm B** is `linux` (rack-linux, tlp-linux). "B without TLP" separates RACK's part.
* **Why a client population** (the web workload as run is described above, from the run):
  a first draft had one RTT (50 ms) and Linux-like receivers only; its B sent almost no
  spurious probes (1 of 68), because a 40 ms delayed ACK never outlasts 2·SRTT there — we
  then adopted the tlp study's kind of population, before running the full A/B again.
* **Counts come from traces.** RTO-triggered recoveries are the first timeouts of an
  episode (backoffs not counted); time in recovery sums fast-recovery episodes
  (`enter_recovery` → `exit_recovery`) and timeout recoveries (`rto` → `exit_loss`); a
  probe is DSACKed when a later ACK's DSACK covers it; "unnecessary" probes are those whose
  segment the path had delivered (ground truth from the drops).
* **Slide 6 with BBR** (`bbr.py`, random-loss-bbr.toml) runs the seed's setting: BBR v1
  (Linux 4.9), 1 % random loss, with RACK (`linux`)
  and without (`linux-4.4-norack`: Linux 4.4-4.10 with `tcp_recovery` = 0 — FACK recovery
  without `tcp_mark_lost_retrans`, which 4.4 removed). The receiver's window is fixed far
  above the BDP.
* **Slide 6 with CUBIC and Reno.** 1 % random loss holds them to ~8 Mb/s on any link
  (Mathis et al.), so the path never fills and a timeout costs only what the window would
  have sent meanwhile. We report the ratio with both CCs and judge the direction only,
  and check the slide's mechanism directly: timeouts per 10,000 packets and per lost
  retransmission, with and without RACK. The arm without RACK is FACK as Linux >= 4.4 ran
  it (`fack_lost_retrans = false`): the FACK-era kernels' lost-retransmission detection
  (2.6.25-4.3) was gone.
* **Slides 7-8** are figures without text; our reading follows the engine's vector
  (`seed001_slide7`): ten segments, 4-10 lost. Slides 15-23 need a probe in recovery
  (slide 18: "need to update draft-02 to probe in recovery"): the `tlp_in_recovery` axis;
  RFC 8985 and Linux do not probe in recovery, and that arm is shown too.
* **Slides 10-12** use RFC 8985 §3.5's construction (as the engine's
  `spurious_rto_comparison`): after an exchange that gives an RTT, P1 is sent and a delay
  spike holds it (and then its ACK) longer than the 1 s RTO; P2-P100 are written 10 ms
  before the RTO. Both arms are `rack-tlp` without TLP (as the vector), classic marking
  being `loss_detection = dupthresh`. A last write at 2.5 s keeps the run going until every
  retransmission has reached the receiver (a run ends once all data is acknowledged), so
  that the `recv` records show every byte received twice.
* **The engine's vectors** (`lossrec::vectors::tail`: a scripted path with 1000-byte
  segments and a 100 ms RTT) are read through `lossrec._core.tail_vectors()`; a build
  without that binding reports the `engine_vectors` claim as not comparable.
* **Reordering** (`reorder.py`, reorder.toml): late packets stay under RTT/4, a fixed
  400 kB receive window; RACK (`linux`) vs
  DupThresh (three duplicate ACKs, fixed, no TLP), with Linux's adaptive DupThresh and
  RACK without the DupThresh zeroing (`rack_no_dupthresh`) beside. Every retransmission
  is spurious.
"""

from . import notes as notes_mod


def notes(df: pd.DataFrame, ctx: Any) -> str:
    """The report's Notes: the workloads as this run ran and measured them (notes.py), then
    the design notes above."""
    gen = [notes_mod.web_bullet(df, ctx, web),
           *notes_mod.long_transfer_bullets(df, ctx, bbr.LABEL, reorder.LABEL)]
    return "\n".join(gen) + "\n" + NOTES.strip()


#: slide 6: (loss_detection, label)
RANDOM_ARMS = [("rack-linux", "with RACK"), ("fack", "without RACK")]
CCS = ["cubic", "reno"]


def sweeps(quick: bool) -> List[Sweep]:
    return [
        Sweep("random-loss.toml",
              {"sender.loss_detection": [a for a, _ in RANDOM_ARMS], "sender.cc": CCS,
               "workload.duration_s": [20 if quick else 600]},
              reps=2 if quick else 6, common_seeds=True, labels={"arm": "slide 6"}, details=True),
        *web.sweeps(quick),
        *bbr.sweeps(quick),
        *reorder.sweeps(quick),
    ]


def prepare(df: pd.DataFrame) -> pd.DataFrame:
    return df


# ----------------------------------------------------------------------------- slide 6


def random_loss(df: pd.DataFrame) -> pd.DataFrame:
    """Per (loss detection, CC): throughput (Mb/s), data packets, timeouts, lost
    retransmissions (when the flow results carry them), summed over repetitions."""
    d = df[df["arm"] == "slide 6"].copy()
    d["mbps"] = d["bytes"] * 8 / d["workload.duration_s"] / 1e6
    agg = {"mbps": "mean", "data_packets_sent": "sum", "rtos": "sum", "retransmits": "sum"}
    if "lost_retransmits" in d:
        agg["lost_retransmits"] = "sum"
    return d.groupby(["sender.loss_detection", "sender.cc"], observed=True).agg(agg)


def throughput_figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = random_loss(df)
    fig, ax = style.figure((6.4, 3.6))
    x = np.arange(len(CCS))
    from lossrec.lab.significance import error_bars, mean_interval

    d = df[df["arm"] == "slide 6"]
    d = d.assign(mbps=d["bytes"] * 8 / d["workload.duration_s"] / 1e6)
    for i, (ld, label) in enumerate(RANDOM_ARMS):
        vals = [t.loc[(ld, cc), "mbps"] for cc in CCS]
        cis = [mean_interval(d[(d["sender.loss_detection"] == ld) & (d["sender.cc"] == cc)]["mbps"])
               for cc in CCS]
        ax.bar(x + (i - 0.5) * 0.38, vals, 0.38, label=label, color=style.arm_style(i)["color"],
               yerr=error_bars(vals, cis), capsize=3, error_kw={"elinewidth": 0.8})
        for xi, v, ci in zip(x, vals, cis):  # above the error bar, not on it
            top = max(v, ci.high) if np.isfinite(ci.high) else v
            ax.annotate(f"{v:.2f}", (xi + (i - 0.5) * 0.38, top), xytext=(0, 2),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels(CCS)
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title("Slide 6: 20 ms RTT, 1 Gb/s, 1 % random loss\n(seed: BBR, 9.6 vs 5.4 Gb/s)")
    # outside the axes: inside, a patch sat on a bar of its own colour and vanished
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig, ("Throughput of one long transfer under 1 % random loss with RACK (rack-linux) and "
                 "without (FACK), for CUBIC and Reno; the seed's BBR figures are 9.6 and 5.4 Gb/s; "
                 "error bars: 95 % interval of the mean over the repetitions (Student t)")


FIGURES = {
    "slide5-ab": web.ab_figure,
    "slide5-probes": web.probe_figure,
    "slide6-throughput": throughput_figure,
    "slide6-bbr": bbr.figure,
    "reordering": reorder.figure,
    "slides7-8-timeline": examples.slide7_figure,
    "slides15-23-timeline": examples.slides15_figure,
    "slides10-12-spurious-rto": examples.storm_figure,
    "engine-vectors": examples.vectors_figure,
}


# ------------------------------------------------------------------------------ claims




def _web_claims(published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    out = []
    tot = web.totals(ctx)
    A, B = web.ARM_A, web.ARM_B
    c = published["a_timeout_vs_ack_repairs"]
    ratio = tot.loc[A, "rto_episodes"] / max(tot.loc[A, "fast_episodes"], 1)
    out.append(Verdict.judge(
        "a_timeout_vs_ack_repairs", within_factor(ratio, c["value"], c["factor"]),
        f"{ratio:.2f} ({int(tot.loc[A, 'rto_episodes'])} RTO / {int(tot.loc[A, 'fast_episodes'])} "
        f"fast recoveries in A)",
        "short responses lose their tails, which only a timeout repairs without TLP"
        if ratio >= 1 else "our workload's losses are mostly inside responses, where ACKs repair them"))

    c = published["rto_recoveries"]
    ch, lo, hi = web.change(ctx, "rto_episodes")
    out.append(judge_difference(
        "rto_recoveries", within_factor(ch, c["value"], c["factor"]),
        f"{ch:+.1f} % ({int(tot.loc[A, 'rto_episodes'])} → {int(tot.loc[B, 'rto_episodes'])}; "
        f"per repetition {lo:+.0f} to {hi:+.0f} %)",
        "TLP turns tail losses into RACK recoveries; the timeouts left are those where the probe "
        "or its ACK is lost too, or a whole flight and its probe die in one loss burst",
        signs=[(web.rep_diff(ctx, "rto_episodes"), "<")], events=int(tot.loc[A, "rto_episodes"]),
        min_events=c["min_events"]))

    c = published["time_in_recovery"]
    ch, lo, hi = web.change(ctx, "recovery_ms")
    ch_nt, _, _ = web.change(ctx, "recovery_ms", web.ARM_B_NO_TLP)
    mostly_tlp = np.isfinite(ch_nt) and (ch_nt > ch / 2)
    out.append(judge_difference(
        "time_in_recovery", within_factor(ch, c["value"], c["factor"]) and mostly_tlp,
        f"{ch:+.1f} % (per repetition {lo:+.0f} to {hi:+.0f} %); B without TLP {ch_nt:+.1f} %",
        "RTO recoveries last an RTO plus slow start, RACK/TLP recoveries about two RTTs; "
        + ("most of the reduction goes when TLP is turned off" if mostly_tlp else
           "RACK alone already gives most of the reduction here"),
        signs=[(web.rep_diff(ctx, "recovery_ms"), "<")], unit="ms",
        events=int(tot.loc[A, "rto_episodes"] + tot.loc[A, "fast_episodes"]), min_events=c["min_events"]))

    c = published["data_packets"]
    ch, lo, hi = web.change(ctx, "data_segments")
    extra = tot.loc[B, "data_segments"] - tot.loc[A, "data_segments"]
    probes = tot.loc[B, "probes"]
    ok = within_factor(ch, c["value"], c["factor"]) and extra > 0 and probes >= extra / 2
    out.append(judge_difference(
        "data_packets", ok,
        f"{ch:+.2f} % (per repetition {lo:+.2f} to {hi:+.2f} %); B's probes = "
        f"{probes / tot.loc[A, 'data_segments'] * 100:.2f} % of A's data packets; retransmissions "
        f"{int(tot.loc[A, 'retransmissions'])} → {int(tot.loc[B, 'retransmissions'])}",
        "each probe replaces the timeout retransmission(s) it saves, so the net change is the "
        "probes that were not needed; ours are far fewer than the seed's ~2.6 % of packets "
        "(its clients' RTT variance, which fires probes early, is not in our model)",
        signs=[(web.rep_diff(ctx, "data_segments"), ">")], events=int(probes),
        min_events=c["min_events"]))

    c = published["slide3_timeout_vs_fast_recovery"]
    n_rto, n_fast = int(tot.loc[A, "rto_episodes"]), int(tot.loc[A, "fast_episodes"])
    rto_mean = tot.loc[A, "rto_recovery_ms"] / max(n_rto, 1)
    fast_mean = tot.loc[A, "fast_recovery_ms"] / max(n_fast, 1)
    ratio = rto_mean / fast_mean if fast_mean else float("nan")
    ours = (f"{ratio:.1f}x (mean RTO recovery {rto_mean:,.0f} ms over {n_rto} episodes, mean fast "
            f"recovery {fast_mean:,.0f} ms over {n_fast}, arm A)")
    if min(n_rto, n_fast) < c["min_events"]:
        out.append(Verdict("slide3_timeout_vs_fast_recovery", ours, NOT_SIGNIFICANT,
                           f"fewer than {c['min_events']} episodes of a kind"))
    else:
        out.append(Verdict.judge(
            "slide3_timeout_vs_fast_recovery", within_factor(ratio, c["value"], c["factor"]), ours,
            "a timeout recovery waits out the RTO (200 ms minimum, backed off in bursts) and then "
            "slow-starts; a fast recovery takes about an RTT"
            + ("" if within_factor(ratio, c["value"], c["factor"]) else
               f"; here the RTO (200 ms minimum plus the RTT terms) is short next to fast "
               f"recoveries on 20-150 ms paths, so a timeout lasts {ratio:.1f}x, not 10x")))

    c = published["spurious_probes"]
    n = tot.loc[B, "probes_retransmit"]
    ds = tot.loc[B, "probes_dsacked"] / n * 100 if n else float("nan")
    un = tot.loc[B, "probes_unnecessary"] / n * 100 if n else float("nan")
    out.append(judge_difference(
        "spurious_probes", bool(np.isfinite(ds) and ds > c["min_pct"]),
        f"{ds:.0f} % of {int(n)} retransmitted probes DSACKed; {un:.0f} % unnecessary by the "
        "path's drops",
        "a probe is spurious when the ACK was only late: delayed ACKs (40 ms) and queueing "
        "push it past 2·SRTT (+ 2 ms) when more than one segment is out",
        events=int(n), min_events=c["min_events"]).with_other(
        bool(np.isfinite(ds) and ds > c["other_rule"]["min_pct"]), f"{ds:.0f} %"))
    return out


def _sigma(sd: pd.Series, cc: str) -> str:
    v = [sd.get((ld, cc), np.nan) for ld, _ in RANDOM_ARMS]
    v = [x for x in v if np.isfinite(x)]
    return f" (run-to-run σ ≤ {max(v):.2f})" if v else ""


def _rep_diff(d: pd.DataFrame, cc: str, col: str) -> Any:
    """RACK − FACK of ``col`` (``mbps``: throughput) per repetition under ``cc``, paired
    (common seeds), with its interval."""
    from lossrec.lab.significance import difference

    d = d[d["sender.cc"] == cc].assign(mbps=d["bytes"] * 8 / d["workload.duration_s"] / 1e6)
    w = d.pivot_table(index="rep", columns="sender.loss_detection", values=col, aggfunc="sum")
    if not {"rack-linux", "fack"} <= set(w.columns):
        return difference([], [], paired=True)
    w = w.dropna(subset=["rack-linux", "fack"])
    return difference(w["rack-linux"].to_numpy(), w["fack"].to_numpy(), paired=True)


def _random_loss_claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    t = random_loss(df)
    d = df[df["arm"] == "slide 6"]
    sd = (d["bytes"] * 8 / d["workload.duration_s"] / 1e6).groupby(
        [d["sender.loss_detection"], d["sender.cc"]], observed=True).std()
    out = []
    ratios = {cc: t.loc[("rack-linux", cc), "mbps"] / t.loc[("fack", cc), "mbps"] for cc in CCS}
    rates = "; ".join(f"{cc}: {t.loc[('rack-linux', cc), 'mbps']:.2f} vs "
                      f"{t.loc[('fack', cc), 'mbps']:.2f} Mb/s{_sigma(sd, cc)}, "
                      f"ratio {ratios[cc]:.3f}" for cc in CCS)
    c = published["slide6_throughput"]
    out.append(judge_difference(
        "slide6_throughput", all(r > 1 for r in ratios.values()), rates
        + " (differences: with − without RACK per repetition, Mb/s, " + ", ".join(CCS) + ")",
        "1 % random loss holds loss-based CC to ~8 Mb/s (Mathis: 1.22·MSS/(RTT·√p) ≈ 7 Mb/s) on "
        "any link, so the timeouts without RACK (one per lost retransmission, ~1 per 10,000 "
        "packets, each ~220 ms) cost ~1-2 % of the time; with BBR at 10 Gb/s each one stalls the "
        "full rate (seed: ratio 1.78). "
        + ("The direction holds, the size cannot." if all(r > 1 for r in ratios.values()) else
           "Where the ratio is below 1, RACK's fast recoveries themselves end a little lower than "
           "FACK's (the saved timeouts are worth less than that difference at this rate)."),
        signs=[(_rep_diff(d, cc, "mbps"), ">") for cc in CCS], events=int(t.xs("fack", level=0)["rtos"].sum()),
        min_events=c["min_events"], unit="Mb/s"))

    c = published["slide6_lost_retransmit_rto"]
    if "lost_retransmits" not in t:
        out.append(Verdict.not_comparable("slide6_lost_retransmit_rto",
                                          "the flow results carry no lost-retransmission count"))
        return out
    per10k = {k: t.loc[k, "rtos"] / t.loc[k, "data_packets_sent"] * 1e4 for k in t.index}
    share = {k: t.loc[k, "rtos"] / t.loc[k, "lost_retransmits"] if t.loc[k, "lost_retransmits"] else 0.0
             for k in t.index}
    without_ok = all(within_factor(per10k[("fack", cc)], c["value"], c["factor"])
                     and share[("fack", cc)] >= c["min_share_without"] for cc in CCS)
    with_ok = all(share[("rack-linux", cc)] <= c["max_share_with"] for cc in CCS)
    ours = "; ".join(
        f"{cc}: without RACK {per10k[('fack', cc)]:.2f} RTO/10k packets, "
        f"{t.loc[('fack', cc), 'rtos']:.0f} RTOs / {t.loc[('fack', cc), 'lost_retransmits']:.0f} lost "
        f"retransmissions; with RACK {t.loc[('rack-linux', cc), 'rtos']:.0f} / "
        f"{t.loc[('rack-linux', cc), 'lost_retransmits']:.0f}" for cc in CCS)
    out.append(judge_difference(
        "slide6_lost_retransmit_rto", without_ok and with_ok, ours + " (differences: RTOs with − without "
        "RACK per repetition, " + ", ".join(CCS) + ")",
        "1 % of the ~1 % retransmissions are lost again: one per ~10,000 packets; without RACK "
        "nothing but the timer finds it, RACK sees a later-sent segment delivered",
        signs=[(_rep_diff(d, cc, "rtos"), "<") for cc in CCS],
        events=int(t.xs("fack", level=0)["lost_retransmits"].sum()), min_events=c["min_events"]))
    return out


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    out = _web_claims(published, ctx)
    out += _random_loss_claims(df, published)
    out += bbr.claims(df, published)
    out += reorder.claims(df, published)
    out += examples.claims(published, ctx)
    out += slide7.claims(published, ctx)
    return out
