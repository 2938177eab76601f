"""Calibration: the baseline arm's workload checked against the seed's own fingerprints
before any claim is judged (issue 14, item 2).

A reproduction compares arms on a workload of our own making; a claim about an algorithm
only means something if that workload loses packets the way the seed's traffic did. Each
study may hold a ``calibration.toml`` beside its ``published.toml``::

    [baseline]
    arm = "the baseline arm (probe = none)"   # what the rows are, for the report
    where = { arm = "baseline" }              # the rows: column = value (or a list of values)

    [traced]                                  # optional: a traced run for the percentiles
    scenario = "search.toml"                  # of RTO/RTT and of FlightSize at the probes
    params = { "sender.probe" = ["none"] }    # swept keys (lists), as a study's Sweep
    quick = { "workload.connections" = [60] } # merged over params with --quick
    what = "the baseline arm, one receiver"   # for the report

    [checks.<id>]
    metric = "rto_per_fast_recovery"          # a key of METRICS
    seed = 3.6                                # the seed's value
    band = [1.8, 7.2]                         # ours must lie in it (inclusive)
    where = "seed 001 slide 5"
    quote = "Short flows: timeout-driven repair is ~3.6x ack-driven repairs"
    min_events = 20                           # optional (default 10): fewer → not measured

A study with more than one workload calibrates each against the seed's numbers for it
(seed 003's DC1 and DC2, its Early Retransmit experiment): a further set of rows and its
checks is a ``[sets.<id>]`` table with the same ``arm``, ``where`` and ``checks`` (no
``traced``), reported under its own heading and counted with the others::

    [sets.dc2]
    arm = "the linux-rh arm of the video workload (the seed's DC2)"
    where = { workload = "video", arm = "linux-rh" }
    [sets.dc2.checks.retransmission_rate]
    metric = "retrans_rate"
    ...

A study with no workload of its own to calibrate (the seed's controlled scenario, or the
kernel itself) holds ``none = "why"`` instead, and its report says so in the same place.

Every check gets a status: **ok** (inside its band), **off** (outside), or **not
measured** (too few events, or nothing to measure). These are not verdicts: they are
reported in their own section, before the claims, and never counted as a claim that holds.
The metric definitions (:data:`METRICS`) are the one place that says how each fingerprint
is counted from the flow results' counters.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..scenario import _toml_loads

if TYPE_CHECKING:  # pragma: no cover
    from .study import Context, Study

FILE = "calibration.toml"
OK, OFF, NOT_MEASURED = "ok", "off", "not measured"
STATUSES = (OK, OFF, NOT_MEASURED)
DEFAULT_MIN_EVENTS = 10

Totals = Mapping[str, float]


def _ratio(num: float, den: float, scale: float = 1.0) -> Tuple[float, float]:
    return (num / den * scale if den else float("nan")), den


def _timeout_retx(t: Totals) -> float:
    """Retransmissions sent after a retransmission timeout: the timeout's own (one per
    timeout, backoffs included; Linux counts it only under TCPTimeouts) and those of the
    slow start that follows (``slow_start_retransmits``, Linux's TCPSlowStartRetrans)."""
    return t.get("slow_start_retransmits", 0.0) + t.get("rtos", 0.0)


def _first_timeouts(t: Totals) -> float:
    """Timeouts that start an RTO recovery (backoffs, i.e. timeouts in Loss, not counted)."""
    return t.get("rtos", 0.0) - t.get("rtos_in_loss", 0.0)


#: metric → (definition shown in the report, unit, f(totals) → (value, events behind it)).
METRICS: Dict[str, Tuple[str, str, Callable[[Totals], Tuple[float, float]]]] = {
    "rto_per_fast_recovery": (
        "RTO-triggered recoveries (timeouts that start one; backoffs not counted) / fast "
        "recoveries", "×",
        lambda t: _ratio(_first_timeouts(t), t.get("fast_recoveries", 0.0))),
    "timeout_retransmit_share": (
        "retransmissions sent after a timeout (the timeout's own and the slow start's that "
        "follow) / those + fast retransmissions", "%",
        lambda t: _ratio(_timeout_retx(t), _timeout_retx(t) + t.get("fast_retransmits", 0.0), 100)),
    "timeouts_in_open": (
        "timeouts in Open / timeouts in Open, Disorder or Recovery (timeout episodes: "
        "backoffs not counted)", "%",
        lambda t: _ratio(t.get("rtos_in_open", 0.0), _first_timeouts(t), 100)),
    "retrans_rate": (
        "retransmissions / data segments sent", "%",
        lambda t: _ratio(t.get("retransmits", 0.0), t.get("data_packets_sent", 0.0), 100)),
    "timeouts_of_retransmits": (
        "timeouts (one timeout retransmission each) / all retransmissions", "%",
        lambda t: _ratio(t.get("rtos", 0.0), t.get("retransmits", 0.0), 100)),
    "fast_retransmits_of_retransmits": (
        "retransmissions in fast recovery / all retransmissions", "%",
        lambda t: _ratio(t.get("fast_retransmits", 0.0), t.get("retransmits", 0.0), 100)),
    "timeouts_in_open_of_retransmits": (
        "timeouts in Open / all retransmissions", "%",
        lambda t: _ratio(t.get("rtos_in_open", 0.0), t.get("retransmits", 0.0), 100)),
    "dsacks_of_retransmits": (
        "DSACKs received / all retransmissions (spurious retransmissions the receiver "
        "reported)", "%",
        lambda t: _ratio(t.get("dsacks", 0.0), t.get("retransmits", 0.0), 100)),
    "fast_retransmits_per_fast_recovery": (
        "retransmissions in fast recovery / fast recoveries", "",
        lambda t: _ratio(t.get("fast_retransmits", 0.0), t.get("fast_recoveries", 0.0))),
}

#: metric → (definition, unit, f(baseline rows) → (value, events)): fingerprints that are
#: shares of rows (responses, flows) rather than ratios of summed counters.
ROW_METRICS: Dict[str, Tuple[str, str, Callable[[pd.DataFrame], Tuple[float, float]]]] = {
    "rows_with_retransmission": (
        "rows (responses or flows) with at least one retransmission / all rows", "%",
        lambda d: (100 * float((d["retransmits"] > 0).mean()) if len(d) and "retransmits" in d
                   else float("nan"), float((d["retransmits"] > 0).sum()) if "retransmits" in d
                   else 0.0)),
    "rows_completed": (
        "rows (flows) with a completion time / all rows: a flow the scenario's time limit cut "
        "off has none", "%",
        lambda d: (100 * float(d["fct_ms"].notna().mean()) if len(d) and "fct_ms" in d
                   else float("nan"), float(len(d)))),
}

#: Counters the metrics read (summed over the baseline's rows).
COUNTERS = ["rtos", "rtos_in_open", "rtos_in_disorder", "rtos_in_recovery", "rtos_in_loss",
            "fast_recoveries", "fast_retransmits", "slow_start_retransmits", "retransmits",
            "data_packets_sent", "dsacks"]

#: Percentile metrics from a traced run: ``<sample>_p<q>`` for these samples.
TRACED = {
    "rto_rtt": ("RTO / SRTT per connection, at its last ACK (the RFC 6298 estimator's state)",
                ""),
    "flight_at_pto": ("FlightSize (segments, RFC 5681) when a loss probe is sent", "segments"),
}


@dataclass
class Check:
    """One fingerprint: the seed's value, our band, our value and the status."""

    id: str
    metric: str
    definition: str
    unit: str
    seed: float
    band: Tuple[float, float]
    ours: float
    events: float
    status: str
    where: str
    quote: str
    #: the ``[sets.<id>]`` the check belongs to ("" for the study's main baseline)
    set: str = ""

    def to_dict(self) -> Dict[str, Any]:
        d = asdict(self)
        d["band"] = list(self.band)
        return d


def status(ours: float, band: Sequence[float], events: float, min_events: float) -> str:
    """``ok`` inside the band (inclusive), ``off`` outside, ``not measured`` when the value
    is undefined or rests on fewer than ``min_events`` events."""
    if ours is None or not math.isfinite(ours) or events < min_events:
        return NOT_MEASURED
    lo, hi = band
    return OK if lo <= ours <= hi else OFF


def load(study_dir: Path) -> Optional[Dict[str, Any]]:
    """The study's calibration file, validated (None when it has none)."""
    path = Path(study_dir) / FILE
    if not path.exists():
        return None
    try:
        data = _toml_loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if "none" in data:
        # A study whose workload is the seed's own controlled scenario, or no workload of
        # ours at all, says why there is nothing to calibrate.
        if set(data) != {"none"} or not isinstance(data["none"], str) or not data["none"]:
            raise ValueError(f"{path}: none: give only `none = \"why there is nothing to "
                             "calibrate\"`, without baseline, traced or checks")
        return data
    for k in data:
        if k not in ("baseline", "traced", "checks", "sets"):
            raise ValueError(f"{path}: {k}: unknown table (baseline, traced, checks, sets), "
                             "or `none`")
    base = data.get("baseline")
    if not isinstance(base, dict) or not isinstance(base.get("where"), dict) or "arm" not in base:
        raise ValueError(f"{path}: baseline: needs `arm` (text) and `where` (column = value)")
    _validate_checks(path, "checks", data.get("checks", {}), traced="traced" in data)
    sets = data.get("sets", {})
    if not isinstance(sets, dict):
        raise ValueError(f"{path}: sets: expected tables [sets.<id>]")
    for sid, st in sets.items():
        if not isinstance(st, dict) or set(st) - {"arm", "where", "checks"}:
            raise ValueError(f"{path}: sets.{sid}: only `arm`, `where` and `checks` (a set has "
                             "no traced run)")
        if not isinstance(st.get("where"), dict) or "arm" not in st:
            raise ValueError(f"{path}: sets.{sid}: needs `arm` (text) and `where` (column = value)")
        _validate_checks(path, f"sets.{sid}.checks", st.get("checks", {}), traced=False)
    return data


def _validate_checks(path: Path, name: str, checks: Any, traced: bool) -> None:
    """Each check names a known metric, the seed's value, a band, where and the quote."""
    if not isinstance(checks, dict):
        raise ValueError(f"{path}: {name}: expected tables [{name}.<id>]")
    known = set(METRICS) | set(ROW_METRICS) | {f"{s}_p{q}" for s in TRACED for q in range(1, 100)}
    for cid, c in checks.items():
        for k in ("metric", "seed", "band", "where", "quote"):
            if k not in c:
                raise ValueError(f"{path}: {name}.{cid}: missing `{k}`")
        if c["metric"] not in known:
            raise ValueError(f"{path}: {name}.{cid}.metric: unknown metric `{c['metric']}` "
                             f"(one of {', '.join([*METRICS, *ROW_METRICS])}, or "
                             f"{', '.join(TRACED)}_pNN)")
        b = c["band"]
        if not (isinstance(b, list) and len(b) == 2 and b[0] <= b[1]):
            raise ValueError(f"{path}: {name}.{cid}.band: expected [low, high] with low <= high")
        if c["metric"] not in METRICS and c["metric"] not in ROW_METRICS and not traced:
            raise ValueError(f"{path}: {name}.{cid}.metric: `{c['metric']}` needs a "
                             "[traced] table (not available in a set)")


def rows(df: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """The rows whose columns equal ``where``'s values (a list: any of them)."""
    mask = pd.Series(True, index=df.index)
    for col, want in where.items():
        if col not in df:
            return df.iloc[0:0]
        vals = want if isinstance(want, list) else [want]
        mask &= df[col].astype(object).isin(vals)
    return df[mask]


def totals(df: pd.DataFrame) -> Dict[str, float]:
    """The counters of :data:`COUNTERS` summed over ``df`` (absent columns: NaN)."""
    return {c: float(df[c].sum()) if c in df else float("nan") for c in COUNTERS}


def trace_samples(records: Sequence[Mapping[str, Any]], obj: Any = None) -> Dict[str, Any]:
    """One traced run's samples: RTO/SRTT per connection at its last ACK, and FlightSize
    (segments, rounded up) at each loss probe."""
    last: Dict[int, Tuple[float, float]] = {}
    high: Dict[int, int] = {}
    una: Dict[int, int] = {}
    mss: Dict[int, int] = {}
    flight: List[int] = []
    for r in records:
        f = int(r.get("flow", 0))
        kind = r.get("kind")
        if kind == "ack":
            if r.get("srtt_us"):
                last[f] = (float(r["rto_us"]), float(r["srtt_us"]))
            una[f] = max(una.get(f, 0), int(r.get("ack", 0)))
        elif kind == "send" and r.get("seq") and r["seq"][1] > r["seq"][0]:
            s, e = r["seq"]
            high[f] = max(high.get(f, 0), e)
            mss[f] = max(mss.get(f, 0), e - s)
        elif kind == "event" and r.get("name") == "loss_probe" and mss.get(f):
            fl = max(high.get(f, 0) - una.get(f, 0), 0)
            flight.append(-(-fl // mss[f]))
    return {"rto_rtt": [rto / srtt for rto, srtt in last.values()], "flight_at_pto": flight}


def _traced(study: "Study", cfg: Mapping[str, Any], ctx: "Context") -> Dict[str, List[float]]:
    from .tail import traced_sweep

    params = {k: list(v) for k, v in dict(cfg.get("params", {})).items()}
    if ctx.quick:
        params.update({k: list(v) for k, v in dict(cfg.get("quick", {})).items()})
    d = traced_sweep(study.dir / cfg["scenario"], params, reps=int(cfg.get("reps", 1)),
                     summarize_run=trace_samples, common_seeds=True)
    return {s: [x for run in d[s] for x in run] if s in d else [] for s in TRACED}


def evaluate(study: "Study", df: pd.DataFrame, ctx: "Context") -> Optional[Dict[str, Any]]:
    """The study's calibration: ``{"baseline", "traced", "rows", "checks": [Check],
    "sets": [{"id", "arm", "rows"}]}`` (the sets' checks are in ``checks`` too, each with its
    ``set``), or None when the study has no calibration file."""
    cfg = load(study.dir)
    if cfg is None:
        return None
    if "none" in cfg:
        return {"none": cfg["none"], "checks": [], "rows": 0, "quick": bool(ctx.quick)}
    base = rows(df, cfg["baseline"]["where"])
    samples: Dict[str, List[float]] = {}
    if "traced" in cfg and any(c["metric"] not in METRICS and c["metric"] not in ROW_METRICS
                               for c in cfg.get("checks", {}).values()):
        samples = _traced(study, cfg["traced"], ctx)
    checks = _judge(dict(cfg.get("checks", {})), base, samples, "")
    sets = []
    for sid, st in dict(cfg.get("sets", {})).items():
        part = rows(df, st["where"])
        sets.append({"id": sid, "arm": str(st["arm"]), "rows": int(len(part))})
        checks += _judge(dict(st.get("checks", {})), part, {}, sid)
    return {"baseline": cfg["baseline"]["arm"], "traced": dict(cfg.get("traced", {})).get("what"),
            "rows": int(len(base)), "checks": checks, "sets": sets, "quick": bool(ctx.quick)}


def _judge(cfg: Mapping[str, Any], base: pd.DataFrame, samples: Mapping[str, List[float]],
           set_id: str) -> List[Check]:
    """Each configured check measured on ``base`` (its counters' totals or its rows) or on
    the traced samples, with its status."""
    t = totals(base)
    out = []
    for cid, c in cfg.items():
        m = c["metric"]
        if m in METRICS:
            definition, unit, fn = METRICS[m]
            ours, events = fn(t)
        elif m in ROW_METRICS:
            definition, unit, rfn = ROW_METRICS[m]
            ours, events = rfn(base)
        else:
            sample, q = m.rsplit("_p", 1)
            definition, unit = TRACED[sample]
            xs = samples.get(sample, [])
            definition = f"{q}th percentile of: {definition}"
            ours = float(np.percentile(xs, float(q))) if xs else float("nan")
            events = float(len(xs))
        st = status(ours, c["band"], events, float(c.get("min_events", DEFAULT_MIN_EVENTS)))
        out.append(Check(cid, m, definition, unit, float(c["seed"]),
                         (float(c["band"][0]), float(c["band"][1])), float(ours), events,
                         st, str(c["where"]), str(c["quote"]), set_id))
    return out


def counts(cal: Optional[Mapping[str, Any]]) -> Dict[str, int]:
    """How many checks are ok, off and not measured."""
    out = {s: 0 for s in STATUSES}
    for c in (cal or {}).get("checks", []):
        out[c.status] += 1
    return out


def counts_text(c: Mapping[str, int]) -> str:
    return ", ".join(f"{c[s]} {s}" for s in STATUSES if c.get(s) or s != NOT_MEASURED)


def _num(x: float, unit: str) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    s = f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"
    return f"{s} %" if unit == "%" else (f"{s}×" if unit == "×" else s)


def section(cal: Optional[Mapping[str, Any]]) -> List[str]:
    """The report's calibration section (markdown lines), placed before the claims."""
    if not cal:
        return []
    if cal.get("none"):
        return ["## Calibration of the workload (before the claims)", "",
                f"Nothing to calibrate: {cal['none']}", ""]
    c = counts(cal)
    lines = ["## Calibration of the workload (before the claims)", "",
             f"The baseline arm — {cal['baseline']} ({cal['rows']} rows) — checked against the "
             "seed's own fingerprints of its traffic before any arm is compared. A check is "
             "**ok** inside its band, **off** outside it, **not measured** with too few events. "
             "These are not claims: they are never counted as holding, and an *off* check says "
             "the claims below rest on a workload unlike the seed's in that respect.", ""]
    if cal.get("quick"):
        lines += ["*A quick run:* a few hundred responses per cell hold few loss events, so these "
                  "checks are indicative only; the full run's are the ones the workload was tuned "
                  "to.", ""]
    if cal.get("traced"):
        lines += [f"Percentiles come from a traced run: {cal['traced']}.", ""]
    lines += [f"**Calibration:** {counts_text(c)}.", ""]
    main = [k for k in cal["checks"] if not k.set]
    if main:
        lines += [_table(main), ""]
    for st in cal.get("sets", []):
        mine = [k for k in cal["checks"] if k.set == st["id"]]
        lines += [f"### Calibration set `{st['id']}`: {st['arm']} ({st['rows']} rows)", "",
                  f"**{st['id']}:** {counts_text(counts({'checks': mine}))}.", "",
                  _table(mine), ""]
    return lines


def _table(checks: Sequence[Check]) -> str:
    from .markdown import table

    return table(["fingerprint", "the seed", "where", "seed's value", "band", "ours",
                  "events", "status", "how we count it"],
                 [[f"**{k.id}**", f"“{k.quote}”", k.where, _num(k.seed, k.unit),
                   f"{_num(k.band[0], k.unit)} – {_num(k.band[1], k.unit)}",
                   _num(k.ours, k.unit), f"{k.events:.0f}", f"**{k.status}**", k.definition]
                  for k in checks])
