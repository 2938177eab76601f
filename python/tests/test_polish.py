"""Issue 15: one --set grammar, self-describing results, summaries, conventions."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

import lossrec
from lossrec import sets
from lossrec.result import FLOW_FIELDS
from lossrec.summary import summarize, t_quantile

TAIL = {"path": {"rtt_ms": 40, "loss": {"model": "tail", "count": 1}},
        "workload": {"segments": 10}}


def test_set_values_follow_toml_and_ranges_expand():
    assert sets.parse_set("path.loss.packets=[2,3]") == ("path.loss.packets", [[2, 3]])
    assert sets.parse_set("path.loss.packets=[2,3],[4]") == ("path.loss.packets", [[2, 3], [4]])
    assert sets.parse_set('sender.cc="cubic",reno') == ("sender.cc", ["cubic", "reno"])
    assert sets.parse_set("path.rtt_ms=10:640:x2")[1] == [10, 20, 40, 80, 160, 320, 640]
    assert sets.parse_set("path.rtt_ms=0:100:+25")[1] == [0, 25, 50, 75, 100]
    assert sets.parse_set("path.loss.p=0.1:0.3:0.1")[1] == [0.1, 0.2, 0.3]
    assert sets.parse_set("preset=rfc,linux-classic") == ("sender.preset", ["rfc", "linux-classic"])
    with pytest.raises(ValueError, match="did you mean 'min_rto_ms'"):
        sets.parse_set("min_rt_ms=200")
    with pytest.raises(ValueError, match="at most"):
        sets.parse_set("path.rtt_ms=1:1e9:1")


def test_run_takes_dotted_keys_lists_and_bare_axes():
    r = lossrec.run({"workload": {"segments": 10}},
                    sets={"path.loss.model": "drop-list", "path.loss.packets": [2, 3],
                          "min_rto_ms": 300})
    assert r.json["flows"][0]["retransmits"] >= 2
    with pytest.raises(ValueError, match="did you mean `rtt_ms`"):
        lossrec.run(TAIL, sets={"path.rtt": 40})


def test_unknown_names_suggest_the_closest_one():
    with pytest.raises(ValueError, match="did you mean `linux-classic`"):
        lossrec.run({"sender": {"preset": "linux-clasic"}})
    with pytest.raises(ValueError, match="did you mean 'linux-classic'"):
        lossrec.run(TAIL, preset="linux-clasic")
    with pytest.raises(ValueError, match='expected a number, got "10"'):
        lossrec.run({"path": {"rtt_ms": "10"}})


def test_a_file_named_like_toml_text_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rtt=40.toml").write_text("seed = 9\n[path]\nrtt_ms = 40\n")
    assert lossrec.run("rtt=40.toml").seed == 9


def test_every_output_describes_itself(tmp_path):
    r = lossrec.run(TAIL, seed=3)
    p = r.json["provenance"]
    assert p["lossrec"] == lossrec.__version__ and p["seeds"] == [3]
    assert len(p["scenario_sha256"]) == 64 and p["commit"]
    out = tmp_path / "s.csv"
    df = lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40]}, reps=3, output=out)
    # Every field of the schema run reports, no copy of the list in Python.
    assert [f for f, _ in lossrec._core.flow_fields()] == list(FLOW_FIELDS)
    assert set(FLOW_FIELDS) <= set(df.columns)
    assert len(FLOW_FIELDS) >= 23
    side = json.loads((tmp_path / "s.csv.json").read_text())["provenance"]
    assert side["lossrec"] == lossrec.__version__ and "seed_rule" in side
    assert df.attrs["provenance"]["scenario_sha256"] == side["scenario_sha256"]


def test_summaries_have_n_mean_ci_and_percentiles():
    assert t_quantile(0.975, 1) == pytest.approx(12.706, rel=1e-3)
    assert t_quantile(0.975, 2) == pytest.approx(4.303, rel=1e-3)
    assert t_quantile(0.975, 4) == pytest.approx(2.776, rel=2e-3)
    assert t_quantile(0.975, 30) == pytest.approx(2.042, rel=1e-3)
    df = lossrec.sweep({**TAIL, "path": {"rtt_ms": 40, "loss": {"model": "bernoulli", "p": 0.05}},
                        "workload": {"segments": 30}}, {"sender.preset": ["rfc", "linux"]}, reps=20)
    s = lossrec.summarize(df, by="sender.preset")
    fct = s[s.metric == "fct_ms"].set_index("sender.preset")
    assert list(fct.index) == ["rfc", "linux"]
    for _, row in fct.iterrows():
        assert row["n"] + row["missing"] == 20
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
        assert row["p50"] <= row["p95"] <= row["p99"]
    x = df[df["sender.preset"] == "rfc"]["fct_ms"].dropna()
    half = t_quantile(0.975, len(x) - 1) * x.std() / math.sqrt(len(x))
    assert fct.loc["rfc", "ci_high"] == pytest.approx(x.mean() + half)
    with pytest.raises(ValueError, match="did you mean"):
        summarize(df, by="sender.presets")


def test_version_does_not_import_pandas_or_matplotlib():
    code = ("import sys; from lossrec.cli import main\n"
            "try: main(['--version'])\nexcept SystemExit: pass\n"
            "bad = [m for m in ('pandas', 'matplotlib', 'numpy') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def _complete(words: str, env_extra=None):
    import os

    env = {**os.environ, "_LOSSREC_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    r = subprocess.run([sys.executable, "-c", "from lossrec.cli import main; main(prog_name='lossrec')"],
                       env=env, capture_output=True, text=True, timeout=60)
    return [line.split(",", 1)[1] for line in r.stdout.splitlines() if "," in line]


def test_shell_completion_knows_presets_axes_and_studies(monkeypatch):
    from pathlib import Path

    monkeypatch.setenv("LOSSREC_EXPERIMENTS", str(Path(__file__).resolve().parents[2] / "experiments"))
    assert "rack-tlp" in _complete("lossrec run --preset rac")
    assert "linux-classic" in _complete("lossrec presets linux-c")
    assert "min_rto_ms=" in _complete("lossrec sweep s.toml --set min_r")
    assert "tlp" in _complete("lossrec reproduce tl")
    assert "sweep" in _complete("lossrec sw")


def test_errors_share_one_style(cli_proc):
    for args, part in ((["run", "--bogus"], "no such option '--bogus' (see `lossrec run --help`)"),
                       (["rnu"], "did you mean 'run'?"),
                       (["reproduce", "tlpp"], "did you mean 'tlp'?"),
                       (["run", "--set", "cc=cubc"], "did you mean `cubic`?")):
        r = cli_proc(*args)
        assert r.code == 2 and r.stderr.startswith("lossrec: error: "), r.stderr
        assert part in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_streams_to_stdout_and_from_stdin(tmp_path):
    from pathlib import Path

    tail = Path(__file__).resolve().parents[2] / "experiments" / "examples" / "tail-loss.toml"
    r = subprocess.run([sys.executable, "-m", "lossrec", "run", "-", "--trace", "-"],
                       input=tail.read_text(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["kind"] == "send" and "fct_ms" in r.stderr
    acks = [x for x in lines if x["kind"] == "ack" and not x.get("syn")]
    assert all({"srtt_us", "rttvar_us", "rto_us", "rwnd"} <= set(a) for a in acks)
    r = subprocess.run([sys.executable, "-m", "lossrec", "run", str(tail), "--pcap", "-"],
                       capture_output=True, timeout=120)
    assert r.stdout[:4] == b"\xd4\xc3\xb2\xa1" and len(r.stdout) > 1000


SPIKE = """seed = 1
[path]
rtt_ms = 100
rate_mbps = 10
[path.delay_spikes]
start_ms = 400
extra_ms = 2500
[sender]
preset = "linux-classic"
[workload]
segments = 2000
"""


def test_receiver_capture_lets_wireshark_see_spurious_retransmissions(tmp_path):
    import shutil

    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark not installed (scripts/test.sh installs it)")
    snd, rcv = tmp_path / "snd.pcap", tmp_path / "rcv.pcap"
    r = lossrec.run(SPIKE, pcap=snd, pcap_receiver=rcv)
    rexmits = r.json["flows"][0]["retransmits"]
    assert rexmits > 10

    def count(path, expr):
        out = subprocess.run([tshark, "-r", str(path), "-Y", expr], capture_output=True, text=True,
                             check=True).stdout
        return len(out.splitlines())

    # The delay spike makes the RTO fire while the originals are still in flight: only the
    # receiver's side shows that every retransmission arrived after its original.
    assert count(rcv, "tcp.analysis.retransmission") == rexmits
    assert count(rcv, "tcp.analysis.spurious_retransmission") == rexmits
    assert count(snd, "tcp.analysis.spurious_retransmission") == 0
    # Both captures close the connection with a FIN each way, dated 2026, not 1970.
    for p in (snd, rcv):
        assert count(p, "tcp.flags.fin == 1") == 2
        assert count(p, "frame.time_epoch < 1767225600") == 0


def test_scenario_defaults_and_json_schema_match_the_parser(cli):
    from pathlib import Path

    jsonschema = pytest.importorskip("jsonschema")
    from lossrec.scenario import _toml_loads

    r = cli("scenario", "--defaults")
    assert r.code == 0 and "rtt_ms = 100" in r.stdout and "[workload]" in r.stdout
    schema = json.loads(cli("scenario", "--schema").stdout)
    root = Path(__file__).resolve().parents[2] / "experiments"
    files = sorted(root.rglob("*.toml"))
    checked = 0
    for f in files:
        doc = _toml_loads(f.read_text())
        if "path" not in doc and "workload" not in doc and "sender" not in doc:
            continue  # published.toml and other data, not scenarios
        try:
            lossrec.validate(str(f))
        except ValueError:
            continue  # a study's partial scenario (its study.py fills the rest)
        jsonschema.validate(doc, schema)
        checked += 1
    assert checked >= 5
    with pytest.raises(jsonschema.ValidationError, match="rtt"):
        jsonschema.validate({"path": {"rtt": 40}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"sender": {"min_rt_ms": 3}}, schema)
    assert "base RTT" in schema["properties"]["path"]["properties"]["rtt_ms"]["description"]


def test_reports_carry_provenance(tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "experiments"
    report = lossrec.reproduce("classic-baseline", out=tmp_path, quick=True, root=root).read_text()
    commit = lossrec._core.build_info()
    assert "## Provenance" in report and dict(commit)["commit"] in report
    assert re.search(r"\| `[^`]+\.toml` \| `[0-9a-f]{64}` \|", report)


def test_sweep_writes_csv_to_stdout(cli_proc):
    from pathlib import Path

    tail = Path(__file__).resolve().parents[2] / "experiments" / "examples" / "tail-loss.toml"
    r = cli_proc("sweep", str(tail), "--set", "path.rtt_ms=10:40:x2", "--reps", "2", "-o", "-", "-q")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("path.rtt_ms,rep,seed,id,preset,bytes,fct_ms")
    assert len(lines) == 1 + 3 * 2


def test_progress_can_be_forced_on_off_a_terminal(cli_proc):
    from pathlib import Path

    tail = Path(__file__).resolve().parents[2] / "experiments" / "examples" / "tail-loss.toml"
    r = cli_proc("sweep", str(tail), "--set", "path.rtt_ms=10,20", "--reps", "3", "--progress")
    assert r.code == 0, r.stderr
    assert "6/6" in r.stderr and "scenario" in r.stderr
    r = cli_proc("sweep", str(tail), "--set", "path.rtt_ms=10,20", "--reps", "3")
    assert "6/6" not in r.stderr


def test_presets_name_shows_its_axes(cli):
    r = cli("presets", "rack-tlp")
    assert r.code == 0
    assert r.stdout.startswith("rack-tlp: ")
    rows = dict(line.split()[:2] for line in r.stdout.splitlines()[4:] if len(line.split()) >= 2)
    assert rows["loss_detection"] == "rack"
    r = cli("presets", "rak-tlp")
    assert r.code == 2 and "did you mean 'rack-tlp'" in r.stderr
