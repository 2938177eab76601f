"""Exact-drop patterns for the differential test of the ``linux`` preset against the kernel
(issue 23, item 1): a seeded, pure generator of scenarios whose losses are named exactly
(which transmission of which segment, which ACK), so that the kernel's sender on the real
wire and the engine in the simulator face the same path packet for packet.

A pattern is a function of ``(seed, index)`` only: the same seed gives the same patterns
on every machine and Python version (``random.Random`` seeded with an integer), whatever
``n`` is, so a failing pattern of a long run can be re-run alone
(``lossrec diff --seed S --only I``).

What varies (each the shape of a known loss-recovery path in Linux):

* flow size (1 to 60 segments) and RTT (10 to 160 ms); 100 Mb/s, a queue that never fills;
* data drops among first and second transmissions, placed as a tail (the last K
  segments: TLP, then RACK or an RTO, ``tcp_schedule_loss_probe``), a burst (K consecutive
  segments: SACK recovery, ``tcp_fastretrans_alert``), scattered single losses, a lost
  retransmission (segment lost twice: RACK's ``tcp_rack_detect_loss`` or an RTO, and
  ``TCPLostRetransmit``), and a lost probe (the tail segment and its TLP both lost);
* ACK-path drops (indices of the receiver's ACKs, the SYN-ACK excluded);
* delayed ACKs (``receiver.delayed_ack_ms = 40``) or quick ACKs (every segment).

Pattern 0 of every seed is the loss-free flow: the harness's own sanity check (the two
senders must agree on it exactly).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

#: Flow sizes in segments, and RTTs in ms, drawn from.
SIZES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 40, 60)
RTTS_MS = (10, 20, 40, 80, 160)
#: Kinds of data-loss placement.
KINDS = ("none", "tail", "burst", "scattered", "lost-retransmission", "lost-probe")
#: The bottleneck: fast enough that serialisation is small against the timers, a queue
#: that never overflows (every drop is one the pattern names).
RATE_MBPS = 100
QUEUE_PACKETS = 1000


@dataclass(frozen=True)
class Pattern:
    """One exact-drop scenario.

    ``drops`` are ``(segment, transmission)`` pairs (0-based MSS-sized segment, 1 = the
    first transmission, 2 = the first retransmission); ``ack_drops`` are 0-based indices
    of the receiver's ACKs (SYN-ACK excluded).
    """

    seed: int
    index: int
    kind: str
    segments: int
    rtt_ms: int
    drops: Tuple[Tuple[int, int], ...] = ()
    ack_drops: Tuple[int, ...] = ()
    delayed_ack: bool = False

    @property
    def name(self) -> str:
        """A short name: ``p<index>-<kind>``."""
        return f"p{self.index}-{self.kind}"

    def describe(self) -> str:
        """One line: size, RTT, drops, ACK drops, ACK policy."""
        d = ", ".join(f"seg {s} tx {t}" for s, t in self.drops) or "no data drops"
        a = f"; ACKs dropped {list(self.ack_drops)}" if self.ack_drops else ""
        return (f"{self.segments} segs, {self.rtt_ms} ms, {d}{a}; "
                f"{'delayed' if self.delayed_ack else 'quick'} ACKs")

    def scenario(self) -> Dict[str, Any]:
        """The scenario as a dict (as :func:`lossrec.run` and :func:`lossrec.wire` take)."""
        loss: Dict[str, Any] = {"model": "none"}
        if self.drops:
            loss = {"model": "drop-list",
                    "drops": [{"segment": s, "transmission": t} for s, t in self.drops]}
        path: Dict[str, Any] = {"rtt_ms": self.rtt_ms, "rate_mbps": RATE_MBPS,
                                "queue_packets": QUEUE_PACKETS, "loss": loss}
        if self.ack_drops:
            path["ack_loss"] = {"model": "drop-list", "packets": list(self.ack_drops)}
        return {
            "seed": 1,
            "path": path,
            "sender": {"preset": "linux"},
            "receiver": {"delayed_ack_ms": 40 if self.delayed_ack else 0},
            "workload": {"segments": self.segments},
        }

    def to_json(self) -> Dict[str, Any]:
        """The pattern as plain data."""
        return {"name": self.name, "seed": self.seed, "index": self.index, "kind": self.kind,
                "segments": self.segments, "rtt_ms": self.rtt_ms,
                "drops": [list(d) for d in self.drops], "ack_drops": list(self.ack_drops),
                "delayed_ack": self.delayed_ack, "describe": self.describe()}


def _data_drops(rng: random.Random, kind: str, n: int) -> List[Tuple[int, int]]:
    """The data drops of one placement kind for an ``n``-segment flow."""
    if kind == "tail":
        k = rng.randint(1, min(5, n))
        return [(s, 1) for s in range(n - k, n)]
    if kind == "burst":
        b = rng.randint(2, max(2, min(6, n)))
        b = min(b, n)
        start = rng.randint(0, n - b)
        return [(s, 1) for s in range(start, start + b)]
    if kind == "scattered":
        m = rng.randint(1, min(4, n))
        return [(s, 1) for s in sorted(rng.sample(range(n), m))]
    if kind == "lost-retransmission":
        # Head, middle or tail: which detector repairs the second loss differs.
        s = rng.choice([0, n // 2, n - 1]) if n > 1 else 0
        return [(s, 1), (s, 2)]
    if kind == "lost-probe":
        return [(n - 1, 1), (n - 1, 2)]
    return []


def pattern(seed: int, index: int) -> Pattern:
    """Pattern ``index`` of ``seed`` (a pure function: no state, no clock).

    Index 0 is always the loss-free 10-segment flow at 40 ms with quick ACKs.
    """
    if index == 0:
        return Pattern(seed, 0, "none", 10, 40)
    rng = random.Random(seed * 1_000_003 + index)
    n = rng.choice(SIZES)
    rtt = rng.choice(RTTS_MS)
    kind = rng.choice(KINDS[1:])
    drops = _data_drops(rng, kind, n)
    ack_drops: Tuple[int, ...] = ()
    if rng.random() < 0.3:
        # Among the first ACKs of the flow (the handshake's ACK of the SYN-ACK is the
        # sender's; the receiver's ACKs of data start at index 0).
        k = rng.randint(1, 3)
        ack_drops = tuple(sorted(rng.sample(range(max(k, n)), k)))
    delayed = rng.random() < 0.3
    if not drops and not ack_drops:
        kind = "none"
    elif not drops:
        kind = "ack-loss"
    return Pattern(seed, index, kind, n, rtt, tuple(drops), ack_drops, delayed)


def patterns(seed: int, n: int, only: Tuple[int, ...] = ()) -> List[Pattern]:
    """The first ``n`` patterns of ``seed`` (or just the indices in ``only``)."""
    idx = list(only) if only else list(range(n))
    return [pattern(seed, i) for i in idx]
