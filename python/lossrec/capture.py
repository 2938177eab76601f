"""``lossrec.explain`` (this module, :mod:`lossrec.capture`): why every data packet of a
captured TCP connection was sent.

    >>> import lossrec
    >>> df = lossrec.explain("server.pcap", preset="linux")
    >>> df.groupby("cause").size()           # transmissions by the engine's cause
    >>> df[df.verdict != "matched"]          # where the capture and the preset differ
    >>> df.attrs["report"]["connections"][0] # per-connection counts

The capture is read twice as a stream (``crates/capture``): once for its connections,
once to reconstruct each one's transmissions and ACKs and drive the engine with the
preset in shadow mode against the captured ACKs. Each captured transmission (TSO
super-packets split by MSS) is a row: ``verdict`` is ``matched`` (the preset makes the
same decision, ``cause`` says which: ``new``, ``limited_transmit``, ``fast_retransmit``,
``rack``, ``rack_reo_timer``, ``early_retransmit``, ``probe_new``, ``probe_retransmit``,
``rto`` with its ``backoff``, ``loss_retransmit``, ``frto_new``), ``late`` (the preset
sends it, but only after a later ACK), ``capture_only`` (the preset would not have sent
it) or ``engine_only`` (the preset would have sent this and the capture did not). Rows
that diverge carry the engine's state there (``cwnd``, ``pipe``, ``reo_wnd_us``, the
armed ``timer`` …). The report counts the engine's events per connection (``undo``,
``spurious`` with ``spurious_by``: DSACK, timestamps, F-RTO; ``enter_recovery``, ``rto``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from ._core import explain_capture

#: Columns of the rows table, in order.
COLUMNS = ["conn", "t", "packet", "part", "start", "end", "verdict", "cause", "backoff",
           "cwnd", "ssthresh", "pipe", "state", "reo_wnd_us", "srtt_us", "timer", "timer_in_us"]


def run(path: "str | os.PathLike[str]", preset: str = "linux", flow: Optional[str] = None,
        app: str = "seen", rows_path: Optional[str] = None,
        keep_rows: bool = True) -> "tuple[Dict[str, Any], List[Dict[str, Any]]]":
    """The report and the rows as plain data (see :func:`explain`)."""
    report, rows = explain_capture(os.fspath(path), preset, flow, app, rows_path, keep_rows)
    return json.loads(report), (json.loads(rows) if rows is not None else [])


def frame(rows: List[Dict[str, Any]]) -> Any:
    """Rows as a DataFrame with the engine state flattened into columns."""
    import pandas as pd

    flat = []
    for r in rows:
        e = r.get("engine") or {}
        flat.append({**{k: v for k, v in r.items() if k != "engine"}, **e})
    df = pd.DataFrame(flat)
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = None
    return df[COLUMNS]


def explain(path: "str | os.PathLike[str]", preset: str = "linux", flow: Optional[str] = None,
            app: str = "seen") -> Any:
    """Explains a pcap/pcapng capture; returns one row per data transmission as a pandas
    DataFrame (columns :data:`COLUMNS`), sorted by connection and time, with the
    per-connection report in ``df.attrs["report"]``.

    ``flow`` picks one connection (``ADDR:PORT-ADDR:PORT``, either order); ``app`` is
    ``"seen"`` (the application's data is available when the capture first shows it) or
    ``"bulk"`` (all of it at the start, as a bulk transfer).
    """
    from . import _args
    from .api import check_preset_arg

    _args.path("explain", "path", path)
    check_preset_arg("explain", preset)
    _args.text("explain", "flow", flow, optional=True)
    _args.choice("explain", "app", app, ("seen", "bulk"))
    report, rows = run(path, preset, flow, app)
    df = frame(rows).sort_values(["conn", "t", "start"], kind="stable").reset_index(drop=True)
    df.attrs["report"] = report
    return df


def table(report: Dict[str, Any]) -> str:
    """The per-connection table the CLI prints."""
    lines = []
    skipped = ", ".join(f"{k} {v}" for k, v in report["skipped"].items()) or "none"
    lines.append(f"{report['frames']} frames, {report['connections_in_capture']} TCP "
                 f"connection(s); skipped: {skipped}; preset {report['preset']}")
    if report.get("read_error"):
        lines.append(f"warning: {report['read_error']}")
    for i, c in enumerate(report["connections"]):
        d, m = c["decisions"], c["matched"]
        pct = 100.0 * m / d if d else 0.0
        lines.append("")
        lines.append(f"[{i}] {c['flow']}  captured at the {c['capture_point']}, MSS {c['mss']}, "
                     f"{c['data_packets']} data packets ({c['super_packets']} TSO), "
                     f"{c['acks']} ACKs, {c['duration_s']:.3f} s")
        other = "  ".join(f"{k} {v}" for k, v in c["verdicts"].items() if k != "matched")
        lines.append(f"    decisions matched: {m}/{d} ({pct:.1f} %)" + (f"  {other}" if other else ""))
        if c["first_divergence_t"] is not None:
            pkt = c["first_divergence_packet"]
            where = f"packet {pkt}" if pkt is not None else "an engine-only transmission"
            rel = c["first_divergence_t"] - c["first_t"]
            lines.append(f"    first divergence {rel:.6f} s into the connection ({where})")
        causes = "  ".join(f"{k} {v}" for k, v in sorted(c["by_cause"].items(), key=lambda kv: -kv[1]))
        lines.append(f"    by cause: {causes or '-'}")
        ev = c["events"]
        keys = ["enter_recovery", "rto", "loss_probe", "undo", "spurious", "dsack", "reo_timeout"]
        evs = "  ".join(f"{k} {ev[k]}" for k in keys if ev.get(k))
        if evs:
            lines.append(f"    engine events: {evs}")
        if c["spurious_by"]:
            lines.append("    spurious: " + "  ".join(f"{k} {v}" for k, v in c["spurious_by"].items()))
        lines.extend(_reordering_lines(c))
        if c["capture_drop_bytes"]:
            lines.append(f"    capture drops: {c['capture_drop_bytes']} bytes the ACKs prove were "
                         f"sent are not in the capture")
        for n in c["notes"]:
            lines.append(f"    note: {n}")
    return "\n".join(lines)


#: Packets with two readings listed per connection in the table (all are in --json).
AMBIGUOUS_SHOWN = 10


def _reordering_lines(c: dict) -> list[str]:
    """The table's lines on the reordering a connection's capture proves and the packets
    its evidence reads two ways (crates/capture/src/reorder.rs)."""
    ro = c.get("reordering") or {}
    if not ro.get("degree") and not ro.get("ambiguous_total"):
        return []
    out = [f"    reordering proven: degree {ro['degree']} segments ({ro['events']} ACKs); "
           f"DSACKs {ro['dsacks']}"]
    for a in ro["ambiguous"][:AMBIGUOUS_SHOWN]:
        rel = a["t"] - c["first_t"]
        out.append(f"    two readings of packet {a['packet']} ({a['evidence']} at {rel:.6f} s): "
                   + " | ".join(a["readings"]))
    more = ro["ambiguous_total"] - min(len(ro["ambiguous"]), AMBIGUOUS_SHOWN)
    if more > 0:
        out.append(f"    ... and {more} more with two readings (--json lists them)")
    return out


#: Marker colour per cause in :func:`plot`.
COLOURS = {
    "new": "tab:blue", "limited_transmit": "tab:cyan", "fast_retransmit": "tab:red",
    "rack": "tab:orange", "rack_reo_timer": "gold", "early_retransmit": "tab:pink",
    "probe_new": "tab:green", "probe_retransmit": "darkgreen", "rto": "black",
    "loss_retransmit": "tab:gray", "frto_new": "tab:purple",
}


def plot(df: Any, path: "str | os.PathLike[str]", conn: int = 0) -> None:
    """Time-sequence graph of one connection: every transmission at (time, offset)
    coloured by its cause, divergences as crosses, and the engine's cwnd and pipe where
    it diverged in a panel below."""
    from .plot import _save, check_output

    check_output(path)
    import matplotlib.pyplot as plt

    d = df[df.conn == conn]
    fig, (ax, st) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 1]})
    t0 = d.t.min() if len(d) else 0.0
    for cause, g in d[d.verdict.isin(["matched", "late"])].groupby("cause"):
        ax.vlines(g.t - t0, g.start / 1e3, g.end / 1e3, colors=COLOURS.get(cause, "tab:brown"),
                  label=cause, linewidth=2)
    for verdict, marker in (("capture_only", "x"), ("engine_only", "+"), ("late", "o")):
        g = d[d.verdict == verdict]
        if len(g):
            ax.scatter(g.t - t0, g.end / 1e3, marker=marker, s=40, color="crimson",
                       label=verdict.replace("_", " "), facecolors="none" if marker == "o" else None)
    ax.set_ylabel("stream offset (kB)")
    ax.legend(fontsize=8, ncol=3, loc="upper left")
    ax.set_title(f"connection {conn}: transmissions by the engine's cause")
    s = d.dropna(subset=["cwnd"])
    if len(s):
        # Brackets: `pipe` is also a DataFrame method.
        st.step(s["t"] - t0, s["cwnd"] / 1e3, where="post", marker="o", label="cwnd at divergences")
        st.step(s["t"] - t0, s["pipe"] / 1e3, where="post", marker="s", label="pipe")
        st.legend(fontsize=8)
    st.set_ylabel("kB")
    st.set_xlabel("time since first transmission (s)")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
