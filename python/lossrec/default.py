"""The scenario ``lossrec run`` runs when given no file: a tail loss, under every preset,
and the table of what each family of presets buys (issue 28 item 6).

The family table runs the same flow with a tail loss of 1 and of 3 segments at a short and
a long RTT (:data:`CASES`). Presets that behave alike in all four cases are one row (a
family: what tells them apart acts on losses a tail does not have); where two rows still
tie in a case, :func:`ties` says why, so a tie is never read as "this mechanism does
nothing".
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

DESCRIPTION = (
    "One 10-segment flow over 10 Mb/s with a 100 ms RTT; its last data segment is lost "
    "once (a tail loss), so only a probe or a timeout can repair it."
)

#: (segments lost at the tail, RTT in ms) of the family table.
CASES: Sequence[Tuple[int, int]] = ((1, 20), (3, 20), (1, 200), (3, 200))

FAMILY_TITLE = ("What each family buys: flow completion time (ms) and what repaired the tail, "
                "for a tail loss of 1 and 3 segments at 20 and 200 ms RTT (presets alike in "
                "all four cases share a row)")


def scenario(preset: str = "rfc", tail: int = 1, rtt_ms: float = 100) -> Dict[str, Any]:
    """The default scenario (see ``DESCRIPTION``) with its sender under ``preset``; the
    family table's cases change the tail's length and the RTT."""
    return {
        "seed": 1,
        "path": {"rate_mbps": 10, "rtt_ms": rtt_ms, "loss": {"model": "tail", "count": tail}},
        "sender": {"preset": preset},
        "workload": {"kind": "flows", "flows": 1, "segments": 10},
    }


def case_label(tail: int, rtt_ms: int) -> str:
    return f"{tail} segment{'s' if tail > 1 else ''} lost, RTT {rtt_ms} ms"


@dataclass(frozen=True)
class Cell:
    """One preset's flow in one case: its completion time and what repaired the tail."""

    fct_ms: float
    repair: str

    def text(self) -> str:
        return f"{self.fct_ms:,.1f} ({self.repair})"


@dataclass
class Row:
    """Presets whose flows are the same in every case, and those flows."""

    presets: List[str]
    cells: List[Cell]


def repair(flow: Dict[str, Any]) -> str:
    """What repaired the tail: a timeout (``RTO``, also after a probe that did not do it:
    ``probe, RTO``), a loss probe (``probe``), or fast recovery (``fast``)."""
    probes, rtos = flow.get("tlp_probes", 0), flow.get("rtos", 0)
    if rtos:
        return "probe, RTO" if probes else "RTO"
    if probes:
        return "probe"
    return "fast" if flow.get("fast_recoveries", 0) else "none"


def family_runs(presets: Optional[Sequence[str]] = None, seed: Optional[int] = None
                ) -> Dict[str, List[Dict[str, Any]]]:
    """``preset → [its flow in each case of CASES]`` (about 90 runs of one short flow:
    well under a second)."""
    from . import api

    names = list(presets) if presets else api.preset_names()
    return {n: [api.run(scenario(n, tail, rtt), seed=seed).json["flows"][0] for tail, rtt in CASES]
            for n in names}


def family_rows(runs: Dict[str, List[Dict[str, Any]]]) -> List[Row]:
    """Presets grouped by identical flows in every case (FCT to 0.1 ms and the repair),
    fastest first by the sum over the cases."""
    groups: Dict[Tuple[Cell, ...], List[str]] = {}
    for name, flows in runs.items():
        key = tuple(Cell(round(float(f["fct_ms"]), 1), repair(f)) for f in flows)
        groups.setdefault(key, []).append(name)
    rows = [Row(names, list(cells)) for cells, names in groups.items()]
    return sorted(rows, key=lambda r: sum(c.fct_ms for c in r.cells))


def _why_tie(cells: Sequence[Cell]) -> str:
    kinds = {c.repair for c in cells}
    if kinds == {"probe", "RTO"}:
        return ("the probe left when the timeout would have: with one segment outstanding "
                "the PTO waits out a delayed ACK (Linux 2·SRTT + rto_min 200 ms, "
                "tcp_schedule_loss_probe; RFC 8985 §7.2 2·SRTT + WCDelAckT; the draft "
                "max(2·SRTT, 1.5·SRTT + WCDelAckT)) and is capped by the RTO, so at this RTT "
                "a probe buys nothing over the timer")
    if kinds == {"RTO"}:
        return ("both wait for the same timeout: what tells them apart (fast recovery's "
                "reduction, early retransmit, RACK, RTO restart) acts on SACKed data above a "
                "loss, and a tail loss leaves none")
    if kinds == {"probe"}:
        return "both send the probe at the same PTO, and the probe repairs the tail alike"
    return "the same repair at the same time"


def ties(rows: Sequence[Row]) -> List[str]:
    """One line per case in which rows tie on the completion time, saying why."""
    out = []
    for i, case in enumerate(CASES):
        by_fct: Dict[float, List[Row]] = {}
        for r in rows:
            by_fct.setdefault(r.cells[i].fct_ms, []).append(r)
        for fct, tied in sorted(by_fct.items()):
            if len(tied) < 2:
                continue
            names = " = ".join("/".join(r.presets[:3]) + ("/…" if len(r.presets) > 3 else "")
                               for r in tied)
            out.append(f"tie at {fct:,.1f} ms ({case_label(*case)}): {names}: "
                       f"{_why_tie([r.cells[i] for r in tied])}")
    return out


def family_table(runs: Dict[str, List[Dict[str, Any]]]) -> str:
    """The family table (:data:`FAMILY_TITLE`) and its tie lines, as text."""
    from .table import render

    rows = family_rows(runs)
    def names(r: Row) -> str:
        return "\n".join(textwrap.wrap(", ".join(r.presets), 36, break_on_hyphens=False))

    body = render(["presets"] + [case_label(*c).replace(", ", ",\n") for c in CASES],
                  [[names(r)] + [c.text() for c in r.cells] for r in rows], align_left=1)
    lines = ties(rows)
    return "\n".join([FAMILY_TITLE, "", body] + ([""] + lines if lines else []))
