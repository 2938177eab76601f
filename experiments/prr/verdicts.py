"""prr: the verdicts of items 2–6 (item 1's are in tables.py). Every rule's parameters
come from published.toml."""

from __future__ import annotations

import math

import sys
from typing import Any, Dict, List, Tuple

import pandas as pd

from lossrec.lab import Verdict
from lossrec.lab.significance import Diff, difference, judge_difference


def _mod(name: str) -> Any:
    return sys.modules[f"{__package__}.{name}"]


def _n(x: Any) -> int:
    return int(float(x)) if x == x else 0


def _f(x: float, nd: int = 1) -> str:
    return "—" if x != x else f"{x:.{nd}f}"


# ------------------------------------------------------------------ items 2–4: examples


def example_claims(published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    ex = _mod("examples")
    out = []
    s = ex.summary(ctx, "reno")
    label = ex.LABEL

    c = published["rfc3517_half_rtt_silence"]
    sil = {a: s[a]["silence"] for a in ex.ARMS}
    r = sil["rfc3517"]
    others = {a: sil[a]["acks"] for a in ("linux-rh", "prr")}
    ok = r["share"] >= c["min_fraction"] and all(v <= c["others_max_silent"] for v in others.values())
    ours = (f"RFC 3517: {r['acks']} of the round's {r['round']} ACKs in a row ({r['share']:.0%}, "
            f"{r['ms']:.0f} ms between sends) with segments marked lost waiting; "
            + ", ".join(f"{label[a]}: at most {v}" for a, v in others.items()))
    why = ("cwnd drops to ssthresh = 10 at once while pipe is 17: nothing may be sent until "
           "enough SACKs bring pipe below cwnd, although three lost segments wait; PRR and "
           "rate-halving send every second ACK from the start"
           if ok else "the silence is shorter than the rule asks, or another arm is silent too")
    cub = ex.summary(ctx, "cubic")["rfc3517"]["silence"]
    why += (f" (with CUBIC's ssthresh = 0.7 · cwnd = 14 the silence is {cub['acks']} ACKs, "
            f"{cub['share']:.0%})")
    out.append(Verdict.judge("rfc3517_half_rtt_silence", ok, ours, why))

    c = published["rfc3517_burst"]
    heavy = {a: ex.max_burst(ex.run(ctx, a, drops=ex.HEAVY_DROPS)) for a in ex.ARMS}
    first = {a: s[a]["burst"] for a in ex.ARMS}
    best = max(first["rfc3517"], heavy["rfc3517"])
    prr_best = max(first["prr"], heavy["prr"])
    ok = best >= c["min_burst"] and best > prr_best
    ours = (f"largest response to one ACK — example: " + ", ".join(f"{label[a]} {first[a]}" for a in ex.ARMS)
            + "; heavy losses: " + ", ".join(f"{label[a]} {heavy[a]}" for a in ex.ARMS))
    why = ("in the single-burst example pipe falls by one segment per ACK, so RFC 3517 never "
           "has more than one segment of room; after the second series of losses is revealed, "
           "pipe drops by six segments at once and RFC 3517 fills cwnd − pipe in one burst "
           "(PRR-SSRB sends at most DeliveredData + 1)"
           if ok else "no burst of the required size")
    out.append(Verdict.judge("rfc3517_burst", ok, ours, why))

    c = published["rate_halving_small_cwnd"]
    rh, prr, r3517 = s["linux-rh"], s["prr"], s["rfc3517"]
    delay = (rh["fct_ms"] - prr["fct_ms"]) / ex.RTT_MS
    ok = (rh["exit_cwnd"] <= c["max_ratio"] * rh["ssthresh"]
          and rh["exit_cwnd"] < min(prr["exit_cwnd"], r3517["exit_cwnd"])
          and delay >= c["min_delay_rtt"])
    ours = (f"cwnd after recovery: Linux {_f(rh['exit_cwnd'], 0)} (ssthresh {_f(rh['ssthresh'], 0)}), "
            f"RFC 3517 {_f(r3517['exit_cwnd'], 0)}, PRR {_f(prr['exit_cwnd'], 0)} segments; last byte "
            f"{rh['fct_ms']:.0f} ms vs PRR {prr['fct_ms']:.0f} ms ({delay:.1f} RTT later)")
    why = ("each ACK that lowers pipe lowers cwnd to pipe + 1, so recovery ends with cwnd = 2 and "
           "the 10 kB written at 500 ms go out in slow start (2, 4, 4 segments per RTT) instead of "
           "one window" if ok else "rate-halving's exit window is not small enough")
    out.append(Verdict.judge("rate_halving_small_cwnd", ok, ours, why))

    c = published["prr_smooth"]
    ok = prr["burst"] <= c["max_burst"] and prr["silence"]["acks"] <= c["max_silent"]
    ours = (f"PRR: at most {prr['burst']} segment(s) per ACK, at most {prr['silence']['acks']} "
            f"ACK(s) in a row without sending while data waited")
    why = ("SndCnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out: with ssthresh/RecoverFS "
           "= 1/2 one segment leaves on every second ACK" if ok else "PRR burst or stalled")
    out.append(Verdict.judge("prr_smooth", ok, ours, why))

    runs = {"example": ex.run(ctx, "prr"), "heavy losses": ex.run(ctx, "prr", drops=ex.HEAVY_DROPS),
            "banking": ex.run(ctx, "prr", writes=ex.BANKED_WRITES)}
    ends = {k: (r.exit_cwnd(), r.ssthresh()) for k, r in runs.items()}
    ok = all(a is not None and a == b for a, b in ends.values())
    out.append(Verdict.judge(
        "prr_ends_at_ssthresh", ok,
        "; ".join(f"{k}: cwnd {_f(a or float('nan'), 0)}, ssthresh {_f(b or float('nan'), 0)}"
                  for k, (a, b) in ends.items()),
        "RFC 6937's 'At the end of recovery: cwnd = ssthresh'" if ok else "cwnd ≠ ssthresh at exit"))

    allruns = {**runs, "example (CUBIC)": ex.run(ctx, "prr", "cubic"),
               "banking, no pause": ex.run(ctx, "prr", writes=ex.STEADY_WRITES)}
    bad = [k for k, r in allruns.items() if not ex.prr_out_ok(r)]
    n = sum(len(r.recovery_steps()) for r in allruns.values())
    out.append(Verdict.judge(
        "pr_out_bound", not bad, f"checked on {n} recovery ACKs of {len(allruns)} runs",
        "the proportional part sends ssthresh/RecoverFS ≤ 1 segment per segment delivered and "
        "the reduction bound at most DeliveredData + 1; the forced retransmission comes with "
        "one segment delivered" if not bad else "violated in " + ", ".join(bad)))

    h = ex.heavy(ctx)
    slow = h["slow"]
    ok = h["before_proportional"] and h["after_pipe_le_ss"] and bool(slow)
    ours = (f"{len(h['before'])} ACKs before the second series is seen (bounds "
            f"{'/'.join(sorted({s.bound for s in h['before']}))}); from {h['detected_at'] or float('nan'):.0f} ms "
            f"pipe ≤ ssthresh on all {len(h['after'])} recovery ACKs, bounds {' '.join(h['after_bounds'])}; "
            f"{len(slow)} ACK(s) sent DeliveredData + 1 (" + ", ".join(
                f"{s.sent} for {d:.0f} delivered" for s, d in slow[:3]) + ")")
    why = ("the SACK of segment 17 marks segments 11–16 lost: pipe falls from 13 to 8, below "
           "ssthresh 10, and PRR-SSRB switches to the slow-start reduction bound, sending two "
           "retransmissions per ACK until pipe is back at ssthresh" if ok else
           "the bounds do not switch as the seed describes")
    out.append(Verdict.judge("prr_heavy_losses_slow_start", ok, ours, why))

    c = published["prr_banking"]
    b = ex.banking(ctx)
    ok = b["in_recovery"] and b["burst"] >= c["min_burst"] and not b["mismatch"] and b["compared"] > 0
    ours = (f"{b['burst']} segments at {c['resume_ms']} ms; sent in recovery, paused vs not: "
            + ", ".join(f"{t:.0f} ms {p}/{q}" for t, p, q in b["rows"]))
    why = ("the application had nothing to send from the retransmissions on, so prr_out fell "
           "behind; at the write PRR's proportional allowance lets the banked segments out at "
           "once and from then on it sends exactly what the unpaused run sends"
           if ok else ("the resume is not inside recovery" if not b["in_recovery"] else
                       f"differs: {b['mismatch']}"))
    out.append(Verdict.judge("prr_banking", ok, ours, why))
    return out


# ---------------------------------------------------------------- items 5–6: statistics


def _latency_fingerprints(df: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    """Seed 003's 'Statistics About Latency' (issue 25 item 5): the share of responses with
    losses and how much longer they take, on the Linux arm of short-web (calibration
    checks: properties of the traffic, reported apart)."""
    d = df[(df["workload"] == "web") & (df["arm"] == "linux-rh")] if "workload" in df else df.iloc[0:0]
    lossy, clean = d[d["retransmits"] > 0], d[d["retransmits"] == 0]
    c = published["web_responses_with_losses"]
    share = 100 * len(lossy) / max(len(d), 1)
    out = [Verdict.judge(
        "web_responses_with_losses", share >= c["min_pct"],
        f"{share:.1f} % of {len(d):,} responses (Linux arm)",
        "responses with a retransmission; the seed counts losses that impact user experience")]
    c = published["web_lossy_latency_ratio"]
    a, b = float(lossy["fct_ms"].mean()), float(clean["fct_ms"].mean())
    ratio = a / b if len(lossy) and len(clean) and b > 0 else float("nan")
    out.append(Verdict.judge(
        "web_lossy_latency_ratio", c["lo"] <= ratio <= c["hi"],
        f"{_f(ratio)}x: mean {_f(a, 0)} ms with a retransmission ({len(lossy):,}), {_f(b, 0)} ms "
        f"without ({len(clean):,}), Linux arm",
        "the mean latency of responses with a retransmission over those without"))
    return out


def stats_claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    st = _mod("stats")
    iv = _mod("intervals")
    t = st.tables(df, ctx)
    w, v, e = t["web"], t["video"], t["er"]
    out = []
    rel, pct = st.rel, st.pct

    def have(frame: pd.DataFrame) -> bool:
        return len(frame) > 0 and float(frame["flows"].sum()) > 0

    if have(w):
        L, R, P = (w.loc[a] for a in ("linux-rh", "rfc3517", "prr"))
        c = published["web_retransmission_rate"]
        x = float(L["retransmission_rate_pct"])
        out.append(Verdict.judge(
            "web_retransmission_rate", c["min_pct"] <= x <= c["max_pct"],
            f"{x:.2f} % (Linux arm; RFC 3517 {R['retransmission_rate_pct']:.2f} %, PRR "
            f"{P['retransmission_rate_pct']:.2f} %); {L['responses_with_retransmissions_pct']:.1f} % "
            f"of responses retransmit (seed: 6.1 %)",
            "the scenario's loss: Gilbert-Elliott bursts plus drops at the shared 30-packet buffer"))
        out += _latency_fingerprints(df, published)

        c = published["web_cwnd_after_recovery"]
        qs = c["quantiles"]
        ours_q = {a: [float(w.loc[a, f"cwnd_after_p{q}"]) for q in qs] for a in st.ARMS}
        bad = []
        for i, q in enumerate(qs):
            lq, rq, pq = ours_q["linux-rh"][i], ours_q["rfc3517"][i], ours_q["prr"][i]
            if q >= 50:
                if not (pq >= c["prr_slack"] * rq and rq > lq):
                    bad.append(f"p{q}: PRR {pq:g}, RFC 3517 {rq:g}, Linux {lq:g}")
            elif not (pq >= lq and rq >= lq):
                bad.append(f"p{q}: PRR {pq:g}, RFC 3517 {rq:g}, Linux {lq:g}")
        # the levels, not only the order: each arm's p50–p99 within level_factor of the seed's
        seed_q = {"linux-rh": c["linux"], "rfc3517": c["rfc3517"], "prr": c["prr"]}
        f = float(c["level_factor"])
        off = [f"{st.NAME[a]} p{q} {ours_q[a][i]:g} vs {seed_q[a][i]:g}" for a in st.ARMS
               for i, q in enumerate(qs) if q >= 50
               and not (seed_q[a][i] / f <= ours_q[a][i] <= seed_q[a][i] * f)]
        ours = "; ".join(f"{st.NAME[a]} " + " ".join(f"{x:g}" for x in ours_q[a]) for a in st.ARMS)
        why = ("PRR and RFC 3517 both leave recovery with cwnd = ssthresh, rate-halving with "
               "pipe + 1" if not bad else "order broken at " + "; ".join(bad))
        if off:
            why += f"; levels beyond a factor {f:g} of the seed's: " + ", ".join(off)
        bad += off
        # the strict step of the order, at the median and the 90th percentile: RFC 3517 > Linux
        signs = [(iv.episode_diff(ctx, df, "web", "rfc3517", "linux-rh", "cwnd_after", q, True), ">")
                 for q in (50, 90)]
        signs.append((iv.episode_diff(ctx, df, "web", "prr", "linux-rh", "cwnd_after", 50, True), ">=",
                      c["margin_segments"]))
        out.append(judge_difference("web_cwnd_after_recovery", not bad,
                                    ours + " (differences: RFC 3517 − Linux at p50, p90; PRR − Linux at p50)",
                                    why, signs=signs, events=_n(w.loc["linux-rh", "episodes"]),
                                    min_events=c["min_events"], unit="segments"))

        m = {a: float(w.loc[a, "recovery_time_mean_ms"]) for a in st.ARMS}
        ok = m["prr"] <= m["rfc3517"] and m["prr"] <= m["linux-rh"]
        ack = {a: float(w.loc[a, "recovery_time_ack_mean_ms"]) for a in st.ARMS}
        rto = {a: float(w.loc[a, "episodes_ended_by_rto_pct"]) for a in st.ARMS}
        c = published["web_recovery_time"]
        steps = [(iv.episode_diff(ctx, df, "web", "prr", b, "duration_ms"), "<") for b in ("rfc3517", "linux-rh")]
        out.append(judge_difference(
            "web_recovery_time", ok,
            "mean " + ", ".join(f"{st.NAME[a]} {m[a]:.0f} ms" for a in st.ARMS) + "; median "
            + ", ".join(f"{st.NAME[a]} {w.loc[a, 'recovery_time_median_ms']:.0f} ms" for a in st.ARMS),
            ("PRR's recoveries are the shortest on average" if ok else "PRR's are not the shortest")
            + "; recoveries completed by an ACK average " + ", ".join(
                f"{st.NAME[a]} {ack[a]:.0f} ms" for a in st.ARMS)
            + ", and a timeout interrupted " + ", ".join(f"{st.NAME[a]} {rto[a]:.1f} %" for a in st.ARMS)
            + " of them (the long ones)", signs=steps, events=_n(P["episodes"]),
            min_events=c["min_events"], unit="ms"))

        def diffs(col: str) -> tuple:
            return rel(float(R[col]), float(L[col])), rel(float(P[col]), float(L[col]))

        def cis(col: str) -> Tuple[Diff, Diff]:
            return (iv.rel_totals(df, "web", col, "rfc3517", "linux-rh"),
                    iv.rel_totals(df, "web", col, "prr", "linux-rh"))

        c = published["web_total_retransmissions"]
        dr, dp = diffs("retransmits")
        ok = 0 < dr < c["max_pct"] and 0 < dp < c["max_pct"]
        ir, ip = cis("retransmits")
        out.append(judge_difference("web_total_retransmissions", ok,
                                    f"RFC 3517 {pct(dr)}, PRR {pct(dp)} (Linux {L['retransmits']:.0f})",
                                    "a few percent more, as in the seed" if ok else "not a small excess over Linux",
                                    signs=[(ir, ">"), (ip, ">")], events=_n(L["retransmits"]),
                                    expect=[(ir, 0, c["max_pct"]), (ip, 0, c["max_pct"])],
                                    min_events=c["min_events"], unit="%"))

        c = published["web_fast_retransmissions"]
        dr, dp = diffs("fast_retransmits")
        ok = 0 < dp < c["max_pct"] and 0 < dr < c["max_pct"] and dp < dr
        why = ("more fast retransmissions than rate-halving, PRR between" if ok else
               ("PRR retransmits more than RFC 3517" if dp >= dr else "not more than Linux")
               + f"; fast recoveries: Linux {L['fast_recoveries']:.0f}, RFC 3517 "
               f"{R['fast_recoveries']:.0f}, PRR {P['fast_recoveries']:.0f}; fast retransmits per "
               f"recovery {L['fast_retx_per_fr']:.2f}, {R['fast_retx_per_fr']:.2f}, "
               f"{P['fast_retx_per_fr']:.2f} (seed, DC1 Linux: 3.15)")
        ir, ip = cis("fast_retransmits")
        out.append(judge_difference("web_fast_retransmissions", ok,
                                    f"RFC 3517 {pct(dr)}, PRR {pct(dp)} (Linux {L['fast_retransmits']:.0f})", why,
                                    signs=[(ir, ">"), (ip, ">"),
                                           (iv.rel_totals(df, "web", "fast_retransmits", "prr", "rfc3517"), "<")],
                                    expect=[(ir, 0, c["max_pct"]), (ip, 0, c["max_pct"])],
                                    events=_n(L["fast_retransmits"]), min_events=c["min_events"], unit="%"))

        c = published["web_timeouts_on_recovery"]
        dr, dp = diffs("rtos_in_recovery")
        ok = P["rtos_in_recovery"] <= R["rtos_in_recovery"] and dr <= c["tolerance_pct"] and dp <= c["tolerance_pct"]
        ir, ip = cis("rtos_in_recovery")
        out.append(judge_difference(
            "web_timeouts_on_recovery", ok,
            f"RFC 3517 {pct(dr)}, PRR {pct(dp)} (Linux {L['rtos_in_recovery']:.0f})",
            "no more timeouts in recovery than Linux" if ok else
            f"more timeouts in recovery than Linux, together with more lost retransmissions "
            f"(Linux {L['lost_retransmits']:.0f}, RFC 3517 {R['lost_retransmits']:.0f}, PRR "
            f"{P['lost_retransmits']:.0f}): a lost retransmission is repaired only by a timeout",
            signs=[(ir, "<=", c["tolerance_pct"]), (ip, "<=", c["tolerance_pct"]),
                   (iv.rel_totals(df, "web", "rtos_in_recovery", "prr", "rfc3517"), "<=", c["tolerance_pct"])],
            events=_n(L["rtos_in_recovery"]), min_events=c["min_events"], unit="%"))

        c = published["web_lost_retransmissions"]
        dr, dp = diffs("lost_retransmits")
        ok = R["lost_retransmits"] > P["lost_retransmits"] > L["lost_retransmits"] and min(dr, dp) >= c["min_pct"]
        out.append(judge_difference(
            "web_lost_retransmissions", ok,
            f"RFC 3517 {pct(dr)}, PRR {pct(dp)} (Linux {L['lost_retransmits']:.0f}, "
            f"RFC 3517 {R['lost_retransmits']:.0f}, PRR {P['lost_retransmits']:.0f})",
            "RFC 3517's bursts overflow the shared buffer most, PRR's slow-start bound less, "
            "rate-halving's one segment per two ACKs least" if ok else "order differs",
            signs=[(iv.rel_totals(df, "web", "lost_retransmits", "rfc3517", "prr"), ">"),
                   (iv.rel_totals(df, "web", "lost_retransmits", "prr", "linux-rh"), ">")],
            # the magnitude: each arm over Linux by at least min_pct, judged by its interval
            expect=[(d, c["min_pct"], math.inf) for d in cis("lost_retransmits")],
            events=_n(L["lost_retransmits"]), min_events=c["min_events"], unit="%"))

        c = published["web_latency"]

        def latency_rule(mean_col: str, q_col: str) -> Tuple[bool, str]:
            dm = {a: rel(float(w.loc[a, mean_col]), float(L[mean_col])) for a in ("rfc3517", "prr")}
            dq = {a: [rel(float(w.loc[a, q_col.format(q)]), float(L[q_col.format(q)])) for q in st.LATENCY_Q]
                  for a in ("rfc3517", "prr")}
            ok = all(dm[a] <= -c["min_pct"] for a in dm) and all(x <= 0 for a in dq for x in dq[a])
            return ok, "; ".join(f"{st.NAME[a]} mean {pct(dm[a])}, p25/50/90/99 "
                                 + " ".join(pct(x) for x in dq[a]) for a in dm)

        # the seed's metric: responses that had losses; the original rule: every response
        ok, ours = latency_rule("latency_mean_retx_ms", "latency_lossy_p{}_ms")
        ok_all, ours_all = latency_rule("latency_mean_ms", "latency_p{}_ms")
        n_lossy = ", ".join(f"{st.NAME[a]} {int(w.loc[a, 'responses_lossy'])}" for a in st.ARMS)
        why = (("lower latency than Linux" if ok else "no clear reduction")
               + f" over the responses with a retransmission ({n_lossy}; "
               f"{L['responses_with_retransmissions_pct']:.1f} % of Linux's responses)")
        lat = {a: iv.latency_diffs(df, "web", a, "linux-rh", st.LATENCY_Q) for a in ("rfc3517", "prr")}
        signs = [(lat[a]["mean"], "<") for a in lat] + [(d, "<=", c["min_pct"]) for a in lat
                                                         for k, d in lat[a].items() if k != "mean"]
        out.append(judge_difference("web_latency", ok, ours + " (differences: mean, then p25/50/90/99, "
                                    "RFC 3517 and PRR against Linux)", why, signs=signs,
                                    show=[lat[a]["mean"] for a in lat],
                                    events=_n(L["responses_lossy"]), min_events=c["min_events"],
                                    unit="%").with_other(ok_all, ours_all))

        c = published["web_prr_pipe_vs_ssthresh"]
        gt, lt = float(P["pipe_gt_ss_pct"]), float(P["pipe_lt_ss_pct"])
        ok = abs(gt - 45) <= c["tolerance_pts"] and abs(lt - 32) <= c["tolerance_pts"]
        out.append(Verdict.judge(
            "web_prr_pipe_vs_ssthresh", ok,
            f"pipe > ssthresh {gt:.0f} %, pipe < ssthresh {lt:.0f} %, equal {100 - gt - lt:.0f} %",
            "as in the seed" if ok else "pipe starts below ssthresh more often than in the seed's mix "
            "(a burst of losses in a small flight leaves pipe small)"))

        c = published["web_prr_converges"]
        x = float(P["converged_pct"])
        out.append(Verdict.judge(
            "web_prr_converges", x >= c["min_pct"], f"{x:.0f} % of PRR's completed recoveries",
            ("cwnd is within a segment of ssthresh when the last ACK of recovery arrives"
             if x >= c["min_pct"] else
             "below ssthresh in most: PRR's cwnd is pipe + SndCnt, and pipe is small when a "
             "response has nothing left to send")
            + (f"; the same measure for the long video flows: {v.loc['prr', 'converged_pct']:.0f} %"
               if have(v) else "")))
    else:
        for cid in ("web_retransmission_rate", "web_cwnd_after_recovery", "web_recovery_time",
                    "web_total_retransmissions", "web_fast_retransmissions", "web_timeouts_on_recovery",
                    "web_lost_retransmissions", "web_latency", "web_prr_pipe_vs_ssthresh", "web_prr_converges",
                    "web_responses_with_losses", "web_lossy_latency_ratio"):
            out.append(Verdict.not_comparable(cid, "no short-web rows"))

    if have(v):
        L, R, P = (v.loc[a] for a in ("linux-rh", "rfc3517", "prr"))
        c = published["video_slow_start_after_fr"]
        sl, sr, sp = (float(x["slow_start_after_pct"]) for x in (L, R, P))
        ok = sl > c["linux_min_pct"] and sr <= c["rfc3517_max_pct"] and sp == 0
        web_sl = float(w.loc["linux-rh", "slow_start_after_pct"]) if have(w) else float("nan")
        reps = st.per_rep(df, ctx, "video")
        nfr = _n(L["fast_recoveries"])
        ss = reps["slow_start_after_pct"]
        out.append(judge_difference(
            "video_slow_start_after_fr", ok, f"Linux {sl:.0f} %, RFC 3517 {sr:.0f} %, PRR {sp:.0f} % "
            f"(short web flows: Linux {web_sl:.0f} %)",
            "rate-halving ends most recoveries below ssthresh" if ok else
            ("RFC 3517 and PRR never slow-start after recovery; " if sr <= c["rfc3517_max_pct"] and sp == 0
             else "") + f"rate-halving does so after {sl:.0f} % of the video recoveries, fewer than "
            "half (but after most of the short flows'): its exit cwnd is min(pipe + 1, ssthresh), "
            "below ssthresh only when pipe at the end of recovery is",
            signs=[(difference(ss["linux-rh"], ss["prr"], paired=True), ">"),
                   (difference(ss["linux-rh"], ss["rfc3517"], paired=True), ">")],
            events=nfr, min_events=c["min_events"], unit="pp"))

        def order(col: str, cid: str, fmt: str = "{:.2f} %") -> None:
            a, b, cc = (float(x[col]) for x in (R, P, L))
            ok = a >= b >= cc
            # the seed's order is strict in its numbers: each step must beat the noise of the
            # repetitions (paired by repetition, the arms share seeds)
            steps = [(difference(reps[col]["rfc3517"], reps[col]["prr"], paired=True), ">"),
                     (difference(reps[col]["prr"], reps[col]["linux-rh"], paired=True), ">")]
            out.append(judge_difference(
                cid, ok, ", ".join(f"{n} {fmt.format(x)}" for n, x in (("Linux", cc), ("RFC 3517", a), ("PRR", b)))
                + " (differences RFC 3517 − PRR, PRR − Linux, per repetition)",
                "RFC 3517 ≥ PRR ≥ Linux" if ok else "order differs from the seed's", signs=steps, unit="pp",
                events=nfr, min_events=published[cid]["min_events"]))

        c = published["video_fast_retransmit_lost"]
        a, b, cc = (float(x["lost_fast_retx_pct"]) for x in (R, P, L))
        ok = a > b >= cc
        lf = reps["lost_fast_retx_pct"]
        out.append(judge_difference(
            "video_fast_retransmit_lost", ok, f"Linux {cc:.2f} %, RFC 3517 {a:.2f} %, PRR {b:.2f} %"
            " (differences RFC 3517 − PRR, PRR − Linux, per repetition)",
            "RFC 3517's retransmission bursts overflow the buffer" if ok else "order differs",
            signs=[(difference(lf["rfc3517"], lf["prr"], paired=True), ">"),
                   (difference(lf["prr"], lf["linux-rh"], paired=True), ">=", c["margin_pp"])],
            events=_n(R["fast_retransmits"]), min_events=published["video_fast_retransmit_lost"]["min_events"],
            unit="pp"))
        order("retransmission_rate_pct", "video_retransmission_rate")
        order("time_in_recovery_pct", "video_time_in_recovery")
        order("bytes_in_fr_pct", "video_bytes_in_fr")
        a, b, cc = (float(x["transfer_time_mean_s"]) for x in (R, P, L))
        out.append(Verdict.not_comparable(
            "video_transmit_time",
            "the video workload is paced by the server's schedule (64 kB every 400 ms), so its "
            "completion time measures the schedule, not the network",
            f"completion: Linux {cc:.1f} s, RFC 3517 {a:.1f} s, PRR {b:.1f} s"))
    else:
        for cid in ("video_slow_start_after_fr", "video_fast_retransmit_lost", "video_retransmission_rate",
                    "video_time_in_recovery", "video_bytes_in_fr", "video_transmit_time"):
            out.append(Verdict.not_comparable(cid, "no video rows"))

    if have(e):
        B, E, M1, M12 = (e.loc[a] for a in st.ER_ARMS)
        c = published["er_fast_retransmits"]
        d = rel(float(E["fast_retransmits"]), float(B["fast_retransmits"]))
        ok = c["min_pct"] <= d <= c["max_pct"]
        ef = iv.rel_totals(df, "er", "fast_retransmits", "ER", "Linux")
        out.append(judge_difference("er_fast_retransmits", ok,
                                    f"{pct(d)} ({E['early_retransmits']:.0f} early retransmits)",
                                    "ER turns tail losses into fast retransmits" if ok else "size differs",
                                    signs=[(ef, ">")], expect=[(ef, c["min_pct"], c["max_pct"])],
                                    events=_n(E["early_retransmits"]), min_events=c["min_events"], unit="%")
                   .with_other(c["other_rule"]["min_pct"] <= d <= c["other_rule"]["max_pct"], pct(d)))
        c = published["er_timeouts"]
        d = rel(float(E["rtos"]), float(B["rtos"]))
        ok = -c["max_pct"] <= d < 0
        out.append(judge_difference("er_timeouts", ok, f"{pct(d)} (in Disorder "
                                 f"{pct(rel(float(E['rtos_in_disorder']), float(B['rtos_in_disorder'])))})",
                                 "fewer timeouts, by a few percent" if ok else
                                 ("more timeouts than the baseline" if d >= 0 else
                                  "a larger reduction than the seed's: the tail losses ER repairs make up "
                                  "a larger share of our timeouts"),
                                    signs=[(iv.rel_totals(df, "er", "rtos", "ER", "Linux"), "<")],
                                    events=_n(B["rtos"]), min_events=c["min_events"], unit="%"))
        c = published["er_undo"]
        x = float(E["spurious_er_pct"])
        ok = c["min_pct"] <= x <= c["max_pct"]
        out.append(Verdict.judge("er_undo", ok, f"{x:.0f} % ({E['spurious_early_retransmits']:.0f} of "
                                 f"{E['early_retransmits']:.0f})",
                                 "a minority of ERs are spurious" if ok else
                                 "the share of spurious ERs depends on how much reordering the path has "
                                 "relative to loss; our 1 % reordering makes it " + ("larger" if x > c["max_pct"] else "smaller")))
        c = published["er_first_mitigation_ineffective"]
        d1 = rel(float(M1["early_retransmits"]), float(E["early_retransmits"]))
        d2 = rel(float(M1["spurious_early_retransmits"]), float(E["spurious_early_retransmits"]))
        ok = abs(d1) <= c["tolerance_pct"] and abs(d2) <= c["tolerance_pct"]
        e1 = iv.rel_totals(df, "er", "early_retransmits", "ER+m1", "ER")
        e2 = iv.rel_totals(df, "er", "spurious_early_retransmits", "ER+m1", "ER")
        out.append(judge_difference("er_first_mitigation_ineffective", ok,
                                    f"early retransmits {pct(d1)}, spurious {pct(d2)} vs ER without mitigation",
                                    "a connection of three short responses rarely sees reordering before its "
                                    "early retransmit" if ok else "the first mitigation changes ER a lot",
                                    same=[(e1, c["tolerance_pct"]), (e2, c["tolerance_pct"])],
                                    events=_n(E["early_retransmits"]), min_events=c["min_events"], unit="%"))
        c = published["er_disorder_timeouts"]
        d = rel(float(M12["rtos_in_disorder"]), float(B["rtos_in_disorder"]))
        ok = -c["max_pct"] <= d <= -c["min_pct"]
        out.append(judge_difference("er_disorder_timeouts", ok,
                                 f"{pct(d)} ({B['rtos_in_disorder']:.0f} → {M12['rtos_in_disorder']:.0f})",
                                 "delayed ER still repairs most tail losses before the RTO" if ok else
                                 ("a larger reduction than the seed's" if d < -c["max_pct"] else "too small a reduction"),
                                    signs=[(iv.rel_totals(df, "er", "rtos_in_disorder", "ER+m1+m2", "Linux"), "<")],
                                    events=_n(B["rtos_in_disorder"]), min_events=c["min_events"], unit="%"))
        c = published["er_latency"]

        def er_rule(col: str) -> Tuple[bool, List[float]]:
            dq = [rel(float(M12[col.format(q)]), float(B[col.format(q)])) for q in c["quantiles"]]
            return any(x <= -c["min_pct"] for x in dq[:3]) and all(x <= c["min_pct"] for x in dq), dq

        # the seed's metric: responses that had losses; the original rule: every response
        ok, dq = er_rule("latency_lossy_q{}_ms")
        ok_all, dq_all = er_rule("latency_q{}_ms")
        lat = iv.latency_diffs(df, "er", "ER+m1+m2", "Linux", c["quantiles"])
        qd = [lat[f"p{q}"] for q in c["quantiles"]]
        # the claim needs one of the low quantiles down and none clearly up
        best = min(qd[:3], key=lambda x: x.mean if x.mean == x.mean else float("inf"))
        # the same responses in both arms (lossy in either), reported beside each arm's own
        pl = iv.paired_latency_diffs(df, "er", "ER+m1+m2", "Linux", c["quantiles"])
        n_pair = sum(len(x) for x in iv.paired_lossy_latency(df, "er", "ER+m1+m2", "Linux")[0])
        paired_text = (f"; on the same {n_pair} responses (a retransmission in either arm): "
                       "p5/10/50/90/99 " + " ".join(f"{pl[f'p{q}'].mean:+.1f} %" for q in c["quantiles"]))
        out.append(judge_difference("er_latency", ok, "p5/10/50/90/99 " + " ".join(pct(x) for x in dq)
                                 + f" over {int(B['responses_lossy'])} / {int(M12['responses_lossy'])} "
                                 "responses with a retransmission (baseline / ER), each arm's own"
                                 + paired_text,
                                 ("lower latency" if ok else "no measurable change")
                                 + f": {M12['responses_with_er_pct']:.2f} % of responses had an early "
                                 f"retransmit ({E['responses_with_er_pct']:.2f} % without mitigation)",
                                    signs=[(best, "<")] + [(x, "<=", c["min_pct"]) for x in qd], show=qd,
                                    events=_n(B["responses_lossy"]), min_events=c["min_events"], unit="%",
                                    ).with_other(ok_all, "p5/10/50/90/99 " + " ".join(pct(x) for x in dq_all)))
    else:
        for cid in ("er_fast_retransmits", "er_timeouts", "er_undo", "er_first_mitigation_ineffective",
                    "er_disorder_timeouts", "er_latency"):
            out.append(Verdict.not_comparable(cid, "no ER rows"))
    return out
