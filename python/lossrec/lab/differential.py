"""The differential test of the ``linux`` preset against the kernel (issue 23, item 1):
each exact-drop pattern (:mod:`.diff_patterns`) runs through the real wire with the
kernel's sender several times, through the simulator with the engine (and optionally
through the wire with the engine), and the three are compared (:mod:`.diff_compare`).

Verdicts, per pattern:

* ``agree``: the kernel's modal transmission sequence is the engine's, the FCTs are
  within the kernel's timer granularity (:func:`~.diff_compare.fct_allowance_ms`), and the
  mapped counters are equal;
* ``disagree``: one of the three is not (each criterion is also counted on its own);
* ``ambiguous``: the emulator's own timing decides the kernel's behaviour, so the pattern
  counts neither way: the kernel's runs have no modal sequence (a tie), the engine's
  sequence is one of the kernel's minority runs', or the sequences differ and a kernel run
  took a retransmission's RTT sample within microseconds of min_rtt before its first
  differing transmission (:func:`~.diff_compare.min_rtt_races`), or the kernel's own
  runs already part from one another at or before that transmission (its choice there
  depends on timing: a timer's jiffy phase at HZ=250 is random relative to the
  connection, so runs of one pattern fire the same timer up to a jiffy apart);
* ``error``: a run failed (the message says why).

A disagreement names the first differing transmission, both sides' view of it, and the
engine's reasoning there (its ``why``, window, state, RTT estimator and the decisions
since its previous transmission, from the simulator's trace), and is classified by what
each side did there (``kernel rtx / engine probe_new``, ``fct only``, ``counters only:
TCPLossProbes``…) so that a long run's disagreements can be counted by cause.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import diff_compare as dc
from .diff_patterns import Pattern

#: A retransmission's RTT sample closer than this to min_rtt is a race (µs); a run whose
#: emulator woke later than this (p99 delivery lateness) widens it to twice that.
RACE_MARGIN_US = 50.0


@dataclass
class Outcome:
    """What one pattern gave."""

    pattern: Dict[str, Any]
    verdict: str
    sequence_ok: Optional[bool] = None
    fct_ok: Optional[bool] = None
    counters_ok: Optional[bool] = None
    cause: str = ""
    ambiguity: str = ""
    kernel_runs: int = 0
    modal_runs: int = 0
    distinct_sequences: int = 0
    transmissions: Dict[str, int] = field(default_factory=dict)
    fct_ms: Dict[str, Optional[float]] = field(default_factory=dict)
    counters: Dict[str, List[int]] = field(default_factory=dict)
    first_difference: Optional[Dict[str, Any]] = None
    races: List[Dict[str, Any]] = field(default_factory=list)
    handshake: Dict[str, Any] = field(default_factory=dict)
    engine_wire: Optional[Dict[str, Any]] = None
    error: str = ""

    @property
    def why(self) -> str:
        """One line: why it is ambiguous, what failed, or the class of the disagreement."""
        return self.ambiguity or self.error or self.cause


@dataclass
class Side:
    """One run's comparable data: its transmissions, flow result and trace."""

    txs: List[dc.Timed]
    flow: Dict[str, Any]
    records: List[Dict[str, Any]]
    json: Dict[str, Any]

    @property
    def seq(self) -> tuple:
        """The run's transmission sequence (:func:`~.diff_compare.sequence`)."""
        return dc.sequence(self.txs)


def _side(res: Any) -> Side:
    records = res.trace_records
    flows = res.json.get("flows") or [{}]
    return Side(dc.transmissions(records), dict(flows[0]), records, res.json)


def _kernel_lost_retransmits(s: Side) -> Optional[int]:
    mib = (s.json.get("kernel") or {}).get("mib") or []
    return int(mib[0].get(dc.LOST_RETRANSMIT, 0)) if mib else None


def _races(s: Side, engine: Side) -> List[Dict[str, Any]]:
    """The run's min_rtt races that can explain its difference from the engine: those
    taken up to its first differing transmission (a sample decides what is sent after
    it; one taken after the sequences parted explains nothing). None when the run's
    sequence is the engine's."""
    i = dc.first_difference(s.seq, engine.seq)
    if i is None:
        return []
    cutoff_ms = s.txs[i].t_us / 1000 if i < len(s.txs) else float("inf")
    return [r for r in _all_races(s) if r["at_ms"] <= cutoff_ms]


def _all_races(s: Side) -> List[Dict[str, Any]]:
    # The emulator's view of the handshake: the trace's samples are taken where it stands.
    hs = s.json.get("handshake_emulator_rtt_ms")
    late = float((s.json.get("delivery_lateness") or {}).get("p99_us") or 0)
    margin = max(RACE_MARGIN_US, 2 * late)
    return dc.min_rtt_races(s.records, hs * 1000 if hs else None, margin)


def _tx_text(txs: Sequence[dc.Timed], i: int) -> Optional[str]:
    return txs[i].text() if i < len(txs) else None


def _difference(kernel: Side, engine: Side, i: int) -> Dict[str, Any]:
    return {"index": i, "kernel": _tx_text(kernel.txs, i), "engine": _tx_text(engine.txs, i),
            "engine_state": dc.engine_state(engine.records, engine.txs, i)}


def _cause(kernel: Side, engine: Side, d: Optional[Dict[str, Any]], fct_ok: bool,
           diffs: Dict[str, Any]) -> str:
    """A short class of the disagreement, to count causes over a long run."""
    if d is not None and "timing" in d:
        t = d["timing"]
        e = engine.txs[d["index"]].why
        return f"timing: kernel {'later' if t['delta_ms'] > 0 else 'earlier'} at engine {e}"
    if d is not None:
        i = d["index"]
        k = ("rtx" if kernel.txs[i].retransmission else "new") if i < len(kernel.txs) else "nothing"
        e = engine.txs[i].why if i < len(engine.txs) else "nothing"
        return f"kernel {k} / engine {e}"
    if not fct_ok:
        return "fct only"
    return "counters only: " + ", ".join(sorted(diffs))


def compare(p: Pattern, kernels: Sequence[Side], engine: Side,
            engine_wire: Optional[Side] = None) -> Outcome:
    """The verdict on one pattern from its runs (pure: no running here)."""
    out = Outcome(p.to_json(), "disagree", kernel_runs=len(kernels))
    seqs = [k.seq for k in kernels]
    m, n, distinct = dc.modal(seqs)
    out.modal_runs, out.distinct_sequences = n, distinct
    races = [r for k in kernels for r in _races(k, engine)]
    out.races = races
    hs = kernels[0].json if kernels else {}
    out.handshake = {k: hs.get(k) for k in ("handshake_rtt_ms", "handshake_emulator_rtt_ms",
                                            "path_rtt_ms")}
    if m is None:
        out.verdict = "ambiguous"
        out.ambiguity = f"the kernel's {len(kernels)} runs gave {distinct} sequences, no mode"
        return out
    kernel = kernels[m]
    modal_runs = [k for k in kernels if k.seq == kernel.seq]
    out.transmissions = {"kernel": len(kernel.txs), "engine": len(engine.txs)}
    i = dc.first_difference(kernel.seq, engine.seq)
    out.sequence_ok = i is None
    kfct = [float(k.flow["fct_ms"]) for k in modal_runs if k.flow.get("fct_ms") is not None]
    kflow = dict(kernel.flow, fct_ms=statistics.median(kfct) if kfct else None)
    efct = engine.flow.get("fct_ms")
    allow = dc.fct_allowance_ms(kflow, p.rtt_ms)
    out.fct_ms = {"kernel": kflow["fct_ms"], "engine": efct, "allowance": round(allow, 3)}
    out.fct_ok = (kflow["fct_ms"] is not None and efct is not None
                  and abs(efct - kflow["fct_ms"]) <= allow)
    kc = dc.counters(kernel.flow, _kernel_lost_retransmits(kernel))
    ec = dc.counters(engine.flow, dc.engine_lost_retransmits(engine.records))
    out.counters = {name: [kc[name], ec[name]] for name in kc if name in ec}
    diffs = dc.counter_diffs(kc, ec)
    out.counters_ok = not diffs
    if i is not None:
        out.first_difference = _difference(kernel, engine, i)
    else:
        late = dc.first_late(kernel.txs, engine.txs)
        if late is not None:
            out.first_difference = dict(_difference(kernel, engine, late["index"]), timing=late)
    if engine_wire is not None:
        j = dc.first_difference(kernel.seq, engine_wire.seq)
        out.engine_wire = {"sequence_ok": j is None, "same_as_sim": engine_wire.seq == engine.seq,
                           "first_difference": None if j is None else _difference(kernel, engine_wire, j)}
    if out.sequence_ok and out.fct_ok and out.counters_ok:
        out.verdict = "agree"
        return out
    parted = _kernel_parts(seqs, kernel.seq)
    if not out.sequence_ok and engine.seq in seqs:
        out.verdict = "ambiguous"
        out.ambiguity = (f"the engine's sequence is a minority kernel run's "
                         f"({seqs.count(engine.seq)} of {len(seqs)})")
    elif i is not None and parted is not None and parted[0] <= i:
        out.verdict = "ambiguous"
        out.ambiguity = (f"the kernel's own runs part at transmission {parted[0]} "
                         f"({parted[1]} of {len(seqs)} runs leave the modal sequence there), "
                         f"at or before the engine's first difference ({i}): the kernel's "
                         f"choice there depends on its timing")
    elif not out.sequence_ok and races:
        out.verdict = "ambiguous"
        r = races[0]
        out.ambiguity = (f"min_rtt race: a retransmission's RTT {r['rtt_us']} µs against min_rtt "
                         f"{r['min_rtt_us']:.0f} µs ({len(races)} such sample(s) over the kernel runs)")
    out.cause = _cause(kernel, engine, out.first_difference, bool(out.fct_ok), diffs)
    return out


def _kernel_parts(seqs: Sequence[tuple], modal: tuple) -> Optional[tuple]:
    """Where the kernel's own runs first leave its modal sequence: ``(index, how many
    runs leave it there)``, or None when every run has the modal sequence. The kernel's
    run-to-run spread is the evidence that its choice at that transmission depends on
    timing the engine cannot see (the jiffy phase of a timer, the emulator's wake-ups);
    an engine difference at or after it cannot be judged against the majority."""
    parts = [j for j in (dc.first_difference(s, modal) for s in seqs) if j is not None]
    if not parts:
        return None
    first = min(parts)
    return first, parts.count(first)


def run_pattern(p: Pattern, kernel_runs: int, engine_wire: bool = False) -> Outcome:
    """Runs one pattern: the kernel on the wire ``kernel_runs`` times, the engine in the
    simulator (and on the wire with ``engine_wire``), then :func:`compare`."""
    import lossrec
    from lossrec.realwire import wire

    sc = p.scenario()
    try:
        engine = _side(lossrec.run(sc, trace=True))
        kernels = [_side(wire(sc, sender="linux", trace=True)) for _ in range(kernel_runs)]
        ew = _side(wire(sc, sender="engine", trace=True)) if engine_wire else None
    except (OSError, ValueError) as e:
        return Outcome(p.to_json(), "error", error=str(e))
    return compare(p, kernels, engine, ew)


def run_all(pats: Sequence[Pattern], kernel_runs: int, engine_wire: bool = False,
            progress: Optional[Callable[[Outcome], None]] = None) -> List[Outcome]:
    """Every pattern in turn (the wire runs one at a time: it owns the machine's timing)."""
    outs = []
    for p in pats:
        o = run_pattern(p, kernel_runs, engine_wire)
        outs.append(o)
        if progress is not None:
            progress(o)
    return outs


def summary(outs: Sequence[Outcome]) -> Dict[str, Any]:
    """Agreement rates (over the patterns that are neither ambiguous nor errors) on all
    three criteria and on each, the ambiguous and failed counts, and the causes."""
    judged = [o for o in outs if o.verdict in ("agree", "disagree")]
    n = len(judged)

    def rate(ok: Callable[[Outcome], Optional[bool]]) -> Optional[float]:
        return round(sum(1 for o in judged if ok(o)) / n, 4) if n else None

    causes = Counter(o.cause for o in judged if o.verdict == "disagree")
    wired = [o.engine_wire for o in outs if o.engine_wire is not None]
    return {
        "patterns": len(outs), "judged": n,
        "agree": sum(1 for o in outs if o.verdict == "agree"),
        "disagree": sum(1 for o in outs if o.verdict == "disagree"),
        "ambiguous": sum(1 for o in outs if o.verdict == "ambiguous"),
        "errors": sum(1 for o in outs if o.verdict == "error"),
        "agreement_rate": rate(lambda o: o.verdict == "agree"),
        "sequence_rate": rate(lambda o: o.sequence_ok),
        "fct_rate": rate(lambda o: o.fct_ok),
        "counters_rate": rate(lambda o: o.counters_ok),
        "causes": causes.most_common(),
        "engine_wire": {"runs": len(wired),
                        "sequence_as_kernel": sum(1 for w in wired if w["sequence_ok"]),
                        "sequence_as_simulator": sum(1 for w in wired if w["same_as_sim"])},
    }


def to_json(outs: Sequence[Outcome], meta: Dict[str, Any]) -> Dict[str, Any]:
    """Everything as plain data: the run's settings, the summary, every outcome."""
    return {"meta": meta, "summary": summary(outs), "outcomes": [asdict(o) for o in outs]}
