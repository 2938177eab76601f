"""tlp: the report's Notes on the workload, written from the run itself (issue 25 item 6,
as rack's notes.py): the scenario files as they were read, the points and repetitions that
ran, and what the arms measured — so the Notes cannot describe an older workload (or an
older result) than the one judged."""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from lossrec.scenario import _toml_loads


def _toml(ctx: Any, name: str) -> Dict[str, Any]:
    return _toml_loads(ctx.scenario(name).read_text(encoding="utf-8"))


def _values(d: pd.DataFrame, col: str) -> str:
    vals = sorted(d[col].dropna().unique().tolist()) if col in d else []
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in vals) or "—"


def _pct(num: float, den: float) -> str:
    return f"{100 * num / den:.1f} %" if den else "—"


def workload_bullet(df: pd.DataFrame, ctx: Any, web: Any) -> str:
    """The web workload as this run ran it: the apps' files, the swept population, the
    loss as configured and the baseline's measured retransmission rate (the calibration
    target, seed: 3.2 %)."""
    d = df[df["arm"].isin([web.BASELINE, web.TLP])] if "arm" in df else df.iloc[0:0]
    apps = []
    for app in web.APPS:
        wl = _toml(ctx, f"{app}.toml")["workload"]
        da = d[d["app"] == app] if "app" in d else d
        conns = (_values(da, "workload.connections") if "workload.connections" in da
                 else f"{wl.get('connections', 1):,}")
        apps.append(f"{app}: {conns} connections per point ({wl.get('arrival', 'at once')} "
                    f"arrivals, {wl.get('rate_per_s', '—')}/s) of {wl.get('requests', 1)} "
                    f"responses ({wl.get('response_dist', 'fixed')}, {wl.get('response_bytes', 0):,} "
                    f"bytes median scale, σ {wl.get('response_sigma', 0)}), {wl.get('think_ms', 0)} ms "
                    f"think time")
    sc = _toml(ctx, f"{web.APPS[0]}.toml")
    path, loss = sc["path"], sc["path"]["loss"]
    base = d[d["arm"] == web.BASELINE] if len(d) else d
    seg = float(base["data_packets_sent"].sum()) if len(base) else 0.0
    rtx = float(base["retransmits"].sum()) if len(base) else 0.0
    burst = 1 / loss["p_bad_good"] if loss.get("p_bad_good") else float("nan")
    return (
        "* **The workload as run is ours** (the seed names three applications and says their "
        "improvements differ by response sizes and traffic patterns, nothing more): "
        + "; ".join(apps)
        + f". Each over {path['rate_mbps']} Mb/s with a {path.get('queue_packets', '—')}-packet "
        f"queue, RTT {_values(d, 'path.rtt_ms')} ms, Windows-like (200 ms delayed ACK, no "
        f"quick-ACK phase) and Linux-like (40 ms, 16 quick ACKs) receivers pooled with equal "
        f"weight, {int(d['rep'].nunique()) if 'rep' in d and len(d) else 0} repetitions, the arms "
        f"on the same seeds. Loss: {loss['model']}, bad periods starting with p "
        f"{loss.get('p_good_bad', 0)} per packet, lasting {burst:.0f} packets on average and "
        f"losing {loss.get('loss_bad', 0) * 100:.0f} % of them (set before any TLP number was "
        f"looked at). Measured in this run: the baseline retransmitted {_pct(rtx, seg)} of its "
        f"{int(seg):,} data segments over {len(base):,} responses (the seed: 3.2 %).")


def timeouts_bullet(df: pd.DataFrame, web: Any) -> str:
    """Where the timeouts went in this run: timeouts by state, baseline → TLP."""
    cols = ["rtos_in_open", "rtos_in_disorder", "rtos_in_recovery", "rtos_in_loss"]
    if "arm" not in df or not set(cols) <= set(df.columns):
        return "* **Where the timeouts go.** This run has no per-state timeout counts."
    s = df[df["arm"].isin([web.BASELINE, web.TLP])].groupby("arm", observed=True)[cols].sum()
    if web.BASELINE not in s.index or web.TLP not in s.index:
        return "* **Where the timeouts go.** This run has no baseline/TLP pair."
    b, t = s.loc[web.BASELINE], s.loc[web.TLP]
    parts = ", ".join(f"in {c[len('rtos_in_'):].replace('recovery', 'fast recovery')} "
                      f"{int(b[c])} → {int(t[c])}" for c in cols)
    return (
        f"* **Where the timeouts go** (this run, baseline → TLP): {parts}. TLP acts only in "
        f"Open state. A timeout in fast recovery after a probe is, in the traces we looked "
        f"at, a lost retransmission (which nothing before RACK detects) or the RTO expiring "
        f"soon after recovery began: while a PTO was pending the RTO is anchored to the head "
        f"segment's transmission (as Linux's `tcp_rearm_rto`), and the engine does not restart "
        f"it when recovery retransmits the head (Linux 3.x's `tcp_xmit_retransmit_queue` does).")


def bullets(df: pd.DataFrame, ctx: Any, web: Any) -> List[str]:
    """The generated bullets, in the order the report shows them."""
    return [workload_bullet(df, ctx, web), timeouts_bullet(df, web)]
