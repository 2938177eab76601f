"""The spurious-rto study (seed 004): a quick run judges every claim, draws the seed's
four charts, and counts spurious and genuine RTOs from the simulator's ground truth."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.lab.claims import HOLDS, NOT_COMPARABLE, NOT_SIGNIFICANT, VERDICTS
from lossrec.lab.studies import load_study, run_study

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "experiments"
PRESETS = ("reno-sack", "newreno-sack", "fack", "reno-sack-eifel", "newreno-sack-eifel",
           "fack-eifel")
HAVE = set(PRESETS) <= {p.name for p in lossrec.presets()}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("srto")
    study = load_study("spurious-rto", EXPERIMENTS)
    report, verdicts = run_study(study, out, True, None, False)
    return study, out / "spurious-rto", {v.claim: v for v in verdicts}


def test_quick_run_judges_every_claim(quick):
    study, d, verdicts = quick
    assert list(verdicts) == list(study.claims_published)
    assert all(v.verdict in VERDICTS for v in verdicts.values())
    for name in ("a-alone", "b-cbr", "c-undo", "d-rto"):
        assert (d / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    df = pd.read_parquet(d / "results.parquet")
    assert {"part", "arm", "spurious", "genuine", "fct_ms"} <= set(df.columns)


@pytest.mark.skipif(HAVE, reason="the engine has the seed-004 presets")
def test_without_presets_claims_name_the_missing_value(quick):
    _, _, verdicts = quick
    for v in verdicts.values():
        assert v.verdict == NOT_COMPARABLE and "engine value missing" in v.why


@pytest.mark.skipif(not HAVE, reason="the engine lacks the seed-004 presets")
def test_eifel_detects_the_spikes_and_the_ground_truth_agrees(quick):
    _, d, verdicts = quick
    df = pd.read_parquet(d / "results.parquet")
    a = df[df["part"] == "a"]
    for v in ("reno-sack", "newreno-sack", "fack"):
        std, eif = a[a["arm"] == v].iloc[0], a[a["arm"] == f"{v}-eifel"].iloc[0]
        # a 3 s stall beats any RTO here: at least one spurious timeout in both arms ...
        assert std["spurious"] >= 1 and eif["spurious"] >= 1
        # ... which only Eifel detects, and it finishes sooner.
        assert std["spurious_rtos"] == 0 and eif["spurious_rtos"] >= 1
        assert eif["fct_ms"] < std["fct_ms"]
    # "no harm" is a non-inferiority test since issue 25: never refuted here; where the quick
    # run's intervals reach past the 5 % margin it is not significant, and says why
    harm = verdicts["b_eifel_no_harm"]
    assert harm.verdict == HOLDS or (harm.verdict == NOT_SIGNIFICANT
                                     and "no worse cannot be told from the noise" in harm.why), harm
    assert verdicts["c_partial_idle"].verdict == HOLDS


def test_unjudged_slides_are_stated_not_comparable(quick):
    # issue 25 item 5: slides 4, 7 (FACK with reordering), 9 and 10 say why the setup cannot
    # judge them; slide 15's summary is judged line by line by the claims it names.
    study, _, verdicts = quick
    stated = {"slide4_spurious_timeouts_hurt", "slide7_fack_not_with_reordering",
              "slide9_timestamp_rto", "slide10_reset_on_genuine_timeout"}
    for cid in stated:
        assert verdicts[cid].verdict == NOT_COMPARABLE
        assert verdicts[cid].why == study.claims_published[cid]["not_comparable"]
    text = (Path(study.dir) / "published.toml").read_text()
    note = text.split("statements stated not comparable")[1].split("[claims.")[0]
    for named in ("a_eifel_gain", "b_newreno_robust", "c_full_ok", "d_fewer_spurious",
                  "d_slightly_slower"):
        assert named in study.claims_published and named in note
