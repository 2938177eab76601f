"""The comparator of the differential test (issue 23, item 1): transmission sequences out of
traces, the kernel's modal sequence over repeated runs, FCT within the kernel's timer
granularity, counters on a mapped set, the engine's state where the two first differ,
and the detector of runs the emulator's own timing makes ambiguous.

Everything here is a pure function of trace records (the JSON-lines trace as dicts) and
flow results (the ``flows`` of a run's JSON); nothing runs anything.

A transmission is a data segment put on the path (``send`` lines with a non-empty
``seq``), in order, as ``(start, end, retransmission)``: a retransmission is a segment
that starts below the highest byte sent before — the rule the wire's emulator uses for the
kernel's segments (``crates/tun`` ``path.rs``), applied to the engine's too, so that both
sides are classified alike whatever the engine's ``why`` says.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

#: One transmission: stream offsets [start, end) and whether it is a retransmission.
Tx = Tuple[int, int, bool]

#: The kernel's timer tick (CONFIG_HZ=250 on Debian kernels: 4 ms jiffies).
HZ = 250

#: The counters compared: the kernel's MIB name, and the flow-result field holding it on
#: both sides (the kernel's from its namespace's nstat delta and TCP_INFO, the engine's from
#: its ``Stats``). ``TCPLostRetransmit`` is the kernel MIB's and the engine's
#: ``lost_retransmit`` events.
COUNTERS: Tuple[Tuple[str, str], ...] = (
    ("TcpRetransSegs", "retransmits"),
    ("TCPLossProbes", "tlp_probes"),
    ("TCPFastRetrans", "fast_retransmits"),
    ("TCPSlowStartRetrans", "slow_start_retransmits"),
    ("TCPTimeouts", "rtos"),
    ("TCPSackRecovery", "fast_recoveries"),
    ("TCPSpuriousRTOs", "spurious_rtos"),
    ("TCPDSACKRecv", "dsacks"),
    ("undo (Full+Partial+DSACK+Loss)", "undos"),
)
LOST_RETRANSMIT = "TCPLostRetransmit"


@dataclass(frozen=True)
class Timed:
    """A transmission with its time (µs) and the sender's reason when it gives one."""

    start: int
    end: int
    retransmission: bool
    t_us: int
    why: str

    @property
    def tx(self) -> Tx:
        """The comparable part: offsets and whether it is a retransmission."""
        return (self.start, self.end, self.retransmission)

    def text(self) -> str:
        """One line for a report: offsets, new or rtx, time, the sender's reason."""
        kind = "rtx" if self.retransmission else "new"
        return f"[{self.start}, {self.end}) {kind} at {self.t_us / 1000:.3f} ms ({self.why})"


def transmissions(records: Iterable[Mapping[str, Any]], flow: int = 0) -> List[Timed]:
    """The data transmissions of ``flow`` in trace order, classified by sequence."""
    out: List[Timed] = []
    high = 0
    for r in records:
        if r.get("kind") != "send" or r.get("flow") != flow:
            continue
        s, e = r["seq"]
        if e <= s:
            continue  # SYN, bare FIN
        out.append(Timed(s, e, s < high, int(r["t_us"]), str(r.get("why", ""))))
        high = max(high, e)
    return out


def sequence(txs: Sequence[Timed]) -> Tuple[Tx, ...]:
    """The comparable part of transmissions: order, offsets, retransmission or not."""
    return tuple(t.tx for t in txs)


def modal(seqs: Sequence[Tuple[Tx, ...]]) -> Tuple[Optional[int], int, int]:
    """The kernel's modal sequence over repeated runs: ``(index of a run that has it,
    how many runs have it, how many distinct sequences there were)``. The index is
    ``None`` when the most common sequence is tied with another (no mode)."""
    if not seqs:
        return None, 0, 0
    counts = Counter(seqs)
    ranked = counts.most_common()
    best, n = ranked[0]
    if len(ranked) > 1 and ranked[1][1] == n:
        return None, n, len(ranked)
    return seqs.index(best), n, len(ranked)


def first_difference(a: Sequence[Tx], b: Sequence[Tx]) -> Optional[int]:
    """Index of the first transmission where ``a`` and ``b`` differ (one may end first),
    or None when they are identical."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def first_late(kernel: Sequence[Timed], engine: Sequence[Timed], hz: int = HZ) -> Optional[Dict[str, Any]]:
    """For two identical sequences, the first transmission whose time (from each side's
    first transmission) differs by more than a jiffy and 5 %: where the two waited
    differently (a timer, a delayed ACK) though they sent the same. ``None`` when none
    does."""
    if not kernel or not engine:
        return None
    k0, e0 = kernel[0].t_us, engine[0].t_us
    for i, (k, e) in enumerate(zip(kernel, engine)):
        tk, te = (k.t_us - k0) / 1000, (e.t_us - e0) / 1000
        if abs(tk - te) > 1000 / hz + 0.05 * max(tk, te):
            return {"index": i, "kernel_ms": round(tk, 3), "engine_ms": round(te, 3),
                    "delta_ms": round(tk - te, 3)}
    return None


def slot_ms(timeout_ms: float, hz: int = HZ) -> float:
    """The granularity of a kernel timer of this length: a jiffy, and the timer wheel's
    coarser slots for longer timeouts (``kernel/time/timer.c``: level n's granularity is
    8^n jiffies, for timeouts of 63·8^n jiffies and more)."""
    jiffy = 1000 / hz
    j = timeout_ms / jiffy
    level = 0
    while j >= 63 * 8 ** level and level < 4:
        level += 1
    return jiffy * 8 ** level


def fct_allowance_ms(kernel: Mapping[str, Any], rtt_ms: float, hz: int = HZ) -> float:
    """How far the engine's FCT may be from the kernel's and still agree: 5 % of the
    kernel's, one jiffy, and per timer the kernel fired (probes and RTOs) one slot of the
    timer wheel at that timer's length (a probe ≈ 2·RTT, an RTO ≥ 200 ms + RTT)."""
    probes = float(kernel.get("tlp_probes") or 0)
    rtos = float(kernel.get("rtos") or 0)
    fct = float(kernel.get("fct_ms") or 0)
    return (0.05 * fct + 1000 / hz + probes * slot_ms(2 * rtt_ms, hz)
            + rtos * slot_ms(200 + rtt_ms, hz))


def counters(flow: Mapping[str, Any], lost_retransmits: Optional[int]) -> Dict[str, int]:
    """The mapped counters of one side's flow result (``lost_retransmits``: that side's
    ``TCPLostRetransmit``, when known)."""
    out = {name: int(flow.get(field) or 0) for name, field in COUNTERS}
    if lost_retransmits is not None:
        out[LOST_RETRANSMIT] = lost_retransmits
    return out


def engine_lost_retransmits(records: Iterable[Mapping[str, Any]], flow: int = 0) -> int:
    """The engine's ``TCPLostRetransmit``: its ``lost_retransmit`` events."""
    return sum(1 for r in records if r.get("kind") == "event" and r.get("flow") == flow
               and r.get("name") == "lost_retransmit")


def counter_diffs(kernel: Mapping[str, int], engine: Mapping[str, int]) -> Dict[str, Tuple[int, int]]:
    """Counters whose values differ, as ``name → (kernel, engine)`` (only names both have)."""
    return {k: (kernel[k], engine[k]) for k in kernel if k in engine and kernel[k] != engine[k]}


_STATE_KEYS = ("cwnd", "pipe", "ssthresh", "state", "srtt_us", "rto_us", "reo_wnd_us", "timer",
               "timer_at_us", "prr_delivered", "prr_out", "sndcnt")


def engine_state(records: Sequence[Mapping[str, Any]], txs: Sequence[Timed], i: int,
                 flow: int = 0) -> Dict[str, Any]:
    """The engine's reasoning at its transmission ``i`` (or, when it sent nothing there,
    after its last one): the ``why`` it gave, its state after the last ACK before (cwnd,
    pipe, ssthresh, state, srtt, RTO, RACK's reo_wnd, the armed timer and its deadline,
    PRR), and the decisions (events) it took since its
    previous transmission — a timer that fired, segments marked lost and by which
    detector."""
    at = txs[i].t_us if i < len(txs) else None
    since = txs[i - 1].t_us if 0 < i <= len(txs) else 0
    last_ack: Optional[Mapping[str, Any]] = None
    events: List[str] = []
    for r in records:
        if r.get("flow") != flow:
            continue
        t = int(r.get("t_us", 0))
        if at is not None and t > at:
            break
        if r.get("kind") == "ack":
            last_ack = r
        elif r.get("kind") == "event" and t >= since:
            fields = {k: v for k, v in r.items() if k not in ("t_us", "flow", "kind", "name")}
            args = ", ".join(f"{k}={v}" for k, v in fields.items())
            events.append(f"{t / 1000:.3f} ms {r.get('name')}" + (f" ({args})" if args else ""))
    out: Dict[str, Any] = {"why": txs[i].why if i < len(txs) else None,
                           "at_ms": at / 1000 if at is not None else None}
    if last_ack is not None:
        out["after_ack_ms"] = int(last_ack["t_us"]) / 1000
        out.update({k: last_ack[k] for k in _STATE_KEYS if k in last_ack})
    out["events"] = events[-8:]
    return out


def rtt_samples(records: Sequence[Mapping[str, Any]], flow: int = 0) -> List[Tuple[int, int, bool]]:
    """RTT samples as the sender would take them: for each ACK at the sender, every
    transmission it newly covers (cumulatively or by SACK) gives ``ack time − that
    segment's latest transmission time`` (Linux times a retransmitted skb from its last
    transmission, ``tcp_rack_advance``). Returns ``(t_us of the ACK, rtt_us,
    retransmission)``."""
    sent: Dict[Tuple[int, int], Tuple[int, bool]] = {}
    high = 0
    out: List[Tuple[int, int, bool]] = []
    for r in records:
        if r.get("flow") != flow:
            continue
        kind = r.get("kind")
        if kind == "send":
            s, e = r["seq"]
            if e > s:
                sent[(s, e)] = (int(r["t_us"]), s < high)
                high = max(high, e)
        elif kind == "ack" and sent:
            t = int(r["t_us"])
            cum = int(r.get("ack") or 0)
            blocks = [tuple(b) for b in r.get("sack") or []]
            for (s, e), (ts, retx) in list(sent.items()):
                if e <= cum or any(bs <= s and e <= be for bs, be in blocks):
                    out.append((t, t - ts, retx))
                    del sent[(s, e)]
    return out


def min_rtt_races(records: Sequence[Mapping[str, Any]], handshake_rtt_us: Optional[float],
                  margin_us: float, flow: int = 0) -> List[Dict[str, Any]]:
    """Retransmissions whose RTT sample fell within ``margin_us`` of the min_rtt before it
    (the handshake's and every earlier sample's): Linux's ``tcp_rack_advance`` ignores a
    retransmission's sample below min_rtt ("the ACK is for the original"), so whether RACK
    advances on it — and whether a lost tail is repaired by RACK or waits for an RTO — is
    decided by microseconds of the emulator's own timing, not by the pattern."""
    lo = float(handshake_rtt_us) if handshake_rtt_us else float("inf")
    races: List[Dict[str, Any]] = []
    for t, rtt, retx in rtt_samples(records, flow):
        if retx and lo != float("inf") and abs(rtt - lo) <= margin_us:
            races.append({"at_ms": t / 1000, "rtt_us": rtt, "min_rtt_us": lo})
        lo = min(lo, float(rtt))
    return races
