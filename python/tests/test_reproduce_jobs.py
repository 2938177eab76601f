"""lossrec reproduce as a long job (resume, atomic folders, progress, provenance) and its
frozen rules (expected verdicts, the other rule's verdict, seed inconsistent, calibration)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.lab import frozen, studies
from lossrec.lab.claims import FAILS, HOLDS, NOT_SIGNIFICANT, SEED_INCONSISTENT, Verdict
from lossrec.lab.jobs import PARTIAL, Progress, read_provenance
from lossrec.lab.significance import difference, judge_difference

TOY = '''
from lossrec.lab import Sweep, Verdict

TITLE = "Toy"
SEED = "000"

def sweeps(quick):
    return [Sweep("s.toml", {"path.rtt_ms": [10, 20]}, reps=3),
            Sweep("s.toml", {"path.rtt_ms": [30, 40, 50]}, reps=40, labels={"second": 1})]

def claims(df, published, ctx):
    worst = df["fct_ms"].max()
    return [Verdict.judge("fast", worst < published["fast"]["limit_ms"], f"{worst:.1f} ms", "max FCT")
            .with_other(worst < published["fast"]["other_rule"]["limit_ms"], f"{worst:.1f} ms"),
            Verdict.judge("typo", False, "x", "row: 3 values printed for 2 ACKs"),
            Verdict.judge("calib", True, "1 %", "workload")]
'''
PUBLISHED = '''
[claims.fast]
statement = "flows finish fast"
value = 1
where = "nowhere"
agreement = "max FCT below limit_ms"
limit_ms = 1
kind = "absolute"
no_interval = "one arm against a limit"

[claims.fast.other_rule]
label = "earlier rule"
agreement = "max FCT below 10 s"
limit_ms = 10000

[claims.typo]
statement = "a printed table"
value = "x"
where = "a slide"
agreement = "exact"
kind = "deterministic"
no_interval = "a printed table"

[claims.typo.seed_inconsistent]
why = "the row has more values than its own header has ACKs"
differences = "row: 3 values printed for 2 ACKs"

[claims.calib]
statement = "the workload's loss rate"
value = 1
where = "a slide"
agreement = "within a factor of 2"
kind = "calibration"
'''


@pytest.fixture
def toy(write_study):
    return write_study({"study.py": TOY, "published.toml": PUBLISHED,
                        "s.toml": "seed = 5\n[workload]\nsegments = 4\n"})


def test_interrupted_run_resumes_without_half_written_folders(toy, tmp_path):
    out = tmp_path / "out"
    seen = []

    def stop_in_second_sweep(study, done, total):
        seen.append(done)
        if done > 6:  # the first sweep (6 scenarios) is finished, the second is under way
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        studies.reproduce_all(out, root=toy, on_progress=stop_in_second_sweep)
    assert not (out / "toy").exists()  # no half-written study folder
    assert not list(out.glob(".toy.tmp-*"))
    kept = list((out / PARTIAL / "toy").glob("sweep-00-*.parquet"))
    assert len(kept) == 1  # the finished sweep is kept
    # resumed: the first sweep is not run again, the second completes
    seen.clear()
    studies.reproduce_all(out, root=toy, on_progress=lambda s, d, t: seen.append((d, t)))
    run = json.loads((out / "toy" / "run.json").read_text())
    assert [s.get("resumed", False) for s in run["sweeps"]] == [True, False]
    assert "(resumed: run before an interruption)" in (out / "toy" / "report.md").read_text()
    assert seen[-1] == (126, 126)
    assert not (out / PARTIAL).exists()
    # the rows equal an uninterrupted run's
    fresh = tmp_path / "fresh"
    studies.reproduce_all(fresh, root=toy)
    a = pd.read_parquet(out / "toy" / "results.parquet")
    b = pd.read_parquet(fresh / "toy" / "results.parquet")
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 126 and set(a["second"].dropna()) == {1}


def test_finished_study_is_reused_and_rerun_when_its_files_change(toy, tmp_path):
    out = tmp_path / "out"
    lossrec.reproduce("toy", out=out, root=toy)
    first = (out / "toy" / "run.json").stat().st_mtime_ns
    lossrec.reproduce("toy", out=out, root=toy)
    assert (out / "toy" / "run.json").stat().st_mtime_ns == first  # finished: reused
    (toy / "toy" / "s.toml").write_text("seed = 6\n[workload]\nsegments = 4\n")
    lossrec.reproduce("toy", out=out, root=toy)
    run = json.loads((out / "toy" / "run.json").read_text())
    assert run["provenance"]["scenarios"]["s.toml"]["seed"] == 6  # rerun


def test_provenance_in_every_output(toy, tmp_path):
    out = tmp_path / "out"
    index = lossrec.reproduce_all(out, root=toy)
    prov = read_provenance(out / "toy" / "results.parquet")
    assert prov["lossrec"] and len(prov["commit"]) >= 7
    assert prov["scenarios"]["s.toml"]["seed"] == 5 and len(prov["scenarios"]["s.toml"]["sha256"]) == 64
    assert prov["seeds"]["distinct"] == 126  # one per point and repetition
    report = (out / "toy" / "report.md").read_text()
    assert prov["commit"] in report and prov["scenarios"]["s.toml"]["sha256"] in report
    assert "base seed" in report and "distinct seeds" in report
    idx = json.loads((out / "index.json").read_text())
    assert idx["studies"][0]["provenance"]["commit"] == prov["commit"]
    assert prov["commit"] in index.read_text()


def test_verdict_diff_against_frozen_and_freeze(toy, tmp_path, cli):
    out = tmp_path / "out"
    (toy / "toy" / "expected.toml").write_text(
        '[claims.fast]\nfull = "holds"\nquick = "does not hold"\n'
        '[claims.typo]\nfull = "seed inconsistent"\nquick = "seed inconsistent"\n'
        '[claims.calib]\nfull = "holds"\nquick = "holds"\n')
    r = cli("reproduce", "toy", "-o", str(out), "-q", "--experiments", str(toy))
    assert r.code == 0, r.stderr
    # `fast` does not hold (a 4-segment flow takes more than 1 ms) but was frozen as holding
    assert "1 verdict(s) differ from the frozen ones" in r.stdout
    assert "fast" in r.stdout.split("differ from the frozen ones")[1]
    report = (out / "toy" / "report.md").read_text()
    assert "| **fast** | holds | does not hold |" in report
    idx = lossrec.reproduce_all(out, root=toy)
    assert "| toy | **fast** | holds | does not hold |" in idx.read_text()
    # the quick run states what it cannot judge (frozen quick ≠ full)
    r = cli("reproduce", "toy", "--quick", "-o", str(out), "-q", "--experiments", str(toy))
    assert "the quick run cannot judge 1 claim(s)" in r.stdout
    assert "cannot judge" in (out / "toy" / "report.md").read_text()
    # re-freezing is one command; it keeps the other mode's verdicts
    r = cli("reproduce", "toy", "-o", str(out), "-q", "--freeze", "--experiments", str(toy))
    assert r.code == 0 and "froze the full verdicts" in r.stderr
    e = frozen.load(studies.load_study("toy", toy))
    assert e["fast"] == {"full": FAILS, "quick": FAILS}
    r = cli("reproduce", "toy", "-o", str(out), "-q", "--experiments", str(toy))
    assert "differ from the frozen" not in r.stdout


def test_other_rule_seed_inconsistent_and_calibration(toy, tmp_path):
    out = tmp_path / "out"
    report = lossrec.reproduce("toy", out=out, root=toy).read_text()
    run = json.loads((out / "toy" / "run.json").read_text())
    v = {x["claim"]: x for x in run["verdicts"]}
    assert v["fast"]["verdict"] == FAILS and v["fast"]["other"]["verdict"] == HOLDS
    assert "*earlier rule:* ✅ holds" in report and "*earlier rule:* max FCT below 10 s" in report
    assert v["typo"]["verdict"] == SEED_INCONSISTENT
    assert "more values than its own header" in v["typo"]["why"]
    # calibration is reported apart and never counted as a claim that holds
    assert "**Verdicts:** 0 hold, 1 do not hold" in report
    assert "Calibration checks (not claims): 1 hold" in report and "## Calibration" in report
    claims_part = report.split("## Calibration")[0]
    assert "**calib**" not in claims_part


def test_seed_inconsistent_only_for_exactly_the_documented_difference():
    pub = {"t": {"seed_inconsistent": {"why": "typo", "differences": "row: 3 values printed for 2 ACKs"}}}
    same = Verdict.judge("t", False, "x", "row: 3 values printed for 2 ACKs")
    other = Verdict.judge("t", False, "x", "row: 4 values printed for 2 ACKs")
    out = frozen.apply_published(pub, [same, other])
    assert out[0].verdict == SEED_INCONSISTENT and out[1].verdict == FAILS


def test_bad_expected_toml_names_the_field(toy, cli):
    (toy / "toy" / "expected.toml").write_text('[claims.fast]\nfull = "maybe"\n')
    r = cli("reproduce", "toy", "--experiments", str(toy), "-o", str(toy.parent / "o"), "-q")
    assert r.code == 2 and "expected.toml: claims.fast.full: `maybe` is not a verdict" in r.stderr
    (toy / "toy" / "expected.toml").write_text('[claims.nope]\nfull = "holds"\n')
    r = cli("reproduce", "toy", "--experiments", str(toy), "-o", str(toy.parent / "o"), "-q")
    assert r.code == 2 and "claims.nope: no such claim in published.toml" in r.stderr


def test_difference_inside_the_noise_is_not_significant():
    noisy = difference([1, 5, 2, 6], [2, 4, 3, 5], paired=True)
    v = judge_difference("c", True, "x", "y", signs=[(noisy, ">")])
    assert v.verdict == NOT_SIGNIFICANT and "contains zero" in v.why and "95 % CI" in v.ours
    clear = difference([10, 11, 12, 11], [1, 2, 1, 2], paired=True)
    assert clear.significant and clear.low > 0
    assert judge_difference("c", True, "x", "y", signs=[(clear, ">")]).verdict == HOLDS
    # the rule's magnitude fails although the direction is clear
    assert judge_difference("c", False, "x", "y", signs=[(clear, ">")]).verdict == FAILS
    # significantly the other way: does not hold, even with a noisy second difference
    wrong = judge_difference("c", True, "x", "y", signs=[(clear, "<"), (noisy, ">")])
    assert wrong.verdict == FAILS and "significantly the other way" in wrong.why
    few = judge_difference("c", True, "x", "y", signs=[(clear, ">")], events=3, min_events=10)
    assert few.verdict == NOT_SIGNIFICANT and "3 events, fewer than the 10" in few.why
    # "no worse" (<=, with its margin): equal or better holds, worse inside the noise is not
    # significant
    same = difference([0, 0, 0], [0, 0, 0], paired=True)
    assert judge_difference("c", True, "x", "y", signs=[(same, "<=", 0)]).verdict == HOLDS
    worse = difference([2, 5, 3, 6], [2, 4, 3, 5], paired=True)  # +0.5 inside the noise
    assert not worse.significant and worse.mean > 0
    assert judge_difference("c", True, "x", "y", signs=[(worse, "<=", 0)]).verdict == NOT_SIGNIFICANT
    # a mean of 0 with a wide interval is not "no worse" (it held before issue 25: a reviewer
    # disputes exactly that reading); within a margin the interval clears, it is
    assert judge_difference("c", True, "x", "y", signs=[(noisy, "<=", 0)]).verdict == NOT_SIGNIFICANT
    assert judge_difference("c", True, "x", "y", signs=[(noisy, "<=", 2)]).verdict == HOLDS
    assert judge_difference("c", True, "x", "y", signs=[(clear, "<=", 0)]).verdict == FAILS
    with pytest.raises(ValueError, match="relation must be one of"):
        judge_difference("c", True, "x", "y", signs=[(clear, "=")])
    w = difference([10, 11, 12, 11, 10], [1, 2, 1], paired=False)
    assert w.significant and w.n == 3
    with pytest.raises(ValueError, match="equal lengths"):
        difference([1, 2], [1], paired=True)


def test_progress_bars_on_stderr(toy, tmp_path, cli):
    r = cli("reproduce", "--all", "--progress", "-o", str(tmp_path / "o"), "--experiments", str(toy))
    assert r.code == 0, r.stderr
    assert "all studies" in r.stderr and "scenario" in r.stderr


def test_full_run_output_is_parquet(toy, tmp_path):
    out = tmp_path / "out"
    lossrec.reproduce("toy", out=out, root=toy)
    names = {p.name for p in (out / "toy").iterdir()}
    assert {"report.md", "results.parquet", "run.json"} <= names and "results.csv" not in names
    assert Path(out / "toy" / "report.md").read_text().count("results.parquet") >= 1


# ------------------------- the figures-and-verdicts phase: shown and resumable (issue 28 item 8)

PHASE_STUDY = '''
import os
from pathlib import Path
from lossrec.lab import Sweep, Verdict, style
from lossrec.lab.tail import traced_sweep

TITLE = "Phase"
SEED = "000"

def sweeps(quick):
    return [Sweep("s.toml", {"path.rtt_ms": [10]}, reps=1)]

def traced(ctx):
    if "t" not in ctx.cache:
        ctx.cache["t"] = traced_sweep(ctx.scenario("s.toml"), {"path.rtt_ms": [10, 20]}, reps=2, jobs=1)
    return ctx.cache["t"]

def fig(df, ctx):
    t = traced(ctx)
    f, ax = style.figure()
    ax.plot(t["path.rtt_ms"], t["flows"])
    return f, "flows"

FIGURES = {"flows": fig}

def claims(df, published, ctx):
    if os.environ.get("PHASE_FAIL"):
        raise KeyboardInterrupt  # interrupted after the traced runs
    return [Verdict.judge("c", len(traced(ctx)) == 4, str(len(traced(ctx))), "runs")]
'''
PHASE_PUBLISHED = '''
[claims.c]
statement = "four traced runs"
value = 4
where = "here"
agreement = "four"
kind = "absolute"
no_interval = "a count"
'''


class _Phases(Progress):
    def __init__(self):
        super().__init__(False, 0)
        self.texts = []

    def phase(self, text):
        self.texts.append(text)


def test_figure_phase_is_shown_and_resumes_its_traced_runs(write_study, tmp_path, monkeypatch):
    import lossrec.lab.tail as tail

    root = write_study({"study.py": PHASE_STUDY, "published.toml": PHASE_PUBLISHED,
                        "s.toml": "[workload]\nsegments = 2\n"})
    runs = []
    real = tail._core.run_scenario
    monkeypatch.setattr(tail._core, "run_scenario", lambda *a: runs.append(a) or real(*a))
    out = tmp_path / "out"
    monkeypatch.setenv("PHASE_FAIL", "1")
    with pytest.raises(KeyboardInterrupt):
        lossrec.reproduce("toy", out=out, quick=True, root=root)
    assert len(runs) == 4  # the traced runs were done before the interruption
    monkeypatch.delenv("PHASE_FAIL")
    bar = _Phases()
    report = lossrec.reproduce("toy", out=out, quick=True, root=root, progress=bar)
    assert len(runs) == 4, "the resumed run traced nothing again"
    assert "✅ holds" in report.read_text()
    shown = " | ".join(bar.texts)
    assert "traced runs 4/4 (s.toml, resumed)" in shown
    assert "figure flows (1/1)" in shown and "verdicts" in shown
