"""prr: the figures (seq-vs-time graphs like the seed's slides, then the statistics
against the seed's tables) and the markdown table of the traced examples."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import lossrec
from lossrec.lab import style
from lossrec.lab.significance import error_bars, quantile_band
from lossrec.plot import draw_flow

SEED_RETX = {"total": (3.7, 2.5), "fast": (17, 13), "timeout in recovery": (-2.5, -5.0),
             "lost": (198, 117)}
SEED_LAT_SEARCH = {"p25": (-8, -7), "p50": (-5.8, -5.6), "p90": (-2.4, -2.0), "p99": (-5.2, -5.6),
                   "mean": (-3.7, -3.5)}
#: The seed's Page Ads column (seed 003, 'Experiment Results - PRR vs RFC 3517 vs Linux').
SEED_LAT_ADS = {"p25": (-7.3, -5.2), "p50": (-7.8, -9.4), "p90": (-9.3, -9.7), "p99": (-10, -11.7),
                "mean": (-9, -9.8)}
SEED_VIDEO = {"time in loss recovery (%)": (42.7, 46.3, 44.9),
              "retransmission rate (%)": (5.0, 6.6, 5.6),
              "sent in fast recovery (%)": (7, 12, 10),
              "fast retransmits lost (%)": (2.4, 16.4, 4.8),
              "slow start after recovery (%)": (56, 1, 0)}
COLORS = {"linux-rh": "tab:green", "rfc3517": "tab:red", "prr": "tab:blue"}
#: What the error bars of the arm comparisons are (their captions say it).
BARS = ("95 % bootstrap interval over the repetitions (the arms paired by repetition; none with "
        "fewer than 5 repetitions)")


def _mod(name: str) -> Any:
    return sys.modules[f"{__package__}.{name}"]


def _grid(rows: int, cols: int, size: Tuple[float, float]) -> Tuple[Any, Any]:
    with plt.rc_context(style.RC):
        fig, axes = plt.subplots(rows, cols, figsize=size, constrained_layout=True,
                                 squeeze=False, sharex="col")
    return fig, axes


def _windows(ax: Any, run: Any, xmax: float, prr: bool = False) -> None:
    """cwnd, pipe and ssthresh after each ACK (segments), recovery shaded."""
    st = run.steps
    t = [s.t for s in st]
    ax.step(t, [s.cwnd for s in st], where="post", color="tab:blue", label="cwnd")
    ax.step(t, [s.pipe for s in st], where="post", color="tab:orange", label="pipe")
    ss = [s.ssthresh if s.ssthresh is not None else np.nan for s in st]
    ax.step(t, ss, where="post", color="grey", linestyle="--", label="ssthresh")
    rec = run.recovery_steps()
    if rec:
        ax.axvspan(rec[0].t, rec[-1].t, color="gold", alpha=0.15, lw=0, label="fast recovery")
    if prr:
        for key, marker, color in (("p", "o", "tab:blue"), ("d", "^", "tab:red")):
            pts = [(s.t, s.cwnd) for s in rec if (s.bound == "p") == (key == "p") and
                   (key == "p" or "d" in s.bound)]
            if pts:
                ax.plot(*zip(*pts), marker, color=color, markersize=4, linestyle="",
                        label="proportional" if key == "p" else "slow-start bound (d)")
    ax.set_xlim(0, xmax)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("segments")


def time_sequence(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    ex = _mod("examples")
    fig, axes = _grid(2, 3, (13.5, 6.6))
    for j, arm in enumerate(ex.ARMS):
        r = ex.run(ctx, arm)
        handles = draw_flow(axes[0, j], r.records)
        axes[0, j].set_title(ex.LABEL[arm], fontsize=10)
        axes[0, j].set_xlim(0, 900)
        _windows(axes[1, j], r, 900)
        axes[1, j].set_xlabel("time (ms)")
    axes[0, 0].set_ylabel("sequence (bytes)")
    axes[0, 2].legend(list(handles.values()), list(handles.keys()), fontsize=7, loc="lower right")
    axes[1, 2].legend(fontsize=7, loc="upper right")
    return fig, ("The seed's example — 20 kB written at 0 ms and 10 kB at 500 ms, the first four "
                 "segments dropped — under RFC 3517, rate-halving and PRR (Reno; 1000-byte segments, "
                 "100 ms, 0.8 Mb/s). Top: sequence against time (blue sent, red retransmitted, green "
                 "cumulative ACK, purple SACKed, as on the slides). Bottom: cwnd, pipe and ssthresh "
                 "after each ACK; fast recovery shaded")


def heavy_losses(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    ex = _mod("examples")
    fig, axes = _grid(2, 2, (11.5, 6.6))
    for j, arm in enumerate(("prr", "rfc3517")):
        r = ex.run(ctx, arm, drops=ex.HEAVY_DROPS)
        draw_flow(axes[0, j], r.records)
        axes[0, j].set_title(f"{ex.LABEL[arm]}, segments 1–4 and 11–16 dropped", fontsize=10)
        axes[0, j].set_xlim(0, 800)
        _windows(axes[1, j], r, 800, prr=arm == "prr")
        axes[1, j].set_xlabel("time (ms)")
    h = ex.heavy(ctx)
    if h["detected_at"] is not None:
        for ax in axes[:, 0]:
            ax.axvline(h["detected_at"], color="tab:red", linestyle=":", linewidth=1)
    axes[0, 0].set_ylabel("sequence (bytes)")
    axes[1, 0].legend(fontsize=7, loc="upper right")
    return fig, ("Heavy losses (the seed's 'PRR Heavy Losses'): PRR runs its proportional part "
                 "(dots) until the SACK that reveals the second series (dotted line), then pipe is "
                 "below ssthresh and the slow-start reduction bound (triangles: SndCnt = "
                 "DeliveredData + 1) rebuilds pipe; RFC 3517 (right) sends the same retransmissions "
                 "in one burst")


def banking(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    ex = _mod("examples")
    b = ex.banking(ctx)
    fig, axes = _grid(2, 2, (11.5, 6.6))
    for j, (key, title) in enumerate((("paused", f"PRR, application resumes at {ex.RESUME_MS} ms"),
                                      ("steady", "PRR, all 30 kB written at 0 ms"))):
        r = b[key]
        draw_flow(axes[0, j], r.records)
        axes[0, j].axvline(ex.RESUME_MS, color="black", linestyle=":", linewidth=1)
        axes[0, j].set_title(title, fontsize=10)
        axes[0, j].set_xlim(0, 600)
        rec = r.recovery_steps()
        ax = axes[1, j]
        ax.step([s.t for s in rec], [s.prr_delivered for s in rec], where="post",
                color="tab:green", label="prr_delivered")
        # prr_out counts every segment sent in recovery: step at each send.
        t0, t1 = (rec[0].t, rec[-1].t) if rec else (0.0, 0.0)
        times = [x["t_us"] / 1000.0 for x in r.sends if t0 <= x["t_us"] / 1000.0 <= t1]
        ax.step([t0] + times, list(range(0, len(times) + 1)), where="post", color="tab:red",
                label="prr_out (segments sent in recovery)")
        ax.axvline(ex.RESUME_MS, color="black", linestyle=":", linewidth=1)
        ax.set_ylabel("segments")
        ax.set_xlabel("time (ms)")
        ax.set_xlim(0, 600)
    axes[0, 0].set_ylabel("sequence (bytes)")
    axes[1, 0].legend(fontsize=8, loc="upper left")
    return fig, (f"PRR banking: the application runs dry after 20 kB and writes 10 kB more at "
                 f"{ex.RESUME_MS} ms, inside recovery. prr_out falls behind prr_delivered while it "
                 f"has nothing to send; at the write the banked segments ({b['burst']}) go out at "
                 f"once and prr_out is where the run that never paused has it")


def cwnd_after_recovery(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    st = _mod("stats")
    w = st.tables(df, ctx)["web"]
    c = ctx.study.claims_published["web_cwnd_after_recovery"]
    iv = _mod("intervals")
    reps = iv.reps(df, "web")
    fig, ax = style.figure()
    for i, arm in enumerate(st.ARMS):
        key = {"linux-rh": "linux"}.get(arm, arm)
        if arm in w.index:
            ax.plot(st.CWND_Q, [w.loc[arm, f"cwnd_after_p{q}"] for q in st.CWND_Q],
                    color=COLORS[arm], marker="o", label=f"{st.NAME[arm]} (ours)")
            lo, hi = quantile_band(iv.episode_values(ctx, "web", arm, "cwnd_after", reps, True), st.CWND_Q)
            ax.fill_between(st.CWND_Q, lo, hi, color=COLORS[arm], alpha=0.15, linewidth=0)
        ax.plot(c["quantiles"], c[key], color=COLORS[arm], marker="s", linestyle="--",
                markerfacecolor="white", label=f"{st.NAME[arm]} (seed)")
    ax.set_yscale("log")
    ax.set_xlabel("quantile (%)")
    ax.set_ylabel("cwnd after recovery (segments)")
    ax.set_title("Short web flows: cwnd after fast recovery")
    style.legend(ax, loc="upper left", fontsize=8)
    return fig, ("Quantiles of cwnd after recovery (completed recoveries), ours and the seed's table; "
                 "bands: 95 % bootstrap interval over the repetitions (none with fewer than 5)")


def _bars(ax: Any, labels: List[str], series: Dict[str, List[float]], colors: Dict[str, str],
          hatch: Dict[str, str], cis: Optional[Dict[str, List[Any]]] = None) -> None:
    """Grouped bars; ``cis``: a series' intervals (:class:`Diff`), drawn as error bars."""
    x = np.arange(len(labels))
    n = len(series)
    wdt = 0.8 / max(n, 1)
    for i, (name, vals) in enumerate(series.items()):
        err = error_bars(vals, cis[name]) if cis and name in cis else None
        ax.bar(x + (i - (n - 1) / 2) * wdt, vals, wdt, label=name, color=colors[name],
               hatch=hatch.get(name, ""), edgecolor="white" if not hatch.get(name) else "black",
               linewidth=0.3, yerr=err, capsize=2 if err is not None else 0,
               error_kw={"elinewidth": 0.8})
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    ax.axhline(0, color="black", linewidth=0.6)


def retransmissions(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    st = _mod("stats")
    w = st.tables(df, ctx)["web"]
    cols = {"total": "retransmits", "fast": "fast_retransmits",
            "timeout in recovery": "rtos_in_recovery", "lost": "lost_retransmits"}
    iv = _mod("intervals")
    fig, ax = style.figure((7.5, 4.2))
    series, colors, hatch, cis = {}, {}, {}, {}
    for k, arm in enumerate(("rfc3517", "prr")):
        ours = [st.rel(float(w.loc[arm, c]), float(w.loc["linux-rh", c])) if len(w) else np.nan
                for c in cols.values()]
        series[f"{st.NAME[arm]} (ours)"] = ours
        cis[f"{st.NAME[arm]} (ours)"] = [iv.rel_totals(df, "web", c, arm, "linux-rh") for c in cols.values()]
        series[f"{st.NAME[arm]} (seed)"] = [SEED_RETX[m][k] for m in cols]
        colors[f"{st.NAME[arm]} (ours)"] = colors[f"{st.NAME[arm]} (seed)"] = COLORS[arm]
        hatch[f"{st.NAME[arm]} (seed)"] = "//"
    _bars(ax, list(cols), series, colors, hatch, cis)
    ax.set_ylabel("difference from Linux (%)")
    ax.set_title("Short web flows: retransmissions relative to Linux")
    style.legend(ax, loc="upper left", fontsize=8)
    return fig, ("Retransmissions by type, relative to Linux (rate-halving): ours (solid) and the seed's "
                 f"(hatched); error bars: {BARS}")


def latency(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    st = _mod("stats")
    w = st.tables(df, ctx)["web"]
    keys = ["p25", "p50", "p90", "p99", "mean"]
    iv = _mod("intervals")
    fig, ax = style.figure((7.5, 4.2))
    series, colors, hatch, cis = {}, {}, {}, {}
    for k, arm in enumerate(("rfc3517", "prr")):
        # the seed's metric: responses that had a retransmission
        d = iv.latency_diffs(df, "web", arm, "linux-rh", st.LATENCY_Q) if len(w) else {}
        cis[f"{st.NAME[arm]} (ours)"] = [d[q] for q in keys] if d else []
        series[f"{st.NAME[arm]} (ours)"] = [d[q].mean if d else np.nan for q in keys]
        series[f"{st.NAME[arm]} (seed, Search)"] = [SEED_LAT_SEARCH[q][k] for q in keys]
        series[f"{st.NAME[arm]} (seed, Page Ads)"] = [SEED_LAT_ADS[q][k] for q in keys]
        colors[f"{st.NAME[arm]} (ours)"] = colors[f"{st.NAME[arm]} (seed, Search)"] = COLORS[arm]
        colors[f"{st.NAME[arm]} (seed, Page Ads)"] = COLORS[arm]
        hatch[f"{st.NAME[arm]} (seed, Search)"] = "//"
        hatch[f"{st.NAME[arm]} (seed, Page Ads)"] = ".."
    _bars(ax, keys, series, colors, hatch, cis)
    ax.set_ylabel("difference from Linux (%)")
    ax.set_title("Short web flows with a retransmission: response latency relative to Linux")
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig, ("Response-latency quantiles and mean relative to Linux over the responses that had a "
                 "retransmission (the seed's metric): ours and the seed's Google Search (//) and Page "
                 "Ads (..) columns; "
                 f"error bars: {BARS}")


def video(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    st = _mod("stats")
    v = st.tables(df, ctx)["video"]
    cols = {"time in loss recovery (%)": "time_in_recovery_pct",
            "retransmission rate (%)": "retransmission_rate_pct",
            "sent in fast recovery (%)": "bytes_in_fr_pct",
            "fast retransmits lost (%)": "lost_fast_retx_pct",
            "slow start after recovery (%)": "slow_start_after_pct"}
    with plt.rc_context(style.RC):
        fig, axes = plt.subplots(1, len(cols), figsize=(14, 3.6), constrained_layout=True)
    reps = st.per_rep(df, ctx, "video")
    for ax, (label, c) in zip(axes, cols.items()):
        x = np.arange(3)
        ours = [float(v.loc[a, c]) if len(v) else np.nan for a in st.ARMS]
        # error bars: the 95 % interval of the per-repetition values' mean (none with 1 rep)
        half = []
        for a in st.ARMS:
            s = lossrec.summarize(pd.DataFrame({"x": reps.get(c, {}).get(a, np.array([]))}), None, ["x"])
            half.append(float((s["ci_high"] - s["ci_low"]).iloc[0] / 2) if len(s) else np.nan)
        ax.bar(x - 0.2, ours, 0.4, color=[COLORS[a] for a in st.ARMS], label="ours",
               yerr=np.nan_to_num(half), capsize=3, error_kw={"elinewidth": 0.8})
        ax.bar(x + 0.2, SEED_VIDEO[label], 0.4, color=[COLORS[a] for a in st.ARMS], hatch="//",
               edgecolor="black", linewidth=0.3, label="seed")
        ax.set_xticks(x)
        ax.set_xticklabels([st.NAME[a] for a in st.ARMS], fontsize=8)
        ax.set_title(label, fontsize=9)
    axes[0].legend(fontsize=8)
    return fig, ("Long video-like flows per arm: ours (solid, with the 95 % interval over the "
                 "repetitions) and the seed's YouTube table (hatched)")


def early_retransmit(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    st = _mod("stats")
    e = st.tables(df, ctx)["er"]
    qs = (5, 10, 50, 90, 99)  # every quantile of the seed's table, not a chosen few
    cols = {"fast\nretransmits": "fast_retransmits", "timeouts": "rtos",
            "timeouts in\nDisorder": "rtos_in_disorder"}  # two-line labels: no overprint
    cols.update({f"latency\np{q}": f"latency_q{q}_ms" for q in qs})
    seed = {"ER": [31, -2] + [np.nan] * (1 + len(qs)),
            "ER+m1+m2": [np.nan, np.nan, -34, -8.5, -5.6, -8.0, -3.3, -0.6]}
    iv = _mod("intervals")
    fig, ax = style.figure((10, 4.2))
    series, colors, hatch, cis = {}, {}, {}, {}
    pal = {"ER": "tab:orange", "ER+m1": "tab:purple", "ER+m1+m2": "tab:blue"}
    for arm in ("ER", "ER+m1", "ER+m1+m2"):
        lat = iv.latency_diffs(df, "er", arm, "Linux", list(qs)) if len(e) else {}
        ds = [iv.rel_totals(df, "er", c, arm, "Linux") for c in list(cols.values())[:3]]
        ds += [lat[f"p{q}"] for q in qs] if lat else []
        cis[f"{arm} (ours)"] = ds
        series[f"{arm} (ours)"] = [d.mean for d in ds] if len(e) else [np.nan] * len(cols)
        colors[f"{arm} (ours)"] = pal[arm]
        if arm in seed:
            series[f"{arm} (seed)"] = seed[arm]
            colors[f"{arm} (seed)"] = pal[arm]
            hatch[f"{arm} (seed)"] = "//"
    _bars(ax, list(cols), series, colors, hatch, cis)
    ax.set_ylabel("difference from Linux (%)")
    ax.set_title("Early Retransmit on short flows with reordering")
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig, ("Early Retransmit arms relative to the Linux baseline: ours (solid) and the seed's "
                 "(hatched); latency over the responses with a retransmission (the seed's metric); "
                 f"error bars: {BARS}")


def examples_table(ctx: Any) -> str:
    from lossrec.lab.report import table

    ex = _mod("examples")
    rows = []
    for cc in ("reno", "cubic"):
        s = ex.summary(ctx, cc)
        for arm in ex.ARMS:
            x = s[arm]
            rows.append([cc, ex.LABEL[arm], f"{x['silence']['acks']} of {x['silence']['round']} "
                         f"({x['silence']['share']:.0%}, {x['silence']['ms']:.0f} ms)",
                         x["burst"], f"{x['exit_cwnd']:g}", f"{x['ssthresh']:g}",
                         x["sent_in_recovery"], f"{x['fct_ms']:.0f}"])
    for arm in ex.ARMS:
        r = ex.run(ctx, arm, drops=ex.HEAVY_DROPS)
        rows.append(["reno, heavy losses", ex.LABEL[arm], "", ex.max_burst(r),
                     f"{r.exit_cwnd():g}", f"{r.ssthresh():g}",
                     sum(s.sent for s in r.recovery_steps()), f"{r.flow['fct_ms']:.0f}"])
    for arm in ex.ARMS:
        b = ex.banking(ctx, arm)
        rows.append([f"reno, banking (resume {ex.RESUME_MS} ms)", ex.LABEL[arm], "", b["burst"],
                     f"{b['paused'].exit_cwnd():g}", f"{b['paused'].ssthresh():g}",
                     sum(s.sent for s in b["paused"].recovery_steps()),
                     f"{b['paused'].flow['fct_ms']:.0f}"])
    head = ["cc / run", "arm", "longest silence (ACKs of the round)", "largest burst (segments)",
            "cwnd after recovery", "ssthresh", "segments sent in recovery", "last byte (ms)"]
    note = ("Measured from the traces. For banking, 'largest burst' is the number of segments "
            "sent at the application's write.")
    return note + "\n\n" + table(head, rows)
