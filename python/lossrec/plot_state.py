"""State panels, flow and window selection, axis formats and overlays for :mod:`lossrec.plot`.

A state panel draws ``cwnd``, ``ssthresh`` and ``pipe`` (bytes, left axis) and
``srtt_us`` and ``rto_us`` (times, right axis) against time — tcptrace's and Linux
``ss``'s view of the sender — from every record that carries them: the ACKs, and the
engine events of the moments recovery happens (an ``rto`` with its collapsed cwnd and
backed-off RTO, ``enter_recovery``, ``exit_recovery``, ``undo``, ``tlp_recovery``), so
that a timeout shows in the panel when it happens, not at the next ACK. A trace without
state (Linux's sender observed on the wire) gets a note saying so.

Nothing here imports matplotlib at module level: ``lossrec run`` parses ``--flows``
and ``--window`` with it and must not pay for matplotlib unless it plots.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

Record = Mapping[str, Any]

def parse_flows(text: str) -> List[int]:
    """``"0,3,7"`` or ``"0:9"`` (inclusive) or a mix → flow ids."""
    out: List[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if ":" in part:
                a, b = part.split(":", 1)
                out += list(range(int(a), int(b) + 1))
            elif part:
                out.append(int(part))
        except ValueError:
            raise ValueError(f"--flows {text!r}: expected flow ids like 0,3,7 or 0:9") from None
    if not out:
        raise ValueError(f"--flows {text!r}: no flow ids")
    return out


def parse_window(text: str) -> Tuple[float, float]:
    """``"0.5:2"`` → (0.5, 2.0) seconds; an empty end means the end of the run."""
    a, sep, b = text.partition(":")
    try:
        start = float(a) if a.strip() else 0.0
        end = float(b) if b.strip() else float("inf")
    except ValueError:
        raise ValueError(f"--window {text!r}: expected START:END in seconds, e.g. 0.5:2") from None
    if not sep or end <= start:
        raise ValueError(f"--window {text!r}: expected START:END in seconds with END > START")
    return start, end


def filter_records(recs: Sequence[Record], flows: Optional[Sequence[int]],
                   window: Optional[Tuple[float, float]]) -> List[Record]:
    lo, hi = (window[0] * 1e6, window[1] * 1e6) if window else (-1.0, float("inf"))
    keep = set(flows) if flows is not None else None
    return [r for r in recs if lo <= float(r.get("t_us", 0)) <= hi
            and (keep is None or r.get("flow", 0) in keep)]


def pick_flows(present: Sequence[Any], flows: Optional[Sequence[int]], most: int) -> Tuple[List[Any], int]:
    """The flows to draw and how many there are: the asked ones (an unknown id is an
    error naming the valid range), else up to ``most`` spread evenly over the run."""
    n = len(present)
    if flows is not None:
        missing = [f for f in flows if f not in present]
        if missing:
            raise ValueError(f"no flow {missing[0]} in the trace (flows: "
                             f"{min(present, default=0)}..{max(present, default=0)})")
        return [f for f in present if f in set(flows)], n
    if most <= 0 or n <= most:
        return list(present), n
    idx = sorted({round(i * (n - 1) / (most - 1)) for i in range(most)}) if most > 1 else [0]
    return [present[i] for i in idx], n


def bytes_axis(axis: Any) -> None:
    """Byte ticks with SI prefixes (``1.5 MB``), matplotlib's ``EngFormatter``."""
    from matplotlib.ticker import EngFormatter

    axis.set_major_formatter(EngFormatter(unit="B", sep=" "))


def time_axis(axis: Any) -> None:
    """Ticks of an axis in milliseconds written as times with SI prefixes (``250 ms``,
    ``1.5 s``, ``300 s``): ``EngFormatter`` on the value in seconds."""
    from matplotlib.ticker import EngFormatter, FuncFormatter

    eng = EngFormatter(unit="s", sep=" ")
    axis.set_major_formatter(FuncFormatter(lambda v, pos: eng(v / 1000.0) if v else "0"))


def _as_data(recs: Any) -> Any:
    from .plot_data import FlowData, records

    if isinstance(recs, FlowData):
        return recs
    d = FlowData()
    for r in records(recs if isinstance(recs, (list, tuple)) or hasattr(recs, "columns") else list(recs)):
        d.add(r)
    return d


def _state_series(recs: Any) -> Dict[str, Tuple[List[float], List[float]]]:
    """name → (times in ms, values) of the state fields (bytes; ``*_us`` in ms), from
    every record that carries them: ACKs and the events of recovery (``rto`` with its
    collapsed cwnd and backed-off RTO, ``enter_recovery``, ``exit_recovery``, ``undo``,
    ...)."""
    d = _as_data(recs)
    out: Dict[str, Tuple[List[float], List[float]]] = {}
    for k in ("cwnd", "ssthresh", "pipe", "srtt_us", "rto_us"):
        ts, vs = d.series(k)
        out[k] = (ts, [v / 1000.0 for v in vs] if k.endswith("_us") else vs)
    return out


#: Said in a state panel with nothing to draw.
NO_STATE = ("no sender state in this trace: its records carry no cwnd or RTT (a sender observed "
            "on the wire, such as Linux's, keeps them in the kernel)")
NO_STATE_OBSERVED = ("Linux's sender, seen on the wire: its cwnd, pipe and RTT are inside the "
                     "kernel, not in the trace (ss -ti shows them)")


def draw_state(ax: Any, recs: Any, sharex: Any = None, color: Optional[str] = None,
               label: str = "", right: Any = None, legend: bool = True,
               fields: Sequence[str] = ("cwnd", "ssthresh", "pipe", "srtt_us", "rto_us")) -> Any:
    """``fields`` of cwnd, ssthresh, pipe (bytes) and SRTT, RTO (ms, on ``right``, a twin
    axis made when not given) against time; returns the twin axis (overlays draw on
    one). ``recs`` is a flow's records or its :class:`~lossrec.plot_data.FlowData`. A
    panel with nothing to draw says why."""
    if sharex is not None:
        ax.sharex(sharex)
    d = _as_data(recs)
    s = _state_series(d)
    styles = {"cwnd": ("tab:blue", "-"), "ssthresh": ("tab:red", "--"), "pipe": ("tab:green", ":")}
    for k, (c, ls) in styles.items():
        ts, vs = s[k]
        if ts and k in fields:
            ax.step(ts, vs, where="post", color=color or c, linestyle=ls, linewidth=1,
                    label=f"{label}{k}")
    ax.set_ylabel("bytes", fontsize=8)
    bytes_axis(ax.yaxis)
    time_axis(ax.xaxis)
    ax.grid(True, alpha=0.3)
    right = ax.twinx() if right is None else right
    for k, c, ls in (("srtt_us", "tab:purple", "-"), ("rto_us", "grey", "-.")):
        ts, vs = s[k]
        if ts and k in fields:
            right.step(ts, vs, where="post", color=color or c, linestyle=ls, linewidth=0.9,
                       label=f"{label}{k[:-3].upper()} (ms)")
    from matplotlib.ticker import FuncFormatter

    right.yaxis.set_major_formatter(FuncFormatter(lambda v, pos: f"{v:,.0f}" if abs(v) >= 10 else f"{v:g}"))
    if not any(s[k][0] for k in fields) and not label:
        ax.text(0.5, 0.5, NO_STATE_OBSERVED if d.observed else NO_STATE, transform=ax.transAxes,
                ha="center", va="center", fontsize=8, color="dimgrey", wrap=True)
        ax.set_yticks([])  # an empty scale would read as data ("500 mB")
        right.set_yticks([])
    if legend:
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = right.get_legend_handles_labels()
        if h1 or h2:
            ax.legend(h1 + h2, l1 + l2, fontsize=6, loc="upper left", bbox_to_anchor=(1.06, 1.0),
                      borderaxespad=0.0)
    return right


def overlay_colors(n: int) -> List[Any]:
    """``n`` distinct colours: tab10 up to 10, tab20 up to 20, else evenly spaced over
    the ``turbo`` colormap (21 presets must not repeat a colour)."""
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    cmap = matplotlib.colormaps["turbo"]
    return [cmap(0.05 + 0.9 * i / (n - 1)) for i in range(n)]


def draw_overlay(traces: Dict[str, Any], path: Any, flows: Optional[Sequence[int]],
                 window: Optional[Tuple[float, float]], title: Optional[str], state: bool,
                 save: Callable[[Any, Any], Any]) -> Any:
    """Several traces in one panel (one colour each): data sent, cumulative ACK, and
    retransmissions as dots; below, their cwnd. The legend sits outside the panel, in
    columns of at most 14 entries."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from .plot_data import reduce

    rows = 2 if state else 1
    ncol = max(1, -(-len(traces) // 14))
    fig, axes = plt.subplots(rows, 1, figsize=(11.5 + 1.6 * ncol, 6.0 if state else 4.0), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1.3] if state else [1]})
    try:
        ax = axes[0, 0]
        handles = []
        right = None
        for (name, src), c in zip(traces.items(), overlay_colors(len(traces))):
            flow = flows[0] if flows else 0
            d = reduce(src, [flow], window).get(flow)
            if d is None:
                continue
            ts, lo, hi = d.spans("new")
            if ts:
                ax.vlines(ts, lo, hi, colors=[c], linewidth=1.2, alpha=0.8)
            ts, lo, hi = d.spans("retransmit")
            if ts:
                ax.plot(ts, [(a + b) / 2 for a, b in zip(lo, hi)], "o", color=c, markersize=4,
                        markeredgecolor="black")
            acks = d.series("ack")
            if acks[0]:
                ax.step(acks[0], acks[1], where="post", color=c, linewidth=1, alpha=0.6)
            handles.append(Line2D([], [], color=c, label=name))
            if state:
                right = draw_state(axes[1, 0], d, sharex=ax if right is None else None, color=c,
                                   label=f"{name} ", right=right, legend=False, fields=("cwnd",))
        ax.set_ylabel("sequence")
        bytes_axis(ax.yaxis)
        time_axis(ax.xaxis)
        ax.grid(True, alpha=0.3)
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, ncol=ncol)
        if state:
            axes[1, 0].set_ylabel("cwnd", fontsize=8)
            if right is not None:
                right.set_visible(False)
        axes[-1, 0].set_xlabel("time")
        if title:
            fig.suptitle(title, fontsize=9)
        fig.tight_layout()
        return save(fig, path)
    finally:
        plt.close(fig)
