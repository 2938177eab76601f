"""rack, slide 6 with BBR (random-loss-bbr.toml): seed 001's own setting — 10 Gb/s, 20 ms,
1 % random loss, BBR — with RACK (`linux`) and without (`linux-4.4-norack`)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Sweep, Verdict, style

SCENARIO = "random-loss-bbr.toml"
#: (preset, label, the seed's throughput in Gb/s)
ARMS = [("linux", "with RACK", 9.6), ("linux-4.4-norack", "without RACK", 5.4)]
LABEL = "slide 6 bbr"


def sweeps(quick: bool) -> List[Sweep]:
    return [Sweep(SCENARIO, {"sender.preset": [p for p, _, _ in ARMS],
                             "workload.duration_s": [3 if quick else 30]},
                  reps=1 if quick else 3, common_seeds=True, labels={"arm": LABEL})]


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per arm: mean and standard deviation of the throughput (Gb/s) over repetitions,
    timeouts and data packets summed, repetitions counted."""
    d = df[df["arm"] == LABEL].copy()
    d["gbps"] = d["bytes"] * 8 / d["workload.duration_s"] / 1e9
    g = d.groupby("sender.preset", observed=True)
    t = g.agg(gbps=("gbps", "mean"), sd=("gbps", "std"), rtos=("rtos", "sum"),
              packets=("data_packets_sent", "sum"), reps=("gbps", "size"))
    return t.fillna({"sd": 0.0})


def figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = table(df)
    fig, ax = style.figure((5.6, 3.6))
    x = np.arange(len(ARMS))
    ours = [t.loc[p, "gbps"] for p, _, _ in ARMS]
    from lossrec.lab.significance import error_bars, mean_interval

    d = df[df["arm"] == LABEL]
    g = d["bytes"] * 8 / d["workload.duration_s"] / 1e9
    sds = error_bars(ours, [mean_interval(g[d["sender.preset"] == p]) for p, _, _ in ARMS])
    seed = [s for _, _, s in ARMS]
    ax.bar(x - 0.2, seed, 0.38, label="seed 001", color=style.arm_style(1)["color"])
    ax.bar(x + 0.2, ours, 0.38, yerr=sds, capsize=3, label="ours",
           color=style.arm_style(0)["color"])
    for xi, v in zip(x, ours):
        ax.annotate(f"{v:.2f}", (xi + 0.2, v), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([label for _, label, _ in ARMS])
    ax.set_ylabel("throughput (Gb/s)")
    ax.set_ylim(0, 10.5)
    ax.set_title("Slide 6 with BBR: 10 Gb/s, 20 ms, 1 % random loss")
    style.legend(ax, loc="upper right", fontsize=8)
    return fig, ("One BBR transfer at 10 Gb/s under 1 % random loss with RACK (linux) and "
                 "without (linux-4.4-norack), beside the seed's 9.6 and 5.4 Gb/s; error bars: "
                 "95 % interval of the mean over the repetitions (Student t; none with one run)")


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    c = published["slide6_bbr_throughput"]
    t = table(df)
    got = {p: t.loc[p, "gbps"] for p, _, _ in ARMS}
    ok = all(seed / c["factor"] <= got[p] <= seed * c["factor"] for p, _, seed in ARMS)
    with_, without = got[ARMS[0][0]], got[ARMS[1][0]]
    rtos = {p: int(t.loc[p, "rtos"]) for p, _, _ in ARMS}
    ours = (f"with RACK {with_:.2f} Gb/s ({rtos['linux']} RTOs), without "
            f"{without:.2f} Gb/s ({rtos['linux-4.4-norack']} RTOs), ratio "
            f"{with_ / max(without, 1e-9):.2f} (seed 1.78), {int(t['reps'].min())} run(s) per arm")
    why = ("with RACK a lost retransmission is found one RTT later and BBR keeps the link "
           "busy; without it every stall needs the RTO (200 ms minimum), after which BBR "
           "slow-starts back from one segment")
    if without < ARMS[1][2] / c["factor"]:
        why += ("; our arm without RACK loses more than the seed's: each of its timeouts "
                "idles the 10 Gb/s path for the RTO and the ramp back")
    from lossrec.lab.significance import difference, judge_difference

    d = df[df["arm"] == LABEL]
    w = d.assign(gbps=d["bytes"] * 8 / d["workload.duration_s"] / 1e9).pivot_table(
        index="rep", columns="sender.preset", values="gbps", aggfunc="mean")
    a, b = ARMS[0][0], ARMS[1][0]
    w = w.dropna(subset=[x for x in (a, b) if x in w.columns]) if {a, b} <= set(w.columns) else w.iloc[0:0]
    diff = difference(w[a].to_numpy() if a in w else [], w[b].to_numpy() if b in w else [], paired=True)
    return [judge_difference("slide6_bbr_throughput", ok, ours + "; with − without RACK per repetition",
                             why, signs=[(diff, ">")], events=rtos[b], min_events=c["min_events"],
                             unit="Gb/s")]
