"""Traces reduced to what a plot can show, in memory that does not grow with the trace.

A time-sequence graph of 300 s of bulk transfer has millions of records but about 1,400
pixel columns. :func:`reduce` reads records one at a time (a trace file line by line)
and keeps, per flow and per time bin, only what a column of pixels can show, so memory
is flat in the trace's length:

- a series (cumulative ACK, receive-window edge, cwnd, ssthresh, pipe, SRTT, RTO) keeps
  the first, last, smallest and largest value of each bin with their times — the M4
  aggregation (Jugel et al., "M4: A Visualization-Oriented Time Series Data
  Aggregation", VLDB 2014), which draws the same line as every point would;
- byte ranges (data sent, retransmitted, received, SACKed, DSACKed) and marks (probes,
  drops, the handshake) keep the bin's first time and the union of its ranges, at most
  :data:`RANGES` of them (the smallest gaps are closed first, so a hole in the
  SACKed data stays visible as long as a bin has room);
- engine events keep the first time of each name per bin.

Bins start at 1 µs and double in width (neighbouring pairs merge) whenever one flow's
bins would span more than :data:`BINS`; a short trace is therefore kept exactly.

A trace file is scanned twice: once by each line's documented prefix
(``{"t_us":…,"flow":…,``, see ``crates/sim/src/trace.rs``) to learn its flows, and once
parsing only the lines of the flows and time window drawn.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from .trace_io import open_text

Record = Mapping[str, Any]
#: Bins per flow at most: about three per pixel column of an 11.5 in figure at 120 dpi.
BINS = 4096
#: Byte ranges kept per bin and kind.
RANGES = 8
#: Series drawn as step lines: the ACK's own fields and the state fields.
STATE_FIELDS = ("cwnd", "ssthresh", "pipe", "srtt_us", "rto_us")
#: ``send.why`` values that are first transmissions of new data.
NEW = {"new", "limited_transmit", "probe_new"}
#: ``send.why`` values that are loss probes.
PROBES = {"probe_new", "probe_retransmit"}
#: Handshake packets.
HANDSHAKE = {"syn", "syn_ack", "handshake_ack"}
#: Events not drawn as lines: per-segment (mark_lost) or already drawn (dsack bars).
QUIET_EVENTS = {"mark_lost", "dsack"}

_PREFIX = re.compile(r'\{"t_us":(-?\d+),"flow":(\d+)')


class FlowData:
    """One flow's records reduced per time bin (see the module doc). Fields are dicts
    bin → aggregate; :meth:`series`, :meth:`spans`, :meth:`marks` and :attr:`events`
    give them back as drawable lists."""

    def __init__(self) -> None:
        self.width_us = 1
        self.lo: Optional[int] = None
        self.hi: Optional[int] = None
        self.records = 0
        self._series: Dict[str, Dict[int, List[float]]] = {}
        self._spans: Dict[str, Dict[int, List[Any]]] = {}
        self._events: Dict[int, Dict[str, float]] = {}
        self.observed = False  # sends classified on the wire (Linux's sender), not by the engine

    # -- adding -------------------------------------------------------------------
    def _bin(self, t_us: float) -> int:
        b = int(t_us) // self.width_us
        if self.lo is not None and self.hi is not None and self.lo <= b <= self.hi:
            return b
        lo = b if self.lo is None else min(self.lo, b)
        hi = b if self.hi is None else max(self.hi, b)
        while hi - lo >= BINS:
            self._coarsen()
            b, lo, hi = b // 2, lo // 2, hi // 2
        self.lo, self.hi = lo, hi
        return b

    def _coarsen(self) -> None:
        self.width_us *= 2
        self.lo = None if self.lo is None else self.lo // 2
        self.hi = None if self.hi is None else self.hi // 2
        for name, bins in self._series.items():
            out: Dict[int, List[float]] = {}
            for b, agg in sorted(bins.items()):
                if b // 2 in out:
                    _merge_m4(out[b // 2], agg)
                else:
                    out[b // 2] = agg
            self._series[name] = out
        for name, sbins in self._spans.items():
            sout: Dict[int, List[Any]] = {}
            for b, agg in sorted(sbins.items()):
                if b // 2 in sout:
                    sout[b // 2][1] = _union(sout[b // 2][1] + agg[1])
                else:
                    sout[b // 2] = agg
            self._spans[name] = sout
        eout: Dict[int, Dict[str, float]] = {}
        for b, names in sorted(self._events.items()):
            d = eout.setdefault(b // 2, {})
            for name, t in names.items():
                d.setdefault(name, t)
        self._events = eout

    def value(self, name: str, t_ms: float, v: float, b: int) -> None:
        """Adds a point of series ``name`` at time ``t_ms`` (bin ``b``)."""
        bins = self._series.get(name)
        if bins is None:
            bins = self._series[name] = {}
        agg = bins.get(b)
        if agg is None:
            bins[b] = [t_ms, v, t_ms, v, t_ms, v, t_ms, v]
            return
        # _merge_m4 with a single point, inlined: this runs once per field per ACK.
        if t_ms < agg[0]:
            agg[0], agg[1] = t_ms, v
        if v < agg[3]:
            agg[2], agg[3] = t_ms, v
        if v > agg[5]:
            agg[4], agg[5] = t_ms, v
        if t_ms >= agg[6]:
            agg[6], agg[7] = t_ms, v

    def span(self, name: str, t_ms: float, lo: float, hi: float, b: int) -> None:
        """Adds the byte range ``[lo, hi]`` of kind ``name`` at time ``t_ms`` (bin ``b``)."""
        bins = self._spans.get(name)
        if bins is None:
            bins = self._spans[name] = {}
        agg = bins.get(b)
        if agg is None:
            bins[b] = [t_ms, [[lo, hi]]]
            return
        last = agg[1][-1]
        if last[0] <= lo <= last[1]:  # the next segment of a flight: extend in place
            if hi > last[1]:
                last[1] = hi
        else:
            agg[1] = _union(agg[1] + [[lo, hi]])

    def event(self, name: str, t_ms: float, b: int) -> None:
        self._events.setdefault(b, {}).setdefault(name, t_ms)

    # -- reading back ---------------------------------------------------------------
    def series(self, name: str) -> Tuple[List[float], List[float]]:
        """Times (ms) and values of series ``name``, in time order."""
        ts: List[float] = []
        vs: List[float] = []
        for _, agg in sorted(self._series.get(name, {}).items()):
            # The bin's first point, its extremes, then its last point, in time order.
            pts = sorted([(agg[0], 0, agg[1]), (agg[2], 1, agg[3]), (agg[4], 1, agg[5]),
                          (agg[6], 2, agg[7])])
            prev = None
            for t, _, v in pts:
                if (t, v) != prev:
                    ts.append(t)
                    vs.append(v)
                    prev = (t, v)
        return ts, vs

    def spans(self, name: str) -> Tuple[List[float], List[float], List[float]]:
        """Times (ms), low and high ends of the byte ranges of kind ``name``."""
        ts: List[float] = []
        lo: List[float] = []
        hi: List[float] = []
        for _, (t, ranges) in sorted(self._spans.get(name, {}).items()):
            for a, b in ranges:
                ts.append(t)
                lo.append(a)
                hi.append(b)
        return ts, lo, hi

    def marks(self, name: str) -> Tuple[List[float], List[float]]:
        """Times (ms) and offsets of point marks of kind ``name`` (both ends of a merged range)."""
        ts, lo, hi = self.spans(name)
        out_t: List[float] = []
        out_y: List[float] = []
        for t, a, b in zip(ts, lo, hi):
            out_t += [t] if a == b else [t, t]
            out_y += [a] if a == b else [a, b]
        return out_t, out_y

    @property
    def events(self) -> List[Tuple[float, str]]:
        """(time in ms, name) of the engine events, in time order, one per name and bin."""
        return sorted((t, name) for names in self._events.values() for name, t in names.items())

    def has_state(self) -> bool:
        return any(self._series.get(k) for k in STATE_FIELDS)

    def add(self, rec: Record) -> None:
        """Adds one trace record."""
        t_us = float(rec.get("t_us", 0))
        t = t_us / 1000.0
        b = self._bin(t_us)
        self.records += 1
        kind = rec.get("kind")
        if kind == "send":
            why = rec.get("why", "new")
            sp = _span(rec.get("seq")) or (0.0, 0.0)
            if why in HANDSHAKE:
                self.span("handshake", t, sp[0], sp[0], b)
                return
            if why == "retransmission":
                self.observed = True
            self.span("new" if why in NEW else "retransmit", t, sp[0], sp[1], b)
            if why in PROBES:
                self.span("probe", t, sp[1], sp[1], b)
        elif kind == "recv":
            s = _span(rec.get("seq"))
            if s:
                self.span("recv", t, s[0], s[1], b)
        elif kind == "ack":
            self._ack(rec, t, b)
        elif kind == "drop":
            if rec.get("dir") == "ack":
                if rec.get("ack") is not None:
                    a = float(rec["ack"])
                    self.span("ack_drop", t, a, a, b)
            else:
                s = _span(rec.get("seq"))
                if s:
                    self.span("drop", t, s[0], s[0], b)
        elif kind == "event":
            name = str(rec.get("name", "event"))
            if name not in QUIET_EVENTS:
                self.event(name, t, b)
            self._state(rec, t, b)

    def _ack(self, rec: Record, t: float, b: int) -> None:
        if rec.get("ack") is not None:
            self.value("ack", t, float(rec["ack"]), b)
            if rec.get("rwnd") is not None:
                self.value("rwnd_edge", t, float(rec["ack"]) + float(rec["rwnd"]), b)
        for blk in rec.get("sack") or []:
            s = _span(blk)
            if s:
                self.span("sack", t, s[0], s[1], b)
        s = _span(rec.get("dsack"))
        if s:
            self.span("dsack", t, s[0], s[1], b)
        self._state(rec, t, b)

    def _state(self, rec: Record, t: float, b: int) -> None:
        # Every record that carries the sender's state feeds the state panel: the ACKs,
        # and the events of the moments recovery happens — an RTO's cwnd collapse and
        # backed-off timer, recovery entry and exit, undo (crates/engine/src/event.rs).
        for k in STATE_FIELDS:
            v = rec.get(k)
            if v is not None and not _isnan(v):
                self.value(k, t, float(v), b)


def _merge_m4(agg: List[float], other: List[float]) -> None:
    """Merges M4 aggregate ``other`` ([t_first, v_first, t_min, v_min, t_max, v_max,
    t_last, v_last]) into ``agg``."""
    if other[0] < agg[0]:
        agg[0], agg[1] = other[0], other[1]
    if other[3] < agg[3]:
        agg[2], agg[3] = other[2], other[3]
    if other[5] > agg[5]:
        agg[4], agg[5] = other[4], other[5]
    if other[6] >= agg[6]:
        agg[6], agg[7] = other[6], other[7]


def _union(ranges: List[List[float]]) -> List[List[float]]:
    """The union of ``ranges``; beyond :data:`RANGES` the smallest gaps are closed."""
    ranges.sort()
    out = [list(ranges[0])]
    for a, b in ranges[1:]:
        if a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    while len(out) > RANGES:
        i = min(range(len(out) - 1), key=lambda j: out[j + 1][0] - out[j][1])
        out[i:i + 2] = [[out[i][0], max(out[i][1], out[i + 1][1])]]
    return out


def _span(v: Any) -> Optional[Tuple[float, float]]:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    return None


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and v != v


# -- sources ----------------------------------------------------------------------------

#: A trace: records (a list of dicts or a DataFrame) or the path of a JSON-lines file.
Source = Any


def is_file(src: Any) -> bool:
    return isinstance(src, (str, os.PathLike)) and str(src) != "-"


def _window_us(window: Optional[Tuple[float, float]]) -> Tuple[float, float]:
    return (window[0] * 1e6, window[1] * 1e6) if window else (-1.0, float("inf"))


def flows_present(src: Source, window: Optional[Tuple[float, float]] = None) -> List[Any]:
    """The flows of ``src`` with a record in ``window``, in id order (a window late in a
    run sees them in any order); a file is scanned by its lines' prefixes, without
    parsing them."""
    seen = _flows_seen(src, window)
    try:
        return sorted(seen)
    except TypeError:  # ids of mixed types: first appearance
        return seen


def _flows_seen(src: Source, window: Optional[Tuple[float, float]]) -> List[Any]:
    lo, hi = _window_us(window)
    seen: Dict[Any, None] = {}
    if is_file(src):
        with open_text(src) as f:
            for line in f:
                m = _PREFIX.match(line)
                if m is None:
                    rec = _parse(line)
                    if rec is not None and lo <= float(rec.get("t_us", 0)) <= hi:
                        seen.setdefault(rec.get("flow", 0), None)
                elif lo <= int(m.group(1)) <= hi:
                    seen.setdefault(int(m.group(2)), None)
        return list(seen)
    for r in records(src):
        if lo <= float(r.get("t_us", 0)) <= hi:
            seen.setdefault(r.get("flow", 0), None)
    return list(seen)


def _parse(line: str) -> Optional[Dict[str, Any]]:
    line = line.strip()
    if not line:
        return None
    try:
        rec = json.loads(line)
    except ValueError as e:
        raise ValueError(f"not a JSON-lines trace: {e}") from None
    return rec if isinstance(rec, dict) else None


def records(src: Source, flows: Optional[Iterable[Any]] = None,
            window: Optional[Tuple[float, float]] = None) -> Iterator[Record]:
    """The records of ``src`` (in ``flows`` and ``window`` when given), one at a time; a
    file's other lines are skipped by their prefix, unparsed."""
    lo, hi = _window_us(window)
    keep = set(flows) if flows is not None else None
    if is_file(src):
        with open_text(src) as f:
            for line in f:
                m = _PREFIX.match(line)
                if m is not None and (not lo <= int(m.group(1)) <= hi
                                      or (keep is not None and int(m.group(2)) not in keep)):
                    continue
                rec = _parse(line)
                if rec is not None and lo <= float(rec.get("t_us", 0)) <= hi \
                        and (keep is None or rec.get("flow", 0) in keep):
                    yield rec
        return
    if hasattr(src, "to_dict") and hasattr(src, "columns"):  # pandas DataFrame
        src = ({k: v for k, v in row.items() if not _isnan(v)} for row in src.to_dict("records"))
    for rec in src:
        if lo <= float(rec.get("t_us", 0)) <= hi and (keep is None or rec.get("flow", 0) in keep):
            yield rec


def reduce(src: Source, flows: Optional[Sequence[Any]] = None,
           window: Optional[Tuple[float, float]] = None) -> Dict[Any, FlowData]:
    """flow → :class:`FlowData` of the records of ``src`` in ``flows`` and ``window``."""
    out: Dict[Any, FlowData] = {}
    for rec in records(src, flows, window):
        f = rec.get("flow", 0)
        d = out.get(f)
        if d is None:
            d = out[f] = FlowData()
        d.add(rec)
    return out
