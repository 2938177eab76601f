"""tlp: seed 000's worked examples — the §2.1 timeline and the §4.2 taxonomy — traced in
the simulator, and the engine's own vectors of both (``lossrec._core.tail_vectors()``)
when the binding exists."""

from __future__ import annotations


from typing import Any, Dict, List, Optional, Tuple

import lossrec
from lossrec import plot
from lossrec.lab import style
from lossrec.lab import point_scenario, tail

MSS = 1448
#: §4.2 rows: (label as printed, response segments, lost at its end)
ROWS = [("1", 4, 1), ("2", 4, 2), ("3", 4, 3), ("4", 4, 4), (">=5", 5, 5)]


def _first(recs: List[Dict[str, Any]], pred: Any) -> Optional[Dict[str, Any]]:
    return next((r for r in recs if pred(r)), None)


def example_runs(ctx: Any) -> List[Tuple[str, Dict[str, Any]]]:
    """§2.1 under tlp-draft and with probe = none: (label, {records, flow})."""
    if "s21" not in ctx.cache:
        out = []
        for label, ov in (("TLP draft (tlp-draft)", {}), ("baseline (probe = none)", {"sender.probe": "none"})):
            res = lossrec.run(point_scenario(ctx.scenario("example.toml"), ov), trace=True)
            out.append((label, {"records": res.trace_records, "flow": res.json["flows"][0]}))
        ctx.cache["s21"] = out
    return ctx.cache["s21"]


def taxonomy_rows(ctx: Any) -> List[Dict[str, Any]]:
    """§4.2 regenerated in the simulator: one dict per row, with the same fields as the
    engine's ``TaxonomyRow`` (losses, before, after_probe, mechanism, outcome, timeouts,
    tlp_recoveries) plus ``records``."""
    if "taxonomy" in ctx.cache:
        return ctx.cache["taxonomy"]
    rows = []
    for label, n, k in ROWS:
        text = point_scenario(ctx.scenario("taxonomy.toml"), {
            "workload.response_segments": n, "path.loss.packets": list(range(n - k, n))})
        res = lossrec.run(text, trace=True)
        recs = res.trace_records
        probe = _first(recs, lambda r: r.get("kind") == "send" and r.get("why") in tail.PROBES)
        after = ""
        if probe is not None:
            ack = _first(recs, lambda r: r.get("kind") == "ack" and r["t_us"] > probe["t_us"])
            after = tail.scoreboard(ack, n, MSS) if ack else ""
        names = [r.get("name") for r in recs if r.get("kind") == "event"]
        timeouts = names.count("rto")
        tlp_rec = names.count("tlp_recovery")
        # The same precedence as lossrec::vectors::tail's taxonomy_row.
        if timeouts:
            mech = "RTO"
        elif "early_retransmit" in names:
            mech = "early retransmit"
        elif "enter_recovery" in names:
            mech = "FACK fast recovery"
        elif tlp_rec:
            mech = "TLP loss detection"
        else:
            mech = "none"
        first = res.json["flows"][0]
        repaired = first.get("fct_ms") is not None and first["bytes"] == n * MSS and timeouts == 0
        rows.append({"row": label, "losses": k, "before": "A" * (n - k) + "L" * k,
                     "after_probe": after, "mechanism": mech,
                     "outcome": "all repaired" if repaired else "not repaired",
                     "timeouts": timeouts, "tlp_recoveries": tlp_rec, "records": recs})
    ctx.cache["taxonomy"] = rows
    return rows


def row_matches(published: Tuple[str, str, str, str, str], row: Dict[str, Any]) -> bool:
    """One published §4.2 row against a regenerated one; "≥ 5 L" / "..LS" mean at least
    five segments all lost, and after the probe the last SACKed, every other missing."""
    _, before, after, mech, outcome = published
    if before.startswith(">=5"):
        b = row["before"]
        a = row["after_probe"]
        shape = len(b) >= 5 and set(b) == {"L"} and a == "L" * (len(a) - 1) + "S"
    else:
        shape = row["before"] == before and row["after_probe"] == after
    return shape and row["mechanism"] == mech and row["outcome"] == outcome


#: Seed 000 §4.2 as printed (the engine's PUBLISHED_TAXONOMY).
PUBLISHED = [
    ("1", "AAAL", "AAAA", "TLP loss detection", "all repaired"),
    ("2", "AALL", "AALS", "early retransmit", "all repaired"),
    ("3", "ALLL", "ALLS", "early retransmit", "all repaired"),
    ("4", "LLLL", "LLLS", "FACK fast recovery", "all repaired"),
    (">=5", ">=5 L", "..LS", "FACK fast recovery", "all repaired"),
]


def taxonomy_markdown(ctx: Any, vectors: Optional[Dict[str, Any]]) -> str:
    """The §4.2 table: published, simulated and (when the binding exists) the engine's."""
    rows = taxonomy_rows(ctx)
    vrows = (vectors or {}).get("taxonomy") or [None] * len(rows)
    lines = ["| losses | published: scoreboard → after probe, mechanism | simulated | "
             "engine vector (lossrec::vectors::tail) | match |",
             "|---|---|---|---|---|"]
    for pub, sim, vec in zip(PUBLISHED, rows, vrows):
        v = (f"{vec['before']} → {vec['after_probe']}, {vec['mechanism']}, {vec['outcome']}"
             if vec else "binding missing")
        ok = row_matches(pub, sim) and (vec is None or row_matches(pub, vec))
        lines.append(f"| {pub[0]} | {pub[1]} → {pub[2]}, {pub[3]}, {pub[4]} | "
                     f"{sim['before']} → {sim['after_probe']}, {sim['mechanism']}, {sim['outcome']} | "
                     f"{v} | {'yes' if ok else 'NO'} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- figures


def _panels(title: str, arms: List[Tuple[str, Dict[str, Any]]]) -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(arms), 1, figsize=(11.5, 2.9 * len(arms) + 0.6), squeeze=False)
    handles: Dict[str, Any] = {}
    for ax, (label, run) in zip(axes[:, 0], arms):
        handles.update(plot.draw_flow(ax, [r for r in run["records"] if r.get("flow", 0) == 0]))
        ax.set_title(label, fontsize=9, loc="left")
        ax.set_ylabel("sequence (bytes)")
        ax.grid(True, alpha=0.3)
    return style.finish_panels(fig, axes, handles, title)


def s21_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    arms = []
    for label, run in example_runs(ctx):
        f = run["flow"]
        arms.append((f"{label}: {f['rtos']} RTO, {f['tlp_probes']} probe, done in {f['fct_ms']:.0f} ms", run))
    v = tail.engine_vectors()
    if v is not None:
        t = v["traces"]["tlp_draft_example"]
        arms.append((f"engine vector tlp_draft_example (1000-byte segments): {t['timeouts']} RTO, "
                     f"{t['loss_probes']} probe, done at {(t['finished_us'] or 0) / 1000:.0f} ms",
                     {"records": t["records"]}))
    fig = _panels("Seed 000 §2.1: segments 1-10 sent, 6-10 lost (100 ms RTT)", arms)
    xmax = max(r["flow"]["fct_ms"] for _, r in example_runs(ctx)) * 1.04
    for ax in fig.axes[: len(arms)]:
        ax.set_xlim(0, xmax)
    return fig, ("The §2.1 example as a time-sequence graph: with TLP the probe (diamond) "
                 "retransmits 10 two RTTs after the ACK of 5 and its SACK starts FACK recovery of "
                 "6-9; without TLP the timeout (200 ms minimum, Linux estimator) repairs them"
                 + ("; last, the engine's own worked example" if v is not None else ""))


def taxonomy_figure(df: Any, ctx: Any) -> Tuple[Any, str]:
    rows = taxonomy_rows(ctx)
    arms = []
    for r in rows:
        # The first response only: the second is there for TLP loss detection.
        end = 5 * MSS if r["row"] == ">=5" else 4 * MSS
        recs = [x for x in r["records"] if not (x.get("kind") in ("send", "recv", "drop")
                                                 and isinstance(x.get("seq"), list) and x["seq"][0] >= end)]
        arms.append((f"row {r['row']}: {r['before']} → {r['after_probe']}, {r['mechanism']}, "
                     f"{r['outcome']}", {"records": recs}))
    fig = _panels("Seed 000 §4.2: tail losses of 1-5 segments under tlp-draft", arms)
    return fig, "Each §4.2 row as a time-sequence graph (the first response of each run)"
