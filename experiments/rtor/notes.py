"""rtor: the report's Notes on the three setups, written from the run itself (issue 25
item 6, as rack's notes.py): the scenario files as they were read, the points and
repetitions that ran, and what they measured — so the Notes cannot describe an older
setup than the one judged."""

from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from lossrec.scenario import _toml_loads


def _toml(ctx: Any, name: str) -> Dict[str, Any]:
    return _toml_loads(ctx.scenario(name).read_text(encoding="utf-8"))


def _values(d: pd.DataFrame, col: str) -> str:
    vals = sorted(d[col].dropna().unique().tolist()) if col in d else []
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in vals) or "—"


def _reps(d: pd.DataFrame) -> int:
    return int(d["rep"].nunique()) if "rep" in d and len(d) else 0


def _item(df: pd.DataFrame, item: str) -> pd.DataFrame:
    return df[df["item"] == item] if "item" in df else df.iloc[0:0]


def _retx_share(d: pd.DataFrame) -> str:
    return f"{100 * float((d['retransmits'] > 0).mean()):.1f} %" if len(d) and "retransmits" in d else "—"


def controlled_bullet(df: pd.DataFrame, ctx: Any) -> str:
    """Items 1-2 as run: tail-loss.toml's path and the swept RTTs and K."""
    d = _item(df, "tail")
    sc = _toml(ctx, "tail-loss.toml")
    p, wl = sc["path"], sc["workload"]
    return (
        f"* **Controlled tail loss as run** (items 1–2, tail-loss.toml): {wl['segments']}-segment "
        f"flows over {p['rate_mbps']:g} Mb/s with a {p['queue_packets']}-packet buffer (the seed "
        f"does not give the rate; a slower link's serialisation of the burst adds to what RTOR "
        f"saves), handshake included in the FCT, the last K segments' first transmissions "
        f"dropped; RTT {_values(d, 'rtt_ms')} ms, K {_values(d, 'K')}, delayed ACKs "
        f"{_values(d, 'receiver.delayed_ack_ms')} ms with the quick-ACK phase off (so the (d) "
        f"arms really delay). Nothing is random: one repetition per point ({len(d):,} flows).")


def realistic_bullet(df: pd.DataFrame, ctx: Any) -> str:
    """Item 3 as run: realistic.toml's bottleneck and background, and the share of the
    measured flows that retransmitted."""
    d = _item(df, "realistic")
    sc = _toml(ctx, "realistic.toml")
    p, wl = sc["path"], sc["workload"]
    bg = (sc.get("background") or [{}])[0]
    load = bg.get("rate_per_s", 0) * bg.get("mean_bytes", 0) * 8 / 1e6 / p["rate_mbps"]
    seg = d["workload.segments"] if "workload.segments" in d else pd.Series(dtype=float)
    shares = ", ".join(
        f"{int(s)} segments at {r:g} ms {_retx_share(g)}"
        for (s, r), g in d.groupby([seg, d["rtt_ms"]], observed=True)) if len(d) else "—"
    return (
        f"* **Realistic tail loss as run** (item 3, realistic.toml): the seed's Tmix background "
        f"is replaced by the simulator's `[[background]]` {bg.get('kind', '—')}: "
        f"{bg.get('arrival', 'Poisson')} arrivals ({bg.get('rate_per_s', 0)}/s) of "
        f"{bg.get('size_dist', '—')}-sized (shape {bg.get('shape', '—')}, mean "
        f"{bg.get('mean_bytes', 0) / 1000:g} kB) bursts sent at {bg.get('rate_mbps', 0):g} Mb/s into "
        f"a {p['rate_mbps']:g} Mb/s bottleneck with a {p['queue_packets']}-packet buffer, "
        f"{100 * load:.0f} % load on average. It is not TCP and does not back off; it overflows "
        f"the buffer in bursts, which gives the measured flows their tail losses and RTT "
        f"variation. Measured flows arrive {wl.get('arrival', 'at once')} at "
        f"{wl.get('rate_per_s', '—')}/s; {_reps(d)} repetitions, the same seeds in every arm. "
        f"Flows with a retransmission in this run: {shares}.")


def web_bullet(df: pd.DataFrame, ctx: Any) -> str:
    """Item 4 as run: the two pages' files and how many objects retransmitted."""
    d = _item(df, "web")
    parts = []
    for page in ("light", "heavy"):
        wl = _toml(ctx, f"web-{page}.toml")["workload"]
        g = d[d["page"] == page] if "page" in d else d.iloc[0:0]
        parts.append(
            f"{page}: {wl['connections']} × {wl['requests']} = {wl['connections'] * wl['requests']} "
            f"objects ({wl['response_dist']}, σ {wl['response_sigma']}, mean "
            f"{wl['response_bytes'] / 1000:g} kB), {_reps(g)} page loads per point, "
            f"{_retx_share(g)} of {len(g):,} objects with a retransmission")
    return (
        f"* **Web pages as run** (item 4, RTT {_values(d, 'rtt_ms')} ms): a page is fetched over "
        f"parallel connections (the seed's browser limit per domain), each carrying its share "
        f"of the objects one after the other — " + "; ".join(parts) + ". The seed's HTML-first "
        "dependency and its real object lists are not modelled. OCT is measured from the "
        "request's arrival at the server (our request-response workload), i.e. half an RTT "
        "less than from the client's request: it shifts every arm equally. The seed selects "
        "objects with a retransmission among their last four segments; our per-object results "
        "give the retransmission count but not its position, so the CDFs take **objects with "
        "at least one retransmission** — a superset, which dilutes RTOR's (tail-only) gain.")


def bullets(df: pd.DataFrame, ctx: Any) -> List[str]:
    """The generated bullets, in the order the report shows them."""
    return [controlled_bullet(df, ctx), realistic_bullet(df, ctx), web_bullet(df, ctx)]
