"""rack: seed 001 slide 7's second and third builds (issue 25 item 5), each a scenario made
from the slide's words and judged on its traced run:

* ``slide7_second_probe`` (slide7-probe-lost.toml): segments 4-10 lost and the first loss
  probe lost too — "ACK of 2nd loss probe triggers RACK to retransmit the rest";
* ``slide7_reo_timer`` (slide7-reo-timer.toml): segments 4-9 lost, 10 delivered — "RACK
  reo_timer fires after RTT/4 to retransmit the rest" (RFC 8985 §6.2 step 4: with no
  reordering seen and fewer than DupThresh segments SACKed outside recovery, reo_wnd is
  min_RTT/4; §6.3: a segment not yet past it is re-checked when the reorder timer fires).

The first build (the probe's ACK triggers RACK at once) is ``slide7_no_rto`` (examples.py).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

from lossrec.lab import Verdict

PROBES = ("probe_new", "probe_retransmit")
#: Data sends that are not retransmissions.
FIRST = ("new", "limited_transmit")


def _examples() -> Any:
    return sys.modules[f"{__package__}.examples"]


def _run(ctx: Any, scenario: str) -> Dict[str, Any]:
    key = f"slide7:{scenario}"
    if key not in ctx.cache:
        ctx.cache[key] = _examples()._run(ctx, scenario, {})
    return ctx.cache[key]


def _sends(run: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [r for r in run["records"] if r.get("flow", 0) == 0 and r.get("kind") == "send"
            and r.get("seq") and r["seq"][1] > r["seq"][0]]


def _acks(run: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [r for r in run["records"] if r.get("flow", 0) == 0 and r.get("kind") == "ack"
            and not r.get("syn")]


def _fct(run: Dict[str, Any]) -> Optional[float]:
    f = run["flow"].get("fct_ms")
    return float(f) if f is not None else None


def second_probe(ctx: Any) -> Verdict:
    """Two probes before any timeout; the first retransmission after the ACK that answers
    the second is RACK's; no RTO."""
    run = _run(ctx, "slide7-probe-lost.toml")
    probes = [r for r in _sends(run) if r["why"] in PROBES]
    rtos = int(run["flow"]["rtos"])
    after: Optional[Dict[str, Any]] = None
    if len(probes) >= 2:
        ack = next((a for a in _acks(run) if a["t_us"] > probes[1]["t_us"]), None)
        if ack is not None:
            after = next((s for s in _sends(run) if s["t_us"] >= ack["t_us"]
                          and s["why"] not in FIRST), None)
    ok = len(probes) >= 2 and after is not None and after["why"] == "rack" and rtos == 0 \
        and _fct(run) is not None
    sent = ", ".join(f"{p['why']} at {p['t_us'] / 1000:.0f} ms" for p in probes) or "none"
    ours = (f"probes: {sent}; after the second probe's ACK the first retransmission is "
            f"{after['why'] if after else '—'}; {rtos} RTO; done in "
            + (f"{_fct(run):.0f} ms" if _fct(run) is not None else "— (unfinished)"))
    why = ("the second probe's SACK shows 4-10 missing below it and RACK marks them lost" if ok
           else "RFC 8985 §7.3: after a probe the sender arms the RTO, not another probe, so "
           "a lost probe is repaired by the timeout; the slide (2016, draft-era TLP) draws a "
           "second probe" if len(probes) < 2 else "the repair did not go as the slide draws")
    return Verdict.judge("slide7_second_probe", ok, ours, why)


def reo_timer(ctx: Any, c: Dict[str, Any]) -> Verdict:
    """The first retransmission is RACK's, sent by the reorder timer min_RTT/4 after the ACK
    that SACKed segment 10."""
    run = _run(ctx, "slide7-reo-timer.toml")
    ack = next((a for a in _acks(run) if a.get("sack")), None)
    retx = next((s for s in _sends(run) if s["why"] not in FIRST), None)
    rtos = int(run["flow"]["rtos"])
    min_rtt = float(run["handshake_rtt_us"] or 0)
    if ack is None or retx is None or not min_rtt:
        return Verdict.judge("slide7_reo_timer", False, "no SACK or no retransmission",
                             "the scenario did not produce the slide's situation")
    gap = retx["t_us"] - ack["t_us"]
    by_timer = (ack.get("timer") == "reo_timeout" and retx["t_us"] == ack.get("timer_at_us")
                and not any(a["t_us"] == retx["t_us"] for a in _acks(run)))
    want = min_rtt / 4
    ok = (retx["why"] == "rack" and by_timer and abs(gap - want) <= want * c["tolerance_pct"] / 100
          and rtos == 0 and _fct(run) is not None)
    ours = (f"first retransmission: {retx['why']} {gap / 1000:.1f} ms after the ACK that SACKed "
            f"segment 10 (min_RTT/4 = {want / 1000:.1f} ms; timer armed by that ACK: "
            f"{ack.get('timer')}, reo_wnd {float(ack.get('reo_wnd_us') or 0) / 1000:.1f} ms); "
            f"{rtos} RTO")
    why = ("one segment SACKed, no reordering seen, not in recovery: reo_wnd = min_RTT/4 "
           "(RFC 8985 §6.2 step 4), so 4-9 wait for the reorder timer (§6.3)" if ok else
           "the repair did not wait for the reorder timer as the slide draws")
    return Verdict.judge("slide7_reo_timer", ok, ours, why)


def claims(published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    """The two builds' verdicts."""
    return [second_probe(ctx), reo_timer(ctx, published["slide7_reo_timer"])]
