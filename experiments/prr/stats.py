"""prr, items 5–6: statistics per arm on the short-web, video and Early Retransmit
workloads, from the detailed sweeps' flow rows and recovery episodes."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from lossrec.lab.details import quantiles

ARMS = ("linux-rh", "rfc3517", "prr")
NAME = {"linux-rh": "Linux", "rfc3517": "RFC 3517", "prr": "PRR"}
#: The ER arms: name → sender axes set on top of linux-rh (the seed's Linux baseline).
ER_ARMS: Dict[str, Dict[str, Any]] = {
    "Linux": {},
    "ER": {"sender.early_retransmit": "rfc5827"},
    "ER+m1": {"sender.early_retransmit": "rfc5827", "sender.er_disable_on_reordering": True},
    "ER+m1+m2": {"sender.early_retransmit": "rfc5827", "sender.er_disable_on_reordering": True,
                 "sender.er_delayed": True},
}
LATENCY_Q = [25, 50, 90, 99]
CWND_Q = [10, 25, 50, 75, 90, 95, 99]
ER_Q = [5, 10, 50, 90, 99]
COUNTS = ["data_packets_sent", "retransmits", "fast_retransmits", "lost_retransmits",
          "lost_fast_retransmits", "rtos", "rtos_in_open", "rtos_in_disorder",
          "rtos_in_recovery", "rtos_in_loss", "fast_recoveries", "dsacks",
          "early_retransmits", "spurious_early_retransmits"]


def rel(a: float, base: float) -> float:
    """(a − base) / base in percent; NaN when base is 0."""
    return (a - base) / base * 100.0 if base else float("nan")


def pct(x: float) -> str:
    return "—" if x != x else f"{x:+.1f} %"


def part(df: pd.DataFrame, workload: str) -> pd.DataFrame:
    return df[df["workload"] == workload] if "workload" in df else df.iloc[0:0]


def episodes(rec: Optional[pd.DataFrame], workload: str) -> pd.DataFrame:
    if rec is None or len(rec) == 0:
        return pd.DataFrame(columns=["arm", "ended_by", "start_ms", "end_ms"])
    r = part(rec, workload)
    # The seed's per-recovery statistics (§5) are of fast recoveries; the table also has
    # one row per RTO episode (``kind`` "rto", issue 28) since they were added.
    if "kind" in r:
        r = r[r["kind"] == "fast"]
    r = r.copy()
    r["duration_ms"] = r["end_ms"] - r["start_ms"]
    return r


def per_arm(df: pd.DataFrame, rec: pd.DataFrame, arms: List[str]) -> pd.DataFrame:
    """One row per arm: the counters' totals and the derived rates and episode figures."""
    rows = []
    for arm in arms:
        d = df[df["arm"] == arm]
        r = rec[rec["arm"] == arm] if len(rec) else rec
        done = r[r["ended_by"] == "ack"] if len(r) else r
        t = {c: float(d[c].sum()) for c in COUNTS if c in d}
        t["arm"] = arm
        t["flows"] = len(d)
        t["retransmission_rate_pct"] = 100 * t["retransmits"] / max(t["data_packets_sent"], 1)
        t["responses_with_retransmissions_pct"] = 100 * float((d["retransmits"] > 0).mean())
        t["fast_retx_per_fr"] = t["fast_retransmits"] / max(t["fast_recoveries"], 1)
        t["lost_fast_retx_pct"] = 100 * t["lost_fast_retransmits"] / max(t["fast_retransmits"], 1)
        t["latency_mean_ms"] = float(d["fct_ms"].mean())
        lossy = d[d["retransmits"] > 0]
        t["latency_mean_retx_ms"] = float(lossy["fct_ms"].mean()) if len(lossy) else float("nan")
        t["responses_with_er_pct"] = 100 * float((d["early_retransmits"] > 0).mean()) if "early_retransmits" in d else 0.0
        for q, v in zip(LATENCY_Q, quantiles(d["fct_ms"], LATENCY_Q)):
            t[f"latency_p{q}_ms"] = float(v)
        t["episodes"] = len(r)
        t["recovery_time_mean_ms"] = float(r["duration_ms"].mean()) if len(r) else float("nan")
        t["recovery_time_median_ms"] = float(r["duration_ms"].median()) if len(r) else float("nan")
        t["recovery_time_ack_mean_ms"] = float(done["duration_ms"].mean()) if len(done) else float("nan")
        t["episodes_ended_by_rto_pct"] = 100 * float((r["ended_by"] == "rto").mean()) if len(r) else float("nan")
        t["recovery_ms_total"] = float(r["duration_ms"].sum()) if len(r) else 0.0
        t["sent_in_recovery"] = float(r["sent"].sum()) if len(r) else 0.0
        for q, v in zip(CWND_Q, quantiles(done["cwnd_after"], CWND_Q) if len(done) else [np.nan] * 7):
            t[f"cwnd_after_p{q}"] = float(v)
        if len(done):
            t["slow_start_after_pct"] = 100 * float((done["cwnd_after"] < done["ssthresh_after"]).mean())
            t["converged_pct"] = 100 * float(((done["cwnd_at_end"] - done["ssthresh"]).abs() <= 1).mean())
        else:
            t["slow_start_after_pct"] = t["converged_pct"] = float("nan")
        if len(r):
            t["pipe_gt_ss_pct"] = 100 * float((r["pipe_at_entry"] > r["ssthresh"]).mean())
            t["pipe_lt_ss_pct"] = 100 * float((r["pipe_at_entry"] < r["ssthresh"]).mean())
        else:
            t["pipe_gt_ss_pct"] = t["pipe_lt_ss_pct"] = float("nan")
        t["transfer_time_mean_s"] = float(d["fct_ms"].mean()) / 1000
        t["time_in_recovery_pct"] = 100 * t["recovery_ms_total"] / max(float(d["fct_ms"].sum()), 1e-9)
        t["bytes_in_fr_pct"] = 100 * t["sent_in_recovery"] / max(t["data_packets_sent"], 1)
        t["spurious_er_pct"] = 100 * t.get("spurious_early_retransmits", 0) / max(t.get("early_retransmits", 0), 1)
        for q, v in zip(ER_Q, quantiles(d["fct_ms"], ER_Q)):
            t[f"latency_q{q}_ms"] = float(v)
        # the seed's latency tables: responses that had losses (a retransmission) only
        for q, v in zip(LATENCY_Q, quantiles(lossy["fct_ms"], LATENCY_Q)):
            t[f"latency_lossy_p{q}_ms"] = float(v)
        for q, v in zip(ER_Q, quantiles(lossy["fct_ms"], ER_Q)):
            t[f"latency_lossy_q{q}_ms"] = float(v)
        t["responses_lossy"] = len(lossy)
        rows.append(t)
    return pd.DataFrame(rows).set_index("arm")


def per_rep(df: pd.DataFrame, ctx: Any, workload: str) -> Dict[str, Dict[str, np.ndarray]]:
    """column → arm → one value per repetition (in repetition order) of :func:`per_arm`'s
    table, for the intervals of the arm comparisons (the arms share seeds per repetition)."""
    d = part(df, workload)
    rec = episodes(ctx.recoveries, workload)
    out: Dict[str, Dict[str, List[float]]] = {}
    for rep in sorted(d["rep"].unique()) if "rep" in d else []:
        rr = rec[rec["rep"] == rep] if "rep" in rec else rec
        t = per_arm(d[d["rep"] == rep], rr, list(ARMS))
        for col in t.columns:
            for arm in t.index:
                out.setdefault(col, {}).setdefault(arm, []).append(float(t.loc[arm, col]))
    return {c: {a: np.asarray(v) for a, v in by.items()} for c, by in out.items()}


def tables(df: pd.DataFrame, ctx: Any) -> Dict[str, pd.DataFrame]:
    """Per-arm tables of the three workloads (computed once per run)."""
    if "stats" not in ctx.cache:
        rec = ctx.recoveries
        ctx.cache["stats"] = {
            "web": per_arm(part(df, "web"), episodes(rec, "web"), list(ARMS)),
            "video": per_arm(part(df, "video"), episodes(rec, "video"), list(ARMS)),
            "er": per_arm(part(df, "er"), episodes(rec, "er"), list(ER_ARMS)),
        }
    return ctx.cache["stats"]


# ---------------------------------------------------------------------------- markdown


def _fmt(v: Any, nd: int = 1) -> str:
    if isinstance(v, float):
        return "—" if v != v else f"{v:,.{nd}f}"
    return str(v)


def section(df: pd.DataFrame, ctx: Any) -> str:
    from lossrec.lab.report import table

    t = tables(df, ctx)
    out = []
    w = t["web"]
    if len(w) and w["flows"].sum():
        base = w.loc["linux-rh"]
        out += ["**Short web flows** (responses; relative differences against Linux as in the "
                "seed's tables).", ""]
        rows = []
        for label, col in (("responses", "flows"), ("data segments", "data_packets_sent"),
                           ("retransmission rate (%)", "retransmission_rate_pct"),
                           ("responses with retransmissions (%)", "responses_with_retransmissions_pct"),
                           ("total retransmissions", "retransmits"),
                           ("fast retransmissions", "fast_retransmits"),
                           ("timeouts in recovery", "rtos_in_recovery"),
                           ("lost retransmissions", "lost_retransmits"),
                           ("timeouts (all)", "rtos"), ("fast recoveries", "fast_recoveries"),
                           ("fast retransmits per FR", "fast_retx_per_fr"),
                           ("recovery time, mean (ms)", "recovery_time_mean_ms"),
                           ("recovery time, median (ms)", "recovery_time_median_ms"),
                           ("recovery time, completed by an ACK, mean (ms)", "recovery_time_ack_mean_ms"),
                           ("recoveries interrupted by a timeout (%)", "episodes_ended_by_rto_pct"),
                           ("slow start after recovery (%)", "slow_start_after_pct"),
                           ("pipe > ssthresh at entry (%)", "pipe_gt_ss_pct"),
                           ("pipe < ssthresh at entry (%)", "pipe_lt_ss_pct"),
                           ("cwnd within 1 of ssthresh at exit (%)", "converged_pct"),
                           *[(f"cwnd after recovery p{q}", f"cwnd_after_p{q}") for q in CWND_Q],
                           *[(f"latency p{q} (ms)", f"latency_p{q}_ms") for q in LATENCY_Q],
                           ("latency mean (ms)", "latency_mean_ms"),
                           ("latency mean, responses with retransmissions (ms)", "latency_mean_retx_ms")):
            cells = [label]
            for arm in ARMS:
                v = float(w.loc[arm, col])
                cells.append(_fmt(v, 0 if col in COUNTS or col == "flows" else 1)
                             + ("" if arm == "linux-rh" or col.endswith("pct") or "_p" in col
                                else f" ({pct(rel(v, float(base[col])))})"))
            rows.append(cells)
        out += [table(["", *[NAME[a] for a in ARMS]], rows), ""]
    v = t["video"]
    if len(v) and v["flows"].sum():
        out += ["**Video** (long flows; the seed's YouTube table).", ""]
        rows = []
        for label, col in (("time in loss recovery (%)", "time_in_recovery_pct"),
                           ("retransmission rate (%)", "retransmission_rate_pct"),
                           ("segments sent in fast recovery (%)", "bytes_in_fr_pct"),
                           ("fast retransmits lost (%)", "lost_fast_retx_pct"),
                           ("slow start after recovery (%)", "slow_start_after_pct"),
                           ("fast recoveries", "fast_recoveries"),
                           ("timeouts in recovery", "rtos_in_recovery")):
            rows.append([label] + [_fmt(float(v.loc[a, col]), 2) for a in ARMS])
        out += [table(["", *[NAME[a] for a in ARMS]], rows), ""]
    e = t["er"]
    if len(e) and e["flows"].sum():
        base = e.loc["Linux"]
        out += ["**Early Retransmit** (short web flows with 1 % reordering; differences "
                "against the Linux baseline).", ""]
        rows = []
        for label, col in (("early retransmits", "early_retransmits"),
                           ("responses with an early retransmit (%)", "responses_with_er_pct"),
                           ("spurious early retransmits (%)", "spurious_er_pct"),
                           ("fast retransmissions", "fast_retransmits"),
                           ("fast recoveries", "fast_recoveries"),
                           ("timeouts", "rtos"), ("timeouts in Open", "rtos_in_open"),
                           ("timeouts in Disorder", "rtos_in_disorder"),
                           ("timeouts in Recovery", "rtos_in_recovery"),
                           ("DSACKs", "dsacks"),
                           *[(f"latency p{q} (ms)", f"latency_q{q}_ms") for q in ER_Q]):
            cells = [label]
            for arm in ER_ARMS:
                x = float(e.loc[arm, col])
                cells.append(_fmt(x, 0 if col in COUNTS else 1)
                             + ("" if arm == "Linux" or col.endswith("pct")
                                else f" ({pct(rel(x, float(base[col])))})"))
            rows.append(cells)
        out += [table(["", *ER_ARMS], rows), ""]
    return "\n".join(out)
