"""``lossrec.replay`` (this module, :mod:`lossrec.replay_capture`; not named ``replay``,
which would shadow the function once imported): run a captured connection's path through
the simulator under other presets.

    >>> import lossrec
    >>> df = lossrec.replay("server.pcap", presets=["linux", "rfc"])
    >>> df[["source", "fct_ms", "retransmits", "rtos", "spurious"]]
    >>> df.attrs["paths"][0]["ambiguous"]     # packets whose fate the evidence leaves open

The capture's reconstructed records (``crates/capture``: transmissions and the ACKs the
sender received, in stream offsets) give the path:

- **RTT**: the handshake, SYN to the opener's third packet (at any capture point this is
  one round trip of the whole path).
- **Capture point**: at the sender the SYN-ACK comes a round trip after the SYN; on the
  path (the wire emulator records a packet as it enters) each handshake gap is about half.
  The point decides how long an ACK took from the receiver to the capture (``ack_lag``).
- **Rate**: the bottleneck spaces the ACKs of a burst; the median time per newly
  acknowledged segment between consecutive ACKs of one train (gaps under a quarter RTT:
  the median, as a user-space emulator's ACKs come compressed or jittered), as wire bytes.
- **Per-packet fate**: for each range, the first ACK covering it (cumulatively or by SACK)
  was caused by the last transmission sent at least the smallest round trip before it;
  earlier ones were lost, unless a DSACK for the range says a second copy arrived (then
  the earliest is taken as delivered too). Later ones arrived if a DSACK says so, were
  lost if an ACK a round trip later carries none, and are unknown if no ACK follows. A
  transmission the ACK timing cannot settle (an earlier copy that could still have
  arrived within the largest RTT seen; one no ACK follows) is listed in ``ambiguous``
  with the reading taken. Lost transmissions become exact drops
  (``[[path.loss.drops]] seq, transmission``: preset-independent, they follow the range and
  its n-th transmission under any preset).
- **Clock phase**: Linux's timers fire on jiffies counted from its clock's epoch
  (``timer_hz``, the timer wheel's buckets), so when a flow started in that clock moves
  its timeouts by up to a bucket. The replayed flow starts (``[workload] start_ms``) at
  the capture's SYN time since lossrec's pcap epoch (``PCAP_EPOCH_NS``; a capture lossrec
  wrote replays in its own phase), modulo :data:`PHASE_PERIOD_NS`. A real host's jiffies
  started at its boot, which a capture does not show: its phase is a guess.
- **Receiver**: delayed ACKs when most ACKs cover two segments (``delayed_ack_ms = 40``,
  Linux's minimum ATO; ``tcp_send_delayed_ack``), else one ACK per segment.

- **ACK loss**, at the sender with one ACK per segment: the receiver is replayed over the
  delivered transmissions, and an ACK it would have sent that the capture lacks (the
  next captured one matches a later expected one) becomes an ACK drop
  (``[path.ack_loss] packets``). A capture on the path cannot show it (the emulator
  records ACKs before dropping them).

Not inferred, said in ``notes``: reordering (a reordered packet is read as delivered
late, its ACK's timing kept), and ACK loss where the capture cannot show it.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: IPv4 + TCP headers with the timestamp option: a data packet's bytes on the wire.
HEADER_BYTES = 52
#: Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN), ms.
DELACK_MS = 40


def records(path: "str | os.PathLike[str]", flow: Optional[str] = None) -> List[Dict[str, Any]]:
    """Each connection's reconstructed transmissions and ACKs (see the module doc)."""
    from ._core import capture_records

    return list(json.loads(capture_records(os.fspath(path), flow)))


def _is_dsack(ack: List[Any]) -> bool:
    """RFC 2883 §4: the first SACK block is a DSACK when it lies below the cumulative ACK
    or inside the second block."""
    b = ack[2]
    return bool(b) and (b[0][1] <= ack[1] or (len(b) > 1 and b[1][0] <= b[0][0] and b[0][1] <= b[1][1]))


def _covered(ack: List[Any], s: int, e: int) -> bool:
    """Does this ACK cover [s, e) cumulatively or by a (non-DSACK) SACK block?"""
    if ack[1] >= e:
        return True
    blocks = ack[2][1:] if _is_dsack(ack) else ack[2]
    return any(a <= s and e <= b for a, b in blocks)


def _dsacks(acks: List[List[Any]], s: int, e: int) -> int:
    """DSACKs (RFC 2883 §4) covering [s, e)."""
    return sum(1 for a in acks if _is_dsack(a) and a[2][0][0] <= s and e <= a[2][0][1])


def _rtt_samples(data: List[List[Any]], acks: List[List[Any]]) -> List[float]:
    """Capture-point RTT samples (s): an ACK whose cumulative point is the end of a range
    sent once, when every range it newly acknowledges was sent once and none was SACKed
    before (Karn, RFC 6298 §3: a retransmitted range gives no sample; an ACK that fills a
    hole says when the hole was filled, not when the range at its end arrived)."""
    sent: Dict[int, List[int]] = {}
    retx: List[Tuple[int, int]] = []
    for d in data:
        if d[2] > d[1]:
            sent.setdefault(d[2], []).append(d[0])
            if len(sent[d[2]]) == 2:
                retx.append((d[1], d[2]))
    out, prev, sacked = [], 0, 0
    for a in acks:
        ts = sent.get(a[1])
        clean = not any(prev < e and s < a[1] for s, e in retx) and sacked <= prev
        if ts and len(ts) == 1 and a[1] > prev and clean and a[0] > ts[0]:
            out.append((a[0] - ts[0]) / 1e9)
        prev = max(prev, a[1])
        sacked = max([sacked] + [b for _, b in a[2]])
    return out


def _rate_mbps(acks: List[List[Any]], mss: int, rtt: float) -> float:
    """Bottleneck rate from the spacing of consecutive ACKs that each advance the
    cumulative point (one train: gaps under a quarter RTT)."""
    per_seg = []
    for p, a in zip(acks, acks[1:]):
        adv, dt = a[1] - p[1], (a[0] - p[0]) / 1e9
        if adv >= mss and 0 < dt < rtt / 4:
            per_seg.append(dt / (adv / mss))
    if len(per_seg) < 3:
        return 10.0
    per_seg.sort()
    t = per_seg[len(per_seg) // 2]
    return round((mss + HEADER_BYTES) * 8 / t / 1e6, 3)


#: 4096 jiffies at 250 Hz (16,384 at 1000 Hz): a multiple of the timer wheel's bucket
#: granularity up to level 4 (8⁴ jiffies at 250 Hz; ``kernel/time/timer.c``, timers up to
#: about two minutes out), so a start moved by it keeps every such timer's bucket.
PHASE_PERIOD_NS = 16_384_000_000


def start_ms(first_ns: int) -> float:
    """The replayed flow's start in the simulator's clock: the capture time of its first
    packet since lossrec's pcap epoch, modulo :data:`PHASE_PERIOD_NS` (see the module doc)."""
    from ._core import PCAP_EPOCH_NS

    return ((int(first_ns) - PCAP_EPOCH_NS) % PHASE_PERIOD_NS) / 1e6


def infer(conn: Dict[str, Any]) -> Dict[str, Any]:
    """The path one connection's records show: ``rtt_ms``, ``rate_mbps``,
    ``delayed_ack_ms``, the ``drops`` (``(start, end, transmission)``), the ``fates`` of
    every transmission, ``ambiguous`` ones, the captured ``fct_ms``, ``retransmits``,
    ``spurious`` (DSACKed ranges) and ``notes``."""
    data = [d for d in conn["data"] if d[2] > d[1]]
    acks, mss, notes = conn["acks"], int(conn["mss"]), []
    syn, synack = conn.get("syn_ns"), conn.get("synack_ns")
    third = conn.get("third_ns")
    samples = _rtt_samples(data, acks)
    if syn is not None and synack is not None and third is not None:
        h1, h2 = (synack - syn) / 1e9, (third - synack) / 1e9
        rtt = h1 + h2
        # At the sender the SYN-ACK takes the whole round trip (h2 ≈ 0); on the path each
        # gap holds one direction. ACKs reach the capture this long after the receiver.
        ack_lag = h1 / 2 if h2 * 5 < rtt else 0.0
        start = syn / 1e9
    else:
        rtt = min(samples) if samples else 0.1
        ack_lag, start = rtt / 2, (data[0][0] / 1e9 if data else 0.0)
        notes.append("no handshake: RTT from the smallest data/ACK sample, FCT from the first data")
    min_cap = min(samples) if samples else rtt
    max_cap = max(samples) if samples else rtt
    fates, drops, ambiguous = _fates(data, acks, min_cap, max_cap)
    one = sum(1 for p, a in zip(acks, acks[1:]) if a[1] - p[1] == mss)
    two = sum(1 for p, a in zip(acks, acks[1:]) if a[1] - p[1] == 2 * mss)
    end = max((d[2] for d in data), default=0)
    last = next((a[0] for a in acks if a[1] >= end), None)
    retx = sum(1 for f in fates if f["transmission"] > 1)
    delack = DELACK_MS if two > one else 0
    # Lost ACKs are visible only where the capture sees what reached the sender.
    ack_drops = _ack_losses(data, fates, acks) if ack_lag > 0 and not delack else []
    return {
        "flow": conn["flow"], "mss": mss, "rtt_ms": round(rtt * 1e3, 3),
        "start_ms": start_ms(syn if syn is not None and synack is not None and third is not None
                             else (data[0][0] if data else 0)),
        "rate_mbps": _rate_mbps(acks, mss, rtt),
        "delayed_ack_ms": delack, "ack_drops": ack_drops,
        "drops": drops, "fates": fates, "ambiguous": ambiguous,
        "bytes": end, "fct_ms": None if last is None else round((last / 1e9 - ack_lag - start) * 1e3, 3),
        "retransmits": retx,
        "spurious": sum(1 for f in fates if f["transmission"] > 1 and f["fate"] == "delivered" and f["dup"]),
        "notes": notes + ["reordering is not inferred" + ("" if ack_lag > 0 else "; nor ACK loss (the capture "
                                                          "is not at the sender: ACKs are replayed as delivered)")],
    }


def _fates(data: List[List[Any]], acks: List[List[Any]], min_cap: float,
           max_cap: float) -> Tuple[List[Dict[str, Any]], List[Tuple[int, int, int]], List[Dict[str, Any]]]:
    """Each transmission's fate from the ACK evidence (see the module doc)."""
    by_start: Dict[int, List[int]] = {}
    for i, d in enumerate(data):
        by_start.setdefault(d[1], []).append(i)
    fates: List[Dict[str, Any]] = [{} for _ in data]
    drops, ambiguous = [], []
    for s, idx in by_start.items():
        e = data[idx[0]][2]
        first = next((a for a in acks if a[0] > data[idx[0]][0] and _covered(a, s, e)), None)
        dup = _dsacks(acks, s, e)
        if first is None:
            for k, i in enumerate(idx, 1):
                fates[i] = {"start": s, "end": e, "transmission": k, "fate": "unknown", "dup": False}
                ambiguous.append({**fates[i], "reading": "delivered (no ACK covers it)"})
            continue
        ta = first[0]
        # The cause sent at least one smallest round trip before the ACK (a tolerance of
        # 2 %, at most 0.5 ms, for the capture clock): nothing comes back faster.
        reach = min_cap * 1e9 - min(0.02 * min_cap * 1e9, 5e5)
        cause = [k for k, i in enumerate(idx) if data[i][0] <= ta - reach]
        j = cause[-1] if cause else 0
        delivered = {j} | ({0} if dup and j != 0 else set())
        last_ack = acks[-1][0] if acks else 0
        for k, i in enumerate(idx):
            t = data[i][0]
            fate = "delivered"
            if k < j and k not in delivered:
                fate = "lost"
            elif k > j:
                # Sent after the copy that was acknowledged: a DSACK says it arrived; an
                # ACK a round trip later without one says it did not; no later ACK, unknown.
                fate = "delivered" if dup else ("lost" if last_ack >= t + reach else "unknown")
            fates[i] = {"start": s, "end": e, "transmission": k + 1, "t": t / 1e9, "fate": fate,
                        "dup": fate == "delivered" and k != j}
            if fate == "lost":
                drops.append((s, e, k + 1))
                if k < j and t + max_cap * 1e9 >= ta:
                    ambiguous.append({**fates[i], "reading": "lost (it could have arrived late)"})
            elif fate == "unknown":
                ambiguous.append({**fates[i], "reading": "delivered (no later ACK says)"})
    drops.sort()
    return fates, drops, ambiguous


def _ack_losses(data: List[List[Any]], fates: List[Dict[str, Any]],
                acks: List[List[Any]]) -> List[int]:
    """At the sender, with one ACK per segment: the receiver's ACKs (0-based, the
    simulator's ``[path.ack_loss] packets`` numbering) the capture lacks. The receiver is
    replayed over the delivered transmissions in send order (no reordering); each gives
    one ACK whose (cumulative point, highest SACKed byte) the next captured ACK must
    show, else that ACK was lost on the way back."""
    got: List[Tuple[int, int]] = []
    for a in acks:
        got.append((a[1], max([0] + [b for _, b in (a[2][1:] if _is_dsack(a) else a[2])])))
    have: List[Tuple[int, int]] = []   # received ranges above the cumulative point
    cum: Optional[int] = None
    want: List[Tuple[int, int]] = []
    for d, f in zip(data, fates):
        if f.get("fate") == "lost":
            continue
        end = d[2] + (1 if d[4] else 0)
        cum = d[1] if cum is None else cum
        if d[1] <= cum:
            cum = max(cum, end)
        else:
            have.append((d[1], end))
        for lo, hi in sorted(have):
            if lo <= cum:
                cum = max(cum, hi)
        have = [(lo, hi) for lo, hi in have if hi > cum]
        want.append((cum, max([0] + [hi for _, hi in have])))
    # Align: an expected ACK is lost when the captured one matches a later expected one
    # (within 8); a captured ACK no expected one matches (a window update) is skipped.
    lost, i, k = [], 0, 0
    while k < len(want) and i < len(got):
        if got[i] == want[k]:
            i, k = i + 1, k + 1
        elif got[i] in want[k + 1:k + 9]:
            lost.append(k)
            k += 1
        else:
            i += 1
    # An alignment that loses most ACKs has lost its way: no reading, rather than a wrong one.
    return lost if len(lost) * 4 <= len(want) else []


def scenario(path: Dict[str, Any], preset: str) -> str:
    """A scenario file (TOML) for one inferred path, the flow's bytes and this preset."""
    lines = ["seed = 1", "[path]", f"rtt_ms = {path['rtt_ms']}", f"rate_mbps = {path['rate_mbps']}",
             "[path.loss]"]
    if path["drops"]:
        lines.append('model = "drop-list"')
        for s, e, k in path["drops"]:
            lines += ["[[path.loss.drops]]", f"seq = [{s}, {e}]", f"transmission = {k}"]
    else:
        lines.append('model = "none"')
    if path.get("ack_drops"):
        lines += ["[path.ack_loss]", 'model = "drop-list"', f"packets = {path['ack_drops']}"]
    lines += ["[receiver]", f"delayed_ack_ms = {path['delayed_ack_ms']}",
              "[sender]", f'preset = "{preset}"', f"mss = {path['mss']}",
              "[workload]", 'kind = "flows"', "flows = 1", f"bytes = {path['bytes']}",
              f"start_ms = {path.get('start_ms', 0.0)}"]
    return "\n".join(lines) + "\n"


def replay(path: "str | os.PathLike[str]", presets: Sequence[str] = ("linux",),
           flow: Optional[str] = None, explain_preset: Optional[str] = None) -> Any:
    """Infers each connection's path from a capture, runs it under each preset and
    returns a DataFrame: one ``capture`` row per connection (what it shows) and one row
    per preset (``source`` = the preset), with ``fct_ms``, ``retransmits``, ``rtos``,
    ``spurious`` and ``tlp_probes``. The capture's ``rtos`` and ``tlp_probes`` are the
    RTO retransmissions and loss probes ``lossrec.explain`` labels under
    ``explain_preset`` (default: the first preset). ``df.attrs["paths"]`` holds each
    inferred path (fates, drops, ACK drops, ambiguous packets, notes) and ``df.attrs["scenarios"]`` the TOML run.
    """
    import pandas as pd

    from . import _args
    from .api import check_preset, run
    from .capture import run as explain_run
    from .errors import ArgumentError

    _args.path("replay", "path", path)
    if isinstance(presets, str) or not isinstance(presets, Sequence) or not presets \
            or not all(isinstance(n, str) for n in presets):
        raise _args.fail("replay", "presets", "a non-empty list of preset names", presets)
    for n in list(presets) + ([] if explain_preset is None else [explain_preset]):
        try:
            check_preset(n)
        except ValueError as e:
            name = "presets" if n in presets else "explain_preset"
            raise ArgumentError("replay", name, f"replay(): {name}: {e}") from None
    _args.text("replay", "flow", flow, optional=True)
    conns = records(path, flow)
    # The capture's timeouts: the RTO retransmissions explain labels (a retransmission's
    # timing alone does not say it was a timeout).
    _, xrows = explain_run(path, explain_preset or presets[0], flow)
    rtos, probes = [0] * len(conns), [0] * len(conns)
    for r in xrows:
        if r.get("verdict") in ("matched", "late"):
            rtos[r["conn"]] += r.get("cause") == "rto"
            probes[r["conn"]] += r.get("cause") in ("probe_new", "probe_retransmit")
    rows, paths, scenarios = [], [], {}
    for ci, conn in enumerate(conns):
        p = infer(conn)
        paths.append(p)
        rows.append({"conn": ci, "flow": p["flow"], "source": "capture", "fct_ms": p["fct_ms"],
                     "retransmits": p["retransmits"], "rtos": rtos[ci], "spurious": p["spurious"],
                     "tlp_probes": probes[ci], "ambiguous": len(p["ambiguous"])})
        for preset in presets:
            text = scenario(p, preset)
            scenarios[(ci, preset)] = text
            f = run(text).flows.iloc[0]
            rows.append({"conn": ci, "flow": p["flow"], "source": preset, "fct_ms": f.fct_ms,
                         "retransmits": int(f.retransmits), "rtos": int(f.rtos),
                         "spurious": int(f.dsacks), "tlp_probes": int(f.tlp_probes),
                         "ambiguous": None})
    df = pd.DataFrame(rows, columns=["conn", "flow", "source", "fct_ms", "retransmits", "rtos",
                                     "spurious", "tlp_probes", "ambiguous"])
    df.attrs["paths"] = paths
    df.attrs["scenarios"] = {f"{c}:{p}": t for (c, p), t in scenarios.items()}
    return df


def table(df: Any) -> str:
    """The side-by-side table the CLI prints: per connection, the inferred path, the
    capture's row and each preset's, then the ambiguous packets and notes."""
    cols = ["source", "fct_ms", "retransmits", "rtos", "spurious", "tlp_probes"]
    out = []
    for ci, p in enumerate(df.attrs["paths"]):
        d = df[df.conn == ci]
        out.append(f"[{ci}] {p['flow']}: rtt {p['rtt_ms']} ms, rate {p['rate_mbps']} Mb/s, "
                   f"delayed ACKs {p['delayed_ack_ms']} ms, {len(p['drops'])} drops of "
                   f"{len(p['fates'])} transmissions, {len(p['ack_drops'])} ACK drops, {p['bytes']} bytes")
        out.append("    " + "".join(f"{c:>13}" for c in cols))
        for _, r in d.iterrows():
            cells = []
            for c in cols:
                v = r[c]
                text = "-" if v is None or v != v else (
                    f"{v:.3f}" if c == "fct_ms" else (v if c == "source" else str(int(v))))
                cells.append(f"{text:>13}")
            out.append("    " + "".join(cells))
        for a in p["ambiguous"]:
            out.append(f"    ambiguous: [{a['start']}, {a['end']}) transmission {a['transmission']}: "
                       f"taken as {a['reading']}")
        for n in p["notes"]:
            out.append(f"    note: {n}")
    return "\n".join(out)
