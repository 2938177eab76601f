"""A flow's trace as the interactive page draws it: points by kind, the engine state at
each point, and thinning of large traces.

The trace's ACK lines carry the sender's state after the ACK (cwnd, pipe, ssthresh,
state, srtt/rttvar/RTO, the armed deadline, RACK's reo_wnd); events carry what changed.
A packet's "engine state" is the last one seen at or before it, so a click on a
retransmission shows what the sender knew when it sent it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

#: ``send.why`` values that are first transmissions of new data (plot.NEW, kept apart so
#: the page does not follow the static plot's edits).
NEW = ("new", "limited_transmit")
HANDSHAKE = ("syn", "syn_ack", "handshake_ack", "fin")
#: State carried by ACK lines and events, in the order the details box lists it.
STATE_KEYS = ("state", "cwnd", "ssthresh", "pipe", "srtt_us", "rttvar_us", "rto_us", "backoff",
              "reo_wnd_us", "timer", "timer_at_us", "rwnd")
#: Events that move the recovery state (the trace's ``state`` field comes with ACKs only).
EVENT_STATE = {"enter_recovery": "recovery", "rto": "loss", "exit_recovery": "open",
               "exit_loss": "open"}
#: A u64 "infinite" ssthresh (no reduction yet) reads as none.
_HUGE = 2 ** 62
#: The thinning grid: at most one new-data send, ACK or SACK block per cell of this many
#: time columns × sequence rows (about a pixel each on a wide screen).
GRID = (2000, 1000)


@dataclass
class Series:
    """Points of one kind: x (ms), y (bytes), the bar below y, and each point's index into
    :attr:`FlowView.records` (what a click shows)."""

    x: List[float] = field(default_factory=list)
    y: List[float] = field(default_factory=list)
    below: List[float] = field(default_factory=list)
    ref: List[int] = field(default_factory=list)
    total: int = 0


@dataclass
class FlowView:
    """One flow ready to draw: series by kind, state lines, and the details behind points."""

    flow: Any
    sends: Dict[str, Series] = field(default_factory=dict)
    acks: Series = field(default_factory=Series)
    sacks: Series = field(default_factory=Series)
    drops: Series = field(default_factory=Series)
    events: Series = field(default_factory=Series)
    #: (name → (x ms, y)) step lines of the state panels.
    state_lines: Dict[str, Tuple[List[float], List[float]]] = field(default_factory=dict)
    #: The records behind clickable points, each with ``snap``: its index in :attr:`snaps`.
    records: List[Dict[str, Any]] = field(default_factory=list)
    snaps: List[Dict[str, Any]] = field(default_factory=list)

    def thinned(self) -> Dict[str, Tuple[int, int]]:
        """(shown, total) of every thinned kind whose points were thinned."""
        out = {f"sends ({k})": (len(s.x), s.total) for k, s in self.sends.items()}
        out.update({"ACKs": (len(self.acks.x), self.acks.total),
                    "SACK blocks": (len(self.sacks.x), self.sacks.total)})
        return {k: v for k, v in out.items() if v[0] < v[1]}


def send_kind(why: str) -> str:
    """The series a send belongs to: new data, handshake, or its retransmission cause."""
    if why in NEW:
        return "new"
    if why in HANDSHAKE:
        return "handshake"
    return why


def _span(v: Any) -> Optional[Tuple[float, float]]:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    return None


class _Grid:
    """One slot per cell of :data:`GRID` over the flow's extent: the first point to land in
    a cell is kept, later ones in the same cell are counted only."""

    def __init__(self, t_range: Tuple[float, float], s_range: Tuple[float, float]):
        self.t0, self.dt = t_range[0], max(t_range[1] - t_range[0], 1e-9) / GRID[0]
        self.s0, self.ds = s_range[0], max(s_range[1] - s_range[0], 1.0) / GRID[1]
        self.used: set = set()

    def take(self, kind: str, t: float, s: float) -> bool:
        cell = (kind, int((t - self.t0) / self.dt), int((s - self.s0) / self.ds))
        if cell in self.used:
            return False
        self.used.add(cell)
        return True


def _extent(recs: Sequence[Mapping[str, Any]]) -> Tuple[Tuple[float, float], Tuple[float, float]]:
    ts = [float(r.get("t_us", 0)) / 1000.0 for r in recs]
    ss = [s for r in recs if r.get("kind") == "send" for s in (_span(r.get("seq")) or ())]
    return ((min(ts, default=0.0), max(ts, default=1.0)),
            (min(ss, default=0.0), max(ss, default=1.0)))


def _clean(rec: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in rec.items() if k not in ("flow",) and v is not None}


def build(flow: Any, recs: Sequence[Mapping[str, Any]], thin: bool = True) -> FlowView:
    """The view of one flow's records (in trace order). ``thin``: keep every
    retransmission, probe, drop and event, and at most one new-data send, ACK or SACK block
    per grid cell (:data:`GRID`)."""
    v = FlowView(flow)
    grid = _Grid(*_extent(recs))
    state: Dict[str, Any] = {}
    snap_of: Optional[int] = None
    snd_una = 0.0
    #: segment start → (detector, time ms) of its last mark_lost: a retransmission's cause.
    lost_by: Dict[float, Tuple[str, float]] = {}

    def snap() -> int:
        nonlocal snap_of
        if snap_of is None:
            v.snaps.append(dict(state))
            snap_of = len(v.snaps) - 1
        return snap_of

    def point(series: Series, t: float, y: float, below: float, rec: Mapping[str, Any], keep: bool) -> None:
        series.total += 1
        if not keep:
            return
        series.x.append(t)
        series.y.append(y)
        series.below.append(below)
        series.ref.append(len(v.records))
        v.records.append(dict(_clean(rec), snap=snap()))

    for rec in recs:
        t = float(rec.get("t_us", 0)) / 1000.0
        kind = rec.get("kind")
        if kind == "send":
            sp = _span(rec.get("seq")) or (0.0, 0.0)
            k = send_kind(str(rec.get("why", "new")))
            s = v.sends.setdefault(k, Series())
            keep = not thin or k != "new" or grid.take("send", t, sp[1])
            marked = lost_by.pop(sp[0], None) if k not in ("new", "handshake") else None
            if marked is not None:
                rec = {**rec, "marked_lost": f"by {marked[0]} at {marked[1]:.3f} ms"}
            point(s, t, sp[1], sp[1] - sp[0], rec, keep)
        elif kind == "ack":
            _update(state, rec, t)
            snap_of = None
            if rec.get("ack") is not None:
                snd_una = float(rec["ack"])
                point(v.acks, t, snd_una, 0.0, rec, not thin or grid.take("ack", t, snd_una))
            for b in rec.get("sack") or []:
                sp2 = _span(b)
                if sp2:
                    point(v.sacks, t, sp2[1], sp2[1] - sp2[0], rec,
                          not thin or grid.take("sack", t, sp2[1]))
            _state_points(v, state, t)
        elif kind == "drop":
            dsp = _span(rec.get("seq"))
            y = dsp[1] if dsp else float(rec.get("ack") or snd_una)
            point(v.drops, t, y, (dsp[1] - dsp[0]) if dsp else 0.0, rec, True)
        elif kind == "event":
            if rec.get("name") == "mark_lost" and rec.get("start") is not None:
                lost_by[float(rec["start"])] = (str(rec.get("by", "?")), t)
            _update(state, rec, t)
            snap_of = None
            if rec.get("name") != "mark_lost" or not thin:
                point(v.events, t, snd_una, 0.0, rec, True)
            _state_points(v, state, t)
    return v


def _update(state: Dict[str, Any], rec: Mapping[str, Any], t: float) -> None:
    """The engine state after ``rec``: its state fields, and the state an event implies."""
    for k in STATE_KEYS:
        if k in rec and not (rec.get("kind") == "event" and k == "state"):
            val = rec[k]
            state[k] = None if isinstance(val, int) and val >= _HUGE else val
    if rec.get("kind") == "event":
        name = str(rec.get("name"))
        if name in EVENT_STATE:
            state["state"] = EVENT_STATE[name]
        state["last_event"] = f"{name} at {t:.3f} ms"


#: State panel lines: (name, state key, scale to the panel's unit).
LINES = (("cwnd", "cwnd", 1.0), ("ssthresh", "ssthresh", 1.0), ("pipe", "pipe", 1.0),
         ("srtt", "srtt_us", 1e-3), ("RTO", "rto_us", 1e-3), ("reo_wnd", "reo_wnd_us", 1e-3))


def _state_points(v: FlowView, state: Mapping[str, Any], t: float) -> None:
    for name, key, scale in LINES:
        val = state.get(key)
        if isinstance(val, (int, float)):
            xs, ys = v.state_lines.setdefault(name, ([], []))
            if ys and ys[-1] == val * scale and xs[-1] == t:
                continue
            xs.append(t)
            ys.append(val * scale)


def thin_line(xs: Sequence[float], ys: Sequence[float], cols: int = GRID[0]) -> Tuple[List[float], List[float]]:
    """A step line with at most four points per time column (first, lowest, highest,
    last), so that its envelope is drawn as it is."""
    if len(xs) <= 4 * cols:
        return list(xs), list(ys)
    t0, dt = xs[0], max(xs[-1] - xs[0], 1e-9) / cols
    keep: List[int] = []
    i = 0
    while i < len(xs):
        c = int((xs[i] - t0) / dt)
        j = i
        while j < len(xs) and int((xs[j] - t0) / dt) == c:
            j += 1
        idx = range(i, j)
        keep += sorted({i, j - 1, min(idx, key=lambda k: ys[k]), max(idx, key=lambda k: ys[k])})
        i = j
    return [xs[k] for k in keep], [ys[k] for k in keep]


def by_flow(recs: Iterable[Mapping[str, Any]], window: Optional[Tuple[float, float]] = None
            ) -> Dict[Any, List[Mapping[str, Any]]]:
    """Records grouped by flow in trace order; ``window`` (seconds) keeps that time span."""
    out: Dict[Any, List[Mapping[str, Any]]] = {}
    for r in recs:
        if window is not None:
            t = float(r.get("t_us", 0)) / 1e6
            if t < window[0] or t > window[1]:
                continue
        out.setdefault(r.get("flow", 0), []).append(r)
    return out


def pick(flows: Sequence[Any], wanted: Optional[Sequence[Any]], most: int) -> List[Any]:
    """The flows to draw: ``wanted`` (those present), else up to ``most`` spread evenly."""
    if wanted is not None:
        return [f for f in wanted if f in flows]
    if len(flows) <= most:
        return list(flows)
    step = (len(flows) - 1) / (most - 1) if most > 1 else 0
    return [flows[round(i * step)] for i in range(most)]
