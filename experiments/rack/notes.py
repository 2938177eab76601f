"""rack: the report's Notes on the workloads, written from the run itself (issue 25 item 6):
the scenario files as they were read, the points and repetitions that ran, and what they
measured — so the Notes cannot describe an older workload than the one judged."""

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


def web_bullet(df: pd.DataFrame, ctx: Any, web: Any) -> str:
    sc = _toml(ctx, web.SCENARIO)
    path, loss, wl = sc["path"], sc["path"]["loss"], sc["workload"]
    spikes, jitter = path.get("delay_spikes", {}), path.get("ack_jitter", {})
    bg = sc.get("background", [{}])[0]
    d = df[df["arm"].isin([a for a, _ in web.ARMS])]
    tot = web.totals(ctx)
    a, b = tot.loc[web.ARM_A], tot.loc[web.ARM_B]
    n_probes = max(int(b["probes_retransmit"]), 1)
    return (
        f"* **The web workload as run** ({web.SCENARIO}; ours, the seed gives no workload "
        f"numbers): {wl['kind']} connections of {wl['requests']} responses (lognormal, "
        f"{wl['response_bytes']:,} bytes median scale, σ {wl['response_sigma']}) over "
        f"{path['rate_mbps']} Mb/s with a {path['queue_packets']}-packet queue; RTT "
        f"{_values(d, 'path.rtt_ms')} ms × Windows-like (200 ms delayed ACK, no quick ACKs) and "
        f"Linux-like (40 ms, 16 quick ACKs) receivers, pooled with equal weight; "
        f"{wl['connections'] if not ctx.quick else _values(d, 'workload.connections')} connections "
        f"per point, {_reps(d)} repetitions, the arms on the same seeds. Loss: "
        f"{loss['model']} with bad periods starting with p {loss['p_good_bad']} per packet and "
        f"lasting {1 / loss['p_bad_good']:.0f} packets on average, losing "
        f"{loss['loss_bad'] * 100:.0f} % of them (counted in packets: when every connection backs "
        f"off, a bad period lasts as long as it takes that many packets to cross); ACK-path "
        f"jitter {jitter.get('dist', '—')} with mean {jitter.get('mean_ms', 0)} ms; delay spikes "
        f"of {spikes.get('extra_ms', 0)}-{spikes.get('extra_max_ms', 0)} ms every "
        f"{spikes.get('period_ms', 0) / 1000:g} s; responsive {bg.get('kind', '—')} background at "
        f"{bg.get('load', 0) * 100:.0f} % of the link. Measured in this run: arm A retransmitted "
        f"{a['retransmissions'] / max(a['data_segments'], 1) * 100:.1f} % of its data packets and "
        f"repaired {a['rto_episodes'] / max(a['fast_episodes'], 1):.1f}× as many losses by timeout as "
        f"by fast recovery (the calibration target, seed: 3.6×); arm B sent "
        f"{int(b['probes'])} loss probes, {int(b['probes_retransmit'])} of them retransmissions, "
        f"{b['probes_dsacked'] / n_probes * 100:.0f} % DSACKed.")


def long_transfer_bullets(df: pd.DataFrame, ctx: Any, bbr_label: str, reorder_label: str) -> List[str]:
    out = []
    s6 = df[df["arm"] == "slide 6"]
    if len(s6):
        sc = _toml(ctx, "random-loss.toml")
        mbps = (s6["bytes"] * 8 / s6["workload.duration_s"] / 1e6).groupby(
            [s6["sender.cc"], s6["sender.loss_detection"]], observed=True).mean()
        out.append(
            f"* **Slide 6 with CUBIC and Reno as run** (random-loss.toml): {sc['path']['rate_mbps']:,} Mb/s, "
            f"{sc['path']['rtt_ms']} ms, {_values(s6, 'workload.duration_s')} s per run, {_reps(s6)} "
            f"repetitions; mean throughput "
            + ", ".join(f"{cc}/{ld} {v:.2f} Mb/s" for (cc, ld), v in mbps.items()) + ".")
    bb = df[df["arm"] == bbr_label]
    if len(bb):
        sc = _toml(ctx, "random-loss-bbr.toml")
        out.append(
            f"* **Slide 6 with BBR as run** (random-loss-bbr.toml): {sc['path']['rate_mbps'] / 1000:g} Gb/s, "
            f"{sc['path']['rtt_ms']} ms, {_values(bb, 'workload.duration_s')} s per run, "
            f"{_reps(bb)} repetition(s) per arm.")
    ro = df[df["arm"] == reorder_label]
    if len(ro):
        sc = _toml(ctx, "reorder.toml")
        r = sc["path"]["reorder"]
        out.append(
            f"* **Reordering as run** (reorder.toml): {r['fraction'] * 100:g} % of data packets "
            f"{r['delay_ms']}-{r['delay_max_ms']} ms late on {sc['path']['rtt_ms']} ms, "
            f"{sc['path']['rate_mbps']} Mb/s, no loss; {_values(ro, 'workload.duration_s')} s per run, "
            f"{_reps(ro)} repetition(s) per arm.")
    return out
