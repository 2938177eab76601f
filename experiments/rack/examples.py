"""rack: the seed's worked examples run in the simulator — slides 7-8 (a tail burst),
15-23 (tail loss plus lost retransmissions) and 10-12 (a spurious timeout with 100
segments in flight) — each under the arms the slides compare, traced; plus the engine's
own vectors of the same examples (``lossrec._core.tail_vectors()``) when the binding exists.
"""

from __future__ import annotations


from typing import Any, Dict, List, Optional, Tuple

import lossrec
from lossrec import plot
from lossrec.lab import style
from lossrec.lab import point_scenario
from lossrec.lab import tail

#: (label, sender overrides) per arm of each example.
SLIDE7_ARMS = [
    ("RACK + TLP (rack-tlp)", {}),
    ("w/o RACK + TLP (dupthresh, no probe)", {"sender.loss_detection": "dupthresh", "sender.probe": "none"}),
]
SLIDES15_ARMS = [
    ("RACK + TLP, probing in recovery (slides)", {}),
    ("RACK + TLP as Linux / RFC 8985 (no probe in recovery)", {"sender.tlp_in_recovery": False}),
    ("w/o RACK (FACK + TLP, probing in recovery)", {"sender.loss_detection": "fack"}),
]
STORM_ARMS = [
    ("classic RTO marking (dupthresh)", {"sender.loss_detection": "dupthresh"}),
    ("RACK RTO marking (rack)", {}),
]


def _run(ctx: Any, scenario: str, overrides: Dict[str, Any]) -> Dict[str, Any]:
    text = point_scenario(ctx.scenario(scenario), overrides)
    res = lossrec.run(text, trace=True)
    recs = res.trace_records
    flow = res.json["flows"][0]
    s = tail.summarize(recs, res.json["recoveries"])
    drops = sum(1 for r in recs if r.get("kind") == "drop" and r.get("dir") == "data")
    last_ack_before_probe = None
    probe_t = next((r["t_us"] for r in recs if r.get("kind") == "send"
                    and r.get("why") in tail.PROBES), None)
    if probe_t is not None:
        acks = [r["t_us"] for r in recs if r.get("kind") == "ack" and not r.get("syn")
                and r["t_us"] < probe_t]
        last_ack_before_probe = acks[-1] if acks else None
    srtt_ms = next((r.get("t_us") for r in recs if r.get("kind") == "ack" and r.get("syn")), None)
    return {"records": recs, "flow": flow, "summary": s, "drops": drops,
            "probe_t_us": probe_t, "last_ack_us": last_ack_before_probe,
            "handshake_rtt_us": srtt_ms, "segments_delivered": flow["bytes"]}


def runs(ctx: Any, key: str) -> List[Tuple[str, Dict[str, Any]]]:
    """The traced arms of one example (``slide7``, ``slides15`` or ``storm``), cached."""
    ck = f"examples:{key}"
    if ck not in ctx.cache:
        scenario, arms = {"slide7": ("tail-burst.toml", SLIDE7_ARMS),
                          "slides15": ("lost-retransmit.toml", SLIDES15_ARMS),
                          "storm": ("spurious-rto.toml", STORM_ARMS)}[key]
        ctx.cache[ck] = [(label, _run(ctx, scenario, ov)) for label, ov in arms]
    return ctx.cache[ck]


def vectors(ctx: Any) -> Optional[Dict[str, Any]]:
    if "vectors" not in ctx.cache:
        ctx.cache["vectors"] = tail.engine_vectors()
    return ctx.cache["vectors"]


# ----------------------------------------------------------------------------- figures


def panels(title: str, arms: List[Tuple[str, Dict[str, Any]]], xlim_ms: Any = None,
           subtitle: Any = None) -> Any:
    """One time-sequence panel per arm (the seed's style: sequence against time)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(arms), 1, figsize=(11.5, 2.9 * len(arms) + 0.6), squeeze=False)
    handles: Dict[str, Any] = {}
    for ax, (label, run) in zip(axes[:, 0], arms):
        handles.update(plot.draw_flow(ax, [r for r in run["records"] if r.get("flow", 0) == 0]))
        f = run["flow"]
        fct = f"{f['fct_ms']:.0f} ms" if f.get("fct_ms") is not None else "unfinished"
        text = (subtitle(label, run) if subtitle else
                f"{label}: {f['rtos']} RTO, {f['retransmits']} retransmissions, "
                f"{f['tlp_probes']} probes, done in {fct}")
        ax.set_title(text, fontsize=9, loc="left")
        ax.set_ylabel("sequence (bytes)")
        ax.grid(True, alpha=0.3)
        if isinstance(xlim_ms, tuple):
            ax.set_xlim(*xlim_ms)
        elif xlim_ms:
            ax.set_xlim(0, xlim_ms)
    return style.finish_panels(fig, axes, handles, title)


def slide7_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    arms = runs(ctx, "slide7")
    xmax = max(a[1]["flow"]["fct_ms"] or 0 for a in arms) * 1.05
    fig = panels("Seed 001 slides 7-8: ten segments, 4-10 lost", arms, xmax)
    return fig, ("Slides 7-8 (our reading): a ten-segment response with segments 4-10 lost. RACK + "
                 "TLP: the probe 2 RTTs after the last ACK, RACK repairs the rest in recovery; "
                 "without them, the RTO (1 s minimum) repairs it")


def slides15_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    arms = runs(ctx, "slides15")
    xmax = max(a[1]["flow"]["fct_ms"] or 0 for a in arms) * 1.05
    fig = panels("Seed 001 slides 15-23: tail loss + lost retransmissions (8 losses of 4 segments)",
                 arms, xmax)
    return fig, ("Slides 15-23: four segments all lost, then the retransmissions of 1-3, then 1's "
                 "second retransmission. With a second probe in recovery (slide 18) RACK repairs "
                 "every loss without a timeout; without it, or without RACK, a timeout ends it")


def storm_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    arms = runs(ctx, "storm")

    def sub(label: str, run: Dict[str, Any]) -> str:
        s = run["summary"]
        return (f"{label}: {s['timeouts']} RTO, {s['retransmissions']} retransmissions, "
                f"{s['dup_bytes']:,} bytes received twice")

    fig = panels("Seed 001 slides 10-12: spurious timeout with 100 segments in flight", arms,
                 (1250, 1650), sub)
    return fig, ("Slides 10-12: P1's ACK and the 99 segments sent just before the RTO are held by a "
                 "delay spike longer than the RTO. Classic marking retransmits all 100 as the held "
                 "ACKs return (red: retransmissions); RACK's marks only P1")


def vectors_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    import matplotlib.pyplot as plt

    v = vectors(ctx)
    if v is None:
        fig, ax = plt.subplots(figsize=(6, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, "lossrec._core.tail_vectors() is missing in this build", ha="center")
        return fig, "The engine's vectors: " + tail.BINDING_MISSING
    arms = [(name, {"records": v["traces"][name]["records"],
                    "flow": {"rtos": v["traces"][name]["timeouts"],
                             "retransmits": v["traces"][name]["retransmissions"],
                             "tlp_probes": v["traces"][name]["loss_probes"],
                             "fct_ms": (v["traces"][name]["finished_us"] or 0) / 1000}})
            for name in ("seed001_slide7", "seed001_slides_15_23")]
    fig = panels("The engine's vectors (lossrec::vectors::tail), 1000-byte segments, RTT 100 ms", arms)
    return fig, "Slides 7 and 15-23 as the engine's worked examples regenerate them"


# ------------------------------------------------------------------------------ claims


def claims(published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Any]:
    from lossrec.lab import Verdict

    out = []
    # slides 7-8
    c = published["slide7_no_rto"]
    (l1, rt), (l2, no) = runs(ctx, "slide7")
    srtt_us = rt["handshake_rtt_us"]
    gap = (rt["probe_t_us"] - rt["last_ack_us"]) if rt["probe_t_us"] and rt["last_ack_us"] else None
    pto_ok = gap is not None and abs(gap - 2 * srtt_us) <= 2 * srtt_us * c["tolerance_pct"] / 100
    ok = (rt["flow"]["rtos"] == 0 and rt["flow"]["fct_ms"] is not None and pto_ok
          and no["flow"]["rtos"] >= 1 and (no["flow"]["fct_ms"] or 1e18) > rt["flow"]["fct_ms"])
    out.append(Verdict.judge(
        "slide7_no_rto", ok,
        f"rack-tlp: {rt['flow']['rtos']} RTO, probe {gap / 1000:.1f} ms after the last ACK "
        f"(2·SRTT = {2 * srtt_us / 1000:.0f} ms), done in {rt['flow']['fct_ms']:.0f} ms; "
        f"without RACK + TLP: {no['flow']['rtos']} RTO, {no['flow']['fct_ms']:.0f} ms"
        if gap is not None else "no probe was sent",
        "the probe's SACK shows 4-10 missing below a delivered segment: RACK marks them lost "
        "at once (reordering not seen: reo_wnd 0 in recovery) and PRR paces their repair"))

    # slides 15-23
    (la, a), (lb, b), (lc, cfack) = runs(ctx, "slides15")
    ok = (a["flow"]["rtos"] == 0 and a["drops"] == 8 and a["summary"]["probes"] == 2
          and a["segments_delivered"] == 4 * 1448 and b["flow"]["rtos"] >= 1 and cfack["flow"]["rtos"] >= 1)
    out.append(Verdict.judge(
        "slides15_23", ok,
        f"probing in recovery: {a['flow']['rtos']} RTO, {a['drops']} dropped transmissions, "
        f"{a['summary']['probes']} probes, {a['summary']['lost_retransmissions']} lost retransmissions "
        f"found, done in {a['flow']['fct_ms']:.0f} ms; without probing in recovery: "
        f"{b['flow']['rtos']} RTO; without RACK: {cfack['flow']['rtos']} RTO",
        "RACK finds each lost retransmission once a segment sent after it is SACKed; the last "
        "retransmissions have nothing sent after them, so only a probe in recovery (or the RTO) "
        "reveals them"))

    # slides 10-12
    c = published["spurious_rto_storm"]
    (lc_, classic), (lr_, rack) = runs(ctx, "storm")
    mss = 1448
    cs, rs = classic["summary"], rack["summary"]
    ok = (classic["flow"]["rtos"] == 1 and rack["flow"]["rtos"] == 1
          and cs["retransmissions"] >= c["min_storm"] and cs["dup_bytes"] >= c["min_storm"] * mss
          and rs["retransmissions"] <= c["max_rack"] and rs["dup_bytes"] <= c["max_rack"] * mss)
    out.append(Verdict.judge(
        "spurious_rto_storm", ok,
        f"classic: {cs['retransmissions']} retransmissions, {cs['dup_bytes']:,} bytes received "
        f"twice ({cs['dup_bytes'] / mss:.0f} segments); RACK: {rs['retransmissions']}, "
        f"{rs['dup_bytes']:,} bytes ({rs['dup_bytes'] / mss:.0f}); timeouts {classic['flow']['rtos']} "
        f"and {rack['flow']['rtos']}",
        "classic marking (RFC 6298 with RFC 6675 §5.1) marks everything outstanding lost and slow "
        "start resends it as the held ACKs return; RACK marks only segments sent more than "
        "RACK.rtt + reo_wnd ago — P2-P100 left 10 ms before the timeout"))

    # the engine's vectors
    v = vectors(ctx)
    if v is None:
        out.append(Verdict.not_comparable("engine_vectors", tail.BINDING_MISSING))
    else:
        s7 = v["traces"]["seed001_slide7"]
        s15 = v["traces"]["seed001_slides_15_23"]
        drops15 = sum(1 for r in s15["records"] if r.get("kind") == "drop")
        arms = {a["arm"]: a for a in v["spurious_rto"]}
        cl, ra = arms.get("classic RTO marking", {}), arms.get("RACK RTO marking", {})
        ok = (s7["timeouts"] == 0 and s7["finished_us"] is not None and s15["timeouts"] == 0
              and s15["finished_us"] is not None and drops15 == 8
              and cl.get("retransmissions") == 100 and cl.get("bytes_twice") == 100 * v["mss"]
              and ra.get("retransmissions") == 1 and ra.get("bytes_twice") == v["mss"])
        out.append(Verdict.judge(
            "engine_vectors", ok,
            f"slide 7: {s7['timeouts']} RTO; 15-23: {s15['timeouts']} RTO, {drops15} drops; "
            f"10-12: classic {cl.get('retransmissions')} retransmissions / {cl.get('bytes_twice')} "
            f"B twice, RACK {ra.get('retransmissions')} / {ra.get('bytes_twice')} B",
            "the engine's scripted path (1000-byte segments, RTT 100 ms) agrees with the "
            "simulated runs above"))
    return out
