"""Time-sequence graphs from a run's trace, in the style of tcptrace and the RACK slides.

x is time (ms), y the byte offset in the stream. Data sent is drawn as short vertical
segments spanning its byte range — first transmissions in blue, retransmissions in red,
loss probes with a diamond on top — the cumulative ACK as a green step line, SACKed
ranges as purple bars (DSACK in orange), drops as crosses, and engine events
(enter_recovery, rto, exit_recovery, ...) as labelled vertical lines, and the receive
window's right edge (cumulative ACK + advertised window) as tcptrace's yellow line. One
subplot per flow, or per trace when several are given (for example one per preset), or
all of them in one panel (``overlay=True``: seed 001's slide 6 overlays A and B).
Under each, a state panel (:mod:`lossrec.plot_state`): cwnd, ssthresh and pipe, with
SRTT and RTO on the right axis, from the per-ACK fields of the trace.

``flows`` picks flows (default: up to ``max_flows``, spread evenly over the run, and a
note says which), ``window`` a time window in seconds.

The trace is the simulator's JSON lines: ``{"t_us", "flow", "kind", ...}`` with kind
``send`` (``seq`` [start, end), ``why``), ``drop`` (``dir`` data|ack, ``seq`` or
``ack``), ``recv`` (``seq``), ``ack`` (``ack``, ``sack`` [[s, e], ...], ``dsack``) and
``event`` (``name`` plus numeric fields).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .plot_state import draw_overlay, draw_state, filter_records, parse_flows, parse_window, pick_flows  # noqa: E402,F401

Record = Mapping[str, Any]
Records = Union[Sequence[Record], Any]  # a list of dicts or a pandas DataFrame
Traces = Union[Records, Mapping[str, Records]]

#: ``send.why`` values that are first transmissions of new data.
NEW = {"new", "limited_transmit"}
#: ``send.why`` values that are loss probes.
PROBES = {"probe_new", "probe_retransmit"}
#: Handshake packets, drawn as small grey marks at their offset.
HANDSHAKE = {"syn", "syn_ack", "handshake_ack"}

COLORS = {
    "new": "tab:blue",
    "retransmit": "red",
    "probe": "darkorange",
    "ack": "tab:green",
    "sack": "purple",
    "dsack": "orange",
    "drop": "black",
    "handshake": "grey",
    "recv": "lightgrey",
}
EVENT_COLORS = {
    "rto": "red",
    "syn_timeout": "red",
    "enter_recovery": "darkorange",
    "exit_recovery": "tab:green",
    "exit_loss": "tab:green",
    "undo": "tab:cyan",
    "spurious_rto": "magenta",
}
#: Events not drawn as lines: per-segment (mark_lost) or already drawn (dsack bars).
QUIET_EVENTS = {"mark_lost", "dsack"}
#: Event labels drawn per panel at most (lines are always drawn).
MAX_EVENT_LABELS = 24


def _records(r: Records) -> List[Record]:
    if hasattr(r, "to_dict") and hasattr(r, "columns"):  # pandas DataFrame
        return [{k: v for k, v in row.items() if not _isnan(v)} for row in r.to_dict("records")]
    return list(r)


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def _panels(traces: Traces, max_flows: int, flows: Optional[Sequence[int]] = None,
            window: Optional[Tuple[float, float]] = None) -> List[Tuple[str, List[Record]]]:
    """The (title, records of one flow) panels :func:`time_sequence` draws."""
    return _select(traces, max_flows, flows, window)[0]


def _select(traces: Traces, max_flows: int, flows: Optional[Sequence[int]] = None,
            window: Optional[Tuple[float, float]] = None) -> Tuple[List[Tuple[str, List[Record]]], str]:
    """Splits the input into (title, records of one flow) panels: every trace of a
    mapping, and per trace the chosen flows. Returns the panels and a note naming the
    flows shown when some were left out."""
    if isinstance(traces, Mapping):
        groups = [(str(k), _records(v)) for k, v in traces.items()]
    else:
        groups = [("", _records(traces))]
    panels: List[Tuple[str, List[Record]]] = []
    note = ""
    for label, recs in groups:
        by_flow: "OrderedDict[Any, List[Record]]" = OrderedDict()
        for rec in filter_records(recs, None, window):
            by_flow.setdefault(rec.get("flow", 0), []).append(rec)
        chosen, n = pick_flows(list(by_flow), flows, max_flows)
        if flows is None and len(chosen) < n:
            note = (f"showing flows {', '.join(map(str, chosen))} of {n} "
                    f"(--flows / flows= to choose)")
        many = len(by_flow) > 1
        for flow in chosen:
            title = " · ".join(x for x in (label, f"flow {flow}" if many or not label else "") if x)
            panels.append((title, by_flow[flow]))
    return panels, note


def _span(v: Any) -> Optional[Tuple[float, float]]:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    return None


def draw_flow(ax: Any, recs: Iterable[Record]) -> Dict[str, Any]:
    """Draws one flow's records on ``ax``; returns legend handles for what was drawn."""
    recs_list = list(recs)
    recs = recs_list
    seg: Dict[str, Tuple[List[float], List[float], List[float]]] = {
        k: ([], [], []) for k in ("new", "retransmit", "sack", "dsack", "recv")
    }
    probes: Tuple[List[float], List[float]] = ([], [])
    hs: Tuple[List[float], List[float]] = ([], [])
    drops: Tuple[List[float], List[float]] = ([], [])
    ack_drops: Tuple[List[float], List[float]] = ([], [])
    acks: Tuple[List[float], List[float]] = ([], [])
    events: List[Tuple[float, str]] = []
    seen_events = set()

    def add(kind: str, t: float, s: Tuple[float, float]) -> None:
        seg[kind][0].append(t)
        seg[kind][1].append(s[0])
        seg[kind][2].append(s[1])

    for rec in recs:
        t = float(rec.get("t_us", 0)) / 1000.0
        kind = rec.get("kind")
        if kind == "send":
            why = rec.get("why", "new")
            sp = _span(rec.get("seq")) or (0.0, 0.0)
            if why in HANDSHAKE:
                hs[0].append(t)
                hs[1].append(sp[0])
                continue
            add("new" if why in NEW or why == "probe_new" else "retransmit", t, sp)
            if why in PROBES:
                probes[0].append(t)
                probes[1].append(sp[1])
        elif kind == "recv":
            s = _span(rec.get("seq"))
            if s:
                add("recv", t, s)
        elif kind == "ack":
            if rec.get("ack") is not None:
                acks[0].append(t)
                acks[1].append(float(rec["ack"]))
            for b in rec.get("sack") or []:
                s = _span(b)
                if s:
                    add("sack", t, s)
            s = _span(rec.get("dsack"))
            if s:
                add("dsack", t, s)
        elif kind == "drop":
            if rec.get("dir") == "ack":
                if rec.get("ack") is not None:
                    ack_drops[0].append(t)
                    ack_drops[1].append(float(rec["ack"]))
            else:
                s = _span(rec.get("seq"))
                if s:
                    drops[0].append(t)
                    drops[1].append(s[0])
        elif kind == "event":
            name = str(rec.get("name", "event"))
            if name not in QUIET_EVENTS and (t, name) not in seen_events:
                seen_events.add((t, name))
                events.append((t, name))

    handles: Dict[str, Any] = {}
    # Shaded bars first so that the data lines sit on top.
    for kind, label, lw, alpha in (("sack", "SACKed", 2, 0.2), ("dsack", "DSACK", 5, 0.5)):
        ts, lo, hi = seg[kind]
        if ts:
            ax.vlines(ts, lo, hi, colors=COLORS[kind], linewidth=lw, alpha=alpha, zorder=1)
            handles[label] = Patch(color=COLORS[kind], alpha=alpha)
    ts, lo, hi = seg["recv"]
    if ts:
        ax.vlines(ts, lo, hi, colors=COLORS["recv"], linewidth=1, zorder=1)
        handles["received"] = Line2D([], [], color=COLORS["recv"])
    if acks[0]:
        ax.step(acks[0], acks[1], where="post", color=COLORS["ack"], linewidth=1.2, zorder=2)
        handles["cumulative ACK"] = Line2D([], [], color=COLORS["ack"])
    for kind, label in (("new", "sent"), ("retransmit", "retransmitted")):
        ts, lo, hi = seg[kind]
        if ts:
            ax.vlines(ts, lo, hi, colors=COLORS[kind], linewidth=1.6, zorder=3)
            handles[label] = Line2D([], [], color=COLORS[kind], linewidth=1.6)
            if kind == "retransmit":
                # One MSS can be under a pixel tall: a dot keeps every retransmission
                # visible (the slides' "red dots").
                mid = [(a + b) / 2 for a, b in zip(lo, hi)]
                ax.plot(ts, mid, "o", color=COLORS[kind], markersize=3.5, zorder=4)
                handles[label] = Line2D([], [], color=COLORS[kind], linewidth=1.6, marker="o",
                                        markersize=3.5)
    if probes[0]:
        ax.plot(probes[0], probes[1], "D", color=COLORS["probe"], markersize=5, zorder=4)
        handles["loss probe"] = Line2D([], [], color=COLORS["probe"], marker="D", linestyle="")
    if hs[0]:
        ax.plot(hs[0], hs[1], "s", color=COLORS["handshake"], markersize=3, zorder=3)
        handles["handshake"] = Line2D([], [], color=COLORS["handshake"], marker="s", linestyle="")
    if drops[0]:
        ax.plot(drops[0], drops[1], "x", color=COLORS["drop"], markersize=6, zorder=5)
        handles["data dropped"] = Line2D([], [], color=COLORS["drop"], marker="x", linestyle="")
    rwnd = [(float(r.get("t_us", 0)) / 1000.0, float(r["ack"]) + float(r["rwnd"]))
            for r in recs_list if r.get("kind") == "ack" and r.get("rwnd") is not None
            and r.get("ack") is not None]
    if rwnd and max(w for _, w in rwnd) < 1e12:
        # The window edge may sit far above the data: it must not set the scale.
        top = max([*seg["new"][2], *seg["retransmit"][2], *acks[1], 1.0])
        ax.step([t for t, _ in rwnd], [w for _, w in rwnd], where="post", color="gold",
                linewidth=1.0, zorder=1)
        bottom = min([*seg["new"][1], *seg["retransmit"][1], *acks[1], top])
        edge = min(w for _, w in rwnd)
        pad = (top - bottom) * 0.06 + 1
        ax.set_ylim(bottom - pad, (max(top, edge) if edge < top * 1.5 else top) + pad)
        handles["receive window"] = Line2D([], [], color="gold")
    if ack_drops[0]:
        ax.plot(ack_drops[0], ack_drops[1], "x", color=COLORS["ack"], markersize=5, zorder=5)
        handles["ACK dropped"] = Line2D([], [], color=COLORS["ack"], marker="x", linestyle="")
    if events:
        trans = ax.get_xaxis_transform()
        for i, (t, name) in enumerate(events):
            c = EVENT_COLORS.get(name, "dimgrey")
            ax.axvline(t, color=c, linestyle="--", linewidth=0.8, alpha=0.8, zorder=0)
            if i < MAX_EVENT_LABELS:
                ax.text(t, 0.98, f" {name}", transform=trans, rotation=90, va="top",
                        ha="left", fontsize=7, color=c)
        handles["engine event"] = Line2D([], [], color="dimgrey", linestyle="--")
    return handles


def time_sequence(
    traces: Traces,
    path: "str | os.PathLike[str]",
    max_flows: int = 4,
    title: Optional[str] = None,
    flows: Optional[Sequence[int]] = None,
    window: Optional[Tuple[float, float]] = None,
    state: bool = True,
    overlay: bool = False,
) -> Path:
    """Writes a time-sequence graph of ``traces`` to ``path`` (PNG, or SVG/PDF by suffix).

    ``traces`` is a list of trace records (or a DataFrame), or a dict label → records to
    draw several runs one below the other (``overlay=True``: in one panel). ``flows``
    picks flow ids (default: up to ``max_flows`` spread over the run); ``window`` is
    ``(start_s, end_s)``; ``state`` adds the cwnd/ssthresh/pipe/SRTT/RTO panel.
    """
    if overlay and isinstance(traces, Mapping):
        return draw_overlay({str(k): _records(v) for k, v in traces.items()}, path, flows, window,
                            title, state, _save)
    panels, note = _select(traces, max_flows, flows, window)
    if note:
        import sys

        print(f"lossrec: {note}", file=sys.stderr)
    if not panels:
        panels = [("(empty trace)", [])]
    rows = 2 if state else 1
    # Many panels (every preset of the default run): two columns, so the figure stays
    # readable instead of growing one long strip.
    cols = 2 if len(panels) > 6 else 1
    prow = -(-len(panels) // cols)
    ratios = [3, 1.3] * prow if state else [1] * prow
    height = (4.4 if state else (3.2 if cols == 1 else 2.4)) * prow + 0.6
    fig, axes = plt.subplots(rows * prow, cols, figsize=(11.5 * (1.6 if cols == 2 else 1), height),
                             squeeze=False, gridspec_kw={"height_ratios": ratios})
    try:
        all_handles: Dict[str, Any] = {}
        for i, (ptitle, recs) in enumerate(panels):
            r, c = rows * (i // cols), i % cols
            ax = axes[r, c]
            all_handles.update(draw_flow(ax, recs))
            ax.set_ylabel("sequence (bytes)")
            if ptitle:
                ax.set_title(ptitle, fontsize=10, loc="left")
            ax.grid(True, alpha=0.3)
            ax.ticklabel_format(axis="y", style="plain", useOffset=False)
            if state:
                draw_state(axes[r + 1, c], recs, sharex=ax)
        for j in range(len(panels), prow * cols):  # an odd count leaves one cell empty
            for k in range(rows):
                axes[rows * (j // cols) + k, j % cols].set_visible(False)
        for c in range(cols):
            axes[-1, c].set_xlabel("time (ms)")
        if all_handles:
            # Beside the first panel, so that it hides no data.
            axes[0, cols - 1].legend(list(all_handles.values()), list(all_handles.keys()),
                                     fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                                     borderaxespad=0.0, framealpha=0.9)
        if title:
            fig.suptitle(title, fontsize=9)
        # Leave the suptitle its own strip (about a third of an inch).
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()) if title else None)
        return _save(fig, path)
    finally:
        plt.close(fig)


def _save(fig: Any, path: "str | os.PathLike[str]") -> Path:
    """Writes the figure to `path` (its suffix picks PNG, SVG or PDF), or as PNG to
    stdout for ``-``."""
    if str(path) == "-":
        import sys

        fig.savefig(sys.stdout.buffer, format="png", dpi=120)
        sys.stdout.buffer.flush()
        return Path("-")
    out = Path(path)
    fmt = out.suffix.lower().lstrip(".") or "png"
    if fmt not in ("png", "svg", "pdf"):
        fmt = "png"
    fig.savefig(out, format=fmt, dpi=120)
    return out
