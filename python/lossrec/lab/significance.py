"""Is a difference between two arms more than the noise of the repetitions?

A claim that compares arms ("PRR recovers faster than RFC 3517") is judged on the
difference of a per-repetition statistic: with common seeds (repetition *i* of every arm
runs the same random numbers) the differences are paired and their mean's interval is
:func:`lossrec.summarize`'s Student t interval on them; otherwise Welch's interval. A
difference whose interval contains zero, or that rests on fewer events than the claim's
minimum, is :data:`~lossrec.lab.claims.NOT_SIGNIFICANT` — a verdict of its own, neither a
hold nor a failure.

A claim whose number is not a mean of per-repetition values — a relative difference of
totals ("+3.7 % retransmissions over Linux"), a quantile of the pooled responses — gets
its interval from :func:`bootstrap`: ``scipy.stats.bootstrap`` (BCa) over the repetitions,
the claim's own statistic recomputed on each resample of repetitions (a cluster bootstrap:
a repetition's flows stay together and the arms stay paired, so the interval carries the
correlation inside a run). :func:`relative_totals` and :func:`pooled` are its two common
statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
import warnings
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..summary import summarize, t_quantile
from .claims import HOLDS, NOT_SIGNIFICANT, Verdict

#: How a claim needs ``a − b`` to be (see :func:`judge_difference`).
RELATIONS = (">", "<", ">=", "<=")
#: Confidence level of every comparison in the reports.
CONFIDENCE = 0.95
#: Fewer repetitions than this and :func:`bootstrap` gives no interval: with 4 there are
#: only 35 distinct resamples, too few for a 95 % percentile.
MIN_BOOTSTRAP_REPS = 5
#: Resamples per bootstrap interval (fixed seed: the same data give the same interval).
RESAMPLES = 1999
#: The power at which a claim's row states the smallest effect its run could detect.
POWER = 0.8


@dataclass(frozen=True)
class Need:
    """One difference ``a − b`` a claim depends on, with the relation it needs.

    ``rel`` is ``">"`` / ``"<"`` (a strict order: the interval must exclude zero on that
    side) or ``">="`` / ``"<="`` (no worse). A no-worse relation needs its ``margin`` (in
    the difference's unit, ≥ 0): how far the wrong way still counts as no worse. It holds
    only when the whole interval is within the margin (a non-inferiority test), fails when
    the whole interval is beyond it, and is not significant otherwise — so a wide interval
    cannot pass it. ``events``: the events in the two arms this relation compares; fewer
    than the claim's ``min_events`` makes the verdict not significant (a relation between
    arms that saw nothing is vacuous, whatever the other arms saw)."""

    diff: "Diff"
    rel: str
    margin: Optional[float] = None
    events: Optional[int] = None

    def __post_init__(self) -> None:
        if self.rel not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.rel!r}")
        if len(self.rel) == 2 and (self.margin is None or not self.margin >= 0):
            raise ValueError(f"a no-worse relation ({self.rel!r}) needs its margin (a number "
                             f"≥ 0 in the difference's unit), got {self.margin!r}")
        if len(self.rel) == 1 and self.margin is not None:
            raise ValueError(f"a strict order ({self.rel!r}) takes no margin")

    @property
    def no_worse(self) -> bool:
        return len(self.rel) == 2

    def beyond(self) -> float:
        """How far the interval reaches the wrong way past the margin (> 0: beyond)."""
        d, m = self.diff, float(self.margin or 0.0)
        return d.high - m if self.rel == "<=" else -m - d.low

    def refuted(self) -> bool:
        """The whole interval lies the wrong way beyond the margin."""
        d, m = self.diff, float(self.margin or 0.0)
        return d.significant_at(m) and (d.low > m if self.rel == "<=" else d.high < -m)


def need(x: Any) -> Need:
    """A :class:`Need` from itself or a tuple ``(diff, rel)`` / ``(diff, rel, margin)``."""
    return x if isinstance(x, Need) else Need(*x)


@dataclass
class Diff:
    """``a − b``: the mean difference, its confidence interval and the number of pairs
    (or the smaller arm's repetitions)."""

    mean: float
    low: float
    high: float
    n: int
    confidence: float = CONFIDENCE

    @property
    def significant(self) -> bool:
        return self.n >= 2 and math.isfinite(self.low) and (self.low > 0 or self.high < 0)

    def significant_at(self, margin: float) -> bool:
        """The interval exists and excludes ``±margin`` on one side or the other."""
        return self.n >= 2 and math.isfinite(self.low) and (self.low > margin or self.high < -margin)

    def detectable(self, power: float = POWER) -> float:
        """The smallest effect this run could detect: the true difference that an interval
        of this width excludes zero for with probability ``power`` (two-sided at the
        interval's level; half-width ``h = t_{1-α/2}·se``, so the effect is
        ``(t_{1-α/2} + t_{power})·se`` with ``n − 1`` degrees of freedom). NaN without an
        interval; 0 for an interval of zero width (no noise at all)."""
        if self.n < 2 or not (math.isfinite(self.low) and math.isfinite(self.high)):
            return math.nan
        half = (self.high - self.low) / 2
        t_a = t_quantile(1 - (1 - self.confidence) / 2, self.n - 1)
        return half * (1 + t_quantile(power, self.n - 1) / t_a)

    def to_dict(self) -> Dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n,
                "confidence": self.confidence, "detectable": self.detectable()}

    def text(self, unit: str = "", fmt: str = "+.3g") -> str:
        u = f" {unit}" if unit else ""
        if self.n < 2 or not math.isfinite(self.low):
            return f"{self.mean:{fmt}}{u} (n = {self.n}, no interval)"
        return (f"{self.mean:{fmt}}{u} [{self.confidence * 100:g} % CI {self.low:{fmt}}, "
                f"{self.high:{fmt}}], n = {self.n}")


def difference(a: Sequence[float], b: Sequence[float], paired: bool = False,
               confidence: float = CONFIDENCE) -> Diff:
    """``mean(a) − mean(b)`` with its interval. ``paired``: ``a[i]`` and ``b[i]`` share
    repetition *i*'s seed (NaN pairs dropped). Unpaired: Welch's t interval."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if paired:
        if len(x) != len(y):
            raise ValueError(f"paired difference needs equal lengths, got {len(x)} and {len(y)}")
        d = x - y
        s = summarize(pd.DataFrame({"d": d}), None, ["d"], confidence).iloc[0]
        return Diff(float(s["mean"]), float(s["ci_low"]), float(s["ci_high"]), int(s["n"]),
                    confidence)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    n = min(len(x), len(y))
    if n == 0:
        return Diff(math.nan, math.nan, math.nan, 0, confidence)
    m = float(x.mean() - y.mean())
    if n < 2:
        return Diff(m, math.nan, math.nan, n, confidence)
    va, vb = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = math.sqrt(va + vb)
    if se == 0:
        return Diff(m, m, m, n, confidence)
    dof = (va + vb) ** 2 / ((va ** 2 / (len(x) - 1)) + (vb ** 2 / (len(y) - 1)))
    half = t_quantile(1 - (1 - confidence) / 2, max(1, int(dof))) * se
    return Diff(m, m - half, m + half, n, confidence)


def bootstrap(statistic: Callable[[np.ndarray], float], n: int,
              confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = 0) -> Diff:
    """The claim's number and its interval by bootstrap over ``n`` repetitions.
    ``statistic(idx)`` computes the number from the repetitions ``idx`` (indices into
    ``range(n)``, drawn with replacement, so one may appear twice): ``statistic(arange(n))``
    is the estimate. BCa interval (``scipy.stats.bootstrap``), the percentile interval where
    BCa is undefined (e.g. every jackknife value equal); fewer than
    :data:`MIN_BOOTSTRAP_REPS` repetitions, or a statistic undefined on the data: no interval."""
    from scipy import stats

    idx = np.arange(n)
    est = float(statistic(idx)) if n else math.nan
    if n < MIN_BOOTSTRAP_REPS or not math.isfinite(est):
        return Diff(est, math.nan, math.nan, n, confidence)

    def stat(i: np.ndarray) -> float:
        return float(statistic(np.asarray(i, dtype=int)))

    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            # degenerate resamples (a constant statistic) are handled by the fallback below
            warnings.simplefilter("ignore")
            try:
                r = stats.bootstrap((idx,), stat, vectorized=False, n_resamples=resamples,
                                    confidence_level=confidence, method=method,
                                    random_state=np.random.default_rng(seed))
            except ValueError:
                continue
        lo, hi = float(r.confidence_interval.low), float(r.confidence_interval.high)
        if math.isfinite(lo) and math.isfinite(hi):
            return Diff(est, min(lo, est), max(hi, est), n, confidence)
    boot = [stat(np.random.default_rng(seed + k).choice(idx, n)) for k in range(64)]
    if all(b == est for b in boot):  # a statistic every resample gives: no noise at all
        return Diff(est, est, est, n, confidence)
    return Diff(est, math.nan, math.nan, n, confidence)


def _rel(a: float, b: float) -> float:
    return (a / b - 1.0) * 100.0 if b else math.nan


def relative_totals(a: Sequence[float], b: Sequence[float], **kw: Any) -> Diff:
    """``(Σa / Σb − 1) · 100``: the relative difference in percent of arm a's total over arm
    b's (``a[i]``, ``b[i]``: repetition *i*'s totals), bootstrapped over repetitions."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) != len(y):
        raise ValueError(f"relative_totals needs one total per repetition in both arms, got {len(x)} and {len(y)}")
    return bootstrap(lambda i: _rel(float(x[i].sum()), float(y[i].sum())), len(x), **kw)


def pooled(a: Sequence[np.ndarray], b: Sequence[np.ndarray],
           fn: Callable[[np.ndarray, np.ndarray], float], **kw: Any) -> Diff:
    """``fn(A, B)`` of the arms' pooled values (``a[i]``: repetition *i*'s values of arm a,
    e.g. the latencies of its responses), bootstrapped by resampling whole repetitions."""
    if len(a) != len(b):
        raise ValueError(f"pooled needs the same repetitions in both arms, got {len(a)} and {len(b)}")
    xs = [np.asarray(v, dtype=float) for v in a]
    ys = [np.asarray(v, dtype=float) for v in b]

    def stat(i: np.ndarray) -> float:
        if not len(i):
            return math.nan
        return fn(np.concatenate([xs[k] for k in i]), np.concatenate([ys[k] for k in i]))
    return bootstrap(stat, len(xs), **kw)


def relative_quantile(q: float) -> Callable[[np.ndarray, np.ndarray], float]:
    """For :func:`pooled`: the relative difference (percent) of the arms' ``q``-th
    percentiles (``q = "mean"``… is not a quantile: use :func:`relative_mean`)."""
    def fn(x: np.ndarray, y: np.ndarray) -> float:
        if not len(x) or not len(y):
            return math.nan
        return _rel(float(np.quantile(x, q / 100.0)), float(np.quantile(y, q / 100.0)))
    return fn


def relative_mean(x: np.ndarray, y: np.ndarray) -> float:
    """For :func:`pooled`: the relative difference (percent) of the arms' means."""
    return _rel(float(x.mean()), float(y.mean())) if len(x) and len(y) else math.nan


def quantile_band(by_rep: Sequence[np.ndarray], levels: Sequence[float],
                  confidence: float = CONFIDENCE, resamples: int = 400,
                  seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """A pointwise band for a figure's quantile curve (``levels`` in percent) of values
    pooled over repetitions (``by_rep[i]``: repetition *i*'s values): the percentile
    bootstrap over repetitions at each level. NaN where there are fewer than
    :data:`MIN_BOOTSTRAP_REPS` repetitions or no values."""
    qs = np.asarray(levels, dtype=float) / 100.0
    nan = np.full(len(qs), np.nan)
    reps = [np.asarray(v, dtype=float) for v in by_rep]
    if len(reps) < MIN_BOOTSTRAP_REPS or not sum(len(v) for v in reps):
        return nan, nan.copy()
    rng = np.random.default_rng(seed)
    curves = []
    for _ in range(resamples):
        pool = np.concatenate([reps[k] for k in rng.integers(0, len(reps), len(reps))])
        if len(pool):
            curves.append(np.quantile(pool, qs))
    c = np.asarray(curves)
    a = (1 - confidence) / 2 * 100
    return np.percentile(c, a, axis=0), np.percentile(c, 100 - a, axis=0)


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Diff:
    """The mean of per-repetition values and its Student t interval (a figure's bar for one
    arm; the arms' *difference* is :func:`difference`)."""
    x = np.asarray(values, dtype=float)
    return difference(x.tolist(), [0.0] * len(x), paired=True, confidence=confidence)


def error_bars(values: Sequence[float], diffs: Sequence[Diff]) -> np.ndarray:
    """matplotlib's asymmetric ``yerr`` (2 × n) for bars at ``values`` from their intervals
    (0 where a bar has none)."""
    lo = [v - d.low if math.isfinite(d.low) else 0.0 for v, d in zip(values, diffs)]
    hi = [d.high - v if math.isfinite(d.high) else 0.0 for v, d in zip(values, diffs)]
    return np.clip(np.nan_to_num(np.array([lo, hi], dtype=float)), 0, None)


def per_rep(df: pd.DataFrame, arm_col: str, arm: str, value: str, how: str = "mean",
            rep_col: str = "rep") -> pd.Series:
    """One value per repetition of ``arm``: ``how`` (``mean``, ``sum``, ``median`` …) of
    ``value`` over the arm's rows of that repetition, indexed by repetition."""
    d = df[df[arm_col] == arm]
    return d.groupby(rep_col, observed=True)[value].agg(how)


def paired_reps(df: pd.DataFrame, arm_col: str, a: str, b: str, value: str,
                how: str = "mean", rep_col: str = "rep") -> Diff:
    """The per-repetition statistic of arm ``a`` minus arm ``b``, paired by repetition."""
    x = per_rep(df, arm_col, a, value, how, rep_col)
    y = per_rep(df, arm_col, b, value, how, rep_col)
    common = x.index.intersection(y.index)
    return difference(x.loc[common].to_numpy(), y.loc[common].to_numpy(), paired=True)


def judge_difference(claim: str, ok: bool, ours: str, why: str,
                     signs: Sequence[Any] = (), events: Optional[int] = None,
                     min_events: int = 0, show: Optional[Sequence[Diff]] = None,
                     unit: str = "", same: Sequence[Tuple[Diff, float]] = (),
                     expect: Sequence[Tuple[Diff, float, float]] = ()) -> Verdict:
    """The verdict of a claim that compares arms. ``signs`` are the differences ``a − b``
    the claim depends on, each a :class:`Need` (or a tuple ``(diff, rel)`` /
    ``(diff, rel, margin)``): a strict order needs its interval off zero on its side; a
    no-worse relation needs its whole interval within its margin. Fewer than
    ``min_events`` events — in all, or in the two arms one relation compares — or a needed
    difference inside the noise: :data:`NOT_SIGNIFICANT`; a difference significantly the
    wrong way (beyond a no-worse margin): does not hold; otherwise holds / does not hold by
    ``ok`` (the rule's magnitudes). ``same`` are differences a claim of *no* effect needs
    within ``±tol``: one whose point is inside but whose interval is not is
    :data:`NOT_SIGNIFICANT` (no effect cannot be told from the noise). ``expect`` are
    differences the rule wants in ``[lo, hi]`` (the seed's magnitude; ``lo`` or ``hi`` may
    be infinite): one whose whole interval lies outside refutes the claim beyond the noise
    (does not hold, before any *not significant*), so a magnitude the run refutes is never
    excused by a noisy sign. The intervals of ``show`` (default: every difference) are
    added to ``ours`` with the smallest effect each could detect (:meth:`Diff.detectable`);
    all of them and the event count go on the verdict (:attr:`Verdict.intervals`)."""
    needs = [need(x) for x in signs]
    shown = list(show) if show is not None else [n.diff for n in needs] + [d for d, _ in same]
    v = _judge(claim, ok, ours, why, needs, events, min_events, shown, unit, expect)
    if v.verdict == HOLDS:
        loose = [(d, t) for d, t in same if not (d.n >= 2 and -t <= d.low and d.high <= t)]
        if loose:
            d, t = loose[0]
            v = Verdict(claim, v.ours, NOT_SIGNIFICANT,
                        f"{why}; but the {d.confidence * 100:g} % interval of a difference the claim "
                        f"needs within ±{t:g}{(' ' + unit) if unit else ''} reaches beyond it "
                        f"({d.text(unit)}): no effect cannot be told from the noise")
    seen = {id(d) for d in shown}
    rest = [n.diff for n in needs] + [d for d, _ in same] + [d for d, _, _ in expect]
    v.intervals = [d.to_dict() for d in shown + [d for d in rest if id(d) not in seen]]
    v.events, v.min_events = events, min_events
    return v


def _power_text(shown: Sequence[Diff], unit: str) -> str:
    """``smallest detectable effect ±a, ±b`` (80 % power) of the shown differences."""
    det = [d.detectable() for d in shown]
    if not det:
        return ""
    u = f" {unit}" if unit else ""
    parts = [f"±{x:.3g}{u}" if math.isfinite(x) else "none (no interval)" for x in det]
    return f"; smallest detectable effect ({POWER * 100:g} % power) " + ", ".join(parts)


def _judge(claim: str, ok: bool, ours: str, why: str, needs: Sequence[Need],
           events: Optional[int], min_events: int, shown: Sequence[Diff], unit: str,
           expect: Sequence[Tuple[Diff, float, float]]) -> Verdict:
    u = f" {unit}" if unit else ""
    if shown:
        ours = ours + "; difference " + "; ".join(d.text(unit) for d in shown) + _power_text(shown, unit)
    if len(needs) > len(shown):
        ours += f" ({len(needs)} compared)"
    if events is not None:
        ours += f"; {events} events"
        if events < min_events:
            return Verdict(claim, ours, NOT_SIGNIFICANT,
                           f"{events} events, fewer than the {min_events} the rule needs")
    thin = [n for n in needs if n.events is not None and n.events < min_events]
    if thin:
        return Verdict(claim, ours, NOT_SIGNIFICANT,
                       f"a relation the claim needs rests on {thin[0].events} events in the two arms "
                       f"it compares, fewer than the {min_events} the rule needs (the other arms' "
                       f"events say nothing about it)")
    wrong = [n.diff for n in needs if not n.no_worse and n.diff.significant
             and (n.diff.mean > 0) != (n.rel[0] == ">")]
    worse = [n for n in needs if n.no_worse and n.refuted()]
    if wrong:
        return Verdict.judge(claim, False, ours,
                             f"{why}; a difference is significantly the other way ({wrong[0].text(unit)})")
    if worse:
        n = worse[0]
        return Verdict.judge(claim, False, ours,
                             f"{why}; a difference the claim needs no worse than {n.margin:g}{u} the "
                             f"wrong way is beyond it with its whole {n.diff.confidence * 100:g} % "
                             f"interval ({n.diff.text(unit)})")
    off = [(d, lo, hi) for d, lo, hi in expect if d.n >= 2 and (d.low > hi or d.high < lo)]
    if off:
        d, lo, hi = off[0]
        return Verdict.judge(claim, False, ours,
                             f"{why}; the {d.confidence * 100:g} % interval of a difference lies wholly "
                             f"outside the rule's [{lo:g}, {hi:g}]{u} "
                             f"({d.text(unit)}): refuted beyond the noise")
    # exactly zero in every resample is no effect, not noise: a strict order fails on it
    flat = [n.diff for n in needs if not n.no_worse and n.diff.n >= 2 and n.diff.low == n.diff.high == 0]
    if flat:
        return Verdict.judge(claim, False, ours,
                             f"{why}; a difference the claim needs is exactly zero in every repetition")
    weak = [n.diff for n in needs if not n.no_worse and not n.diff.significant]
    loose = [n for n in needs if n.no_worse and not (n.diff.n >= 2 and math.isfinite(n.diff.low)
                                                     and n.beyond() <= 0)]
    if weak or loose:
        w = weak[0] if weak else loose[0].diff
        if w.n < 2 or not math.isfinite(w.low):
            return Verdict(claim, ours, NOT_SIGNIFICANT,
                           f"a difference the claim needs has no interval ({w.text(unit)}): too few "
                           f"repetitions to tell it from the noise (2 for a paired interval, "
                           f"{MIN_BOOTSTRAP_REPS} for a bootstrap)")
        if weak:
            return Verdict(claim, ours, NOT_SIGNIFICANT,
                           f"the {w.confidence * 100:g} % interval of a difference the claim "
                           f"needs contains zero ({w.text(unit)}): inside the noise of the "
                           f"repetitions ({len(weak)} of {len(needs)} such differences)")
        n = loose[0]
        return Verdict(claim, ours, NOT_SIGNIFICANT,
                       f"the {w.confidence * 100:g} % interval of a difference the claim needs no "
                       f"worse than {n.margin:g}{u} reaches beyond that margin ({w.text(unit)}): "
                       f"no worse cannot be told from the noise")
    return Verdict.judge(claim, ok, ours, why)
