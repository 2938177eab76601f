"""rtor: seed 002 — RTO Restart against the baseline and TLP.

Items (issue #7): 1. 10-segment flows, last segment dropped, RTT 10–640 ms, each arm with
and without delayed ACKs; 2. 0–5 consecutive tail losses at 80 ms; 3. realistic tail loss
over a bottleneck shared with bursty heavy-tailed background traffic; 4. web page
downloads (a light and a heavy page) under Gilbert-Elliott loss. Figures and verdicts live
beside this file (`figures.py`, `verdicts.py`); `arms.py` names the arms.
"""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from lossrec.lab.studies import sibling
from lossrec.lab import Sweep, Verdict



def _sibling(name: str) -> Any:
    """Imports a helper module of this study folder (studies are loaded by path)."""
    return sibling(__file__, name)


arms = _sibling("arms")
figures = _sibling("figures")
verdicts = _sibling("verdicts")
vstlp = _sibling("vstlp")

TITLE = "RTO Restart vs the baseline and TLP"
SEED = "002"
SUMMARY = """
Seed 002 proposes RTO Restart (RTOR, RFC 7765): on each ACK the retransmission timer is
re-armed to RTO − T_earliest (T_earliest: the time since the earliest outstanding segment
was sent) while fewer than rrthresh segments are outstanding or unsent, so that a tail
loss is retransmitted RTO after it was sent instead of RTO + RTT. It compares Linux 3.17
without TLP (the baseline), with RTOR, and with TLP, on controlled tail drops (FCT vs RTT
and vs the number of segments lost), on short and long flows over a link shared with
Tmix background traffic, and on web page downloads. This study runs the three arms as
presets `linux-3.17`, `linux-3.17-rtor` and `linux-3.17-tlp` in the simulator over the
same four setups, with quick ACKs and with 40 ms delayed ACKs ("(d)").
"""
NOTES = """
* **Arms** are the engine presets named after the seed: `linux-3.17` (FACK, PRR, CUBIC,
  Linux RTT estimator and 200 ms minimum RTO, delayed early retransmit,
  `tcp_early_retrans = 2`, no TLP), `linux-3.17-rtor` (the same with RTO Restart,
  rrthresh 4) and `linux-3.17-tlp` (`tcp_early_retrans = 3`: TLP with that kernel's PTO
  rule). A preset missing from the engine makes the claims that need it *not comparable*.
* **Controlled tail loss** (items 1–2) uses classic-baseline's scenario at 100 Mb/s (the
  seed does not give the rate; at classic-baseline's 10 Mb/s the burst's 10.8 ms of
  serialisation adds to what RTOR saves, more than an RTT at low RTTs), 100 packets of buffer, handshake included in the FCT, the last K segments' first
  transmissions dropped; delayed ACKs are 40 ms with the quick-ACK phase off, so that the
  (d) arms really delay. Nothing is random: one repetition per point.
* **Realistic tail loss** (item 3): the seed's Tmix background (replayed TCP
  connections) is replaced by the simulator's `[[background]]` bursts: Poisson arrivals of
  Pareto-sized (shape 1.2, mean 60 kB) bursts sent at 100 Mb/s into a 10 Mb/s bottleneck
  with a 30-packet buffer, 70 % load on average. The background is not TCP, so it does not
  back off; it makes the buffer overflow in bursts, which is what produces the measured
  flows' tail losses and RTT variation. The measured flows (4 segments at 10 and 320 ms
  base RTT, 100 segments at 320 ms) arrive as a Poisson process, 2 per second; the same
  seeds in every arm, so the same background.
* **Web pages** (item 4): a page is fetched over six parallel connections (the seed's
  browser limit per domain), each carrying its share of the objects one after the other;
  object sizes are lognormal (σ = 1) with the page's mean. The seed's HTML-first
  dependency and its real object lists are not modelled. OCT is measured from the
  request's arrival at the server (our request-response workload), i.e. half an RTT less
  than from the client's request: it shifts every arm equally. The seed selects objects
  with a retransmission among their last four segments; our per-object results give the
  retransmission count but not its position, so the CDFs take **objects with at least one
  retransmission** — a superset, which dilutes RTOR's (tail-only) gain.
* **Spurious retransmissions** are DSACKed retransmissions: the receiver's DSACK blocks
  counted at the sender (`dsacks`) over all data segments sent (`data_packets_sent`).
* **RTOR vs TLP at 320 ms** (`vstlp.py`) reads the realistic runs' 4-segment flows at
  320 ms with a retransmission in some arm, paired by flow: TLP's FCT quantile minus
  RTOR's at each level 1-99 %.
"""

QUICK = {"rtts": [10, 80, 640], "ks": [1, 2, 4], "real_flows": 200, "real_reps": 5,
         "long_flows": 20, "web_rtts": [80], "web_reps": 5, "heavy_reps": 5}
FULL = {"rtts": [10, 20, 40, 80, 160, 320, 640], "ks": [1, 2, 3, 4, 5], "real_flows": 2000,
        "real_reps": 10, "long_flows": 150, "web_rtts": [10, 20, 40, 80, 160],
        "web_reps": 300, "heavy_reps": 60}
DELACK_MS = [0, 40]
K_RTT = 80


def sweeps(quick: bool) -> List[Sweep]:
    p = QUICK if quick else FULL
    presets = arms.available() or [arms.FALLBACK]
    common = {"sender.preset": presets, "receiver.delayed_ack_ms": DELACK_MS}
    out = [
        # Item 1: K = 1 at every RTT; item 2: K = 0..5 at 80 ms.
        Sweep("tail-loss.toml", {**common, "path.rtt_ms": p["rtts"], "path.loss.count": [1]},
              labels={"item": "tail"}),
        Sweep("tail-loss.toml", {**common, "path.rtt_ms": [K_RTT],
                                 "path.loss.count": [k for k in p["ks"] if k != 1]},
              labels={"item": "tail"}),
        Sweep("no-loss.toml", {**common, "path.rtt_ms": sorted(set(p["rtts"]) | {K_RTT})},
              labels={"item": "tail", "path.loss.count": 0}),
        # Item 3: realistic tail loss.
        Sweep("realistic.toml", {"sender.preset": presets, "path.rtt_ms": [10, 320],
                                 "workload.flows": [p["real_flows"]]},
              reps=p["real_reps"], common_seeds=True, details=True,
              labels={"item": "realistic", "workload.segments": 4}),
        Sweep("realistic.toml", {"sender.preset": presets, "path.rtt_ms": [320],
                                 "workload.segments": [100],
                                 "workload.flows": [p["long_flows"]]},
              reps=p["real_reps"], common_seeds=True, details=True,
              labels={"item": "realistic"}),
        # Item 4: web pages.
        Sweep("web-light.toml", {"sender.preset": presets, "path.rtt_ms": p["web_rtts"]},
              reps=p["web_reps"], common_seeds=True, details=True,
              labels={"item": "web", "page": "light"}),
        Sweep("web-heavy.toml", {"sender.preset": presets, "path.rtt_ms": p["web_rtts"]},
              reps=p["heavy_reps"], common_seeds=True, details=True,
              labels={"item": "web", "page": "heavy"}),
    ]
    return out


def prepare(df: pd.DataFrame) -> pd.DataFrame:
    df = df.rename(columns={"path.loss.count": "K", "path.rtt_ms": "rtt_ms"})
    preset = df["sender.preset"].astype(str)
    name = preset.map(lambda p: arms.NAMES.get(p, p))
    delack = df["receiver.delayed_ack_ms"] if "receiver.delayed_ack_ms" in df else 0
    delack = pd.Series(delack, index=df.index).fillna(0).astype(int)
    df["arm"] = [f"{n}(d)" if (d and it == "tail") else n
                 for n, d, it in zip(name, delack, df["item"])]
    df["base_arm"] = name
    return df


FIGURES = {**figures.FIGURES, "rtor-vs-tlp-320ms": vstlp.figure}


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    return verdicts.claims(df, published, ctx) + vstlp.claims(df, published)


def sections(df: pd.DataFrame, ctx: Any):
    return verdicts.sections(df, ctx)
