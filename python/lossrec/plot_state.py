"""State panels, flow and window selection, and overlays for :mod:`lossrec.plot`.

A state panel draws, from the trace's per-ACK fields, ``cwnd``, ``ssthresh`` and
``pipe`` (bytes, left axis) and ``srtt_us`` and ``rto_us`` (ms, right axis) against
time — tcptrace's and Linux ``ss``'s view of the sender.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

Record = Mapping[str, Any]

#: Overlay colours, one per trace.
OVERLAY = ("tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown", "tab:olive")


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


def _state_series(recs: Sequence[Record]) -> Dict[str, Tuple[List[float], List[float]]]:
    series: Dict[str, Tuple[List[float], List[float]]] = {
        k: ([], []) for k in ("cwnd", "ssthresh", "pipe", "srtt_us", "rto_us")}
    for r in recs:
        if r.get("kind") != "ack":
            continue
        t = float(r.get("t_us", 0)) / 1000.0
        for k, (ts, vs) in series.items():
            v = r.get(k)
            if v is not None:
                ts.append(t)
                vs.append(float(v) / (1000.0 if k.endswith("_us") else 1.0))
    return series


def draw_state(ax: Any, recs: Sequence[Record], sharex: Any = None, color: Optional[str] = None,
               label: str = "", right: Any = None, legend: bool = True) -> Any:
    """cwnd, ssthresh, pipe (bytes) and SRTT, RTO (ms, on ``right``, a twin axis made
    when not given) against time; returns the twin axis (overlays draw on one)."""
    if sharex is not None:
        ax.sharex(sharex)
    s = _state_series(recs)
    styles = {"cwnd": ("tab:blue", "-"), "ssthresh": ("tab:red", "--"), "pipe": ("tab:green", ":")}
    for k, (c, ls) in styles.items():
        ts, vs = s[k]
        if ts:
            ax.step(ts, vs, where="post", color=color or c, linestyle=ls, linewidth=1,
                    label=f"{label}{k}")
    ax.set_ylabel("bytes", fontsize=8)
    ax.grid(True, alpha=0.3)
    right = ax.twinx() if right is None else right
    for k, c, ls in (("srtt_us", "tab:purple", "-"), ("rto_us", "grey", "-.")):
        ts, vs = s[k]
        if ts:
            right.step(ts, vs, where="post", color=color or c, linestyle=ls, linewidth=0.9,
                       label=f"{label}{k[:-3].upper()} (ms)")
    right.set_ylabel("ms", fontsize=8)
    if legend:
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = right.get_legend_handles_labels()
        if h1 or h2:
            ax.legend(h1 + h2, l1 + l2, fontsize=6, loc="upper left", bbox_to_anchor=(1.06, 1.0),
                      borderaxespad=0.0)
    return right


def draw_overlay(traces: Dict[str, List[Record]], path: Any, flows: Optional[Sequence[int]],
                 window: Optional[Tuple[float, float]], title: Optional[str], state: bool,
                 save: Callable[[Any, Any], Any]) -> Any:
    """Several traces in one panel (one colour each): data sent, cumulative ACK, and
    retransmissions as dots; below, their cwnd."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rows = 2 if state else 1
    fig, axes = plt.subplots(rows, 1, figsize=(11.5, 6.0 if state else 4.0), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1.3] if state else [1]})
    try:
        ax = axes[0, 0]
        handles = []
        right = None
        names = list(traces)
        for (name, recs), c in zip(traces.items(), OVERLAY * 10):
            recs = filter_records(recs, flows if flows is not None else [0], window)
            sends = [(r["t_us"] / 1000, r["seq"]) for r in recs if r.get("kind") == "send"
                     and r.get("seq") and r["seq"][1] > r["seq"][0]]
            rex = [(t, (s[0] + s[1]) / 2) for (t, s), r in zip(sends, [
                r for r in recs if r.get("kind") == "send" and r.get("seq") and r["seq"][1] > r["seq"][0]])
                   if r.get("why") not in ("new", "limited_transmit", "probe_new")]
            acks = [(r["t_us"] / 1000, r["ack"]) for r in recs if r.get("kind") == "ack" and "ack" in r]
            if sends:
                ax.vlines([t for t, _ in sends], [s[0] for _, s in sends], [s[1] for _, s in sends],
                          colors=c, linewidth=1.2, alpha=0.8)
            if rex:
                ax.plot([t for t, _ in rex], [y for _, y in rex], "o", color=c, markersize=4,
                        markeredgecolor="black")
            if acks:
                ax.step([t for t, _ in acks], [a for _, a in acks], where="post", color=c,
                        linewidth=1, alpha=0.6)
            handles.append(Line2D([], [], color=c, label=name))
            if state:
                right = draw_state(axes[1, 0], recs, sharex=ax if right is None else None, color=c,
                                   label=f"{name} ", right=right, legend=name == names[-1])
        ax.set_ylabel("sequence (bytes)")
        ax.grid(True, alpha=0.3)
        ax.legend(handles=handles, fontsize=8, loc="upper left")
        axes[-1, 0].set_xlabel("time (ms)")
        if title:
            fig.suptitle(title, fontsize=9)
        fig.tight_layout()
        return save(fig, path)
    finally:
        plt.close(fig)
