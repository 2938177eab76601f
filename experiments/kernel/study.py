"""kernel: the `linux` preset against the Linux kernel, live, through the real wire.

Every point runs three times on the same emulated path (`crates/tun`): the engine's
sender (`linux` preset) as a user-space TCP endpoint, Linux's own sender from a network
namespace with the preset's settings applied as sysctls and route attributes, both
against a Linux socket server; and the simulator for reference. The "published" side is
the kernel as measured in this run.
"""

from __future__ import annotations

import math
import platform
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pandas as pd

from lossrec.lab import Sweep, Verdict
from lossrec.lab import style
from lossrec.realwire import unavailable

TITLE = "The linux preset against the Linux kernel, live through the wire"
SEED = "kernel"
SUMMARY = f"""
How close is the engine's `linux` preset to the kernel it is named after? Each point is a
flow sent once by the engine and once by Linux ({platform.release()}) through the same
user-space path emulator (the simulator's link and loss models in real time) to the same
Linux receiver; the simulator runs the point too. FCT is measured at the emulator for
both senders (first SYN to the arrival of the last byte); the kernel's counters come from
`TCP_INFO` and the namespace's MIB (`TCPLossProbes`, `TCPTimeouts`, …).
"""
NOTES = """
* **Judged against the kernel's own spread.** A point holds when the engine's median FCT
  lies within the range of the kernel's runs widened by a slack: half that range or 5 %
  of the kernel's median FCT, whichever is more, plus the timer granularity below — and
  the medians of TLP probes and RTOs are equal. A busy machine spreads the kernel's runs,
  and the band widens with them; no fixed tolerance decides alone.
* **Rerun and report.** A point that does not hold runs again, both senders, up to
  twice (`RERUNS`), and is judged on all its runs together; the table gives the runs and
  reruns per point. A run on a busy machine can stall; a real difference stays.
* **Timer granularity.** The kernel's timers run on jiffies (HZ=250 here: 4 ms) and, for
  timeouts of 64 jiffies or more, on the timer wheel's coarser slots (32 ms up to 2 s,
  256 ms above). The slack adds one slot, at the length of the timeout, per probe or RTO
  the kernel fired.
* **Application.** Both senders' applications write the flow and close once every byte
  is acknowledged, so that nothing follows a lost tail — as in the simulator, whose FIN
  rides on the (lost) last segment. The `fin_after_write` case closes right after the
  write instead (`write()` then `shutdown()`): the kernel then sends its FIN on its own
  behind the data (once cwnd allows: no FIN exception in `tcp_cwnd_test` since Linux
  6.10), its receiver SACKs the FIN above the lost segment, and RACK repairs the tail in
  fast recovery. The engine keeps a bare FIN on its scoreboard as Linux does
  (`tcp_send_fin`), so the same SACK starts its recovery.
* **Delayed ACKs.** With `receiver.delayed_ack_ms = 40` the Linux receiver runs its own
  delayed ACKs (quick-ACK start, 40 ms minimum); otherwise its route has `quickack 1`.
* Needs root and `/dev/net/tun`; elsewhere every claim is "not comparable".
"""

HZ = 250
RTTS = [10, 20, 40, 80, 160, 320, 640]
KS = [0, 1, 2, 3, 4, 5]


def sweeps(quick: bool) -> List[Sweep]:
    if unavailable() is not None:
        return []
    reps = 1 if quick else 3
    w = dict(runner="wire", reps=reps)
    out = [
        Sweep("tail.toml", {"path.rtt_ms": [20, 160] if quick else RTTS},
              labels={"case": "tail_rtt"}, **w),
        Sweep("tail.toml", {"path.loss.count": [2] if quick else KS[1:]},
              labels={"case": "tail_k"}, **w),
        Sweep("tail.toml", {"sender.probe": ["tlp-linux", "none"]},
              labels={"case": "tlp_on_off"}, **w),
        Sweep("tail.toml", {"sender.probe": ["none"], "sender.min_rto_ms": [200, 5] if quick else [200, 40, 5]},
              labels={"case": "rto_min"}, **w),
        # Medians of three even when quick: a kernel run on a busy machine can stall.
        Sweep("burst.toml", {}, labels={"case": "burst"}, runner="wire", reps=3),
        Sweep("twice.toml", {}, labels={"case": "lost_twice"}, runner="wire", reps=3),
        Sweep("tail.toml", {}, labels={"case": "fin_after_write"},
              wire={"close": "after-write"}, **w),
    ]
    if not quick:
        out.insert(2, Sweep("no-loss.toml", {}, labels={"case": "tail_k", "path.loss.count": 0},
                            **w))
        for f in ("tail.toml", "burst.toml", "twice.toml"):
            out.append(Sweep(f, {"receiver.delayed_ack_ms": [40]},
                             labels={"case": "delayed_acks", "file": f}, **w))
    return out


#: Reruns of a point that does not hold before it is reported as not holding (see NOTES).
RERUNS = 2


def prepare(df: pd.DataFrame, run: Optional[Callable[[pd.DataFrame], pd.DataFrame]] = None) -> pd.DataFrame:
    """Rerun and report: every point that does not hold runs again (``run``: the point's
    rows → new rows; the wire by default), up to :data:`RERUNS` times, its new rows marked
    with ``rerun`` = 1, 2 …; :func:`points` then judges all of a point's runs together."""
    if df.empty or "side" not in df.columns:
        return df
    run = run or _run_again
    df = df.copy()
    if "rerun" not in df:
        df["rerun"] = 0
    for attempt in range(1, RERUNS + 1):
        bad = points(df)
        bad = bad[~bad.holds]
        if bad.empty:
            break
        at = df.apply(_point, axis=1)
        again = [run(df[(df.case == r.case) & (at == r.point)]).assign(rerun=attempt)
                 for r in bad.itertuples()]
        df = pd.concat([df, *again], ignore_index=True)
    return df


def _plain(v: Any) -> Any:
    """A parquet/pandas value back as the scenario's TOML value (2.0 → 2)."""
    v = v.item() if hasattr(v, "item") else v
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _run_again(g: pd.DataFrame) -> pd.DataFrame:
    """The point of rows ``g`` through the wire once more, as many reps as its first run."""
    from lossrec.lab.wire_sweeps import wire_sweep

    row = g.iloc[0]

    def fits(sw: Sweep) -> bool:
        return all(k in row and _plain(row[k]) == v for k, v in sw.labels.items()) \
            and all(k in row for k in sw.params)

    # The most specific sweep of the point's case (the no-loss sweep is tail_k's with a label).
    sw = max((x for x in sweeps(quick=False) if fits(x)), key=lambda x: len(x.labels))
    reps = int(((g.side == "kernel") & (g["rerun"] == 0)).sum()) or 1
    out = wire_sweep(Path(__file__).parent / sw.scenario, {k: [_plain(row[k])] for k in sw.params},
                     reps=reps, **sw.wire)
    for k, v in sw.labels.items():
        out[k] = v
    return out


POINT_KEYS = ["path.rtt_ms", "path.loss.count", "path.loss.model", "sender.probe",
              "sender.min_rto_ms", "receiver.delayed_ack_ms", "file"]


def _point(row: pd.Series) -> str:
    parts = [f"{k.split('.')[-1]}={row[k]}" for k in POINT_KEYS
             if k in row and not (isinstance(row[k], float) and math.isnan(row[k]))]
    return ", ".join(parts) or "base"


def _slot_ms(timeout_ms: float) -> float:
    """The kernel timer's granularity at this timeout (HZ jiffies, timer-wheel levels)."""
    jiffy = 1000 / HZ
    j = timeout_ms / jiffy
    level = 0
    while j >= 63 * 8 ** level and level < 4:
        level += 1
    return jiffy * 8 ** level


def band(kernel_fct: pd.Series, timers: float, rtt_ms: float) -> Tuple[float, float, float]:
    """The FCTs the engine's median may have: the kernel runs' [min, max] widened by the
    slack (half their spread or 5 % of their median, whichever is more, plus one timer
    slot per timer the kernel fired). Returns (low, high, slack)."""
    lo, hi = float(kernel_fct.min()), float(kernel_fct.max())
    slack = max(0.05 * float(kernel_fct.median()), (hi - lo) / 2) + timers * _slot_ms(2 * rtt_ms + 200)
    return lo - slack, hi + slack, slack


def points(df: pd.DataFrame) -> pd.DataFrame:
    """One row per point: medians per side, the kernel's band, the verdict and why."""
    if df.empty:
        return pd.DataFrame()
    df = df.copy()
    df["point"] = df.apply(_point, axis=1)
    if "rerun" not in df:
        df["rerun"] = 0
    rows = []
    for (case, point), g in df.groupby(["case", "point"], sort=False):
        med = {s: g[g.side == s].median(numeric_only=True) for s in ("engine", "kernel", "sim")}
        k, e = med["kernel"], med["engine"]
        rtt = float(g["path.rtt_ms"].iloc[0]) if "path.rtt_ms" in g and not g["path.rtt_ms"].isna().all() else 80.0
        timers = float(k.get("tlp_probes", 0) + k.get("rtos", 0))
        lo, hi, allow = band(g[g.side == "kernel"]["fct_ms"], timers, rtt)
        diff = e["fct_ms"] - k["fct_ms"]
        counts = (e["tlp_probes"], e["rtos"]) == (k["tlp_probes"], k["rtos"])
        ok = bool(lo <= e["fct_ms"] <= hi) and counts
        rows.append({"case": case, "point": point, "kernel_ms": k["fct_ms"], "engine_ms": e["fct_ms"],
                     "sim_ms": med["sim"]["fct_ms"], "diff_pct": 100 * diff / k["fct_ms"],
                     "allow_ms": allow, "low_ms": lo, "high_ms": hi,
                     "runs": int((g.side == "kernel").sum()), "reruns": int(g["rerun"].max()),
                     "tlp_k": k["tlp_probes"], "tlp_e": e["tlp_probes"],
                     "rto_k": k["rtos"], "rto_e": e["rtos"], "fr_k": k["fast_recoveries"],
                     "fr_e": e["fast_recoveries"], "rx_k": k["retransmits"], "rx_e": e["retransmits"],
                     "holds": ok, "why": "" if ok else explain(k, e, diff, (lo, hi))})
    return pd.DataFrame(rows)


def explain(k: pd.Series, e: pd.Series, diff: float, within: Tuple[float, float]) -> str:
    """Why a point does not hold, from the counters of both sides."""
    why = []
    engine_waited = e["tlp_probes"] + e["rtos"] > k["tlp_probes"] + k["rtos"]
    if engine_waited and k["fast_recoveries"] >= 1 and diff > 0:
        why.append("the kernel repaired the tail in fast recovery where the engine waited for "
                   f"a timer ({e['tlp_probes']:.0f} probe(s), {e['rtos']:.0f} RTO(s) against the "
                   f"kernel's {k['tlp_probes']:.0f}/{k['rtos']:.0f}): something sent after the lost "
                   "segment (a later segment, or a FIN on its own) was SACKed and let the kernel's "
                   "loss detection mark the tail lost, where the engine's did not")
    elif (e["tlp_probes"], e["rtos"]) != (k["tlp_probes"], k["rtos"]):
        why.append(f"timers differ: kernel {k['tlp_probes']:.0f} probe(s) / {k['rtos']:.0f} RTO(s), "
                   f"engine {e['tlp_probes']:.0f} / {e['rtos']:.0f}")
    if not within[0] <= e["fct_ms"] <= within[1] and not why:
        why.append(f"same repairs, but the FCT differs by {diff:+.1f} ms, outside the kernel's band "
                   f"{within[0]:.1f}-{within[1]:.1f} ms")
    return "; ".join(why)


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    why = unavailable()
    if why is not None:
        return [Verdict.not_comparable(c, f"the wire cannot run here: {why}") for c in published]
    p = points(df)
    ctx.cache["points"] = p
    out = []
    for cid in published:
        g = p[p.case == cid] if not p.empty else p
        if g.empty:
            out.append(Verdict.not_comparable(cid, "not run in this mode (--quick)"))
            continue
        n_ok = int(g.holds.sum())
        ours = "; ".join(f"{r.point}: {r.engine_ms:.0f} vs {r.kernel_ms:.0f} ms"
                         + (f" ({r.runs} runs, {r.reruns} rerun(s))" if r.reruns else "")
                         for r in g.itertuples())
        bad = [f"{r.point}: {r.why}" for r in g.itertuples() if not r.holds]
        out.append(Verdict.judge(cid, n_ok == len(g), ours,
                                 f"{n_ok}/{len(g)} points hold" + ("; " + " | ".join(bad) if bad else "")))
    return out


def sections(df: pd.DataFrame, ctx: Any) -> List[Tuple[str, str]]:
    p = ctx.cache.get("points")
    if p is None or p.empty:
        return []
    lines = ["| case | point | kernel ms | engine ms | sim ms | Δ % | kernel band ms | runs (reruns) "
             "| TLP k/e | RTO k/e | fast rec k/e | rexmit k/e | holds | why not |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in p.itertuples():
        lines.append(f"| {r.case} | {r.point} | {r.kernel_ms:.1f} | {r.engine_ms:.1f} | {r.sim_ms:.1f} "
                     f"| {r.diff_pct:+.1f} | {r.low_ms:.1f}-{r.high_ms:.1f} | {r.runs} ({r.reruns}) "
                     f"| {r.tlp_k:.0f}/{r.tlp_e:.0f} "
                     f"| {r.rto_k:.0f}/{r.rto_e:.0f} | {r.fr_k:.0f}/{r.fr_e:.0f} | {r.rx_k:.0f}/{r.rx_e:.0f} "
                     f"| {'yes' if r.holds else '**no**'} | {r.why} |")
    return [("Side by side, every point (medians)", "\n".join(lines))]


def fct_vs_rtt(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    fig, ax = style.figure()
    d = df[df.get("case", pd.Series(dtype=str)) == "tail_rtt"] if not df.empty else df
    for i, side in enumerate(("kernel", "engine", "sim")):
        s = d[d.side == side].groupby("path.rtt_ms")["fct_ms"].median() if not d.empty else pd.Series(dtype=float)
        ax.plot(s.index, s.values, label=side, **style.arm_style(i))
    ax.set_xscale("log")
    ax.set_xlabel("RTT (ms)")
    ax.set_ylabel("median FCT (ms)")
    style.legend(ax)
    return fig, ("10-segment flow, last segment lost once: FCT against RTT, kernel vs engine vs simulator; "
                 "one live run per point and the simulated side deterministic, so no error bars "
                 "(a conformance check: the claims' tolerance is what absorbs the live jitter)")


FIGURES = {"fct-vs-rtt": fct_vs_rtt}
