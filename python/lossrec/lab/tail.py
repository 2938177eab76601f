"""Tail-loss measurements from traces: what each loss probe did, recovery episodes, bytes
the receiver got twice, and the engine's worked examples (``lossrec::vectors::tail``).

The simulator's trace (``lossrec.run(..., trace=True)``) knows what the sender cannot:
which transmissions the path dropped. :func:`probe_outcomes` uses that ground truth to say
for each loss probe whether it repaired the only loss, revealed more, was unnecessary
(its segment had already got through) or was itself lost; it also records what the
sender could see (a DSACK for the probe, the engine's ``tlp_recovery`` verdict).
:func:`summarize` folds one run's records, and the recovery episodes the simulator
computed for it (``crates/sim/src/episodes.rs``), into the counts the ``tlp`` and ``rack``
studies compare; :func:`traced_sweep` runs sweep points with tracing and summarises each
run.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from .. import _core
from .._provenance import build
from ..result import parse_jsonl
from . import phase
from .jobs import _digest, engine_hash
from ..scenario import ScenarioLike
from .details import keep_store, point_values
from .plan import Unit, make_plan
from .runner import default_jobs, run_plan, scenario_runs

Record = Mapping[str, Any]
PathLike = Union[str, "os.PathLike[str]"]
#: ``send.why`` values that are not data.
HANDSHAKE = {"syn", "syn_ack", "handshake_ack"}
PROBES = {"probe_new", "probe_retransmit"}
#: What a retransmitted probe turned out to be (ground truth from the path's drops).
ONLY_LOSS = "repaired the only loss"
MORE_LOSSES = "revealed more losses"
UNNECESSARY = "unnecessary"
PROBE_LOST = "probe lost"
NEW_DATA = "new data"
OUTCOMES = (ONLY_LOSS, MORE_LOSSES, UNNECESSARY, PROBE_LOST, NEW_DATA)


# ------------------------------------------------------------------------ byte ranges


class Ranges:
    """A set of byte offsets as sorted, disjoint [start, end) intervals."""

    def __init__(self) -> None:
        self.iv: List[List[int]] = []

    def add(self, s: int, e: int) -> int:
        """Adds [s, e); returns how many of its bytes were already in the set."""
        if e <= s:
            return 0
        overlap = self.overlap(s, e)
        out: List[List[int]] = []
        placed = False
        for a, b in self.iv:
            if b < s or a > e:
                if a > e and not placed:
                    out.append([s, e])
                    placed = True
                out.append([a, b])
            else:
                s, e = min(s, a), max(e, b)
        if not placed:
            out.append([s, e])
        out.sort()
        self.iv = out
        return overlap

    def remove(self, s: int, e: int) -> None:
        out: List[List[int]] = []
        for a, b in self.iv:
            if b <= s or a >= e:
                out.append([a, b])
                continue
            if a < s:
                out.append([a, s])
            if b > e:
                out.append([e, b])
        self.iv = out

    def overlap(self, s: int, e: int) -> int:
        return sum(max(0, min(b, e) - max(a, s)) for a, b in self.iv)

    def total(self) -> int:
        return sum(b - a for a, b in self.iv)

    def within(self, s: int, e: int) -> bool:
        """True when every byte of the set lies in [s, e)."""
        return all(a >= s and b <= e for a, b in self.iv)


def _seq(r: Record) -> Optional[Tuple[int, int]]:
    v = r.get("seq")
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return int(v[0]), int(v[1])
    return None


def is_data_send(r: Record) -> bool:
    s = _seq(r)
    return r.get("kind") == "send" and r.get("why") not in HANDSHAKE and s is not None and s[1] > s[0]


# ------------------------------------------------------------------------- analyses


def probe_outcomes(records: Iterable[Record]) -> List[Dict[str, Any]]:
    """One dict per loss probe: ``flow``, ``t_us``, ``start``, ``end``, ``retransmit``,
    ``outcome`` (one of :data:`OUTCOMES`), ``dsacked`` (a later DSACK covered part of the
    probe's range: what the sender sees of an unnecessary probe) and ``tlp_recovery``
    (the engine's TLP loss detection reduced cwnd for this probe's episode).

    Ground truth per flow: the bytes whose latest transmission the path dropped ("holes").
    A retransmitted probe is *unnecessary* when none of its bytes is a hole, *repaired
    the only loss* when the holes all lie within it (and it got through), *revealed more
    losses* when there are holes elsewhere too, and *probe lost* when the path dropped it.
    """
    holes: Dict[int, Ranges] = {}
    probes: List[Dict[str, Any]] = []
    open_by_flow: Dict[int, List[Dict[str, Any]]] = {}
    pending: Optional[Tuple[Dict[str, Any], Tuple[int, int]]] = None
    for r in records:
        kind = r.get("kind")
        flow = int(r.get("flow", 0))
        h = holes.setdefault(flow, Ranges())
        if kind == "send" and is_data_send(r):
            s, e = _seq(r)  # type: ignore[misc]
            pending = None
            if r.get("why") in PROBES:
                retx = r.get("why") == "probe_retransmit"
                if not retx:
                    outcome = NEW_DATA
                elif h.overlap(s, e) == 0:
                    outcome = UNNECESSARY
                elif h.within(s, e):
                    outcome = ONLY_LOSS
                else:
                    outcome = MORE_LOSSES
                p = {"flow": flow, "t_us": int(r["t_us"]), "start": s, "end": e,
                     "retransmit": retx, "outcome": outcome, "dsacked": False,
                     "tlp_recovery": False}
                probes.append(p)
                open_by_flow.setdefault(flow, []).append(p)
                pending = (p, (s, e))
            h.remove(s, e)
        elif kind == "drop" and r.get("dir") == "data":
            sq = _seq(r)
            if sq is not None:
                h.add(*sq)
                if pending is not None and pending[1] == sq and pending[0]["flow"] == flow:
                    if pending[0]["retransmit"]:
                        pending[0]["outcome"] = PROBE_LOST
                pending = None
        elif kind == "ack":
            d = r.get("dsack")
            if isinstance(d, (list, tuple)) and len(d) == 2:
                for p in open_by_flow.get(flow, []):
                    if p["retransmit"] and d[0] < p["end"] and p["start"] < d[1]:
                        p["dsacked"] = True
        elif kind == "event" and r.get("name") == "tlp_recovery":
            for p in reversed(open_by_flow.get(flow, [])):
                if p["retransmit"]:
                    p["tlp_recovery"] = True
                    break
    return probes


def episode_spans(recoveries: Iterable[Record], last_us: Mapping[int, int]) -> List[Dict[str, Any]]:
    """The recovery episodes the simulator computed (``crates/sim/src/episodes.rs``: the
    run's ``recoveries``), as spans: ``flow``, ``kind``, ``start_us`` and ``end_us``. A
    fast episode a timeout interrupted ends at that timeout (the RTO episode it starts is
    its own row); an episode the run ended first lasts to its flow's last record
    (``last_us``)."""
    out = []
    for e in recoveries:
        end = e.get("rto_ms") if e.get("kind") == "fast" and e.get("ended_by") == "rto" else e.get("end_ms")
        start = round(float(e["start_ms"]) * 1000)
        flow = int(e.get("flow", 0))
        out.append({"flow": flow, "kind": e.get("kind"), "start_us": start,
                    "end_us": round(float(end) * 1000) if end is not None else last_us.get(flow, start)})
    return out


def dup_bytes(records: Iterable[Record]) -> Dict[int, int]:
    """Bytes each flow's receiver got more than once, from the ``recv`` records."""
    got: Dict[int, Ranges] = {}
    dup: Dict[int, int] = {}
    for r in records:
        if r.get("kind") != "recv":
            continue
        sq = _seq(r)
        if sq is None or sq[1] <= sq[0]:
            continue
        flow = int(r.get("flow", 0))
        dup[flow] = dup.get(flow, 0) + got.setdefault(flow, Ranges()).add(*sq)
    return dup


def summarize(records: List[Record], recoveries: Iterable[Record]) -> Dict[str, Any]:
    """One run's totals over all flows: data segments sent and retransmitted, loss probes
    by outcome, DSACKed probes, TLP recoveries, timeouts, recovery episodes and the time
    spent in them, lost retransmissions (retransmissions the path dropped) and the bytes
    the receivers got twice. ``records`` is the run's trace, ``recoveries`` its
    ``--json`` object's ``recoveries`` (the episodes the simulator computed, not
    re-derived from the trace here)."""
    sends = retx = lost_retx = 0
    tlp_recoveries = rtos = dsacks = 0
    pending_retx: Optional[Tuple[int, Tuple[int, int]]] = None
    last_us: Dict[int, int] = {}
    for r in records:
        kind = r.get("kind")
        last_us[int(r.get("flow", 0))] = int(r.get("t_us", 0))
        if kind == "send" and is_data_send(r):
            sends += 1
            why = r.get("why")
            is_retx = why not in ("new", "limited_transmit", "probe_new")
            retx += is_retx
            pending_retx = (int(r.get("flow", 0)), _seq(r)) if is_retx else None  # type: ignore[assignment]
        elif kind == "drop" and r.get("dir") == "data":
            if pending_retx is not None and pending_retx == (int(r.get("flow", 0)), _seq(r)):
                lost_retx += 1
            pending_retx = None
        elif kind == "event":
            name = r.get("name")
            tlp_recoveries += name == "tlp_recovery"
            rtos += name == "rto"
            dsacks += name == "dsack"
    probes = probe_outcomes(records)
    eps = episode_spans(recoveries, last_us)
    out: Dict[str, Any] = {
        "data_segments": sends, "retransmissions": retx, "lost_retransmissions": lost_retx,
        "probes": len(probes), "probes_retransmit": sum(p["retransmit"] for p in probes),
        "probes_dsacked": sum(p["dsacked"] for p in probes),
        "probes_tlp_recovery": sum(p["tlp_recovery"] for p in probes),
        "tlp_recoveries": tlp_recoveries, "timeouts": rtos, "dsacks": dsacks,
        "fast_episodes": sum(e["kind"] == "fast" for e in eps),
        "rto_episodes": sum(e["kind"] == "rto" for e in eps),
        "recovery_ms": sum(e["end_us"] - e["start_us"] for e in eps) / 1000.0,
        "fast_recovery_ms": sum(e["end_us"] - e["start_us"] for e in eps if e["kind"] == "fast") / 1000.0,
        "rto_recovery_ms": sum(e["end_us"] - e["start_us"] for e in eps if e["kind"] == "rto") / 1000.0,
        "dup_bytes": sum(dup_bytes(records).values()),
    }
    for o in OUTCOMES:
        out["probes_" + o.replace(" ", "_")] = sum(p["outcome"] == o for p in probes)
    return out


def scoreboard(ack: Record, segments: int, mss: int, base: int = 0) -> str:
    """The sender's view after ``ack`` of ``segments`` segments from ``base``: A (cumulatively
    ACKed), S (SACKed) or L (still missing), one letter per segment."""
    cum = int(ack.get("ack", 0))
    blocks = [b for b in (ack.get("sack") or []) if isinstance(b, (list, tuple)) and len(b) == 2]
    out = []
    for i in range(segments):
        s, e = base + i * mss, base + (i + 1) * mss
        if e <= cum:
            out.append("A")
        elif any(b[0] <= s and e <= b[1] for b in blocks):
            out.append("S")
        else:
            out.append("L")
    return "".join(out)


# --------------------------------------------------------------------- traced sweeps


def _default_summary(recs: List[Record], obj: Dict[str, Any]) -> Dict[str, Any]:
    return summarize(recs, obj.get("recoveries", []))


def _plain(v: Any) -> Any:
    """numpy scalars as Python numbers, for the JSON a traced run's row travels as."""
    return v.item() if hasattr(v, "item") else str(v)


def _traced_row(summarize_run: Callable[[List[Record], Dict[str, Any]], Dict[str, Any]],
                text: str, origin: str, seed: int) -> str:
    """One traced run's row (without its point, rep and seed) as JSON text: the trace is
    parsed, summarised and dropped here, on the worker."""
    js, tr, *_ = _core.run_scenario(text, origin, seed, True, False)
    obj = json.loads(js)
    flows = obj.get("flows", [])
    row = {"flows": len(flows), "fct_ms_all": [f.get("fct_ms") for f in flows]}
    row.update(summarize_run(parse_jsonl(tr or ""), obj))  # type: ignore[arg-type]
    return json.dumps(row, default=_plain)


def run_traced(specs: Sequence[Tuple[str, str, str]], units: Sequence[Unit], threads: int = 1,
               summarize_run: Callable[[List[Record], Dict[str, Any]], Dict[str, Any]] = _default_summary
               ) -> Dict[str, Any]:
    """The traced kind of run for :mod:`lossrec.lab.runner`: each scenario of a chunk with
    its trace on, summarised by ``summarize_run(records, json_object)`` (``out``: the rows
    as JSON text)."""
    return scenario_runs(specs, units, threads, functools.partial(_traced_row, summarize_run))


def traced_sweep(
    scenario: ScenarioLike,
    params: Optional[Mapping[str, Any]] = None,
    reps: int = 1,
    summarize_run: Callable[[List[Record], Dict[str, Any]], Dict[str, Any]] = _default_summary,
    jobs: Optional[int] = None,
    *,
    common_seeds: bool = False,
    dask: Any = None,
    keep: Optional[PathLike] = None,
) -> pd.DataFrame:
    """Runs every point × ``reps`` of ``scenario`` with the trace on — the same points and
    seeds as :func:`lossrec.lab.sweep`, through the same runner (local threads or
    ``dask``) — and returns one row per run: the swept keys, ``rep``, ``seed``, the run's
    flow totals (``flows``, ``fct_ms`` list as ``fct_ms_all``) and what
    ``summarize_run(records, json_object)`` returns (by default :func:`summarize`). Each
    trace is parsed and dropped as soon as it is summarised, on the worker that ran it.

    ``keep``: a path whose ``KEEP.partial/`` folder holds the finished chunks, so that the
    same call after an interruption resumes. Inside a study's figures-and-verdicts phase
    (:mod:`lossrec.lab.phase`) the chunks are kept in the phase's folder, the runs are
    shown as they finish and the rows are kept, so an interrupted phase resumes without
    tracing them again."""
    jobs = jobs or default_jobs()
    plan = make_plan(scenario, params, reps, common_seeds, 4 * jobs, jobs)
    ph = phase.active()
    what = Path(plan.specs[0][1].split(" (with ")[0]).name if plan.specs else "scenario"
    code = phase.code_id(summarize_run)
    key = _digest(plan.specs, reps, common_seeds, code, _core.__version__,
                  build()["commit"], engine_hash())[:20] if ph is not None else ""
    if ph is not None:
        kept = ph.load(key)
        if kept is not None:
            ph.show(f"traced runs {plan.scenarios}/{plan.scenarios} ({what}, resumed)")
            return kept
        keep = ph.cache / f"traced-{key}"
    store = keep_store(plan, keep, "traced", code)

    def shown(done: int, total: int) -> None:
        if ph is not None:
            ph.show(f"traced runs {done}/{total} ({what})")

    work = functools.partial(run_traced, summarize_run=summarize_run)
    parts, _ = run_plan(plan, jobs, dask, work=work, store=store, progress=shown)
    rows = [{**point_values(plan, int(p)), "rep": int(rep), "seed": int(seed), **json.loads(str(row))}
            for part in parts for p, rep, seed, row in zip(part["point"], part["rep"], part["seed"], part["out"])]
    df = pd.DataFrame(rows)
    if ph is not None:
        ph.save(key, df)
    if store is not None:
        store._discard()
    return df


# ---------------------------------------------------------------- engine's vectors


def engine_vectors() -> Optional[Dict[str, Any]]:
    """The engine's worked tail-loss examples (``lossrec::vectors::tail``) through
    ``lossrec._core.tail_vectors()``, with every trace's ``jsonl`` parsed into
    ``records``; None when this build of ``lossrec._core`` lacks the binding."""
    fn = getattr(_core, "tail_vectors", None)
    if fn is None:
        return None
    d = dict(fn())

    def parse(t: Dict[str, Any]) -> Dict[str, Any]:
        t = dict(t)
        t["records"] = parse_jsonl(t.get("jsonl", ""))
        return t

    d["taxonomy"] = [{**r, "trace": parse(r["trace"])} for r in d.get("taxonomy", [])]
    d["spurious_rto"] = [{**a, "trace": parse(a["trace"])} for a in d.get("spurious_rto", [])]
    d["traces"] = {k: parse(v) for k, v in dict(d.get("traces", {})).items()}
    return d


BINDING_MISSING = ("not comparable (binding missing): this build of lossrec._core has no "
                   "tail_vectors(), the Python face of lossrec::vectors::tail")
