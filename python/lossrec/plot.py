"""Time-sequence graphs from a run's trace, in the style of tcptrace and the RACK slides.

x is time (ticks in ms and s), y the byte offset in the stream (ticks in kB, MB). Data sent is drawn as short vertical
segments spanning its byte range — first transmissions in blue, retransmissions in red,
loss probes with a diamond on top — the cumulative ACK as a green step line, SACKed
ranges as purple bars (DSACK in orange), drops as crosses, and engine events
(enter_recovery, rto, exit_recovery, ...) as labelled vertical lines (beyond
:data:`MAX_EVENT_LINES`, ticks along the top edge), and the receive
window's right edge (cumulative ACK + advertised window) as tcptrace's yellow line. One
subplot per flow, or per trace when several are given (for example one per preset), or
all of them in one panel (``overlay=True``: seed 001's slide 6 overlays A and B).
Under each, a state panel (:mod:`lossrec.plot_state`): cwnd, ssthresh and pipe, with
SRTT and RTO on the right axis, from the ACKs and the events that carry state.

``flows`` picks flows (default: up to ``max_flows``, spread evenly over the run, and a
note says which), ``window`` a time window in seconds.

The trace is read as a stream and reduced per pixel column as it is read
(:mod:`lossrec.plot_data`), so memory does not grow with its length. The output's
suffix picks the format, as matplotlib writes it (:func:`check_output`).

The trace is the simulator's JSON lines: ``{"t_us", "flow", "kind", ...}`` with kind
``send`` (``seq`` [start, end), ``why``), ``drop`` (``dir`` data|ack, ``seq`` or
``ack``), ``recv`` (``seq``), ``ack`` (``ack``, ``sack`` [[s, e], ...], ``dsack``) and
``event`` (``name`` plus numeric fields).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .plot_data import HANDSHAKE, NEW, PROBES, QUIET_EVENTS, FlowData, flows_present, is_file, records, reduce  # noqa: E402,F401
from .plot_state import (  # noqa: E402,F401
    bytes_axis,
    draw_overlay,
    draw_state,
    filter_records,
    parse_flows,
    parse_window,
    pick_flows,
    time_axis,
)

Record = Mapping[str, Any]
#: A trace: a list of records, a DataFrame, or the path of a JSON-lines file (read in a
#: stream: memory does not grow with its length).
Records = Union[Sequence[Record], Any]
Traces = Union[Records, Mapping[str, Records]]

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
#: Event labels drawn per panel at most (lines are always drawn).
MAX_EVENT_LABELS = 24
#: Events drawn as lines per panel at most; more are ticks along the top edge.
MAX_EVENT_LINES = 250
#: A label is drawn only this far (a fraction of the panel's width) from the last one,
#: so labels never print over each other.
LABEL_GAP = 0.012


def _groups(traces: Traces) -> List[Tuple[str, Records]]:
    if isinstance(traces, Mapping):
        return [(str(k), _reusable(v)) for k, v in traces.items()]
    return [("", _reusable(traces))]


def _reusable(src: Any) -> Any:
    """``src`` as something that can be read twice (a generator becomes a list)."""
    if is_file(src) or isinstance(src, Sequence) or hasattr(src, "columns"):
        return src
    return list(src)


def _panels(traces: Traces, max_flows: int, flows: Optional[Sequence[int]] = None,
            window: Optional[Tuple[float, float]] = None) -> List[Tuple[str, List[Record]]]:
    """The (title, records of one flow) panels :func:`time_sequence` draws (the records
    themselves, for inspection; the plot reduces them as it reads, :func:`_select`)."""
    return [(title, list(records(src, [flow], window)))
            for title, src, flow in _choose(traces, max_flows, flows, window)[0]]


def _choose(traces: Traces, max_flows: int, flows: Optional[Sequence[int]],
            window: Optional[Tuple[float, float]]) -> Tuple[List[Tuple[str, Any, Any]], str]:
    """(title, source, flow) of every panel, and a note naming the flows shown when some
    were left out: every trace of a mapping, and per trace the chosen flows."""
    out: List[Tuple[str, Any, Any]] = []
    note = ""
    for label, src in _groups(traces):
        present = flows_present(src, window)
        chosen, n = pick_flows(present, flows, max_flows)
        if flows is None and len(chosen) < n:
            note = (f"showing flows {', '.join(map(str, chosen))} of {n} "
                    f"(--flows / flows= to choose)")
        many = len(present) > 1
        for flow in chosen:
            title = " · ".join(x for x in (label, f"flow {flow}" if many or not label else "") if x)
            out.append((title, src, flow))
    return out, note


def _select(traces: Traces, max_flows: int, flows: Optional[Sequence[int]] = None,
            window: Optional[Tuple[float, float]] = None) -> Tuple[List[Tuple[str, FlowData]], str]:
    """The panels as (title, reduced flow data) — one more pass over each trace, keeping
    only what can be drawn (:mod:`lossrec.plot_data`) — and the note of :func:`_choose`."""
    chosen, note = _choose(traces, max_flows, flows, window)
    by_src: Dict[int, List[Any]] = {}
    for _, src, flow in chosen:
        by_src.setdefault(id(src), []).append(flow)
    reduced: Dict[int, Dict[Any, FlowData]] = {}
    panels = []
    for title, src, flow in chosen:
        if id(src) not in reduced:
            reduced[id(src)] = reduce(src, by_src[id(src)], window)
        panels.append((title, reduced[id(src)].get(flow) or FlowData()))
    return panels, note


def _data(recs: Union[FlowData, Iterable[Record]]) -> FlowData:
    if isinstance(recs, FlowData):
        return recs
    d = FlowData()
    for r in records(_reusable(recs)):
        d.add(r)
    return d


def draw_flow(ax: Any, recs: Union[FlowData, Iterable[Record]]) -> Dict[str, Any]:
    """Draws one flow (its records, or their :class:`~lossrec.plot_data.FlowData`) on
    ``ax``; returns legend handles for what was drawn."""
    d = _data(recs)
    handles: Dict[str, Any] = {}
    # Shaded bars first so that the data lines sit on top.
    for kind, label, lw, alpha in (("sack", "SACKed", 2, 0.2), ("dsack", "DSACK", 5, 0.5)):
        ts, lo, hi = d.spans(kind)
        if ts:
            ax.vlines(ts, lo, hi, colors=COLORS[kind], linewidth=lw, alpha=alpha, zorder=1)
            handles[label] = Patch(color=COLORS[kind], alpha=alpha)
    ts, lo, hi = d.spans("recv")
    if ts:
        ax.vlines(ts, lo, hi, colors=COLORS["recv"], linewidth=1, zorder=1)
        handles["received"] = Line2D([], [], color=COLORS["recv"])
    acks = d.series("ack")
    if acks[0]:
        ax.step(acks[0], acks[1], where="post", color=COLORS["ack"], linewidth=1.2, zorder=2)
        handles["cumulative ACK"] = Line2D([], [], color=COLORS["ack"])
    sent = {k: d.spans(k) for k in ("new", "retransmit")}
    for kind, label in (("new", "sent"), ("retransmit", "retransmitted")):
        ts, lo, hi = sent[kind]
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
    for kind, label, marker, size, color, z in (
            ("probe", "loss probe", "D", 5, COLORS["probe"], 4),
            ("handshake", "handshake", "s", 3, COLORS["handshake"], 3),
            ("drop", "data dropped", "x", 6, COLORS["drop"], 5),
            ("ack_drop", "ACK dropped", "x", 5, COLORS["ack"], 5)):
        ts, ys = d.marks(kind)
        if ts:
            ax.plot(ts, ys, marker, color=color, markersize=size, zorder=z)
            handles[label] = Line2D([], [], color=color, marker=marker, linestyle="")
    edge = d.series("rwnd_edge")
    if edge[0] and max(edge[1]) < 1e12:
        # The window edge may sit far above the data: it must not set the scale.
        data_hi = [*sent["new"][2], *sent["retransmit"][2], *acks[1]]
        data_lo = [*sent["new"][1], *sent["retransmit"][1], *acks[1]]
        top = max([*data_hi, 1.0])
        ax.step(edge[0], edge[1], where="post", color="gold", linewidth=1.0, zorder=1)
        bottom = min([*data_lo, top])
        low_edge = min(edge[1])
        pad = (top - bottom) * 0.06 + 1
        ax.set_ylim(bottom - pad, (max(top, low_edge) if low_edge < top * 1.5 else top) + pad)
        handles["receive window"] = Line2D([], [], color="gold")
    events = d.events
    if events:
        handles.update(_draw_events(ax, events))
    return handles


def _draw_events(ax: Any, events: List[Tuple[float, str]]) -> Dict[str, Any]:
    """Every event as a dashed line, at most :data:`MAX_EVENT_LABELS` labelled, none
    closer than :data:`LABEL_GAP` of the panel's width to the previous label; beyond
    :data:`MAX_EVENT_LINES` events (a long run's hundreds of recoveries), a tick per
    event along the top edge, one row and colour per kind, named in the legend.
    Returns the legend handles."""
    from collections import Counter

    trans = ax.get_xaxis_transform()
    if len(events) > MAX_EVENT_LINES:
        handles: Dict[str, Any] = {}
        counts = Counter(name for _, name in events)
        for i, (name, _) in enumerate(counts.most_common()):
            c = EVENT_COLORS.get(name, f"C{i % 10}")
            ts = [t for t, x in events if x == name]
            ax.plot(ts, [1.0 - 0.025 * (i % 8)] * len(ts), "|", color=c, markersize=7,
                    transform=trans, clip_on=False, zorder=5)
            handles[name] = Line2D([], [], color=c, marker="|", linestyle="")
        return handles
    lo, hi = ax.get_xlim() if ax.has_data() else (events[0][0], events[-1][0])
    lo, hi = min(lo, events[0][0]), max(hi, events[-1][0])
    gap = (hi - lo) * LABEL_GAP
    labelled = 0
    last = -float("inf")
    for t, name in events:
        c = EVENT_COLORS.get(name, "dimgrey")
        ax.axvline(t, color=c, linestyle="--", linewidth=0.8, alpha=0.8, zorder=0)
        if labelled < MAX_EVENT_LABELS and (t - last > gap or labelled == 0):
            ax.text(t, 0.98, f" {name}", transform=trans, rotation=90, va="top",
                    ha="left", fontsize=7, color=c)
            labelled += 1
            last = t
    return {"engine event": Line2D([], [], color="dimgrey", linestyle="--")}


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
    """Writes a time-sequence graph of ``traces`` to ``path`` (its suffix picks the
    format, :func:`check_output`; ``-``: PNG on stdout).

    ``traces`` is a trace — a list of records, a DataFrame, or the path of a JSON-lines
    file, read as a stream so that memory stays flat however long the trace — or a dict
    label → trace to draw several runs one below the other (``overlay=True``: in one
    panel). ``flows`` picks flow ids (default: up to ``max_flows`` spread over the run);
    ``window`` is ``(start_s, end_s)``; ``state`` adds the cwnd/ssthresh/pipe/SRTT/RTO panel.
    """
    check_output(path)
    if overlay and isinstance(traces, Mapping):
        return draw_overlay({str(k): v for k, v in _groups(traces)}, path, flows, window,
                            title, state, _save)
    panels, note = _select(traces, max_flows, flows, window)
    if note:
        import sys

        print(f"lossrec: {note}", file=sys.stderr)
    if not panels:
        panels = [("(empty trace)", FlowData())]
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
        for i, (ptitle, data) in enumerate(panels):
            r, c = rows * (i // cols), i % cols
            ax = axes[r, c]
            all_handles.update(draw_flow(ax, data))
            ax.set_ylabel("sequence")
            bytes_axis(ax.yaxis)
            time_axis(ax.xaxis)
            if ptitle:
                ax.set_title(ptitle, fontsize=10, loc="left")
            ax.grid(True, alpha=0.3)
            if state:
                draw_state(axes[r + 1, c], data, sharex=ax)
        for j in range(len(panels), prow * cols):  # an odd count leaves one cell empty
            for k in range(rows):
                axes[rows * (j // cols) + k, j % cols].set_visible(False)
        for c in range(cols):
            axes[-1, c].set_xlabel("time")
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


def formats() -> List[str]:
    """The file suffixes a plot can be written as (matplotlib's savefig formats)."""
    from matplotlib.backend_bases import FigureCanvasBase

    return sorted(FigureCanvasBase.get_supported_filetypes())


def check_output(path: "str | os.PathLike[str]") -> None:
    """Raises ``ValueError`` unless ``path`` is ``-`` or ends in a suffix matplotlib can
    write (:func:`formats`), so that a long run does not end in a plot that cannot be
    written, and ``x.jpg`` is a JPEG, never a PNG under another name."""
    if str(path) == "-":
        return
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in formats():
        what = f"suffix .{fmt}" if fmt else "no suffix"
        raise ValueError(f"cannot write a plot to {path} ({what}): give one of "
                         f"{', '.join('.' + f for f in formats())}, or - for PNG on stdout")


def _save(fig: Any, path: "str | os.PathLike[str]") -> Path:
    """Writes the figure to ``path`` in the format its suffix names (matplotlib infers
    it; :func:`check_output` refuses the others), or as PNG to stdout for ``-``."""
    if str(path) == "-":
        import sys

        fig.savefig(sys.stdout.buffer, format="png", dpi=120)
        sys.stdout.buffer.flush()
        return Path("-")
    check_output(path)
    out = Path(path)
    fig.savefig(out, dpi=120)
    return out
