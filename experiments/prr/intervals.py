"""prr: the intervals of the arm comparisons on the short-web and ER workloads.

The seed's numbers are relative differences of totals over a day of traffic ("RFC 3517
+3.7 % retransmissions over Linux") and quantiles of pooled latencies; ours are the same
statistics of the pooled repetitions, and their 95 % intervals come from a bootstrap over
the repetitions (:mod:`lossrec.lab.significance`): repetition *i* of every arm runs the
same seeds (every RTT of it), so a resample keeps the arms paired.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Sequence

import numpy as np
import pandas as pd

from lossrec.lab.significance import Diff, pooled, relative_mean, relative_quantile, relative_totals


def _stats() -> Any:
    return sys.modules[f"{__package__}.stats"]


def reps(df: pd.DataFrame, workload: str) -> List[Any]:
    d = _stats().part(df, workload)
    return sorted(d["rep"].unique()) if "rep" in d and len(d) else []


def totals(df: pd.DataFrame, workload: str, arm: str, col: str) -> np.ndarray:
    """Repetition *i*'s total of counter ``col`` in ``arm`` (every RTT of the repetition)."""
    d = _stats().part(df, workload)
    d = d[d["arm"] == arm]
    s = d.groupby("rep", observed=True)[col].sum()
    return s.reindex(reps(df, workload), fill_value=0).to_numpy(dtype=float)


def rel_totals(df: pd.DataFrame, workload: str, col: str, a: str, b: str) -> Diff:
    """``(Σ a / Σ b − 1) · 100`` of counter ``col``, bootstrapped over repetitions."""
    return relative_totals(totals(df, workload, a, col), totals(df, workload, b, col))


def lossy_latency(df: pd.DataFrame, workload: str, arm: str) -> List[np.ndarray]:
    """Per repetition, the latencies of ``arm``'s responses that had a retransmission (the
    seed's latency tables are over responses with losses)."""
    d = _stats().part(df, workload)
    d = d[(d["arm"] == arm) & (d["retransmits"] > 0)]
    return [d[d["rep"] == r]["fct_ms"].to_numpy(float) for r in reps(df, workload)]


def paired_lossy_latency(df: pd.DataFrame, workload: str, a: str, b: str) -> tuple:
    """Per repetition, the latencies in ``a`` and in ``b`` of the *same* responses (matched
    by repetition, RTT and flow id: the arms share seeds), those that had a retransmission
    in either arm — the paired selection, beside each arm's own lossy responses."""
    d = _stats().part(df, workload)
    keys = [k for k in ("rep", "rtt_ms", "id") if k in d]
    wide = d[d["arm"].isin([a, b])].pivot_table(index=keys, columns="arm",
                                                 values=["fct_ms", "retransmits"], aggfunc="first")
    if ("fct_ms", a) not in wide or ("fct_ms", b) not in wide:
        return [np.array([]) for _ in reps(df, workload)], [np.array([]) for _ in reps(df, workload)]
    wide = wide.dropna(subset=[("fct_ms", a), ("fct_ms", b)])
    wide = wide[(wide[("retransmits", a)] > 0) | (wide[("retransmits", b)] > 0)].reset_index()
    xs = [wide[wide["rep"] == r][("fct_ms", a)].to_numpy(float) for r in reps(df, workload)]
    ys = [wide[wide["rep"] == r][("fct_ms", b)].to_numpy(float) for r in reps(df, workload)]
    return xs, ys


def paired_latency_diffs(df: pd.DataFrame, workload: str, a: str, b: str,
                         qs: Sequence[int]) -> Dict[str, Diff]:
    """As :func:`latency_diffs`, over the paired selection (:func:`paired_lossy_latency`)."""
    x, y = paired_lossy_latency(df, workload, a, b)
    out = {"mean": pooled(x, y, relative_mean)}
    for q in qs:
        out[f"p{q}"] = pooled(x, y, relative_quantile(q))
    return out


def latency_diffs(df: pd.DataFrame, workload: str, a: str, b: str,
                  qs: Sequence[int]) -> Dict[str, Diff]:
    """Relative differences (percent) of ``a``'s lossy-response latency over ``b``'s: the
    mean and each quantile of ``qs``, keyed ``mean`` / ``p<q>``."""
    x, y = lossy_latency(df, workload, a), lossy_latency(df, workload, b)
    out = {"mean": pooled(x, y, relative_mean)}
    for q in qs:
        out[f"p{q}"] = pooled(x, y, relative_quantile(q))
    return out


def episode_values(ctx: Any, workload: str, arm: str, col: str, rep_ids: Sequence[Any],
                   completed: bool = False) -> List[np.ndarray]:
    """Per repetition, ``col`` of ``arm``'s recovery episodes (``completed``: those an ACK
    ended)."""
    r = _stats().episodes(ctx.recoveries, workload)
    if len(r) == 0 or "rep" not in r:
        return [np.array([]) for _ in rep_ids]
    r = r[r["arm"] == arm]
    if completed:
        r = r[r["ended_by"] == "ack"]
    return [r[r["rep"] == k][col].to_numpy(float) for k in rep_ids]


def episode_diff(ctx: Any, df: pd.DataFrame, workload: str, a: str, b: str, col: str,
                 q: Any = "mean", completed: bool = False) -> Diff:
    """``stat(a) − stat(b)`` of the arms' pooled episodes' ``col`` (``q``: ``"mean"`` or a
    percentile), bootstrapped over repetitions."""
    ids = reps(df, workload)
    x = episode_values(ctx, workload, a, col, ids, completed)
    y = episode_values(ctx, workload, b, col, ids, completed)

    def stat(u: np.ndarray, v: np.ndarray) -> float:
        if not len(u) or not len(v):
            return float("nan")
        if q == "mean":
            return float(u.mean() - v.mean())
        return float(np.quantile(u, q / 100.0) - np.quantile(v, q / 100.0))
    return pooled(x, y, stat)
