"""lossrec reproduce: listing, the classic-baseline study, --all and the study contract."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.lab import frozen, studies

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "experiments"


def test_list(cli):
    r = cli("reproduce", "--list", "--experiments", str(EXPERIMENTS))
    assert r.code == 0
    assert re.search(r"classic-baseline\s+002\s+Tail-loss recovery", r.stdout)
    assert "examples" not in r.stdout  # a folder without study.py is not a study


def test_classic_baseline_quick(cli, tmp_path):
    r = cli("reproduce", "classic-baseline", "--quick", "-o", str(tmp_path), "-q",
            "--experiments", str(EXPERIMENTS))
    assert r.code == 0, r.stderr
    d = tmp_path / "classic-baseline"
    for name in ("fct-vs-rtt", "fct-vs-k", "recovery-cost", "ns3-40ms"):
        assert (d / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (d / f"{name}.svg").read_bytes()[:2000]
    report = (d / "report.md").read_text()
    assert "| claim | published | where in the seed | agreement rule | ours | verdict | why |" in report
    for claim in ("rto_plus_rtt", "ns3_fct_40ms", "delack_similar"):
        assert f"**{claim}**" in report
    assert "![" in report and "(fct-vs-rtt.png)" in report and "(fct-vs-rtt.svg)" in report
    assert "--quick" in report
    # the verdicts: RTO + RTT and the ns-3 figure hold
    assert re.search(r"\*\*ns3_fct_40ms\*\*.*\| 1\.112 s \|.*1\.1122 s.*✅ holds", report)
    assert re.search(r"\*\*rto_plus_rtt\*\*.*✅ holds", report)
    df = pd.read_parquet(d / "results.parquet")
    assert {"path.rtt_ms", "sender.preset", "receiver.delayed_ack_ms", "K", "fct_ms", "arm"} <= set(df.columns)
    assert set(df["K"]) == {0, 1, 2, 3, 4, 5}
    k1 = df[(df["K"] == 1) & (df["sender.preset"] == "rfc") & (df["path.rtt_ms"] == 40)
            & (df["receiver.delayed_ack_ms"] == 0)]
    assert k1["fct_ms"].mean() == pytest.approx(1112.17, abs=0.01)
    # ns3_fct_40ms is a cross-check since issue 25: counted apart from the seed's claims
    assert "(2 hold" in r.stdout and "calibration and cross-checks: 1 hold" in r.stdout


def test_all_quick_writes_index(tmp_path):
    index = lossrec.reproduce_all(tmp_path, quick=True, root=EXPERIMENTS)
    text = index.read_text()
    assert index == tmp_path / "index.md"
    assert "[classic-baseline](classic-baseline/report.md)" in text
    assert (tmp_path / "classic-baseline" / "report.md").exists()
    # the workload calibration (calibration.toml) has its own column: tlp's checks counted
    # from its run.json, apart from the claims
    assert "| workload calibration ok / off |" in text
    cal = json.loads((tmp_path / "tlp" / "run.json").read_text())["calibration"]
    ok = sum(c["status"] == "ok" for c in cal)
    off = sum(c["status"] == "off" for c in cal)
    tlp_row = next(line for line in text.splitlines() if line.startswith("| [tlp]"))
    assert f"| {ok} / {off} |" in tlp_row, tlp_row
    # the registry at run time: every comparison claim of every study carries its intervals
    # and its event count in run.json (the runner refuses a verdict without them)
    from lossrec.lab.claims import COMPARISON, NOT_COMPARABLE, kind
    from lossrec.lab.studies import find_studies, load_study

    for name in find_studies(EXPERIMENTS):
        published = load_study(name, EXPERIMENTS).claims_published
        run = tmp_path / name / "run.json"
        for v in json.loads(run.read_text())["verdicts"] if run.exists() else []:
            if kind(published[v["claim"]]) == COMPARISON and v["verdict"] != NOT_COMPARABLE:
                assert v.get("intervals") and "events" in v, f"{name}.{v['claim']}"


def test_cli_needs_exactly_one_target(cli):
    for args in ([], ["classic-baseline", "--all"], ["--list", "--all"]):
        r = cli("reproduce", *args)
        assert r.code == 2 and "give a study NAME, --all or --list" in r.stderr


def test_unknown_study(cli):
    r = cli("reproduce", "nope", "--experiments", str(EXPERIMENTS))
    assert r.code == 2 and "unknown study `nope`; studies: classic-baseline, kernel, prr" in r.stderr


# ------------------------------------------------------------- the contract, on a toy study

TOY = '''
from lossrec.lab import Sweep, Verdict, within
from lossrec.lab import style

TITLE = "Toy"
SEED = "000"

def sweeps(quick):
    return [Sweep("s.toml", {"path.rtt_ms": [10, 20] if quick else [10, 20, 40]}, reps=2)]

def bars(df, ctx):
    fig, ax = style.figure()
    ax.plot(df["path.rtt_ms"], df["fct_ms"])
    return fig, "FCT"

FIGURES = {"fct": bars}

def claims(df, published, ctx):
    c = published["fast"]
    ours = df["fct_ms"].max()
    return [Verdict.judge("fast", within(ours, c["value"], tol_pct=c["tolerance_pct"]), f"{ours:.1f}", "because")]
'''
PUBLISHED = '''
[claims.fast]
statement = "flows finish fast"
value = 1
unit = "ms"
where = "nowhere"
agreement = "within 10 %"
tolerance_pct = 10
kind = "absolute"
no_interval = "one arm against the seed's number"

[claims.other]
statement = "something the study does not look at"
value = "x"
where = "there"
agreement = "n/a"
kind = "absolute"
no_interval = "not looked at"
'''


@pytest.fixture
def toy(write_study):
    return write_study({"study.py": TOY, "published.toml": PUBLISHED,
                        "s.toml": "[workload]\nsegments = 2\n"})


def test_toy_study_verdicts(toy, tmp_path):
    out = tmp_path / "out"
    report = lossrec.reproduce("toy", out=out, quick=True, root=toy)
    text = report.read_text()
    assert "❌ does not hold" in text  # a 2-segment flow takes longer than 1 ms
    assert "➖ not comparable" in text and "the study does not evaluate it" in text
    assert (out / "toy" / "fct.png").exists() and (out / "toy" / "fct.svg").exists()
    assert len(pd.read_parquet(out / "toy" / "results.parquet")) == 4  # quick: 2 RTTs × 2 reps


def test_bad_published_toml(toy, cli):
    (toy / "toy" / "published.toml").write_text('[claims.a]\nstatement = "x"\n')
    r = cli("reproduce", "toy", "--experiments", str(toy))
    assert r.code == 2 and "published.toml: claims.a: missing `value`" in r.stderr


def test_experiments_from_environment(toy, monkeypatch):
    monkeypatch.setenv("LOSSREC_EXPERIMENTS", str(toy))
    assert list(studies.find_studies()) == ["toy"]


# --------------------------------------- why a frozen verdict moved (issue 25: published.toml)

MOVED = '''
[[claims.fast.verdict_changes]]
date = "2026-11-29"
mode = "full"
was = "holds"
now = "does not hold"
why = "the engine's rule X (Linux tcp_x) sends one segment less: 12 -> 11 ms"
'''


def test_verdict_changes_are_reported_with_their_reason(toy, tmp_path):
    # A re-frozen verdict carries its reason in the claim's published.toml entry; the report
    # shows it beside the frozen comparison, so a reader sees why the frozen value moved.
    pub = toy / "toy" / "published.toml"
    pub.write_text(pub.read_text() + MOVED)
    report = lossrec.reproduce("toy", out=tmp_path / "out", quick=True, root=toy)
    text = report.read_text()
    assert "## Why frozen verdicts moved" in text
    assert "holds → does not hold" in text and "rule X (Linux tcp_x)" in text
    html = (tmp_path / "out" / "toy" / "report.html").read_text()
    assert "Why frozen verdicts moved" in html and "rule X (Linux tcp_x)" in html


@pytest.mark.parametrize("drop, said", [("why", "missing `why`"), ("was", "missing `was`")])
def test_verdict_change_needs_its_reason(toy, cli, drop, said):
    pub = toy / "toy" / "published.toml"
    moved = "\n".join(line for line in MOVED.splitlines() if not line.startswith(drop + " "))
    pub.write_text(pub.read_text() + moved + "\n")
    r = cli("reproduce", "toy", "--experiments", str(toy))
    assert r.code == 2 and f"claims.fast.verdict_changes[0]: {said}" in r.stderr


def test_verdict_change_names_known_verdicts(toy, cli):
    pub = toy / "toy" / "published.toml"
    pub.write_text(pub.read_text() + MOVED.replace('now = "does not hold"', 'now = "fine"'))
    r = cli("reproduce", "toy", "--experiments", str(toy))
    assert r.code == 2 and "claims.fast.verdict_changes[0].now: `fine` is not a verdict" in r.stderr


def test_report_md_states_rules_as_values(toy, tmp_path):
    # issue 28 item 9: report.md writes each rule's parameters as values and the bounds
    # they make, so a reader can check a verdict against its rule without published.toml.
    text = lossrec.reproduce("toy", out=tmp_path / "out", quick=True, root=toy).read_text()
    row = next(line for line in text.splitlines() if line.startswith("| **fast**"))
    assert "*with the values:* `tolerance_pct` = 10" in row
    assert "*so:* within ±10 % of 1: [0.9, 1.1] ms" in row


def test_report_flags_runs_truncated_by_the_time_limit(write_study, tmp_path):
    # issue 25 item 4: a run that hit its time limit leaves flows without a completion
    # time; the report says so where the verdicts are, not only in the data.
    slow = "max_time_s = 0.3\n[path]\nrate_mbps = 1\nrtt_ms = 100\n[workload]\nsegments = 200\n"
    root = write_study({"study.py": TOY, "published.toml": PUBLISHED, "s.toml": slow})
    text = lossrec.reproduce("toy", out=tmp_path / "out", quick=True, root=root).read_text()
    assert "**Truncated by the time limit:** 4 of 4 runs" in text
    assert "4 of 4 flows (100.0 %) have no completion time" in text


def test_report_says_nothing_of_truncation_when_every_run_ended(toy, tmp_path):
    text = lossrec.reproduce("toy", out=tmp_path / "out", quick=True, root=toy).read_text()
    assert "Truncated by the time limit" not in text


def test_every_recorded_verdict_change_is_the_frozen_verdict():
    # A verdict_changes entry says why a frozen verdict moved: the latest entry of each
    # claim and mode must be what expected.toml holds now, so a re-freeze that moves the
    # verdict again cannot leave a stale reason behind (issue 25: the rack re-freeze).
    seen = 0
    for name in studies.find_studies():
        st = studies.load_study(name)
        expected = frozen.load(st)
        latest = {}
        for cid, e in frozen.changes(st.claims_published):
            latest[(cid, e["mode"])] = e
        for (cid, m), e in latest.items():
            seen += 1
            assert expected.get(cid, {}).get(m) == e["now"], (name, cid, m)
    assert seen >= 5  # rack's three claims, full and quick


def test_notes_are_generated_from_the_run(write_study, tmp_path):
    # issue 25 item 6: a study's notes(df, ctx) writes the report's Notes from the run's own
    # data (what was swept, what was measured), so they cannot describe an older workload.
    study = TOY + '''
NOTES = "hand-written, stale"

def notes(df, ctx):
    return f"* ran RTTs {sorted(df['path.rtt_ms'].unique().tolist())} ms, {len(df)} flows"
'''
    root = write_study({"study.py": study, "published.toml": PUBLISHED, "s.toml": "[workload]\nsegments = 2\n"})
    text = lossrec.reproduce("toy", out=tmp_path / "out", quick=True, root=root).read_text()
    notes = text[text.index("## Notes"):]
    assert "* ran RTTs [10, 20] ms, 4 flows" in notes and "stale" not in notes
