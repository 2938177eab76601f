"""The rtor study's figures, after seed 002's: FCT against RTT (tail_loss_1deg_fct) and
against the tail-loss degree (tail_loss_ndeg_fct), FCT CDFs of the realistic runs
(cdf_elapsed_time_*), OCT CDFs of the web pages (hitta/dn_delack_80ms) and the spurious
retransmission fractions."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import style
from lossrec.lab.significance import error_bars, quantile_band



from . import arms
from . import metrics
from . import verdicts
WEB_RTT = metrics.WEB_RTT
#: The deterministic figures' note: there is no noise to draw.
EXACT = "; controlled drops, nothing random: every repetition is identical, so no error bars"
BAND = ("; bands: 95 % bootstrap interval of each quantile over the repetitions (the flows of "
        "one run resampled together; none with fewer than 5)")
LEVELS = np.arange(1, 100)


def _arm_lines(t: pd.DataFrame):
    for i, name in enumerate(arms.ORDER):
        for delayed in (False, True):
            label = f"{name}(d)" if delayed else name
            d = t[t["arm"] == label]
            if len(d):
                yield label, d, style.arm_style(i, delayed)


def fct_vs_rtt(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = metrics.tail(df)
    t = t[t["K"] == 1]
    fig, ax = style.figure()
    for label, d, st in _arm_lines(t):
        d = d.sort_values("rtt_ms")
        ax.plot(d["rtt_ms"], d["fct_ms"], label=label, **st)
    if len(t):
        style.log_x_ticks(ax, sorted(t["rtt_ms"].unique()))
        ax.set_yscale("log")
    ax.set_xlabel("RTT (ms)")
    ax.set_ylabel("flow completion time (ms)")
    ax.set_title("10-segment flow, last segment dropped")
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="upper left")
    return fig, "FCT against RTT, last of 10 segments dropped (seed 002's tail_loss_1deg_fct)" + EXACT


def fct_vs_k(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = metrics.tail(df)
    t = t[t["rtt_ms"] == 80]
    fig, ax = style.figure()
    for label, d, st in _arm_lines(t):
        d = d.sort_values("K")
        ax.plot(d["K"], d["fct_ms"], label=label, **st)
    ax.set_xlabel("tail-loss degree (segments lost at the end of the flow)")
    ax.set_ylabel("flow completion time (ms)")
    ax.set_title("10-segment flow, RTT 80 ms")
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="upper left")
    return fig, "FCT against the number of tail segments lost, RTT 80 ms (tail_loss_ndeg_fct)" + EXACT


def _cdf(ax: Any, values: np.ndarray, **kw: Any) -> None:
    v = np.sort(values[~np.isnan(values)])
    if len(v):
        ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", **kw)


def _cdf_figure(p: pd.DataFrame, title: str, xlabel: str, reps: Any = ()) -> Any:
    fig, ax = style.figure()
    for i, name in enumerate(arms.ORDER):
        if name in p:
            st = style.arm_style(i)
            _cdf(ax, p[name].to_numpy(float), color=st["color"], label=name)
            by_rep = [p[p["rep"] == r][name].dropna().to_numpy(float) for r in reps]
            lo, hi = quantile_band(by_rep, LEVELS)
            ax.fill_betweenx(LEVELS / 100, lo, hi, color=st["color"], alpha=0.15, linewidth=0)
    if len(p):
        ax.set_xscale("log")
    else:  # the selection is empty (e.g. a quick run): say so rather than draw nothing
        ax.text(0.5, 0.5, "no object in this selection", transform=ax.transAxes,
                ha="center", va="center")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="lower right")
    return fig


def _realistic(segments: int, rtt: int):
    def fig(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
        p = metrics.paired(df, "realistic", **{"workload.segments": segments, "rtt_ms": rtt})
        reps = sorted(p["rep"].unique()) if len(p) else []
        p = p[p["lossy"]] if len(p) else p
        f = _cdf_figure(p, f"{segments}-segment flows, base RTT {rtt} ms, with background",
                        "flow completion time (ms)", reps)
        return f, (f"FCT CDF per arm of the {segments}-segment flows that had a retransmission "
                   f"in some arm ({len(p)} flows), base RTT {rtt} ms, bursty Pareto background "
                   f"(seed 002's cdf_elapsed_time_{segments}packets_{rtt}msRTT)" + BAND)
    return fig


def _web(page: str):
    def fig(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
        p = metrics.paired(df, "web", page=page, rtt_ms=WEB_RTT)
        reps = sorted(p["rep"].unique()) if len(p) else []
        # exactly the objects web_rtor_faster judges
        p = p[p["tail_rto"]] if "tail_rto" in p else p.iloc[0:0]
        f = _cdf_figure(p, f"{page} page, RTT {WEB_RTT} ms, delayed ACKs",
                        "object completion time (ms)", reps)
        return f, (f"OCT CDF per arm of the {page} page's objects with a tail loss in both the "
                   f"baseline and RTOR arms and a baseline timeout ({len(p)} objects: the "
                   f"selection web_rtor_faster judges), RTT {WEB_RTT} ms, GE loss ≈ 1.5 % "
                   f"(seed 002's {'hitta' if page == 'light' else 'dn'}_delack_80ms)" + BAND)
    return fig


def spurious_bars(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    s = metrics.spurious(df, "web").set_index("base_arm")
    fig, ax = style.figure((5.2, 3.6))
    names = [a for a in arms.ORDER if a in s.index]
    seed = {"baseline": 4.8e-5, "RTOR": 5.9e-5, "TLP": 1.8e-3}
    x = np.arange(len(names))
    ax.bar(x - 0.2, [seed[n] for n in names], 0.4, color="tab:gray", label="seed 002")
    ours = [max(float(s.loc[n, "fraction"]), 1e-7) for n in names]
    w = metrics.spurious_reps(df, "web")

    def frac(n: str) -> Any:
        cols = [f"dsacks_{n}", f"sent_{n}"]
        return metrics.rep_bootstrap(w if set(cols) <= set(w.columns) else w.iloc[0:0], cols,
                                     lambda v: v[cols[0]].sum() / v[cols[1]].sum() if v[cols[1]].sum() else np.nan)
    cis = [frac(n) for n in names]
    for d in cis:  # the log axis has no zero: an interval down to 0 ends at the 1e-7 floor
        d.low, d.high = max(d.low, 1e-7), max(d.high, 1e-7)
    ax.bar(x + 0.2, ours, 0.4, color="tab:blue", label="lossrec (1e-7 = none)",
           yerr=error_bars(ours, cis), capsize=3, error_kw={"elinewidth": 0.8})
    ax.set_xticks(x, names)
    ax.set_yscale("log")
    ax.set_ylabel("spurious retransmissions / segments sent")
    ax.set_title("Web pages: spurious (DSACKed) retransmissions")
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="upper left")
    return fig, ("Fraction of spurious retransmissions per arm over all web runs, seed vs ours; error "
                 "bars: 95 % bootstrap interval over the repetitions")


def web_saving_per_rtt(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    """Median OCT saving of RTOR over the baseline, in RTTs, per page and web RTT, on the
    paired selection web_rtor_faster (80 ms) and web_rtor_one_rtt_every_rtt (the other
    RTTs) judge, with the rule's band and the seed's one RTT."""
    c = ctx.study.claims_published["web_rtor_one_rtt_every_rtt"]
    web = df[df["item"] == "web"] if "item" in df else df.iloc[0:0]
    rtts = sorted(int(r) for r in web["rtt_ms"].unique()) if len(web) else []
    fig, ax = style.figure((8.0, 4.0))
    ax.axhspan(c["lo_rtt"], c["hi_rtt"], color="tab:gray", alpha=0.15,
               label=f"the rules' band ({c['lo_rtt']:g}-{c['hi_rtt']:g} RTT)")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8, label="seed 002: one RTT")
    counts = []
    for i, page in enumerate(("light", "heavy")):
        xs, ys, cis = [], [], []
        for r in rtts:
            w = verdicts.web_saving(df, page, r)
            if w is not None:
                xs.append(r)
                ys.append(w[2])
                cis.append(w[0])
                counts.append(f"{page} {r} ms: {w[1]}")
        if xs:
            ax.errorbar(xs, ys, yerr=error_bars(ys, cis), capsize=3, label=f"{page} page",
                        **style.arm_style(i))
    if rtts:
        style.log_x_ticks(ax, rtts)
    ax.set_xlabel("RTT (ms)")
    ax.set_ylabel("median OCT(baseline) − OCT(RTOR) (RTTs)")
    ax.set_title("Web pages: RTOR's saving per object, by RTT")
    # outside the axes: inside, it covers the points it names
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig, ("Median per-object saving of RTOR over the baseline in RTTs, per page and RTT, over "
                 "the objects with a tail loss in both arms and a baseline timeout (the selection "
                 "web_rtor_faster judges at 80 ms and web_rtor_one_rtt_every_rtt at the others; "
                 "objects: " + (", ".join(counts) or "none") + "); error bars: 95 % bootstrap "
                 "interval over the repetitions")


FIGURES = {
    "fct-vs-rtt": fct_vs_rtt,
    "fct-vs-k": fct_vs_k,
    "cdf-4seg-10ms": _realistic(4, 10),
    "cdf-4seg-320ms": _realistic(4, 320),
    "cdf-100seg-320ms": _realistic(100, 320),
    "oct-light-80ms": _web("light"),
    "oct-heavy-80ms": _web("heavy"),
    "spurious-web": spurious_bars,
    "web-saving-per-rtt": web_saving_per_rtt,
}
