"""Published-vs-ours verdicts.

A study's ``claims(df, published, ctx)`` returns one :class:`Verdict` per claim of its
``published.toml``: our number(s) as text, one of :data:`VERDICTS`, and why. The
agreement rule's parameters (a tolerance, a direction) live in ``published.toml`` beside
the published value, so that the rule is data, stated before the numbers are seen.

Besides holds / does not hold / not comparable there are :data:`NOT_SIGNIFICANT` (the arms
differ by less than the noise of the repetitions: the confidence interval of the difference
contains zero, or too few events to tell) and :data:`SEED_INCONSISTENT` (the seed
contradicts itself, e.g. a printed table with a typo that its own text rules out; set by
:mod:`lossrec.lab.frozen` from the claim's ``seed_inconsistent`` entry). A claim whose rule
was revised carries, in :attr:`Verdict.other`, its verdict under the other rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

HOLDS = "holds"
FAILS = "does not hold"
NOT_COMPARABLE = "not comparable"
NOT_SIGNIFICANT = "not significant"
SEED_INCONSISTENT = "seed inconsistent"
VERDICTS = (HOLDS, FAILS, NOT_SIGNIFICANT, NOT_COMPARABLE, SEED_INCONSISTENT)

#: What a claim of ``published.toml`` is (its ``kind``; none = :data:`COMPARISON`). A
#: comparison of arms is judged with an interval and a minimum event count (its
#: ``min_events``; :func:`lossrec.lab.significance.judge_difference`); the others carry no
#: interval and say why in ``no_interval``: one arm's number against the seed's
#: (:data:`ABSOLUTE`), a traced example or regenerated table with no randomness in it
#: (:data:`DETERMINISTIC`), and the checks reported apart, which need no reason: the
#: workload's (:data:`CALIBRATION`: a number the workload was tuned to is calibration, not
#: a claim) and another tool's (:data:`CROSS_CHECK`).
COMPARISON = "comparison"
ABSOLUTE = "absolute"
DETERMINISTIC = "deterministic"
CALIBRATION = "calibration"
#: A check against another tool (e.g. ns-3 on the same scenario), not a number of the
#: seed: reported apart with the calibration checks, never counted as a claim.
CROSS_CHECK = "cross-check"
KINDS = (COMPARISON, ABSOLUTE, DETERMINISTIC, CALIBRATION, CROSS_CHECK)
#: The kinds reported apart from the seed's claims.
APART = (CALIBRATION, CROSS_CHECK)


def kind(claim: Mapping[str, Any]) -> str:
    """The claim's kind (:data:`KINDS`; a claim without one compares arms)."""
    return str(claim.get("kind", COMPARISON))


def check_kind(cid: str, claim: Mapping[str, Any]) -> Optional[str]:
    """What is wrong with the claim's ``kind`` and the keys it requires, or None."""
    k = kind(claim)
    if k not in KINDS:
        return f"claims.{cid}.kind: `{k}` is not one of {', '.join(KINDS)}"
    if k == COMPARISON and not isinstance(claim.get("min_events"), int):
        return (f"claims.{cid}: a claim that compares arms needs `min_events` (an integer: the "
                f"fewest events its verdict may rest on), or a `kind` that says it compares none")
    if k in (ABSOLUTE, DETERMINISTIC) and not str(claim.get("no_interval", "")).strip():
        return f"claims.{cid}: kind `{k}` needs `no_interval`, why the claim carries no interval"
    return None


def missing_intervals(published: Mapping[str, Mapping[str, Any]],
                      verdicts: "List[Verdict]") -> List[str]:
    """The comparison claims whose verdict carries no interval or no event count (a claim
    the run could not compare at all, *not comparable*, needs neither)."""
    return [v.claim for v in verdicts
            if kind(published.get(v.claim, {})) == COMPARISON and v.verdict != NOT_COMPARABLE
            and (not v.intervals or v.events is None)]


@dataclass
class Verdict:
    """The outcome of one claim (``claim`` is its key in ``published.toml``)."""

    claim: str
    ours: str
    verdict: str
    why: str
    #: The verdict under the claim's other rule (``[claims.<id>.other_rule]`` of
    #: published.toml: the rule before a revision), shown beside this one.
    other: Optional["Verdict"] = None
    #: The differences between arms the verdict rests on, each ``Diff.to_dict()`` (mean,
    #: low, high, n, confidence); empty for a claim that compares no arms.
    intervals: List[Dict[str, Any]] = field(default_factory=list)
    #: How many events the comparison rests on, and the fewest the rule accepts.
    events: Optional[int] = None
    min_events: Optional[int] = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def with_other(self, ok: bool, ours: str, why: str = "") -> "Verdict":
        """This verdict with the other rule's outcome attached."""
        self.other = Verdict.judge(self.claim, ok, ours, why)
        return self

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"claim": self.claim, "ours": self.ours, "verdict": self.verdict, "why": self.why}
        if self.other is not None:
            d["other"] = self.other.to_dict()
        if self.intervals:
            d["intervals"] = self.intervals
        if self.events is not None:
            d["events"], d["min_events"] = self.events, self.min_events
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Verdict":
        other = d.get("other")
        return cls(str(d["claim"]), str(d["ours"]), str(d["verdict"]), str(d["why"]),
                   cls.from_dict(other) if other else None, list(d.get("intervals", [])),
                   d.get("events"), d.get("min_events"))

    @classmethod
    def judge(cls, claim: str, ok: bool, ours: str, why: str) -> "Verdict":
        return cls(claim, ours, HOLDS if ok else FAILS, why)

    @classmethod
    def not_comparable(cls, claim: str, why: str, ours: str = "—") -> "Verdict":
        return cls(claim, ours, NOT_COMPARABLE, why)


def within(ours: float, published: float, tol_pct: Optional[float] = None,
           tol_abs: Optional[float] = None) -> bool:
    """True when ``ours`` is within ``tol_pct`` percent of ``published`` or within
    ``tol_abs`` of it (either suffices; at least one must be given). NaN never is."""
    if tol_pct is None and tol_abs is None:
        raise ValueError("within() needs tol_pct or tol_abs")
    if ours is None or published is None or math.isnan(ours) or math.isnan(published):
        return False
    d = abs(ours - published)
    return (tol_pct is not None and d <= abs(published) * tol_pct / 100.0) or (
        tol_abs is not None and d <= tol_abs)


def rel_diff_pct(ours: float, published: float) -> float:
    """(ours − published) / published in percent."""
    return (ours - published) / published * 100.0


def param(claim: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """A rule parameter of a published claim, e.g. ``param(c, "tolerance_pct", 5)``."""
    v = claim.get(key, default)
    if v is None:
        raise ValueError(f"published claim lacks `{key}`")
    return v


def within_factor(ours: float, published: float, factor: float) -> bool:
    """Same sign as ``published`` and ``|ours|`` within ``factor`` of ``|published|``
    (for claims agreed "in direction and rough size")."""
    if not math.isfinite(ours) or ours * published <= 0:
        return False
    r = abs(ours) / abs(published)
    return 1 / factor <= r <= factor
