"""Tables the rtor figures and verdicts share: mean FCT per controlled point, paired
flows of the realistic and web runs, spurious-retransmission fractions."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd


#: The web pages' RTT (ms): seed 002's hitta/dn_delack_80ms.
WEB_RTT = 80


def tail(df: pd.DataFrame) -> pd.DataFrame:
    """Mean FCT (and RTOs, probes) per arm, delayed ACK, RTT and K of items 1–2."""
    d = df[df["item"] == "tail"]
    keys = ["base_arm", "arm", "receiver.delayed_ack_ms", "rtt_ms", "K"]
    return d.groupby(keys, observed=True).agg(
        fct_ms=("fct_ms", "mean"), rtos=("rtos", "mean"),
        tlp_probes=("tlp_probes", "mean")).reset_index()


def tail_value(t: pd.DataFrame, arm: str, rtt: int, k: int, col: str = "fct_ms") -> float:
    s = t[(t["arm"] == arm) & (t["rtt_ms"] == rtt) & (t["K"] == k)][col]
    return float(s.iloc[0]) if len(s) else float("nan")


def paired(df: pd.DataFrame, item: str, **sel: Any) -> pd.DataFrame:
    """One row per measured flow (or object) of `item`, one FCT column per arm, matched by
    RTT, repetition and id (the arms ran with the same seeds); `lossy`: some arm
    retransmitted in it; `tail_lossy`: the path dropped one of its last four segments in
    some arm; `tail_rto`: in both the baseline and RTOR arms, with a baseline timeout (seed
    002's paired selection for the web objects)."""
    d = df[df["item"] == item]
    for k, v in sel.items():
        d = d[d[k] == v]
    if d.empty:
        return pd.DataFrame()
    keys = ["rtt_ms", "rep", "id"] + (["page"] if "page" in d and item == "web" else [])
    wide = d.pivot_table(index=keys, columns="base_arm", values="fct_ms", aggfunc="first")
    retx = d.pivot_table(index=keys, columns="base_arm", values="retransmits", aggfunc="first")
    wide["lossy"] = (retx.fillna(0) > 0).any(axis=1)
    if "tail_drops" in d:
        tail = d.pivot_table(index=keys, columns="base_arm", values="tail_drops", aggfunc="first")
        wide["tail_lossy"] = (tail.fillna(0) > 0).any(axis=1)
        if {"baseline", "RTOR"} <= set(tail.columns) and "rtos" in d:
            rtos = d.pivot_table(index=keys, columns="base_arm", values="rtos", aggfunc="first")
            # seed 002's paired selection: a tail loss in both arms and a baseline timeout
            # (only there can restarting the timer earlier save anything)
            wide["tail_rto"] = ((tail["baseline"].fillna(0) > 0) & (tail["RTOR"].fillna(0) > 0)
                                & (rtos["baseline"].fillna(0) > 0))
    for a in retx.columns:
        wide[f"retx_{a}"] = retx[a]
    return wide.reset_index()


def spurious(df: pd.DataFrame, item: str) -> pd.DataFrame:
    """Per arm: DSACKed retransmissions / data segments sent, and the counts."""
    d = df[df["item"] == item]
    g = d.groupby("base_arm", observed=True).agg(dsacks=("dsacks", "sum"),
                                                 sent=("data_packets_sent", "sum"),
                                                 retx=("retransmits", "sum"))
    g["fraction"] = g["dsacks"] / g["sent"].where(g["sent"] > 0)
    return g.reset_index()


def quantile_share_best(p: pd.DataFrame, arm: str, others: List[str], margin: float = 0.0) -> float:
    """Share of the quantile levels 1..99 % at which `arm`'s FCT is below every other
    arm's by more than ``margin`` (ms; over the rows of `p`): how much of its CDF lies to
    the left by a visible step, not by a tie broken in the microseconds."""
    qs = np.arange(1, 100) / 100.0
    mine = np.nanquantile(p[arm].to_numpy(float), qs)
    best = np.ones(len(qs), dtype=bool)
    for o in others:
        best &= mine < np.nanquantile(p[o].to_numpy(float), qs) - max(margin, 1e-9)
    return float(best.mean())


def rep_bootstrap(p: pd.DataFrame, cols: List[str], fn: Callable[[Dict[str, np.ndarray]], float],
                  reps: Optional[Sequence[Any]] = None) -> Any:
    """``fn`` of the pooled columns ``cols`` of the paired rows ``p`` with its 95 % interval,
    bootstrapped over the repetitions (``reps``: every repetition run, also those ``p``
    kept no row of; default: those in ``p``). The arms share a repetition's seeds, so a
    resample keeps them paired (:func:`lossrec.lab.significance.bootstrap`)."""
    from lossrec.lab.significance import bootstrap

    ids = list(reps) if reps is not None else (sorted(p["rep"].unique()) if len(p) else [])
    parts = {c: [p[p["rep"] == r][c].to_numpy(float) if len(p) else np.array([]) for r in ids]
             for c in cols}

    def stat(idx: np.ndarray) -> float:
        pooled = {c: np.concatenate([parts[c][k] for k in idx]) if len(idx) else np.array([])
                  for c in cols}
        return fn(pooled) if all(len(v) for v in pooled.values()) else float("nan")
    return bootstrap(stat, len(ids))


def spurious_reps(df: pd.DataFrame, item: str) -> pd.DataFrame:
    """Per repetition (and RTT, page) and arm: DSACKs and data segments sent, one column
    each per arm (``dsacks_<arm>``, ``sent_<arm>``), with ``rep`` the bootstrap unit."""
    d = df[df["item"] == item]
    keys = ["rep"]
    g = d.groupby(keys + ["base_arm"], observed=True).agg(
        dsacks=("dsacks", "sum"), sent=("data_packets_sent", "sum")).reset_index()
    w = g.pivot_table(index=keys, columns="base_arm", values=["dsacks", "sent"], aggfunc="sum")
    w.columns = [f"{a}_{b}" for a, b in w.columns]
    return w.reset_index()
