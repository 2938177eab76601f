"""tlp, §5: the seed's measurements on a synthetic web workload — three applications
(search.toml, maps.toml, images.toml), each over a small population of paths (RTT 30,
100, 300 ms) and receivers (Windows-like 200 ms delayed ACKs, Linux-like 40 ms with quick
ACKs). Arms: the baseline (`probe = none`), TLP (the preset: one probe, WCDelAckT 200 ms),
WCDelAckT 0 and 50 ms, and two probes. Every arm runs with the same seeds (the same
responses and arrivals). The TLP arm is also run traced, for what its probes did."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Sweep, style
from lossrec.lab.tail import summarize, traced_sweep

APPS = ["search", "maps", "images"]
RECEIVERS = {"windows": {"receiver.delayed_ack_ms": [200], "receiver.quickack": [0]},
             "linux": {"receiver.delayed_ack_ms": [40], "receiver.quickack": [16]}}
BASELINE, TLP, D0, D50, TWO = "baseline", "TLP", "WCDelAckT 0 ms", "WCDelAckT 50 ms", "two probes"
ARMS = [BASELINE, TLP, D0, D50, TWO]
#: Latency percentiles reported.
PCTS = [50, 90, 99]


def _population(quick: bool) -> Dict[str, List[Any]]:
    p: Dict[str, List[Any]] = {"path.rtt_ms": [30, 100] if quick else [30, 100, 300]}
    if quick:
        p["workload.connections"] = [100]
    return p


def reps(quick: bool) -> int:
    return 2 if quick else 3


def sweeps(quick: bool) -> List[Sweep]:
    out = []
    for app in APPS:
        for rname, rcv in RECEIVERS.items():
            base = {**_population(quick), **rcv}
            lab = {"app": app, "receiver": rname}
            for arms in ({"sender.probe": ["none", "tlp-draft"]},
                         {"sender.tlp_max_ack_delay_ms": [0, 50]},
                         {"sender.tlp_max_probes": [2]}):
                out.append(Sweep(f"{app}.toml", {**base, **arms}, reps=reps(quick),
                                 common_seeds=True, labels=lab, details=True))
    return out


def arm_of(df: pd.DataFrame) -> pd.Series:
    arm = pd.Series(TLP, index=df.index, dtype=object)
    if "sender.probe" in df:
        arm[df["sender.probe"].astype(object) == "none"] = BASELINE
    if "sender.tlp_max_ack_delay_ms" in df:
        arm[df["sender.tlp_max_ack_delay_ms"] == 0] = D0
        arm[df["sender.tlp_max_ack_delay_ms"] == 50] = D50
    if "sender.tlp_max_probes" in df:
        arm[df["sender.tlp_max_probes"] == 2] = TWO
    return arm


def traced(ctx: Any) -> pd.DataFrame:
    """The TLP arm traced, one row per (app, receiver, RTT, repetition)."""
    if "traced" not in ctx.cache:
        from . import ptostate as pto  # at call time: ptostate imports this module
        frames = []
        for app in APPS:
            for rname, rcv in RECEIVERS.items():
                d = traced_sweep(ctx.scenario(f"{app}.toml"),
                                 {**_population(ctx.quick), **rcv, "sender.probe": ["tlp-draft"]},
                                 reps=reps(ctx.quick), common_seeds=True,
                                 summarize_run=lambda recs, obj: {**summarize(recs, obj["recoveries"]),
                                                                  **pto.summarize(recs)})
                d["app"], d["receiver"] = app, rname
                frames.append(d.drop(columns=["fct_ms_all"]))
        df = pd.concat(frames, ignore_index=True)
        df.drop(columns=["pto_state"]).to_csv(ctx.out / "tlp-probes.csv", index=False)
        ctx.cache["traced"] = df
    return ctx.cache["traced"]


# ------------------------------------------------------------------------------ tables


def by_arm(df: pd.DataFrame, keys: Tuple[str, ...] = ()) -> pd.DataFrame:
    """Per arm (and ``keys``): responses, data segments, probes, retransmissions, timeouts,
    slow-start retransmissions, undos, the probe overhead and the latency mean and
    percentiles (ms)."""
    rows = []
    for k, g in df.groupby(list(keys) + ["arm"], sort=False, observed=True):
        k = k if isinstance(k, tuple) else (k,)
        fct = g["fct_ms"].to_numpy(dtype=float)
        fct = fct[np.isfinite(fct)]
        seg = g["data_packets_sent"].sum()
        row = dict(zip(list(keys) + ["arm"], k))
        row.update({"responses": len(g), "unfinished": int(len(g) - len(fct)), "segments": int(seg),
                    "probes": int(g["tlp_probes"].sum()), "retransmits": int(g["retransmits"].sum()),
                    "rtos": int(g["rtos"].sum()), "undos": int(g["undos"].sum()),
                    "overhead_pct": g["tlp_probes"].sum() / seg * 100 if seg else np.nan,
                    "retrans_pct": g["retransmits"].sum() / seg * 100 if seg else np.nan,
                    "mean_ms": fct.mean() if len(fct) else np.nan})
        if "slow_start_retransmits" in g:
            row["slow_start_retransmits"] = int(g["slow_start_retransmits"].sum())
        for p in PCTS:
            row[f"p{p}_ms"] = np.percentile(fct, p) if len(fct) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def change_pct(t: pd.DataFrame, col: str, arm: str = TLP, keys: Tuple[str, ...] = ()) -> pd.Series:
    """(arm − baseline) / baseline in percent, per ``keys``."""
    idx = list(keys) + ["arm"]
    s = t.set_index(idx)[col]
    if keys:
        a = s.xs(arm, level="arm")
        b = s.xs(BASELINE, level="arm")
    else:
        a, b = s.loc[[arm]].reset_index(drop=True), s.loc[[BASELINE]].reset_index(drop=True)
    return (a - b) / b * 100


def unit_diff(df: pd.DataFrame, col: str, arm: str = TLP) -> Any:
    """``arm`` − baseline of ``col`` summed per (application, receiver, RTT, repetition),
    paired (the arms share seeds), with its 95 % interval."""
    from lossrec.lab.significance import difference

    keys = ["app", "receiver", "path.rtt_ms", "rep"]
    d = df[df["arm"].isin([BASELINE, arm])]
    t = d.groupby(keys + ["arm"], observed=True)[col].sum().unstack("arm").dropna()
    if arm not in t or BASELINE not in t:
        return difference([], [], paired=True)
    return difference(t[arm].to_numpy(), t[BASELINE].to_numpy(), paired=True)


def unit_values(df: pd.DataFrame, fn: Callable[[pd.DataFrame], float], arm: str,
                app: Optional[str] = None) -> pd.Series:
    """``fn`` of ``arm``'s responses per (application, receiver, RTT, repetition): the
    units the arms share seeds in."""
    keys = ["app", "receiver", "path.rtt_ms", "rep"]
    d = df[df["arm"] == arm]
    if app is not None:
        d = d[d["app"] == app]
    return pd.Series({k: fn(g) for k, g in d.groupby(keys, observed=True)}, dtype=float)


def unit_stat_diff(df: pd.DataFrame, fn: Callable[[pd.DataFrame], float], a: str, b: str,
                   app: Optional[str] = None, relative: bool = False) -> Any:
    """``fn(a) − fn(b)`` per unit (``relative``: in percent of ``fn(b)``), paired, the
    mean's 95 % interval (:func:`lossrec.lab.significance.difference`)."""
    from lossrec.lab.significance import difference

    x, y = unit_values(df, fn, a, app), unit_values(df, fn, b, app)
    common = x.index.intersection(y.index)
    x, y = x.loc[common].to_numpy(float), y.loc[common].to_numpy(float)
    if relative:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(y != 0, (x - y) / y * 100, np.nan)
        return difference(r, np.zeros(len(r)), paired=True)
    return difference(x, y, paired=True)


def latency_stat(stat: Any) -> Callable[[pd.DataFrame], float]:
    return lambda g: _stat(g["fct_ms"].to_numpy(dtype=float), stat)


#: The population cells: each (application, receiver, RTT) is one kind of client.
CELL = ("app", "receiver", "path.rtt_ms")


def _stat(x: np.ndarray, stat: Any) -> float:
    x = x[np.isfinite(x)]
    if not len(x):
        return float("nan")
    return float(x.mean()) if stat == "mean" else float(np.percentile(x, stat))


def latency_change(df: pd.DataFrame, stat: Any, arm: str = TLP) -> Dict[str, float]:
    """The relative change (%) of a latency statistic (``"mean"`` or a percentile) from the
    baseline to ``arm``, computed per population cell and averaged with equal weights: per
    application and over all (``"all"``). Pooling the responses of very different RTTs
    first would put the pooled percentiles in the gaps between the RTT clusters, where a
    tiny shift of mass moves them a lot."""
    rows = []
    for key, g in df[df["arm"].isin([BASELINE, arm])].groupby(list(CELL), observed=True):
        b = _stat(g[g["arm"] == BASELINE]["fct_ms"].to_numpy(dtype=float), stat)
        a = _stat(g[g["arm"] == arm]["fct_ms"].to_numpy(dtype=float), stat)
        rows.append({"app": key[0], "change": (a - b) / b * 100 if b else np.nan})
    t = pd.DataFrame(rows)
    out = {app: float(t[t["app"] == app]["change"].mean()) for app in APPS}
    out["all"] = float(t["change"].mean())
    return out


# ----------------------------------------------------------------------------- figures


def latency_figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    published = {"search": (-3, -5), "maps": (-5, -10), "images": (-7, -10)}
    fig, ax = style.figure((6.8, 3.8))
    x = np.arange(len(APPS))
    w = 0.2
    avg = latency_change(df, "mean")
    p99 = latency_change(df, 99)
    from lossrec.lab.significance import error_bars

    ci = {s: [unit_stat_diff(df, latency_stat(s), TLP, BASELINE, app=a, relative=True) for a in APPS]
          for s in ("mean", 99)}
    series = [("ours: average", [avg[a] for a in APPS], "tab:blue", ci["mean"]),
              ("seed: average", [published[a][0] for a in APPS], "lightsteelblue", None),
              ("ours: 99th pct", [p99[a] for a in APPS], "tab:red", ci[99]),
              ("seed: 99th pct", [published[a][1] for a in APPS], "lightsalmon", None)]
    for i, (label, vals, color, cis) in enumerate(series):
        ax.bar(x + (i - 1.5) * w, vals, w, label=label, color=color,
               yerr=error_bars(vals, cis) if cis else None, capsize=2, error_kw={"elinewidth": 0.8})
        for xi, v in zip(x, vals):
            ax.annotate(f"{v:+.1f}", (xi + (i - 1.5) * w, v), ha="center",
                        va="top" if v < 0 else "bottom", fontsize=7)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(["Web Search", "Maps", "Images"])
    ax.set_ylabel("latency change with TLP (%)")
    ax.set_title("§5: latency change, TLP vs baseline")
    style.legend(ax, loc="lower left", fontsize=7)
    return fig, ("The seed's latency table beside ours: change of the mean and 99th-percentile "
                 "response latency with TLP, per synthetic application (the average over its "
                 "paths and receivers of each one's change); error bars: 95 % interval (Student t) "
                 "of the mean change per (receiver, RTT, repetition), the arms paired by seed")


def percentile_figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    qs = np.array([10, 25, 50, 75, 90, 95, 98, 99, 99.5, 99.9])
    fig, ax = style.figure((6.4, 3.8))
    changes = [latency_change(df, q) for q in qs]
    for i, app in enumerate(APPS + ["all"]):
        st = style.arm_style(i) if app != "all" else {"color": "black", "linewidth": 2.2}
        ax.plot(range(len(qs)), [c[app] for c in changes], label=app, **st)
        band = [unit_stat_diff(df, latency_stat(q), TLP, BASELINE, app=None if app == "all" else app,
                               relative=True) for q in qs]
        ax.fill_between(range(len(qs)), [d.low for d in band], [d.high for d in band],
                        color=st["color"], alpha=0.12, linewidth=0)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(qs)))
    ax.set_xticklabels([f"{q:g}" for q in qs])
    ax.set_xlabel("latency percentile")
    ax.set_ylabel("change with TLP (%)")
    ax.set_title("Where TLP's improvement is (seed: 'post-90th percentile')")
    style.legend(ax, loc="lower left", fontsize=8)
    return fig, ("Change of each latency percentile with TLP, per application and over all "
                 "(averaged over the population's paths and receivers); bands: 95 % interval "
                 "(Student t) of the mean change per (receiver, RTT, repetition)")


def overhead_figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = by_arm(df[df["arm"].isin([TLP, D0, D50])])
    ours = {D0: 0, D50: 50, TLP: 200}
    seed = {0: 3.1, 50: 2.2, 200: 0.48}
    fig, ax = style.figure((5.4, 3.6))
    xs = [0, 50, 200]
    vals = [float(t[t["arm"] == a]["overhead_pct"].iloc[0]) for a in (D0, D50, TLP)]
    from lossrec.lab.significance import error_bars, mean_interval

    def ovh(g: pd.DataFrame) -> float:
        n = float(g["data_packets_sent"].sum())
        return float(g["tlp_probes"].sum()) / n * 100 if n else float("nan")
    cis = [mean_interval(unit_values(df, ovh, a).dropna()) for a in (D0, D50, TLP)]
    ax.errorbar(xs, vals, yerr=error_bars(vals, cis), marker="o", capsize=3, label="ours (pooled)",
                color="tab:blue")
    ax.plot(xs, [seed[x] for x in xs], marker="s", label="seed 000", color="tab:gray", linestyle="--")
    for x, v in zip(xs, vals):
        ax.annotate(f"{v:.2f} %", (x, v), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xticks(xs)
    ax.set_xlabel("WCDelAckT (ms)")
    ax.set_ylabel("probes / data segments (%)")
    ax.set_title("§5: probe overhead against WCDelAckT")
    style.legend(ax, loc="upper right", fontsize=8)
    del ours
    return fig, ("Probe overhead (loss probes as a share of data segments) for WCDelAckT 0, 50 and "
                 "200 ms, pooled over applications, paths and receivers, beside the seed's; error "
                 "bars: 95 % interval (Student t) of the mean overhead per (application, receiver, "
                 "RTT, repetition)")


def probe_figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    tr = traced(ctx)
    n = max(int(tr["probes"].sum()), 1)
    names = [("probes_repaired_the_only_loss", "repaired the only loss"),
             ("probes_revealed_more_losses", "revealed more losses"),
             ("probes_unnecessary", "unnecessary"), ("probes_probe_lost", "probe lost"),
             ("probes_new_data", "new data")]
    vals = [tr[c].sum() / n * 100 for c, _ in names]
    fig, ax = style.figure((6.4, 3.4))
    ax.barh([lab for _, lab in names], vals, color="tab:blue", label="ground truth (path drops)")
    eng = [("tlp_recoveries", 33, "TLP loss detection cut cwnd"), ("probes_dsacked", 37, "DSACKed")]
    for i, (c, pub, lab) in enumerate(eng):
        v = tr[c].sum() / n * 100
        ax.axvline(v, color=["tab:green", "orange"][i], linestyle="--", label=f"engine: {lab} {v:.0f} %")
        ax.axvline(pub, color=["tab:green", "orange"][i], linestyle=":", alpha=0.6,
                   label=f"seed: {pub} %")
    for i, v in enumerate(vals):
        ax.annotate(f"{v:.0f} %", (v, i), va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"share of the TLP arm's {n} probes (%)")
    style.legend(ax, loc="lower right", fontsize=7)
    return fig, ("What the TLP arm's probes did: ground truth from the path's drops (bars) and "
                 "what the sender's counters say (dashed), beside the seed's 33 % and 37 %; one "
                 "arm's own probes, no arms compared, so no error bars")
