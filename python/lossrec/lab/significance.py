"""Is a difference between two arms more than the noise of the repetitions?

A claim that compares arms ("PRR recovers faster than RFC 3517") is judged on the
difference of a per-repetition statistic: with common seeds (repetition *i* of every arm
runs the same random numbers) the differences are paired and their mean's interval is
:func:`lossrec.summarize`'s Student t interval on them; otherwise Welch's interval. A
difference whose interval contains zero, or that rests on fewer events than the claim's
minimum, is :data:`~lossrec.lab.claims.NOT_SIGNIFICANT` — a verdict of its own, neither a
hold nor a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ..summary import summarize, t_quantile
from .claims import NOT_SIGNIFICANT, Verdict

#: How a claim needs ``a − b`` to be (see :func:`judge_difference`).
RELATIONS = (">", "<", ">=", "<=")
#: Confidence level of every comparison in the reports.
CONFIDENCE = 0.95


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
                     signs: Sequence[Tuple[Diff, str]] = (), events: Optional[int] = None,
                     min_events: int = 0, show: Optional[Sequence[Diff]] = None,
                     unit: str = "") -> Verdict:
    """The verdict of a claim that compares arms. ``signs`` are the differences ``a − b``
    the claim depends on with the relation it needs: ``">"`` or ``"<"`` (a strict order:
    the interval must exclude zero on that side) or ``">="`` / ``"<="`` (no worse: only a
    difference the wrong way counts, and it fails only when significant). Fewer than
    ``min_events`` events, or a needed difference inside the noise: :data:`NOT_SIGNIFICANT`;
    a difference significantly the wrong way: does not hold; otherwise holds / does not
    hold by ``ok`` (the rule's magnitudes). The intervals of ``show`` (default: every
    difference) are added to ``ours``."""
    shown = list(show) if show is not None else [d for d, _ in signs]
    if shown:
        ours = ours + "; difference " + "; ".join(d.text(unit) for d in shown)
    if len(signs) > len(shown):
        ours += f" ({len(signs)} compared)"
    if events is not None:
        ours += f"; {events} events"
        if events < min_events:
            return Verdict(claim, ours, NOT_SIGNIFICANT,
                           f"{events} events, fewer than the {min_events} the rule needs")
    for _, rel in signs:
        if rel not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {rel!r}")
    wrong = [d for d, rel in signs if d.significant and (d.mean > 0) != (rel[0] == ">")]
    if wrong:
        return Verdict.judge(claim, False, ours,
                             f"{why}; a difference is significantly the other way ({wrong[0].text(unit)})")
    weak = [d for d, rel in signs if not d.significant
            and (len(rel) == 1 or (d.mean > 0) != (rel[0] == ">"))]
    if weak:
        return Verdict(claim, ours, NOT_SIGNIFICANT,
                       f"the {weak[0].confidence * 100:g} % interval of a difference the claim "
                       f"needs contains zero ({weak[0].text(unit)}): inside the noise of the "
                       f"repetitions ({len(weak)} of {len(signs)} such differences)")
    return Verdict.judge(claim, ok, ours, why)
