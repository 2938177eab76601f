"""The rtor study (seed 002): a quick run gives a verdict per claim, the figures and the
CSV; with the engine's seed-002 presets the controlled tail-loss claims are judged, and
without them every claim says which engine value is missing."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.lab.claims import DETERMINISTIC, FAILS, HOLDS, NOT_COMPARABLE, NOT_SIGNIFICANT, VERDICTS, kind
from lossrec.lab.studies import load_study, run_study

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "experiments"
PRESETS = ("linux-3.17", "linux-3.17-rtor", "linux-3.17-tlp")
HAVE = set(PRESETS) <= {p.name for p in lossrec.presets()}
FIGURES = ("fct-vs-rtt", "fct-vs-k", "cdf-4seg-10ms", "cdf-4seg-320ms", "cdf-100seg-320ms",
           "oct-light-80ms", "oct-heavy-80ms", "spurious-web", "web-saving-per-rtt")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("rtor")
    study = load_study("rtor", EXPERIMENTS)
    report, verdicts = run_study(study, out, True, None, False)
    return study, out / "rtor", report, {v.claim: v for v in verdicts}


def test_quick_run_judges_every_claim(quick):
    study, d, report, verdicts = quick
    assert list(verdicts) == list(study.claims_published)
    assert all(v.verdict in VERDICTS for v in verdicts.values())
    assert "RTO Restart" in (d / "report.md").read_text()
    for name in FIGURES:
        assert (d / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (d / f"{name}.svg").read_bytes()[:2000]
    df = pd.read_parquet(d / "results.parquet")
    assert {"item", "arm", "base_arm", "rtt_ms", "fct_ms", "dsacks"} <= set(df.columns)


@pytest.mark.skipif(HAVE, reason="the engine has the seed-002 presets")
def test_without_presets_every_claim_names_the_missing_value(quick):
    _, _, _, verdicts = quick
    for v in verdicts.values():
        assert v.verdict == NOT_COMPARABLE and "engine value missing" in v.why


@pytest.mark.skipif(not HAVE, reason="the engine lacks the seed-002 presets")
def test_controlled_tail_loss_verdicts(quick):
    study, d, _, verdicts = quick
    # the controlled tail loss is deterministic: decided in the quick run too; the realistic
    # and web comparisons rest on one repetition there, too few for an interval
    exact = [c for c, p in study.claims_published.items() if kind(p) == DETERMINISTIC]
    assert {"rtor_one_rtt", "tlp_not_low_rtt", "tlp_delack_10ms", "ndeg_rtor_vs_tlp"} <= set(exact)
    assert all(verdicts[c].verdict in (HOLDS, FAILS) for c in exact)
    # web_rtor_one_rtt_every_rtt judges the web RTTs other than 80 ms, which only the full
    # run sweeps (issue 25 item 5): the quick run states it cannot judge it
    assert verdicts["web_rtor_one_rtt_every_rtt"].verdict == NOT_COMPARABLE
    assert "80 ms only (the quick run)" in verdicts["web_rtor_one_rtt_every_rtt"].why
    assert all(v.verdict in (HOLDS, FAILS, NOT_SIGNIFICANT) for c, v in verdicts.items()
               if c != "web_rtor_one_rtt_every_rtt")
    # the delayed-ACK arms, judged by rtor_one_rtt's rule: RTOR(d) saves one RTT plus the
    # 40 ms the baseline's timer waits for the held ACK of the 9th segment
    dl = [float(x) for x in re.findall(r"\d+\.\d+", verdicts["rtor_one_rtt_delack"].ours)]
    assert verdicts["rtor_one_rtt_delack"].verdict == FAILS
    assert dl[-1] == pytest.approx(1.0 + 40 / 640, abs=0.05)
    assert dl[0] == pytest.approx(1.1 + 40 / 10, abs=0.1)
    # TLP's PTO is no earlier than the RTO at low RTTs with one segment outstanding, and
    # only at 10 ms does the delayed ACK of the 9th segment let the probe go out early.
    assert verdicts["tlp_not_low_rtt"].verdict == HOLDS
    assert verdicts["tlp_delack_10ms"].verdict == HOLDS
    assert verdicts["ndeg_rtor_vs_tlp"].verdict == HOLDS
    # RTOR saves the lost segment's age at the last ACK: RTT + the burst's serialisation.
    savings = [float(x) for x in re.findall(r"\d+\.\d+", verdicts["rtor_one_rtt"].ours.split(";")[0])]
    assert savings and all(s >= 1.0 for s in savings)
    assert savings[-1] == pytest.approx(1.0, abs=0.1)  # 640 ms: serialisation is negligible
    # at 100 Mb/s the burst serialises in 1.1 ms: about one RTT at 10 ms too, as in the seed
    assert savings[0] == pytest.approx(1.1, abs=0.1)
    # the rule revised after the first results keeps its original (counts) verdict beside it
    assert verdicts["tlp_delack_10ms"].other is not None
    df = pd.read_parquet(d / "results.parquet")
    k1 = df[(df["item"] == "tail") & (df["K"] == 1) & (df["receiver.delayed_ack_ms"] == 0)]
    rtos = k1.groupby("arm")["rtos"].max()
    assert rtos["baseline"] == 1 and rtos["RTOR"] == 1


def test_background_is_common_to_the_arms(quick):
    """Same seeds, same background: flows without any retransmission have the same FCT in
    every arm of a realistic point."""
    _, d, _, _ = quick
    df = pd.read_parquet(d / "results.parquet")
    r = df[(df["item"] == "realistic") & (df["workload.segments"] == 4)]
    if r["base_arm"].nunique() < 2:
        pytest.skip("one arm only")
    wide = r.pivot_table(index=["rtt_ms", "rep", "id"], columns="base_arm", values="fct_ms")
    retx = r.pivot_table(index=["rtt_ms", "rep", "id"], columns="base_arm", values="retransmits")
    clean = wide[(retx.fillna(1) == 0).all(axis=1)]
    assert len(clean) > 10
    first = clean.iloc[:5]
    assert (first.max(axis=1) - first.min(axis=1)).max() < 1e-6


def _metrics():
    from lossrec.lab.studies import sibling
    return sibling(str(EXPERIMENTS / "rtor" / "study.py"), "metrics")


def test_a_quantile_won_by_microseconds_is_not_won():
    # issue 25: real_tlp_60pct held by counting quantile levels won by under 1 ms
    m = _metrics()
    p = pd.DataFrame({"TLP": [10.0, 20.0, 30.0, 40.0], "baseline": [10.1, 20.1, 30.1, 45.0],
                      "RTOR": [10.2, 20.2, 30.2, 46.0]})
    assert m.quantile_share_best(p, "TLP", ["baseline", "RTOR"]) > 0.9
    assert m.quantile_share_best(p, "TLP", ["baseline", "RTOR"], margin=1.0) < 0.4


def test_the_web_selection_is_a_tail_loss_in_both_arms_and_a_baseline_timeout():
    m = _metrics()
    rows = []
    # object 1: tail loss in both arms, baseline RTO -> selected; object 2: tail loss only in
    # the baseline; object 3: tail loss in both but no baseline RTO
    for oid, tb, tr, rto in ((1, 1, 1, 1), (2, 1, 0, 1), (3, 1, 1, 0)):
        for arm, tail, rtos in (("baseline", tb, rto), ("RTOR", tr, 0), ("TLP", 0, 0)):
            rows.append({"item": "web", "page": "heavy", "rtt_ms": 80, "rep": 0, "id": oid,
                         "base_arm": arm, "fct_ms": 100.0 + oid, "retransmits": tail,
                         "tail_drops": tail, "rtos": rtos})
    p = m.paired(pd.DataFrame(rows), "web", page="heavy", rtt_ms=80)
    assert list(p[p["tail_rto"]]["id"]) == [1]


def test_notes_are_written_from_the_run(quick):
    # issue 25 item 6: the setups in rtor's Notes come from this run's scenario files and
    # data (points, repetitions, the share of flows that retransmitted).
    study, d, report, verdicts = quick
    text = report.read_text()
    notes = text[text.index("## Notes"):]
    df = pd.read_parquet(d / "results.parquet")
    real = df[(df["item"] == "realistic") & (df["workload.segments"] == 4) & (df["rtt_ms"] == 10)]
    share = 100 * float((real["retransmits"] > 0).mean())
    assert f"4 segments at 10 ms {share:.1f} %" in notes
    assert "70 % load on average" in notes and "**Web pages as run**" in notes
    assert "6 × 27 = 162 objects" in notes
