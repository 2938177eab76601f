"""The calibration section (issue 14 item 2): the baseline arm's workload checked against
the seed's fingerprints, reported apart from the claims and never counted as a hold."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import lossrec
from lossrec.lab import calibration as cal

TOY = '''
from lossrec.lab import Sweep, Verdict

TITLE = "Toy"

def sweeps(quick):
    return [Sweep("s.toml", {"sender.preset": ["rfc", "linux"]}, reps=2)]

def prepare(df):
    df["arm"] = df["sender.preset"].astype(object)
    return df

def claims(df, published, ctx):
    return [Verdict.judge("one", False, "x", "it fails")]
'''
PUBLISHED = '''
[claims.one]
statement = "a claim"
value = 1
where = "nowhere"
agreement = "never"
kind = "absolute"
no_interval = "one arm against a fixed value"
'''
CALIBRATION = '''
[baseline]
arm = "the rfc arm"
where = { arm = "rfc" }

[checks.rate]
metric = "retrans_rate"
seed = 3.2
band = [1.6, 6.4]
where = "seed 000 §5"
quote = "the overall retransmission rate of 3.2%"
min_events = 1

[checks.ratio]
metric = "rto_per_fast_recovery"
seed = 3.6
band = [1000, 2000]
where = "seed 001 slide 5"
quote = "timeout-driven repair is ~3.6x ack-driven repairs"
min_events = 1

[checks.rare]
metric = "timeouts_in_open"
seed = 96
band = [48, 100]
where = "seed 000 §1"
quote = "96% of the timeout episodes occur without any preceding duplicate ACKs"
min_events = 1000000
'''


def test_status_bands():
    assert cal.status(3.0, [1.6, 6.4], 50, 10) == cal.OK
    assert cal.status(1.6, [1.6, 6.4], 50, 10) == cal.OK  # inclusive
    assert cal.status(0.38, [1.8, 7.2], 50, 10) == cal.OFF
    assert cal.status(9.0, [1.8, 7.2], 50, 10) == cal.OFF
    assert cal.status(3.0, [1.8, 7.2], 5, 10) == cal.NOT_MEASURED
    assert cal.status(float("nan"), [1.8, 7.2], 50, 10) == cal.NOT_MEASURED


def test_metric_definitions_count_from_the_flow_counters():
    t = {"rtos": 30, "rtos_in_open": 18, "rtos_in_disorder": 1, "rtos_in_recovery": 1,
         "rtos_in_loss": 10, "fast_recoveries": 10, "fast_retransmits": 25,
         "slow_start_retransmits": 45, "retransmits": 100, "data_packets_sent": 2000}
    f = {m: cal.METRICS[m][2](t) for m in cal.METRICS}
    assert f["rto_per_fast_recovery"] == (2.0, 10)         # (30 − 10 backoffs) / 10
    # after a timeout: each timeout's own retransmission (30, TCPTimeouts) and the slow
    # start's (45, TCPSlowStartRetrans): 75 / (75 + 25)
    assert f["timeout_retransmit_share"] == (75.0, 100)
    assert f["timeouts_in_open"] == (90.0, 20)             # 18 / 20 first timeouts
    assert f["retrans_rate"] == (5.0, 2000)
    assert f["timeouts_of_retransmits"] == (30.0, 100)
    assert math.isnan(cal.METRICS["retrans_rate"][2]({"retransmits": 1})[0])


def test_trace_samples_rto_rtt_and_flight_at_probes():
    recs = [{"flow": 0, "kind": "send", "seq": [0, 1000]},
            {"flow": 0, "kind": "send", "seq": [1000, 2000]},
            {"flow": 0, "kind": "send", "seq": [2000, 2500]},
            {"flow": 0, "kind": "ack", "ack": 1000, "srtt_us": 100, "rto_us": 400},
            {"flow": 0, "kind": "event", "name": "loss_probe"},
            {"flow": 1, "kind": "ack", "ack": 0, "srtt_us": None, "rto_us": 1000000}]
    s = cal.trace_samples(recs)
    assert s == {"rto_rtt": [4.0], "flight_at_pto": [2]}


@pytest.fixture
def toy(write_study):
    return write_study({
        "study.py": TOY, "published.toml": PUBLISHED, "calibration.toml": CALIBRATION,
        "s.toml": "seed = 5\n[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n"
                  "[workload]\nsegments = 200\nflows = 5\n"})


def test_report_has_a_calibration_section_before_the_claims_never_counted(toy, tmp_path):
    out = tmp_path / "out"
    report = lossrec.reproduce("toy", out=out, root=toy).read_text()
    df = pd.read_parquet(out / "toy" / "results.parquet")
    base = df[df["sender.preset"] == "rfc"]
    rate = base["retransmits"].sum() / base["data_packets_sent"].sum() * 100
    assert 1.6 <= rate <= 6.4  # 5 % random loss: the check must come out ok
    head, rest = report.split("## Calibration of the workload (before the claims)")
    assert "## Published vs ours" in rest and "## Published vs ours" not in head
    assert "Workload calibration (not claims): 1 ok, 1 off, 1 not measured." in head
    # the claims' count is the claims' alone: the ok check is not a hold
    assert "**Verdicts:** 0 hold, 1 do not hold" in head
    part = rest.split("## Published vs ours")[0]
    assert "**ratio**" in part and "**off**" in part and "**not measured**" in part
    assert "“the overall retransmission rate of 3.2%”" in part
    run = json.loads((out / "toy" / "run.json").read_text())
    by_id = {c["id"]: c for c in run["calibration"]}
    assert by_id["rate"]["status"] == "ok" and by_id["ratio"]["status"] == "off"
    assert by_id["rate"]["ours"] == pytest.approx(rate)
    assert all(v["verdict"] != "holds" for v in run["verdicts"])


def test_bad_calibration_files_name_the_field(tmp_path):
    def err(text):
        (tmp_path / "calibration.toml").write_text(text)
        with pytest.raises(ValueError) as e:
            cal.load(tmp_path)
        return str(e.value)

    assert "baseline" in err("[checks.x]\nmetric = \"retrans_rate\"\n")
    good = "[baseline]\narm = \"a\"\nwhere = { arm = \"a\" }\n"
    assert "checks.x: missing `band`" in err(good + "[checks.x]\nmetric = \"retrans_rate\"\n"
                                             "seed = 1\nwhere = \"w\"\nquote = \"q\"\n")
    e = err(good + "[checks.x]\nmetric = \"speed\"\nseed = 1\nband = [0, 1]\nwhere = \"w\"\n"
            "quote = \"q\"\n")
    assert "checks.x.metric" in e and "speed" in e
    e = err(good + "[checks.x]\nmetric = \"rto_rtt_p50\"\nseed = 1\nband = [0, 1]\n"
            "where = \"w\"\nquote = \"q\"\n")
    assert "[traced]" in e
    e = err(good + "[checks.x]\nmetric = \"retrans_rate\"\nseed = 1\nband = [2, 1]\n"
            "where = \"w\"\nquote = \"q\"\n")
    assert "checks.x.band" in e
    assert cal.load(tmp_path / "nothing") is None


def test_every_study_has_a_calibration_file():
    """Issue 14: every report has a calibration section, with checks or with the reason
    there is nothing to calibrate."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "experiments"
    studies = [d for d in root.iterdir() if (d / "published.toml").exists()]
    assert studies
    for d in studies:
        cfg = cal.load(d)
        assert cfg is not None, f"{d.name}: no {cal.FILE}"
        assert cfg.get("none") or cfg.get("checks"), d.name


def test_nothing_to_calibrate_says_why_in_the_report(toy, tmp_path):
    (toy / "toy" / "calibration.toml").write_text('none = "the seed\'s own drops"\n')
    report = lossrec.reproduce("toy", out=tmp_path / "out", root=toy).read_text()
    head, rest = report.split("## Calibration of the workload (before the claims)")
    assert rest.lstrip().startswith("Nothing to calibrate: the seed's own drops")
    assert "Workload calibration" not in head
    (toy / "toy" / "calibration.toml").write_text('none = "x"\n[checks.a]\nmetric = "retrans_rate"\n')
    with pytest.raises(ValueError, match="none: give only"):
        cal.load(toy / "toy")


def test_tlp_calibration_covers_every_rto_rtt_quantile_seed_000_gives():
    # issue 25 item 5: seed 000 §1 lists RTO/RTT at the 50th, 75th, 90th, 95th and 99th
    # percentiles; each is a calibration check of the tlp workload with the seed's value.
    from lossrec.lab import calibration, studies

    checks = calibration.load(studies.load_study("tlp").dir)["checks"]  # validated as a run does
    got = {c["metric"]: c["seed"] for c in checks.values() if c["metric"].startswith("rto_rtt_p")}
    assert got == {"rto_rtt_p50": 4.3, "rto_rtt_p75": 11.3, "rto_rtt_p90": 28.9,
                   "rto_rtt_p95": 53.9, "rto_rtt_p99": 214}


SET = '''
[sets.other]
arm = "the linux arm"
where = { arm = "linux" }

[sets.other.checks.rate]
metric = "retrans_rate"
seed = 3.2
band = [1.6, 6.4]
where = "seed 003, DC2"
quote = "5.6% for DC 2"
min_events = 1

[sets.other.checks.lossy]
metric = "rows_with_retransmission"
seed = 6.1
band = [0, 10]
where = "seed 003"
quote = "Responses with TCP retransmissions 6.1%"
min_events = 1
'''


def test_a_second_workload_is_a_set_with_its_own_rows_and_heading(toy, tmp_path):
    # issue 25 item 4: a study with several workloads (prr's DC1, DC2 and ER) calibrates
    # each against the seed's numbers for it; the sets' checks are reported under their own
    # heading, counted with the others and never as claims.
    (toy / "toy" / "calibration.toml").write_text(CALIBRATION + SET)
    out = tmp_path / "out"
    report = lossrec.reproduce("toy", out=out, root=toy).read_text()
    df = pd.read_parquet(out / "toy" / "results.parquet")
    lin = df[df["sender.preset"] == "linux"]
    head, rest = report.split("## Calibration of the workload (before the claims)")
    assert "**Verdicts:** 0 hold, 1 do not hold" in head
    # every flow of 200 segments at 5 % loss retransmits: the set's share is off its band
    assert "Workload calibration (not claims): 2 ok, 2 off, 1 not measured." in head
    part = rest.split("## Published vs ours")[0]
    assert f"### Calibration set `other`: the linux arm ({len(lin)} rows)" in part
    assert "“Responses with TCP retransmissions 6.1%”" in part.split("### Calibration set")[1]
    run = json.loads((out / "toy" / "run.json").read_text())
    mine = {c["id"]: c for c in run["calibration"] if c["set"] == "other"}
    assert mine["rate"]["ours"] == pytest.approx(
        lin["retransmits"].sum() / lin["data_packets_sent"].sum() * 100)
    assert mine["lossy"]["ours"] == pytest.approx(100 * (lin["retransmits"] > 0).mean())
    assert mine["lossy"]["status"] == "off"
    # the main baseline's checks keep their rows
    assert {c["id"] for c in run["calibration"] if c["set"] == ""} == {"rate", "ratio", "rare"}


def test_row_metrics_and_bad_sets(tmp_path):
    d = pd.DataFrame({"retransmits": [0, 2, 0, 1], "fct_ms": [10.0, None, 5.0, 7.0]})
    assert cal.ROW_METRICS["rows_with_retransmission"][2](d) == (50.0, 2.0)
    assert cal.ROW_METRICS["rows_completed"][2](d) == (75.0, 4.0)
    good = "[baseline]\narm = \"a\"\nwhere = { arm = \"a\" }\n"
    (tmp_path / "calibration.toml").write_text(good + "[sets.s]\narm = \"b\"\n")
    with pytest.raises(ValueError, match="sets.s: needs"):
        cal.load(tmp_path)
    (tmp_path / "calibration.toml").write_text(
        good + "[sets.s]\narm = \"b\"\nwhere = { arm = \"b\" }\n[sets.s.checks.x]\n"
        "metric = \"rto_rtt_p50\"\nseed = 1\nband = [0, 1]\nwhere = \"w\"\nquote = \"q\"\n")
    with pytest.raises(ValueError, match="sets.s.checks.x.metric"):
        cal.load(tmp_path)


def test_prr_and_rtor_calibrate_every_workload():
    # issue 25 item 4: prr's DC2 (video) and ER workloads and rtor's realistic workload
    # each have a calibration set with the seed's numbers for it.
    from lossrec.lab import studies

    prr = cal.load(studies.load_study("prr").dir)
    assert set(prr["sets"]) == {"dc2", "er"}
    assert prr["sets"]["dc2"]["checks"]["retransmission_rate"]["seed"] == 5.6
    assert prr["sets"]["er"]["checks"]["responses_with_retransmissions"]["seed"] == 6.1
    rtor = cal.load(studies.load_study("rtor").dir)
    assert rtor["sets"]["realistic"]["checks"]["flows_completed"]["metric"] == "rows_completed"
