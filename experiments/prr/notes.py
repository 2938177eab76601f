"""prr: the report's Notes on the workloads, written from the run itself (issue 25 item 6,
as rack's notes.py): the scenario files as they were read, the points and repetitions that
ran, and what they measured — so the Notes cannot describe an older workload than the one
judged."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pandas as pd

from lossrec.scenario import _toml_loads


def _toml(ctx: Any, name: str) -> Dict[str, Any]:
    return _toml_loads(ctx.scenario(name).read_text(encoding="utf-8"))


def _values(d: pd.DataFrame, col: str) -> str:
    vals = sorted(d[col].dropna().unique().tolist()) if col in d else []
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in vals) or "—"


def _reps(d: pd.DataFrame) -> int:
    return int(d["rep"].nunique()) if "rep" in d and len(d) else 0


def _loss(loss: Dict[str, Any]) -> str:
    if loss.get("model") != "gilbert-elliott":
        return str(loss.get("model", "none"))
    return (f"Gilbert-Elliott, bad periods starting with p {loss['p_good_bad']} per packet, "
            f"lasting {1 / loss['p_bad_good']:.1f} packets on average, losing "
            f"{loss['loss_bad'] * 100:.0f} % of them")


def _path(sc: Dict[str, Any], d: pd.DataFrame) -> str:
    p = sc["path"]
    rtt = _values(d, "path.rtt_ms") if "path.rtt_ms" in d else f"{p['rtt_ms']:g}"
    out = f"RTT {rtt} ms, {p['rate_mbps']:g} Mb/s with a {p.get('queue_packets', '—')}-packet buffer"
    bg = (sc.get("background") or [None])[0]
    if bg:
        out += f", responsive {bg.get('kind', '—')} background at {bg.get('load', 0) * 100:.0f} % of the link"
    if "delay_spikes" in p:
        s = p["delay_spikes"]
        out += (f", delay spikes of {s.get('extra_ms', 0)}-{s.get('extra_max_ms', s.get('extra_ms', 0))} ms "
                f"every {s.get('period_ms', 0) / 1000:g} s")
    if "reorder" in p:
        r = p["reorder"]
        out += (f", {r['fraction'] * 100:g} % of packets delayed {r.get('delay_ms', 0)}-"
                f"{r.get('delay_max_ms', r.get('delay_ms', 0))} ms")
    return out


def _measured(d: pd.DataFrame) -> str:
    seg = float(d["data_packets_sent"].sum()) if "data_packets_sent" in d else 0.0
    rtx = float(d["retransmits"].sum()) if "retransmits" in d else 0.0
    return (f"{len(d):,} flows, {int(seg):,} data segments, {100 * rtx / seg:.1f} % retransmitted"
            if seg else "no flows")


def workloads_bullet(df: pd.DataFrame, ctx: Any) -> str:
    """The three workloads as this run ran them, each with its measured retransmission
    rate (a property of the scenario, reported as such)."""
    part = {w: df[df["workload"] == w] if "workload" in df else df.iloc[0:0]
            for w in ("web", "video", "er")}
    web, video, er = (_toml(ctx, f) for f in ("short-web.toml", "video.toml", "er-web.toml"))
    ww, vw = web["workload"], video["workload"]
    conns = _values(part["web"], "workload.connections")
    later = [w for w in vw.get("writes", [])[1:]]
    vid = (f"{vw['connections']} viewers ({vw.get('arrival', 'at once')} arrivals, "
           f"{vw.get('rate_per_s', '—')}/s), each sent {vw['writes'][0][1]:,} bytes at once"
           + (f" and then {later[0][1]:,} bytes every {later[1][0] - later[0][0]} ms for "
              f"{later[-1][0] / 1000:g} s" if len(later) > 1 else ""))
    return (
        "* **Workloads as run** (synthetic; the seed measured Google's production traffic; "
        "the parameters were chosen from the seed's figures before the comparisons). "
        f"Web (short-web.toml): {conns} connections per point ({ww['arrival']} arrivals, "
        f"{ww['rate_per_s']}/s) of {ww['requests']} responses ({ww['response_dist']}, mean "
        f"{ww['response_bytes']:,} bytes, σ {ww['response_sigma']}), {ww['think_ms']} ms think "
        f"time; {_path(web, part['web'])}; loss {_loss(web['path']['loss'])}; "
        f"{_reps(part['web'])} repetitions — measured: {_measured(part['web'])}. "
        f"Video (video.toml): {vid}; {_path(video, part['video'])}; loss "
        f"{_loss(video['path']['loss'])}; {_reps(part['video'])} repetitions — measured: "
        f"{_measured(part['video'])}. ER (er-web.toml): the web workload's kind on "
        f"{_path(er, part['er'])}; loss {_loss(er['path']['loss'])}; {_reps(part['er'])} "
        f"repetitions — measured: {_measured(part['er'])}. All arms of a workload run with "
        f"the same seeds (the same responses, arrivals and loss-model draws).")


def episodes_bullet(rec: Optional[pd.DataFrame]) -> str:
    """What `recoveries.parquet` holds in this run (issue 28: fast and RTO episodes)."""
    if rec is None or not len(rec):
        return "* **Recovery episodes**: this run recorded none."
    kinds = rec["kind"].value_counts() if "kind" in rec else pd.Series({"fast": len(rec)})
    return (
        f"* **Recovery episodes** (`recoveries.parquet`, {int(kinds.get('fast', 0)):,} fast and "
        f"{int(kinds.get('rto', 0)):,} RTO episodes in this run): a fast episode runs from "
        "entering fast recovery to leaving it (one a timeout interrupts lasts until the "
        "timeout's loss recovery ends); an RTO episode (`kind` rto) from a timeout to the end "
        "of its loss recovery, with its backoffs. The per-recovery statistics (the seed's §5) "
        "read the fast episodes only.")


def bullets(df: pd.DataFrame, ctx: Any) -> List[str]:
    """The generated bullets, in the order the report shows them."""
    return [workloads_bullet(df, ctx), episodes_bullet(getattr(ctx, "recoveries", None))]
