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
    assert judge_difference("c", True, "x", "y", signs=[(zero, ">=", 0)]).verdict == HOLDS
    assert judge_difference("c", True, "x", "y", signs=[(zero, "<=", 0)]).verdict == HOLDS


def test_a_refuted_magnitude_does_not_hold_however_noisy_the_sign():
    # spurious-rto a_eifel_gain as the reviewer recomputed it: the sign's interval contains
    # zero, the best gain is 56 % [8, 106] against a 125 % floor
    sign = Diff(300.0, -50.0, 650.0, 6)
    gain = Diff(56.0, 8.0, 106.0, 6)
    v = judge_difference("c", False, "x", "y", signs=[(sign, ">")], expect=[(gain, 125, 500)])
    assert v.verdict == FAILS and "refuted beyond the noise" in v.why
    # prr web_lost_retransmissions: PRR − Linux +8.6 % [−4.9, +32.6] against ≥ +50 %
    prr = Diff(8.6, -4.9, 32.6, 10)
    v = judge_difference("c", False, "x", "y", signs=[(prr, ">")], expect=[(prr, 50, math.inf)])
    assert v.verdict == FAILS and "[50, inf]" in v.why


def test_no_worse_needs_its_whole_interval_within_the_margin():
    # prr web_timeouts_on_recovery: ±15 % around a seed effect of −2.5 %: no worse than +5 %
    # cannot be told from the noise
    wide = Diff(-2.0, -17.0, 13.0, 10)
    v = judge_difference("c", True, "x", "y", signs=[(wide, "<=", 5)])
    assert v.verdict == NOT_SIGNIFICANT and "no worse cannot be told from the noise" in v.why
    tight = Diff(-2.0, -4.0, 3.0, 10)
    assert judge_difference("c", True, "x", "y", signs=[(tight, "<=", 5)]).verdict == HOLDS
    beyond = Diff(12.0, 8.0, 16.0, 10)  # worse than the margin with its whole interval
    v = judge_difference("c", True, "x", "y", signs=[(beyond, "<=", 5)])
    assert v.verdict == FAILS and "beyond it" in v.why
    # worse, significantly, but within the margin: no worse (non-inferior)
    small = Diff(2.0, 1.0, 3.0, 10)
    assert judge_difference("c", True, "x", "y", signs=[(small, "<=", 5)]).verdict == HOLDS
    assert judge_difference("c", True, "x", "y", signs=[(Diff(-2.0, -3.0, -1.0, 10), ">=", 5)]).verdict == HOLDS
    assert judge_difference("c", True, "x", "y", signs=[(Diff(-2.0, -9.0, 1.0, 10), ">=", 5)]).verdict \
        == NOT_SIGNIFICANT


def test_a_no_worse_relation_without_a_margin_is_refused():
    d = Diff(0.0, -1.0, 1.0, 10)
    with pytest.raises(ValueError, match="needs its margin"):
        judge_difference("c", True, "x", "y", signs=[(d, "<=")])
    with pytest.raises(ValueError, match="takes no margin"):
        judge_difference("c", True, "x", "y", signs=[(d, ">", 1)])


def test_a_relation_needs_events_in_the_arms_it_compares():
    # rtor web_spurious_order: 0 ≤ 0 DSACKs in baseline and RTOR, the events all TLP's
    from lossrec.lab.significance import Need
    zero = Diff(0.0, 0.0, 0.0, 10)
    tlp = Diff(0.2, 0.1, 0.3, 10)
    v = judge_difference("c", True, "x", "y", events=40, min_events=10,
                         signs=[Need(zero, ">=", 0.001, events=0), Need(tlp, ">", events=40)])
    assert v.verdict == NOT_SIGNIFICANT and "rests on 0 events in the two arms" in v.why
    v = judge_difference("c", True, "x", "y", events=40, min_events=10,
                         signs=[Need(zero, ">=", 0.001, events=12), Need(tlp, ">", events=40)])
    assert v.verdict == HOLDS


def test_each_row_states_the_smallest_effect_its_run_could_detect():
    d = difference([10.0, 12.0, 11.0, 13.0, 9.0], [0.0] * 5, paired=True)
    half = (d.high - d.low) / 2
    # (t_.975 + t_.80) · se with 4 degrees of freedom: 2.776 + 0.941 over 2.776
    assert d.detectable() == pytest.approx(half * (1 + 0.9410 / 2.7764), rel=1e-3)
    assert math.isnan(Diff(1.0, math.nan, math.nan, 1).detectable())
    v = judge_difference("c", True, "x", "y", signs=[(d, ">")], unit="ms")
    assert "smallest detectable effect (80 % power) ±" in v.ours
    assert v.intervals[0]["detectable"] == pytest.approx(d.detectable())


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


# ------------------------------------------------------------------ what is a claim (issue 25)


def test_the_reviewers_reclassifications_are_in_the_registry():
    pub = {n: load_study(n, EXPERIMENTS).claims_published for n in find_studies(EXPERIMENTS)}
    assert pub["rack"]["a_timeout_vs_ack_repairs"]["kind"] == CALIBRATION
    assert pub["prr"]["web_retransmission_rate"]["kind"] == CALIBRATION
    assert pub["classic-baseline"]["ns3_fct_40ms"]["kind"] == "cross-check"
    assert pub["rack"]["slide6_throughput"]["not_comparable"].strip()
    assert "seed_inconsistent" in pub["prr"]["table_ssthresh"]


def test_not_comparable_and_cross_checks_are_applied_and_counted_apart():
    from lossrec.lab import frozen
    pub = {"nc": {"not_comparable": "BBR's sentence"}, "x": {"kind": "cross-check"},
           "cal": {"kind": CALIBRATION}, "c": {}}
    vs = frozen.apply_published(pub, [Verdict("nc", "1.3x", HOLDS, "direction"),
                                      Verdict("x", "1.1 s", HOLDS, "within"),
                                      Verdict("cal", "2 %", FAILS, "off"),
                                      Verdict("c", "3", HOLDS, "ok")])
    assert vs[0].verdict == NOT_COMPARABLE and vs[0].why == "BBR's sentence" and vs[0].ours == "1.3x"
    claims, apart = frozen.counts(pub, vs)
    assert claims[HOLDS] == 1 and claims[NOT_COMPARABLE] == 1 and sum(claims.values()) == 2
    assert apart[HOLDS] == 1 and apart[FAILS] == 1


def test_the_index_counts_kernel_checks_apart_from_seed_claims():
    from types import SimpleNamespace

    from lossrec.lab.report import totals
    seed = SimpleNamespace(seed="003", claims_published={"a": {}, "b": {"kind": CALIBRATION}})
    kern = SimpleNamespace(seed="kernel", claims_published={"k": {"kind": ABSOLUTE}})
    t = totals([(seed, Path("x"), [Verdict("a", "", HOLDS, ""), Verdict("b", "", HOLDS, "")]),
                (kern, Path("y"), [Verdict("k", "", FAILS, "")])])
    assert t["seed_claims"][HOLDS] == 1 and sum(t["seed_claims"].values()) == 1
    assert t["kernel_checks"][FAILS] == 1 and sum(t["kernel_checks"].values()) == 1
    assert t["apart"][HOLDS] == 1
