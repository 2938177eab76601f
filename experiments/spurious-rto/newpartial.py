"""spurious-rto, slide 8: the seed's new proposal against Partial undo (part c's runs).

Seed 004, slide 8: "Partial undo sets the sender idle for a while — the flight size is
higher than the reduced cwnd — the ACK clock can be lost. A new proposal: use the ACK
clock but in congestion avoidance (ssthresh = cwnd_old, cwnd = ssthresh)"; slide 13 shows
both among the undo variants of FACK with CBR. Measured on part (c), FACK + Eifel with
CBR, `spurious_response` = `partial` vs `new-partial`, paired by spike phase.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Verdict, style

PHASE = "path.delay_spikes.start_ms"
SHOWN = {"full-undo": "Full", "partial": "Partial", "new-partial": "New partial"}


def paired(df: pd.DataFrame) -> pd.DataFrame:
    """Part (c): one row per spike phase, download time (ms) per undo variant."""
    d = df[df["part"] == "c"] if "part" in df else df.iloc[0:0]
    if d.empty or "sender.spurious_response" not in d:
        return pd.DataFrame()
    return d.pivot_table(index=PHASE, columns="sender.spurious_response", values="fct_ms",
                         aggfunc="mean", observed=True)


def figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    p = paired(df)
    fig, ax = style.figure((6.4, 3.6))
    cols = [c for c in SHOWN if c in p]
    w = 0.8 / max(len(cols), 1)
    for i, c in enumerate(cols):
        ax.bar(np.arange(len(p)) + (i - (len(cols) - 1) / 2) * w, p[c] / 1000, w,
               label=SHOWN[c], color=style.arm_style(i)["color"])
    from lossrec.lab.significance import error_bars, mean_interval

    for i, c in enumerate(cols):  # the mean over the phases, with its interval
        ci = mean_interval(p[c] / 1000)
        ax.bar(len(p) + (i - (len(cols) - 1) / 2) * w, ci.mean, w, color=style.arm_style(i)["color"],
               yerr=error_bars([ci.mean], [ci]), capsize=3, error_kw={"elinewidth": 0.8})
    ax.set_xticks(np.arange(len(p) + 1))
    # one short label per phase (the time of its first spike); rotated when there are many
    ax.set_xticklabels([f"{v / 1000:g}" for v in p.index] + ["mean"],
                       rotation=45 if len(p) > 8 else 0, fontsize=7 if len(p) > 8 else None)
    ax.set_xlabel("spike phase: time of the first spike (s)")
    ax.set_ylabel("download time of 3 MB (s)")
    ax.set_title("Undo after a spurious timeout: FACK + Eifel with CBR")
    style.legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig, ("Download time per spike phase with Full, Partial and New partial undo "
                 "(slide 8's proposal: keep the ACK clock, continue in congestion avoidance); last "
                 "group: the mean over the phases with its 95 % interval (Student t)")


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    p = paired(df)
    if p.empty or not {"partial", "new-partial"} <= set(p.columns):
        return [Verdict.not_comparable("c_new_partial_vs_partial",
                                       "part (c) has no Partial / New partial runs")]
    d = p["partial"] - p["new-partial"]
    wins = int((d >= 0).sum())
    ok = float(p["new-partial"].mean()) < float(p["partial"].mean()) and wins * 2 >= len(d)
    ours = (f"New partial {p['new-partial'].mean() / 1000:.2f} s vs Partial "
            f"{p['partial'].mean() / 1000:.2f} s (mean over {len(d)} spike phase(s)); New "
            f"partial no slower in {wins} of {len(d)}")
    if "full-undo" in p:
        ours += f"; Full {p['full-undo'].mean() / 1000:.2f} s"
    from lossrec.lab.significance import difference, judge_difference

    c = published["c_new_partial_vs_partial"]
    diff = difference(p["new-partial"].to_numpy(), p["partial"].to_numpy(), paired=True)
    sp = df[(df["part"] == "c")] if "part" in df else df.iloc[0:0]
    return [judge_difference(
        "c_new_partial_vs_partial", ok, ours + "; New partial − Partial by spike phase",
        "Partial leaves cwnd below the flight, so the sender waits for the flight to drain; "
        "New partial keeps sending on each ACK from ssthresh = cwnd in congestion avoidance",
        signs=[(diff, "<")], unit="ms", events=int(sp["spurious"].sum()) if "spurious" in sp else 0,
        min_events=c["min_events"])]
