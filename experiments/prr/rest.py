"""prr: the statements of seed 003 the first claims left unjudged (issue 25 item 5), each a
claim with its rule written in published.toml before it was first run, or stated not
comparable with the reason:

* "PRR in practice": pipe == ssthresh in 13 % of PRR's fast recoveries, and the quantiles
  of pipe − ssthresh (1 %: −10, 50 %: +1, 99 %: +11) — ``web_prr_pipe_minus_ssthresh``;
* YouTube: "RFC 3517 spends longer time (46.3 %) in loss recovery, but it transfers more
  data (12 %)" — ``video_rfc3517_longer_but_more`` (the two orders RFC 3517 ≥ PRR ≥ Linux
  are judged apart; this is RFC 3517 against *both* other arms);
* the Page Ads latency column — ``web_latency_page_ads``, not comparable.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List

import numpy as np

from lossrec.lab import Verdict
from lossrec.lab.significance import difference, judge_difference


def _mod(name: str) -> Any:
    return sys.modules[f"{__package__}.{name}"]


def pipe_minus_ssthresh(df: Any, ctx: Any) -> Any:
    """pipe − ssthresh (segments) as each of the PRR arm's fast recoveries on the short-web
    workload starts (the seed's table: 'PRR in practice')."""
    r = _mod("stats").episodes(ctx.recoveries, "web")
    r = r[r["arm"] == "prr"] if len(r) else r
    if not len(r):
        return np.array([])
    return (r["pipe_at_entry"] - r["ssthresh"]).to_numpy(dtype=float)


def _pipe_claim(df: Any, ctx: Any, c: Dict[str, Any]) -> Verdict:
    x = pipe_minus_ssthresh(df, ctx)
    if len(x) < c["min_episodes"]:
        return Verdict.judge("web_prr_pipe_minus_ssthresh", False,
                             f"{len(x)} PRR recoveries", "too few recoveries to judge")
    eq = 100 * float((x == 0).mean())
    q1, q50, q99 = (float(np.percentile(x, q)) for q in (1, 50, 99))
    bad = []
    if abs(eq - c["equal_pct"]) > c["tolerance_pts"]:
        bad.append(f"pipe == ssthresh {eq:.0f} % (seed {c['equal_pct']} ± {c['tolerance_pts']})")
    if abs(q50 - c["p50"]) > c["p50_segments"]:
        bad.append(f"median {q50:+.0f} (seed {c['p50']:+d} ± {c['p50_segments']})")
    for name, ours, seed in (("1 %", q1, c["p1"]), ("99 %", q99, c["p99"])):
        lo, hi = sorted((seed / c["factor"], seed * c["factor"]))
        if not lo <= ours <= hi:
            bad.append(f"{name} quantile {ours:+.0f} outside [{lo:+.1f}, {hi:+.1f}]")
    return Verdict.judge(
        "web_prr_pipe_minus_ssthresh", not bad,
        f"{len(x)} PRR recoveries: pipe == ssthresh {eq:.1f} %; pipe − ssthresh 1 %: {q1:+.0f}, "
        f"50 %: {q50:+.0f}, 99 %: {q99:+.0f} (min {x.min():+.0f}, max {x.max():+.0f})",
        "within the rule" if not bad else "; ".join(bad))


def _video_claim(df: Any, ctx: Any, c: Dict[str, Any]) -> Verdict:
    st = _mod("stats")
    v = st.tables(df, ctx)["video"]
    reps = st.per_rep(df, ctx, "video")
    val = {col: {a: float(v.loc[a, col]) for a in st.ARMS}
           for col in ("time_in_recovery_pct", "bytes_in_fr_pct")}
    ok = all(val[col]["rfc3517"] > max(val[col]["prr"], val[col]["linux-rh"]) for col in val)
    signs = [(difference(reps[col]["rfc3517"], reps[col][b], paired=True), ">")
             for col in val for b in ("prr", "linux-rh")]
    ours = "; ".join(f"{'time in recovery' if col.startswith('time') else 'bytes sent in FR'}: "
                     + ", ".join(f"{st.NAME[a]} {val[col][a]:.2f} %" for a in st.ARMS)
                     for col in val)
    n = int(float(v.loc["rfc3517", "episodes"]))
    return judge_difference(
        "video_rfc3517_longer_but_more", ok,
        ours + " (differences RFC 3517 − PRR, RFC 3517 − Linux, per repetition)",
        "RFC 3517 recovers longest and sends the most in recovery: cwnd = ssthresh at once lets "
        "out more per ACK, and the larger bursts lose more" if ok else
        "RFC 3517 is not first on both", signs=signs, unit="pp", events=n,
        min_events=c["min_events"])


def claims(df: Any, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    """The three claims (not comparable where the run has no rows for them)."""
    st = _mod("stats")
    t = st.tables(df, ctx)
    out = []
    if len(t["web"]) and float(t["web"]["flows"].sum()) > 0:
        out.append(_pipe_claim(df, ctx, published["web_prr_pipe_minus_ssthresh"]))
    else:
        out.append(Verdict.not_comparable("web_prr_pipe_minus_ssthresh", "no short-web rows"))
    if len(t["video"]) and float(t["video"]["flows"].sum()) > 0:
        out.append(_video_claim(df, ctx, published["video_rfc3517_longer_but_more"]))
    else:
        out.append(Verdict.not_comparable("video_rfc3517_longer_but_more", "no video rows"))
    out.append(Verdict.not_comparable(
        "web_latency_page_ads", str(published["web_latency_page_ads"]["not_comparable"])))
    return out
