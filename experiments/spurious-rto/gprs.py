"""spurious-rto, slide 3's GPRS trace: delay spikes of varying length (gprs.toml).

Seed 004, slide 3: "Cell reselections in GPRS last 3-15 sec"; "A TCP trace shows spurious
retransmissions caused by two cell reselections in a live GPRS network"; slide 4: spurious
timeouts cause "unnecessary retransmissions during go-back-N" and "disrupted congestion
control". The study's other parts use spikes of one length; here each reselection's stall
is drawn uniformly from 3-15 s (`[path.delay_spikes] extra_max_ms`, per spike, from the
run's seed), one every 20 s, on the study's 2 Mb/s, 400 ms path. Arms:
`fack` (standard) and `fack-eifel` (Eifel detection, full undo). Each run is traced for
the ground truth: spurious and genuine RTOs (as the study counts them) and the bytes the
receiver got twice (the go-back-N's needless retransmissions).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Verdict, style
from lossrec.lab.tail import dup_bytes, traced_sweep

SCENARIO = "gprs.toml"
ARMS = {"fack": "FACK std", "fack-eifel": "FACK eifel"}


def rto_truth(records: Iterable[Mapping[str, Any]]) -> Tuple[int, int]:
    """(spurious, genuine) RTOs of a trace: genuine when the last transmission of the
    segment at snd_una had been dropped, spurious when it was only delayed."""
    last: Dict[int, bool] = {}  # seq start → last transmission dropped
    spurious = genuine = 0
    for r in records:
        k = r.get("kind")
        if k == "send" and r["seq"][1] > r["seq"][0]:
            last[r["seq"][0]] = False
        elif k == "drop" and r.get("dir") == "data":
            last[r["seq"][0]] = True
        elif k == "event" and r.get("name") == "rto":
            if last.get(r["snd_una"], False):
                genuine += 1
            else:
                spurious += 1
    return spurious, genuine


def _summary(records: List[Mapping[str, Any]], obj: Mapping[str, Any]) -> Dict[str, Any]:
    s, g = rto_truth(records)
    f = (obj.get("flows") or [{}])[0]
    return {"spurious": s, "genuine": g, "dup_bytes": dup_bytes(records).get(0, 0),
            "data_packets_sent": f.get("data_packets_sent"), "fct_ms": f.get("fct_ms"),
            "spikes_hit": _spikes_hit(records)}


def _spikes_hit(records: List[Mapping[str, Any]]) -> int:
    """Reselections the download lived through: gaps of over 2.5 s between consecutive
    arrivals at the receiver (the path's RTT is 0.4 s; only a stall leaves such a gap)."""
    ts = [r["t_us"] for r in records if r.get("kind") == "recv"]
    return int(sum(1 for a, b in zip(ts, ts[1:]) if b - a > 2_500_000))


def runs(ctx: Any) -> pd.DataFrame:
    """One row per (arm, repetition), traced; cached for the figure and the claims."""
    if "gprs" not in ctx.cache:
        d = traced_sweep(ctx.scenario(SCENARIO), {"sender.preset": list(ARMS)},
                         reps=2 if ctx.quick else 8, common_seeds=True,
                         summarize_run=_summary)
        d = d.drop(columns=["fct_ms_all"])
        d.to_csv(ctx.out / "gprs-runs.csv", index=False)
        ctx.cache["gprs"] = d
    return ctx.cache["gprs"]


#: Runs beyond this are drawn without their in-bar counts (they would overprint).
MAX_ANNOTATED = 6


def figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    d = runs(ctx)
    fig, ax = style.figure((6.4, 3.6))
    reps = sorted(d["rep"].unique())
    w = 0.38
    for i, (p, label) in enumerate(ARMS.items()):
        a = d[d["sender.preset"] == p].set_index("rep").reindex(reps)
        x = np.arange(len(reps)) + (i - 0.5) * w
        ax.bar(x, a["fct_ms"] / 1000, w, label=label, color=style.arm_style(i)["color"])
        if len(reps) <= MAX_ANNOTATED:  # more runs would overprint: the report's table has them
            for xi, s, dup in zip(x, a["spurious"], a["dup_bytes"]):
                ax.annotate(f"{int(s)} sp.\n{dup / 1448:.0f} dup", (xi, 0), xytext=(0, 2),
                            textcoords="offset points", ha="center", fontsize=6, color="white")
    from lossrec.lab.significance import error_bars, mean_interval

    clipped = False
    for i, (p, _) in enumerate(ARMS.items()):  # the mean over the runs, with its interval
        v = d[d["sender.preset"] == p]["fct_ms"] / 1000
        ci = mean_interval(v)
        clipped |= bool(ci.low < 0)
        ci.low = max(ci.low, 0.0)  # a download time is not negative
        ax.bar(len(reps) + (i - 0.5) * w, ci.mean, w, color=style.arm_style(i)["color"],
               yerr=error_bars([ci.mean], [ci]), capsize=3, error_kw={"elinewidth": 0.8})
    ax.set_ylim(bottom=0)
    ax.set_xticks(np.arange(len(reps) + 1))
    ax.set_xticklabels([f"run {r}" for r in reps] + ["mean"])
    ax.set_ylabel("download time of 3 MB (s)")
    ax.set_title("GPRS-like reselections: stalls of 3-15 s (drawn per spike)")
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig, ("Download time per run (each run draws its own stall lengths), standard FACK vs "
                 "FACK + Eifel; "
                 + ("in the bars: spurious RTOs and segments the receiver got twice; "
                    if len(reps) <= MAX_ANNOTATED else "")
                 + "last group: the mean over the runs with its 95 % interval (Student t)"
                 + (", clipped at 0 s (the interval of so few runs reaches below it)" if clipped else ""))


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    d = runs(ctx)  # the rule (published.toml) has no parameters: all of it is below
    std, eif = (d[d["sender.preset"] == p].set_index("rep") for p in ARMS)
    if std.empty or eif.empty or std["fct_ms"].isna().any() or eif["fct_ms"].isna().any():
        return [Verdict.not_comparable("gprs_variable_spikes", "an arm did not finish every run")]
    every_spike = bool((std["spurious"] >= std["spikes_hit"]).all() and (std["spikes_hit"] >= 1).all())
    gobackn = bool((std["dup_bytes"] > 0).all())
    faster = float(eif["fct_ms"].mean()) < float(std["fct_ms"].mean())
    fewer = float(eif["data_packets_sent"].mean()) < float(std["data_packets_sent"].mean())
    ok = every_spike and gobackn and faster and fewer
    ours = (f"std: {int(std['spurious'].sum())} spurious RTOs over {int(std['spikes_hit'].sum())} "
            f"reselections, {std['dup_bytes'].sum() / 1448:.0f} segments received twice, "
            f"{std['fct_ms'].mean() / 1000:.1f} s, {std['data_packets_sent'].mean():.0f} segments; "
            f"eifel: {int(eif['spurious'].sum())} spurious RTOs, "
            f"{eif['dup_bytes'].sum() / 1448:.0f} twice, {eif['fct_ms'].mean() / 1000:.1f} s, "
            f"{eif['data_packets_sent'].mean():.0f} segments ({len(std)} runs per arm)")
    from lossrec.lab.significance import difference, judge_difference

    common = std.index.intersection(eif.index)
    signs = [(difference(eif.loc[common, col].to_numpy(), std.loc[common, col].to_numpy(), paired=True), "<")
             for col in ("fct_ms", "data_packets_sent")]
    return [judge_difference(
        "gprs_variable_spikes", ok, ours + " (differences: Eifel − std per run, download time ms, segments)",
        "a stall longer than the RTO fires the timer with nothing lost; the standard sender "
        "then resends the whole window in slow start (go-back-N) as the held ACKs return; "
        "Eifel sees the original's timestamp echoed and undoes", signs=signs,
        events=int(std["spurious"].sum()), min_events=published["gprs_variable_spikes"]["min_events"])]
