"""prr, items 2–4: the seed's time-sequence examples, traced and measured.

Every number here is computed from the simulator's trace: the `ack` lines carry the
sender's cwnd, pipe, ssthresh and state after processing the ACK (and PRR's prr_delivered,
prr_out, SndCnt and bound during recovery); the `send` lines that follow an ACK at the
same instant are what it let out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import lossrec
from lossrec.lab import point_scenario

ARMS = ("rfc3517", "linux-rh", "prr")
LABEL = {"rfc3517": "RFC 3517", "linux-rh": "Linux (rate-halving)", "prr": "PRR"}
MSS = 1000
RTT_MS = 100.0
#: "Segments 1-4 and 11-16 dropped" (1-based on the slide).
HEAVY_DROPS = [0, 1, 2, 3, 10, 11, 12, 13, 14, 15]
SEED_WRITES = [[0, 20000], [500, 10000]]
RESUME_MS = 275
BANKED_WRITES = [[0, 20000], [RESUME_MS, 10000]]
STEADY_WRITES = [[0, 30000]]


@dataclass
class AckStep:
    """One ACK at the sender and what it let out."""

    t: float  # ms
    ack: int
    sack: List[List[int]]
    cwnd: float  # segments
    pipe: float
    ssthresh: Optional[float]
    state: str
    bound: str = ""
    sndcnt: float = 0.0
    prr_delivered: float = 0.0
    prr_out: float = 0.0
    sent: int = 0  # data segments sent in response
    sent_bytes: int = 0
    retx: int = 0
    #: Something was waiting to be sent as the ACK was processed: a segment marked lost
    #: and not yet retransmitted, or application data not yet sent.
    pending: bool = False


@dataclass
class Run:
    name: str
    writes: List[List[int]]
    records: List[Dict[str, Any]]
    flow: Dict[str, Any]
    recoveries: List[Dict[str, Any]]
    steps: List[AckStep] = field(default_factory=list)
    sends: List[Dict[str, Any]] = field(default_factory=list)

    def recovery_steps(self) -> List[AckStep]:
        return [s for s in self.steps if s.state == "recovery"]

    def exit_cwnd(self) -> Optional[float]:
        for r in self.records:
            if r.get("kind") == "event" and r.get("name") == "exit_recovery":
                return r["cwnd"] / MSS
        return None

    def ssthresh(self) -> Optional[float]:
        rec = self.recovery_steps()
        return rec[-1].ssthresh if rec else None


def run(ctx: Any, preset: str, cc: str = "reno", drops: Sequence[int] = (0, 1, 2, 3),
        writes: Sequence[Sequence[int]] = SEED_WRITES) -> Run:
    """A traced run of example.toml (cached per arguments)."""
    key = ("example", preset, cc, tuple(drops), tuple(map(tuple, writes)))
    if key in ctx.cache:
        return ctx.cache[key]
    text = point_scenario(ctx.scenario("example.toml"), {
        "sender.preset": preset, "sender.cc": cc, "path.loss.packets": list(drops),
        "workload.writes": [list(w) for w in writes]})
    res = lossrec.run(text, trace=True)
    r = Run(f"{preset}/{cc}", [list(w) for w in writes], res.trace_records,
            res.json["flows"][0], res.json["recoveries"])
    _steps(r)
    ctx.cache[key] = r
    return r


def _steps(r: Run) -> None:
    cur: Optional[AckStep] = None
    lost: Dict[int, int] = {}  # start → end of segments marked lost, not yet resent
    snd_nxt = 0
    judged = True

    def judge(step: AckStep, t: float) -> None:
        written = sum(b for at, b in r.writes if at <= t + 1e-9)
        step.pending = bool(lost) or written > snd_nxt

    for rec in r.records:
        k = rec.get("kind")
        t = rec["t_us"] / 1000.0
        if cur is not None and not judged and (k == "ack" or abs(cur.t - t) > 1e-9):
            judge(cur, cur.t)
            judged = True
        if k == "event" and rec.get("name") == "mark_lost":
            lost[rec["start"]] = rec["end"]
        if k == "ack" and "cwnd" in rec:
            ss = rec.get("ssthresh")
            cur = AckStep(t, rec["ack"], rec.get("sack") or [], rec["cwnd"] / MSS,
                          rec["pipe"] / MSS, None if ss is None else ss / MSS, rec["state"],
                          rec.get("bound", ""), rec.get("sndcnt", 0) / MSS,
                          rec.get("prr_delivered", 0) / MSS, rec.get("prr_out", 0) / MSS)
            r.steps.append(cur)
            judged = False
        elif k == "send":
            lo, hi = rec["seq"]
            if hi <= lo:
                continue
            if cur is not None and not judged and abs(cur.t - t) < 1e-9:
                judge(cur, t)
                judged = True
            for a in [a for a, b in lost.items() if lo <= a < hi]:
                del lost[a]
            snd_nxt = max(snd_nxt, hi)
            r.sends.append(rec)
            if cur is not None and abs(cur.t - t) < 1e-9:
                cur.sent += 1
                cur.sent_bytes += hi - lo
                cur.retx += rec.get("why") not in ("new", "limited_transmit")
        elif k in ("recv", "drop"):
            continue
        elif cur is not None and abs(cur.t - t) > 1e-9:
            cur = None  # a later input: sends from here on answer it, not the ACK


# ---------------------------------------------------------------------------- measures


def recovery_round(r: Run) -> List[AckStep]:
    """The recovery ACKs before the first one that advances the cumulative ACK."""
    rec = r.recovery_steps()
    if not rec:
        return []
    una = rec[0].ack
    return [s for s in rec if s.ack == una]


def silence(r: Run) -> Dict[str, float]:
    """The longest run of ACKs after the fast retransmit, in the first recovery round,
    that let nothing out although something was waiting to be sent (a segment marked
    lost, or new data): in ACKs, as a share of the round's ACKs after the fast
    retransmit, and in ms (from the last send before the run to the send that ends it)."""
    rnd = recovery_round(r)
    later = rnd[1:]
    best, run_len, best_ms = 0, 0, 0.0
    last_send_t = rnd[0].t if rnd else 0.0
    for s in later:
        if s.sent == 0 and s.pending:
            run_len += 1
            best = max(best, run_len)
        else:
            if s.sent and run_len:
                best_ms = max(best_ms, s.t - last_send_t)
            run_len = 0
        if s.sent:
            last_send_t = s.t
    return {"acks": best, "share": best / len(later) if later else float("nan"),
            "ms": best_ms, "round": len(later)}


def max_burst(r: Run) -> int:
    return max((s.sent for s in r.recovery_steps()), default=0)


def prr_out_ok(r: Run) -> bool:
    """prr_out after the sends an ACK allowed ≤ 2 · prr_delivered, on every recovery ACK."""
    return all(s.prr_out + s.sent_bytes / MSS <= 2 * s.prr_delivered + 1e-9
               for s in r.recovery_steps())


def summary(ctx: Any, cc: str = "reno") -> Dict[str, Dict[str, Any]]:
    """Per arm: silence, burst, cwnd at exit, ssthresh, FCT of the example."""
    out = {}
    for arm in ARMS:
        r = run(ctx, arm, cc)
        out[arm] = {"silence": silence(r), "burst": max_burst(r), "exit_cwnd": r.exit_cwnd(),
                    "ssthresh": r.ssthresh(), "fct_ms": r.flow["fct_ms"],
                    "sent_in_recovery": sum(s.sent for s in r.recovery_steps())}
    return out


def heavy(ctx: Any) -> Dict[str, Any]:
    """PRR under heavy losses: the bound on every recovery ACK around the second burst."""
    r = run(ctx, "prr", drops=HEAVY_DROPS)
    # The second series is revealed by the first SACK of data above it.
    edge = (HEAVY_DROPS[-1] + 1) * MSS
    rec = r.recovery_steps()
    idx = next((i for i, s in enumerate(rec) if any(b[0] >= edge for b in s.sack)), None)
    before = rec[:idx] if idx is not None else rec
    after = rec[idx:] if idx is not None else []
    prev_delivered = 0.0
    slow = []
    for s in rec:
        delivered = s.prr_delivered - prev_delivered
        prev_delivered = s.prr_delivered
        if s in after and "d" in s.bound and s.sent > delivered + 1e-9:
            slow.append((s, delivered))
    return {"run": r, "detected_at": after[0].t if after else None, "before": before,
            "after": after, "slow": slow,
            "before_proportional": bool(before) and all(s.bound == "p" for s in before),
            "after_pipe_le_ss": bool(after) and all(s.pipe <= (s.ssthresh or 0) for s in after),
            "after_bounds": [s.bound for s in after]}


def banking(ctx: Any, preset: str = "prr") -> Dict[str, Any]:
    """The paused application vs the same run with all data written at once."""
    paused = run(ctx, preset, writes=BANKED_WRITES)
    steady = run(ctx, preset, writes=STEADY_WRITES)
    at_resume = [s for s in paused.sends if abs(s["t_us"] / 1000.0 - RESUME_MS) < 1e-9]
    in_recovery = any(s.t <= RESUME_MS for s in paused.recovery_steps()) and any(
        s.t >= RESUME_MS for s in paused.recovery_steps())

    def sent_by(r: Run, t: float) -> int:
        """Segments sent in recovery up to time t (inclusive)."""
        rec = r.recovery_steps()
        if not rec:
            return 0
        t0 = rec[0].t
        return sum(1 for x in r.sends if t0 <= x["t_us"] / 1000.0 <= t)

    times = sorted({float(RESUME_MS)} | {s.t for s in paused.recovery_steps() if s.t >= RESUME_MS})
    rows = [(t, sent_by(paused, t), sent_by(steady, t)) for t in times]
    mismatch = [row for row in rows if row[1] != row[2]]
    return {"paused": paused, "steady": steady, "burst": len(at_resume),
            "in_recovery": in_recovery, "compared": len(rows), "mismatch": mismatch,
            "rows": rows}
