"""rack, slide 5: the Google.com A/B on a synthetic web workload (web.toml), each arm run
twice with the same seeds — by the batch runner (results.csv, one row per response) and
traced (the recovery episodes, timeouts and probe outcomes, one row per run)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Sweep, style
from lossrec.lab.tail import traced_sweep

SCENARIO = "web.toml"
#: Arm A: the same modern Linux sender with RACK and TLP replaced by RFC 3517's loss
#: detection (DupThresh duplicate ACKs or SACKed bytes) and RFC 5827 early retransmit as
#: Linux ran it (tcp_early_retrans = 2: delayed, off after reordering).
A = {"sender.loss_detection": "dupthresh-3517", "sender.probe": "none",
     "sender.early_retransmit": "rfc5827", "sender.er_delayed": True,
     "sender.er_disable_on_reordering": True}
ARMS: List[Tuple[str, Dict[str, Any]]] = [
    ("A: RFC 3517 + ER", A),
    ("B: RACK + TLP", {}),
    ("B without TLP", {"sender.probe": "none"}),
]
ARM_A, ARM_B, ARM_B_NO_TLP = (a[0] for a in ARMS)


#: The client population, pooled with equal weight: RTTs, and Windows-like (200 ms delayed
#: ACK, no quick-ACK phase) and Linux/Android-like (40 ms, 16 quick ACKs) receivers.
RTTS = [20, 50, 150]
RECEIVERS = {"windows": {"receiver.delayed_ack_ms": [200], "receiver.quickack": [0]},
             "linux": {"receiver.delayed_ack_ms": [40], "receiver.quickack": [16]}}


def reps(quick: bool) -> int:
    return 5 if quick else 4


def _params(overrides: Dict[str, Any], receiver: str, quick: bool) -> Dict[str, List[Any]]:
    p = {k: [v] for k, v in overrides.items()}
    p.update(RECEIVERS[receiver])
    p["path.rtt_ms"] = [50] if quick else RTTS
    if quick:
        p["workload.connections"] = [40]
    return p


def sweeps(quick: bool) -> List[Sweep]:
    return [Sweep(SCENARIO, _params(ov, r, quick), reps=reps(quick), common_seeds=True,
                  labels={"arm": label, "receiver": r}, details=True)
            for label, ov in ARMS for r in RECEIVERS]


def traced(ctx: Any) -> pd.DataFrame:
    """One row per (arm, receiver, RTT, repetition): the trace summary
    (lossrec.lab.tail.summarize)."""
    if "web" not in ctx.cache:
        frames = []
        for label, ov in ARMS:
            for r in RECEIVERS:
                d = traced_sweep(ctx.scenario(SCENARIO), _params(ov, r, ctx.quick),
                                 reps=reps(ctx.quick), common_seeds=True)
                d["arm"], d["receiver"] = label, r
                frames.append(d)
        df = pd.concat(frames, ignore_index=True)
        df.drop(columns=["fct_ms_all"]).to_csv(ctx.out / "web-runs.csv", index=False)
        ctx.cache["web"] = df
    return ctx.cache["web"]


def totals(ctx: Any) -> pd.DataFrame:
    """Per arm: the sums over all runs of the traced counts."""
    t = traced(ctx)
    cols = ["data_segments", "retransmissions", "lost_retransmissions", "probes",
            "probes_retransmit", "probes_dsacked", "probes_unnecessary", "timeouts",
            "rto_episodes", "fast_episodes", "recovery_ms", "fast_recovery_ms", "rto_recovery_ms",
            "flows"]
    return t.groupby("arm", sort=False)[cols].sum()


def change(ctx: Any, col: str, arm: str = ARM_B) -> Tuple[float, float, float]:
    """(B − A) / A in percent over the totals, and its range over the repetitions."""
    t = traced(ctx)
    a = t[t["arm"] == ARM_A].groupby("rep")[col].sum()
    b = t[t["arm"] == arm].groupby("rep")[col].sum()
    per = ((b - a) / a.replace(0, np.nan) * 100).dropna()
    tot = (b.sum() - a.sum()) / a.sum() * 100 if a.sum() else float("nan")
    lo, hi = (per.min(), per.max()) if len(per) else (float("nan"), float("nan"))
    return float(tot), float(lo), float(hi)


def rep_diff(ctx: Any, col: str, arm: str = ARM_B) -> Any:
    """``arm`` − A of ``col`` summed per repetition, paired (the arms share seeds), with
    its 95 % interval (:func:`lossrec.lab.significance.difference`)."""
    from lossrec.lab.significance import difference

    t = traced(ctx)
    a = t[t["arm"] == ARM_A].groupby("rep")[col].sum()
    b = t[t["arm"] == arm].groupby("rep")[col].sum()
    common = a.index.intersection(b.index)
    return difference(b.loc[common].to_numpy(), a.loc[common].to_numpy(), paired=True)


def rel_ci(ctx: Any, col: str, arm: str = ARM_B) -> Any:
    """(Σ arm / Σ A − 1) · 100 of ``col``, bootstrapped over repetitions (paired)."""
    from lossrec.lab.significance import relative_totals

    t = traced(ctx)
    a = t[t["arm"] == ARM_A].groupby("rep")[col].sum()
    b = t[t["arm"] == arm].groupby("rep")[col].sum()
    common = a.index.intersection(b.index)
    return relative_totals(b.loc[common].to_numpy(), a.loc[common].to_numpy())


def ab_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    from lossrec.lab.significance import error_bars

    tot = totals(ctx)
    metrics = [("rto_episodes", "RTO-triggered\nrecoveries", -41.0),
               ("recovery_ms", "time in\nrecovery", -23.0),
               ("data_segments", "data\npackets", 2.6)]
    fig, ax = style.figure((6.4, 3.8))
    x = np.arange(len(metrics))
    w = 0.26
    for i, arm in enumerate((ARM_B, ARM_B_NO_TLP)):
        vals = [(tot.loc[arm, m] - tot.loc[ARM_A, m]) / tot.loc[ARM_A, m] * 100
                if tot.loc[ARM_A, m] else np.nan for m, _, _ in metrics]
        err = error_bars(vals, [rel_ci(ctx, m, arm) for m, _, _ in metrics])
        ax.bar(x + (i - 0.5) * w, vals, w, label=f"ours: {arm} vs A", color=style.arm_style(i)["color"],
               yerr=err, capsize=3, error_kw={"elinewidth": 0.8})
        for xi, v in zip(x, vals):
            ax.annotate(f"{v:+.1f}%", (xi + (i - 0.5) * w, v), ha="center",
                        va="bottom" if v >= 0 else "top", fontsize=7)
    ax.bar(x + 1.5 * w, [p for _, _, p in metrics], w, label="seed 001 (Google.com, B vs A)",
           color="tab:gray")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x + 0.25 * w)
    ax.set_xticklabels([n for _, n, _ in metrics])
    ax.set_ylabel("change vs arm A (%)")
    ax.set_title("Slide 5: RACK + TLP (B) vs RFC 3517 + early retransmit (A)")
    style.legend(ax, loc="lower right", fontsize=7)
    return fig, ("Slide 5's impact list beside ours: relative change of B (and B without TLP) "
                 "against A, summed over all responses of the synthetic web workload; error bars: "
                 "95 % bootstrap interval over the repetitions (paired; none with fewer than 5)")


def probe_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    tot = totals(ctx)
    t = traced(ctx)
    b = t[t["arm"] == ARM_B]
    outcomes = ["probes_repaired_the_only_loss", "probes_revealed_more_losses",
                "probes_unnecessary", "probes_probe_lost", "probes_new_data"]
    names = ["repaired the only loss", "revealed more losses", "unnecessary", "probe lost", "new data"]
    n = max(int(tot.loc[ARM_B, "probes"]), 1)
    vals = [b[o].sum() / n * 100 for o in outcomes]
    fig, ax = style.figure((6.4, 3.4))
    ax.barh(names, vals, color="tab:blue")
    ds = tot.loc[ARM_B, "probes_dsacked"] / n * 100
    ax.axvline(ds, color="orange", linestyle="--", label=f"DSACKed: {ds:.0f} %")
    ax.axvline(30, color="tab:gray", linestyle=":", label="seed: > 30 % spurious (DSACK)")
    for i, v in enumerate(vals):
        ax.annotate(f"{v:.0f} %", (v, i), va="center", fontsize=8)
    ax.set_xlabel(f"share of B's {n} loss probes (%)")
    ax.invert_yaxis()
    style.legend(ax, loc="lower right", fontsize=7)
    return fig, ("What B's loss probes did, from the path's drops (ground truth), and the share a "
                 "DSACK showed spurious (what the sender sees); one arm's own probes, no arms "
                 "compared, so no error bars")
