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

from lossrec.lab import Sweep, Verdict



from . import arms
from . import figures
from . import verdicts
from . import vstlp
from . import notes as notes_mod

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
* **Spurious retransmissions** are DSACKed retransmissions: the receiver's DSACK blocks
  counted at the sender (`dsacks`) over all data segments sent (`data_packets_sent`).
* **RTOR vs TLP at 320 ms** (`vstlp.py`) reads the realistic runs' 4-segment flows at
  320 ms with a retransmission in some arm, paired by flow: TLP's FCT quantile minus
  RTOR's at each level 1-99 %.
"""


def notes(df: pd.DataFrame, ctx: Any) -> str:
    """The report's Notes: the three setups as this run ran and measured them (notes.py),
    then the design notes above."""
    return "\n".join(notes_mod.bullets(df, ctx)) + "\n" + NOTES.strip()


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
