"""tlp, §5's last table: FlightSize and cwnd (segments) at the loss probes of the TLP arm.

Seed 000: "we report some measurements from TCP's internal state variables at the point
when a probe segment is transmitted. The following distribution shows the FlightSize and
congestion window values when a PTO is scheduled" — 10/25/50/75/90/99th percentiles,
FlightSize 1 1 2 3 10 20, cwnd 5 10 10 10 17 44.

We measure at the probe's transmission (the trace's `loss_probe` event), from the traces
`web.traced` already runs: FlightSize = (highest byte sent − cumulative ACK) / MSS,
rounded up, as RFC 5681 defines it (SACKed bytes are still in flight there); cwnd = the
cwnd the last ACK left (the trace records the sender's window on ACKs; no ACK arrives
between the last one and the PTO, or the PTO would have been re-armed), before the
probe's own transmission. MSS is the flow's largest data segment.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Verdict, style
from lossrec.lab.tail import is_data_send

from . import web

#: The seed's percentiles and values (segments).
PCTS = [10, 25, 50, 75, 90, 99]
SEED_FLIGHT = [1, 1, 2, 3, 10, 20]
SEED_CWND = [5, 10, 10, 10, 17, 44]


def at_probes(records: Iterable[Mapping[str, Any]], initial_cwnd_bytes: int = 0) -> List[Tuple[int, int]]:
    """(FlightSize, cwnd) in segments at each `loss_probe` event of a trace, per flow.

    A flow's state before its first ACK carries `initial_cwnd_bytes` as its cwnd."""
    high: Dict[int, int] = {}
    una: Dict[int, int] = {}
    cwnd: Dict[int, int] = {}
    mss: Dict[int, int] = {}
    out: List[Tuple[int, int]] = []
    for r in records:
        f = r.get("flow", 0)
        kind = r.get("kind")
        if kind == "send" and is_data_send(r):
            s, e = r["seq"]
            high[f] = max(high.get(f, 0), e)
            mss[f] = max(mss.get(f, 0), e - s)
        elif kind == "ack" and "cwnd" in r:
            una[f] = max(una.get(f, 0), r["ack"])
            cwnd[f] = r["cwnd"]
        elif kind == "event" and r.get("name") == "loss_probe" and mss.get(f):
            m = mss[f]
            flight = max(high.get(f, 0) - una.get(f, 0), 0)
            out.append((-(-flight // m), -(-cwnd.get(f, initial_cwnd_bytes) // m)))
    return out


def summarize(records: List[Mapping[str, Any]]) -> Dict[str, Any]:
    """The per-run part `web.traced` keeps: the probes' (FlightSize, cwnd) pairs."""
    return {"pto_state": at_probes(records)}


def pairs(traced: pd.DataFrame) -> np.ndarray:
    """All (FlightSize, cwnd) pairs of the traced runs, as an (n, 2) array."""
    rows = [p for ps in traced.get("pto_state", []) for p in ps]
    return np.asarray(rows, dtype=float).reshape(-1, 2)


def table(traced: pd.DataFrame) -> pd.DataFrame:
    """Percentiles (rows) of FlightSize and cwnd, ours beside the seed's."""
    a = pairs(traced)
    ours = np.percentile(a, PCTS, axis=0) if len(a) else np.full((len(PCTS), 2), np.nan)
    return pd.DataFrame({"pct": PCTS, "flight": ours[:, 0], "cwnd": ours[:, 1],
                         "seed_flight": SEED_FLIGHT, "seed_cwnd": SEED_CWND})


def figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    tr = web.traced(ctx)
    t = table(tr)
    fig, ax = style.figure((6.4, 3.6))
    x = np.arange(len(PCTS))
    ax.plot(x, t["seed_flight"], "o--", color=style.arm_style(1)["color"], label="FlightSize, seed")
    ax.plot(x, t["flight"], "o-", color=style.arm_style(0)["color"], label="FlightSize, ours")
    ax.plot(x, t["seed_cwnd"], "s--", color=style.arm_style(3)["color"], label="cwnd, seed")
    ax.plot(x, t["cwnd"], "s-", color=style.arm_style(2)["color"], label="cwnd, ours")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{p}th" for p in PCTS])
    ax.set_yscale("log")
    ax.set_ylabel("segments")
    ax.set_title("§5: FlightSize and cwnd at the loss probes (TLP arm)")
    style.legend(ax, loc="upper left", fontsize=8)
    n = len(pairs(tr))
    return fig, (f"Percentiles of FlightSize and cwnd (segments) at the {n} loss probes of the "
                 "traced TLP arm (all applications, receivers and RTTs pooled), beside the seed's")


def claims(traced: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    a = pairs(traced)
    out = []
    c = published["pto_cwnd_not_limiting"]
    if len(a) < c["min_probes"]:
        reason = f"only {len(a)} loss probes traced (minimum {c['min_probes']})"
        return [Verdict.not_comparable("pto_cwnd_not_limiting", reason),
                Verdict.not_comparable("pto_flightsize_cwnd_percentiles", reason)]
    within = float((a[:, 0] < a[:, 1]).mean() * 100)
    out.append(Verdict.judge(
        "pto_cwnd_not_limiting", within >= c["min_share_pct"],
        f"{within:.1f} % of {len(a)} probes sent with FlightSize < cwnd",
        "short responses run out of data long before their window: TLP probes are "
        "application-limited tails"))
    c = published["pto_flightsize_cwnd_percentiles"]
    t = table(traced)
    f = float(c["factor"])

    def near(ours: float, seed: float) -> bool:
        return seed / f - 1e-9 <= max(ours, 0.0) <= seed * f + 1e-9

    ok = all(near(o, s) for o, s in zip(t["flight"], t["seed_flight"])) and \
        all(near(o, s) for o, s in zip(t["cwnd"], t["seed_cwnd"]))
    ours = ("FlightSize " + " ".join(f"{v:g}" for v in t["flight"]) + "; cwnd "
            + " ".join(f"{v:g}" for v in t["cwnd"]) + f" (percentiles {PCTS}, {len(a)} probes)")
    out.append(Verdict.judge(
        "pto_flightsize_cwnd_percentiles", ok, ours,
        "FlightSize follows our response sizes and where in them the losses fall; cwnd "
        "follows our initial window (10) and how far responses grow it"))
    return out
