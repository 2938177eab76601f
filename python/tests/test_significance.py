"""The intervals of arm comparisons (lossrec.lab.significance) on numbers worked by hand, and
the registry rule: every claim of every study that compares arms carries an interval and a
minimum event count; the others say why they need none."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import lossrec
from lossrec.lab.claims import (ABSOLUTE, CALIBRATION, COMPARISON, DETERMINISTIC, FAILS, HOLDS, KINDS,
                                NOT_COMPARABLE, NOT_SIGNIFICANT, Verdict, kind, missing_intervals)
from lossrec.lab.significance import (MIN_BOOTSTRAP_REPS, Diff, bootstrap, difference, judge_difference,
                                      pooled, relative_mean, relative_quantile, relative_totals)
from lossrec.lab.studies import find_studies, load_study

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


# ------------------------------------------------------------------ intervals, by hand


def test_paired_t_interval():
    # d = 1..5: mean 3, s = 1.5811, se = 0.7071, t(0.975, 4) = 2.7764 → ±1.9632
    d = difference([2, 4, 6, 8, 10], [1, 2, 3, 4, 5], paired=True)
    assert d.mean == pytest.approx(3.0)
    assert d.low == pytest.approx(3 - 1.9632, abs=2e-3) and d.high == pytest.approx(3 + 1.9632, abs=2e-3)
    assert d.n == 5 and d.significant


def test_welch_interval():
    # means 2.5 and 6; variances of the means 0.41667 and 2; Welch's dof 5.52 (taken as 5),
    # t(0.975, 5) = 2.5706, se = 1.5546 → −3.5 ± 3.996
    d = difference([1, 2, 3, 4], [2, 4, 6, 8, 10], paired=False)
    assert d.mean == pytest.approx(-3.5)
    assert d.low == pytest.approx(-7.496, abs=5e-3) and d.high == pytest.approx(0.496, abs=5e-3)
    assert not d.significant and d.n == 4


def test_bootstrap_mean_close_to_the_normal_interval():
    # 0..19: mean 9.5, s = 5.916, se = 1.3229; the normal 95 % interval is 9.5 ± 2.59
    x = np.arange(20, dtype=float)
    d = bootstrap(lambda i: x[i].mean(), len(x))
    assert d.mean == pytest.approx(9.5)
    assert d.low == pytest.approx(9.5 - 2.59, abs=0.5) and d.high == pytest.approx(9.5 + 2.59, abs=0.5)
    # a fixed seed: the same data give the same interval
    assert bootstrap(lambda i: x[i].mean(), len(x)) == d


def test_bootstrap_needs_repetitions_and_a_defined_statistic():
    few = bootstrap(lambda i: float(len(i)), MIN_BOOTSTRAP_REPS - 1)
    assert few.n == MIN_BOOTSTRAP_REPS - 1 and math.isnan(few.low) and not few.significant
    assert "no interval" in few.text()
    undefined = bootstrap(lambda i: math.nan, 10)
    assert math.isnan(undefined.mean) and math.isnan(undefined.low)


def test_relative_totals():
    # every repetition 10 % above: +10 % exactly, no noise, so the interval is a point
    d = relative_totals([11] * 6, [10] * 6)
    assert d.mean == pytest.approx(10.0) and d.low == pytest.approx(10.0) and d.high == pytest.approx(10.0)
    assert d.significant
    # Σa / Σb − 1 (not the mean of the ratios): (4 + 16) / (10 + 10) − 1 = 0
    noisy = relative_totals([4, 16, 4, 16, 4, 16], [10] * 6)
    assert noisy.mean == pytest.approx(0.0) and noisy.low < 0 < noisy.high and not noisy.significant
    with pytest.raises(ValueError, match="one total per repetition"):
        relative_totals([1, 2], [1])


def test_pooled_quantiles_and_means():
    rng = np.random.default_rng(3)
    base = [rng.exponential(100, 200) for _ in range(8)]
    slower = [b * 1.2 for b in base]
    q = pooled(slower, base, relative_quantile(50))
    m = pooled(slower, base, relative_mean)
    for d in (q, m):  # scaling every value by 1.2 moves every statistic by +20 % exactly
        assert d.mean == pytest.approx(20.0) and d.low == pytest.approx(20.0) and d.high == pytest.approx(20.0)
    # the same responses in other repetitions: 0 % overall, and resamples of repetitions
    # scatter around it (the interval is the repetitions' noise)
    d = pooled(base[::-1], base, relative_mean)
    assert d.mean == pytest.approx(0.0, abs=1e-9) and d.low < 0 < d.high and not d.significant


# ------------------------------------------------------------------ verdicts from intervals


def test_interval_outside_the_rules_range_refutes_the_claim():
    clear = Diff(2.0, 1.5, 2.5, 8)  # significantly positive, but the rule wants 10-30
    v = judge_difference("c", False, "x", "y", signs=[(clear, ">")], expect=[(clear, 10, 30)])
    assert v.verdict == FAILS and "outside the rule's [10, 30]" in v.why
    noisy = Diff(2.0, -5.0, 40.0, 8)  # inside the noise, and it could be in the range
    v = judge_difference("c", False, "x", "y", signs=[(noisy, ">")], expect=[(noisy, 10, 30)])
    assert v.verdict == NOT_SIGNIFICANT


def test_exactly_zero_fails_a_strict_order_and_ties_pass_no_worse():
    zero = Diff(0.0, 0.0, 0.0, 10)
    assert judge_difference("c", False, "x", "y", signs=[(zero, ">")]).verdict == FAILS
    assert judge_difference("c", True, "x", "y", signs=[(zero, ">=")]).verdict == HOLDS
    assert judge_difference("c", True, "x", "y", signs=[(zero, "<=")]).verdict == HOLDS


def test_no_effect_must_be_inside_the_tolerance_with_its_interval():
    tight = Diff(0.5, -1.0, 2.0, 12)
    loose = Diff(0.5, -8.0, 9.0, 12)
    assert judge_difference("c", True, "x", "y", same=[(tight, 5)]).verdict == HOLDS
    v = judge_difference("c", True, "x", "y", same=[(loose, 5)])
    assert v.verdict == NOT_SIGNIFICANT and "no effect cannot be told from the noise" in v.why
    assert judge_difference("c", False, "x", "y", same=[(tight, 5)]).verdict == FAILS


def test_a_difference_without_an_interval_is_not_significant_and_says_why():
    one = difference([5.0], [1.0], paired=True)
    v = judge_difference("c", True, "x", "y", signs=[(one, ">")])
    assert v.verdict == NOT_SIGNIFICANT and "has no interval" in v.why and "n = 1" in v.why


def test_verdict_carries_its_intervals_and_events():
    d = difference([10, 11, 12, 11], [1, 2, 1, 2], paired=True)
    v = judge_difference("c", True, "x", "y", signs=[(d, ">")], events=40, min_events=30)
    assert v.verdict == HOLDS and v.events == 40 and v.min_events == 30
    assert v.intervals == [d.to_dict()]
    back = Verdict.from_dict(json.loads(json.dumps(v.to_dict())))
    assert back.intervals == v.intervals and back.events == 40 and back.min_events == 30


# ------------------------------------------------------------------ the registry


def test_every_claim_of_every_study_has_a_kind_and_what_it_requires():
    names = find_studies(EXPERIMENTS)
    assert {"prr", "rtor", "rack", "tlp", "spurious-rto", "classic-baseline", "kernel"} <= set(names)
    seen = {k: 0 for k in KINDS}
    for name in names:
        for cid, c in load_study(name, EXPERIMENTS).claims_published.items():
            k = kind(c)
            seen[k] += 1
            if k == COMPARISON:
                assert isinstance(c.get("min_events"), int), f"{name}.{cid}: no min_events"
            elif k in (ABSOLUTE, DETERMINISTIC):
                assert str(c.get("no_interval", "")).strip(), f"{name}.{cid}: no reason for no interval"
    assert seen[COMPARISON] >= 50 and seen[DETERMINISTIC] and seen[ABSOLUTE] and seen[CALIBRATION]


def test_a_comparison_without_min_events_or_with_an_unknown_kind_is_refused(tmp_path):
    d = tmp_path / "exp" / "t"
    d.mkdir(parents=True)
    (d / "study.py").write_text("def sweeps(quick):\n    return []\n\ndef claims(df, p, ctx):\n    return []\n")
    base = '[claims.a]\nstatement = "s"\nvalue = 1\nwhere = "w"\nagreement = "g"\n'
    for extra, msg in (("", "needs `min_events`"), ('kind = "vibes"\n', "`vibes` is not one of"),
                       ('kind = "absolute"\n', "needs `no_interval`")):
        (d / "published.toml").write_text(base + extra)
        with pytest.raises(ValueError, match=msg):
            load_study("t", tmp_path / "exp")


def test_missing_intervals_names_the_bare_comparisons():
    published = {"cmp": {"min_events": 3}, "abs": {"kind": "absolute", "no_interval": "n"},
                 "gone": {"min_events": 3}}
    d = Diff(1.0, 0.5, 1.5, 5)
    judged = judge_difference("cmp", True, "x", "y", signs=[(d, ">")], events=5, min_events=3)
    bare = Verdict.judge("cmp", True, "x", "y")
    rest = [Verdict.judge("abs", True, "x", "y"), Verdict.not_comparable("gone", "no data")]
    assert missing_intervals(published, [judged, *rest]) == []
    assert missing_intervals(published, [bare, *rest]) == ["cmp"]


STUDY_BARE = '''
from lossrec.lab import Sweep, Verdict

def sweeps(quick):
    return [Sweep("s.toml", {"path.rtt_ms": [10]}, reps=1)]

def claims(df, published, ctx):
    return [Verdict.judge("a", True, "x", "compared by eye")]
'''


def test_reproduce_refuses_a_comparison_verdict_without_an_interval(tmp_path):
    d = tmp_path / "exp" / "bare"
    d.mkdir(parents=True)
    (d / "study.py").write_text(STUDY_BARE)
    (d / "published.toml").write_text('[claims.a]\nstatement = "s"\nvalue = 1\nwhere = "w"\n'
                                      'agreement = "g"\nmin_events = 1\n')
    (d / "s.toml").write_text("[workload]\nsegments = 2\n")
    with pytest.raises(ValueError, match="claims a compare arms .* carry no interval"):
        lossrec.reproduce("bare", out=tmp_path / "out", quick=True, root=tmp_path / "exp")


def test_not_comparable_needs_no_interval():
    v = Verdict.not_comparable("x", "no rows")
    assert v.verdict == NOT_COMPARABLE and missing_intervals({"x": {"min_events": 1}}, [v]) == []
