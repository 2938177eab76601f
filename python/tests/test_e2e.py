"""End-to-end tests through the real simulator (crates/sim)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pandas as pd
import pytest

import lossrec
from lossrec import default
from lossrec.result import FLOW_FIELDS

#: Kinds of trace records the simulator documents, and the `why` of a send.
TRACE_KINDS = {"send", "drop", "recv", "ack", "event"}
SEND_WHY = {"new", "fast_retransmit", "rto", "probe_new", "probe_retransmit", "rack",
            "early_retransmit", "limited_transmit", "syn", "handshake_ack"}
RUN_FIELDS = {"seed", "flows", "sim"}


def tail_loss(preset="rfc"):
    return default.scenario(preset)


def check_run_json(obj):
    assert RUN_FIELDS <= set(obj), set(obj)
    assert {"events", "wall_s"} <= set(obj["sim"])
    assert obj["flows"], "no flows"
    for f in obj["flows"]:
        assert set(FLOW_FIELDS) <= set(f), set(FLOW_FIELDS) - set(f)


def test_default_run_prints_a_table_with_both_presets(cli):
    r = cli("run")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == default.DESCRIPTION
    header = next(line for line in lines if line.startswith("preset"))
    for col in ("fct_ms", "data packets", "retransmits", "fast recoveries", "RTOs", "final cwnd"):
        assert col in header
    rows = {line.split()[0]: line.split() for line in lines
            if line.split() and line.split()[0] in ("rfc", "linux-classic")}
    assert set(rows) == {"rfc", "linux-classic"}


def test_default_run_json_has_the_one_run_shape(cli):
    # One shape for every run: the default run's presets are a field of each flow.
    r = cli("run", "--json")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    check_run_json(obj)
    presets = [f["preset"] for f in obj["flows"]]
    assert presets[:2] == ["rfc", "linux-classic"]
    assert presets == lossrec.api.preset_names()
    for flow in obj["flows"]:
        # The tail segment was lost once: at least one retransmission repaired it.
        assert flow["retransmits"] >= 1
        assert flow["bytes"] == 10 * 1448
    assert obj["provenance"]["presets"] == presets


def test_default_run_one_preset(cli):
    r = cli("run", "--preset", "linux-classic", "--json")
    assert r.code == 0, r.stderr
    assert [f["preset"] for f in json.loads(r.stdout)["flows"]] == ["linux-classic"]


def test_same_seed_same_result(cli):
    a = json.loads(cli("run", "--json", "--seed", "5").stdout)
    b = json.loads(cli("run", "--json", "--seed", "5").stdout)
    for run in (a, b):
        run["sim"].pop("wall_s")
    assert a == b
    assert a["seed"] == 5


def test_scenario_file_run_and_json(cli, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(lossrec.dict_to_toml(tail_loss()))
    r = cli("run", str(f))
    assert r.code == 0, r.stderr
    assert "rfc" in r.stdout and "fct_ms" in r.stdout
    r = cli("run", str(f), "--json", "--preset", "linux-classic")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    check_run_json(obj)
    assert {fl["preset"] for fl in obj["flows"]} == {"linux-classic"}


def test_malformed_scenario_names_file_and_line(cli_proc, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("seed = 1\n\n[path\nrate_mbps = 10\n")  # TOML syntax error on line 3
    r = cli_proc("run", str(f))
    assert r.code == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(f"lossrec: error: {f}:3")


def test_bad_field_names_file_line_and_field(cli_proc, tmp_path):
    f = tmp_path / "bad_field.toml"
    f.write_text("seed = 1\nno_such_field = 3\n")
    r = cli_proc("run", str(f))
    assert r.code == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(f"lossrec: error: {f}:2")
    assert "no_such_field" in r.stderr


def test_scenario_error_attributes(tmp_path):
    with pytest.raises(lossrec.ScenarioError) as e:
        lossrec.run("seed = 1\nno_such_field = 3\n")
    assert e.value.origin == "<string>" and e.value.line == 2
    assert "no_such_field" in str(e.value)
    with pytest.raises(ValueError, match="<dict>"):
        lossrec.run({"seed": 1, "no_such_field": 3})


def test_trace_writes_json_lines_with_documented_kinds(cli, tmp_path):
    out = tmp_path / "t.jsonl"
    r = cli("run", "--preset", "rfc", "--trace", str(out))
    assert r.code == 0, r.stderr
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert recs
    kinds = {x["kind"] for x in recs}
    assert kinds <= TRACE_KINDS and {"send", "ack", "drop", "recv"} <= kinds
    for x in recs:
        assert isinstance(x["t_us"], int) and "flow" in x
        if x["kind"] == "send":
            assert x["why"] in SEND_WHY and len(x["seq"]) == 2 and x["seq"][0] <= x["seq"][1]
        if x["kind"] == "event":
            assert isinstance(x["name"], str)
    assert [x["t_us"] for x in recs] == sorted(x["t_us"] for x in recs)
    assert any(x["kind"] == "send" and x["why"] != "new" for x in recs)  # the tail was repaired


def test_pcap_is_read_cleanly_by_tshark(cli, tmp_path):
    tshark = shutil.which("tshark") or "/usr/bin/tshark"
    out = tmp_path / "t.pcap"
    r = cli("run", "--preset", "rfc", "--pcap", str(out))
    assert r.code == 0, r.stderr
    assert out.stat().st_size > 24
    p = subprocess.run(
        [tshark, "-r", str(out), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
         "-T", "fields", "-E", "separator=|", "-e", "frame.number", "-e", "_ws.expert.message",
         "-e", "_ws.malformed", "-e", "ip.checksum.status", "-e", "tcp.checksum.status"],
        capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "malformed" not in (p.stdout + p.stderr).lower()
    rows = [line.split("|") for line in p.stdout.splitlines()]
    assert len(rows) >= 24  # handshake, 10 data segments, their ACKs, the retransmission
    for num, expert, malformed, ip_ck, tcp_ck in rows:
        # Checksum status 1 = good (0 = bad, 2 = unverified).
        assert (ip_ck, tcp_ck, malformed) == ("1", "1", ""), (num, expert)
        assert "checksum" not in expert.lower(), (num, expert)
    # Both directions and the retransmission are visible.
    p = subprocess.run([tshark, "-r", str(out), "-Y", "tcp.analysis.retransmission"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.strip(), "tshark saw no retransmission"


def test_default_pcap_writes_one_file_per_preset(cli, tmp_path):
    out = tmp_path / "t.pcap"
    r = cli("run", "--pcap", str(out))
    assert r.code == 0, r.stderr
    assert (tmp_path / "t-rfc.pcap").exists() and (tmp_path / "t-linux-classic.pcap").exists()


def test_plot_from_a_real_run(cli, tmp_path):
    out = tmp_path / "ts.png"
    r = cli("run", "--plot", str(out))
    assert r.code == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x89PNG" and out.stat().st_size > 20_000


def test_python_run_with_dict_returns_dataframe(tmp_path):
    res = lossrec.run(tail_loss("linux-classic"), seed=3, trace=True, pcap=tmp_path / "x.pcap")
    assert isinstance(res, lossrec.Result)
    assert res.seed == 3
    assert isinstance(res.flows, pd.DataFrame) and len(res.flows) == 1
    assert set(FLOW_FIELDS) <= set(res.flows.columns)
    assert res.flows.loc[0, "preset"] == "linux-classic"
    assert {"kind", "t_us", "flow"} <= set(res.trace.columns)
    assert (tmp_path / "x.pcap").stat().st_size > 24
    assert {"events", "wall_s"} <= set(res.sim)
    plain = lossrec.run(tail_loss())
    with pytest.raises(lossrec.NotRequestedError):
        plain.trace  # noqa: B018 (the property raises)


def test_validate():
    assert lossrec.validate(tail_loss()) == 1


def test_bench_json_keys(cli):
    r = cli("bench", "--json")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert set(obj) == {"bulk", "short_flows", "sweep", "per_ack", "per_ack_app_limited", "flows"}
    assert {"data_packets_per_s", "events_per_s", "wall_s"} <= set(obj["bulk"])
    assert {"flows_per_s", "wall_s"} <= set(obj["short_flows"])
    assert obj["bulk"]["wall_s"] >= 1.0 and obj["bulk"]["data_packets_per_s"] > 0
    assert obj["short_flows"]["flows_per_s"] > 0
    sw = obj["sweep"]
    assert {"scenarios", "wall_s_jobs1", "wall_s_jobs2", "speedup", "overhead_pct",
            "overhead_pct_per_scenario", "fixed_overhead_ms", "machine_speedup"} <= set(sw)
    assert sw["scenarios"] == 1000 and sw["speedup"] > 0 and sw["wall_s_jobs1"] > 0
    pa = obj["per_ack"]
    assert pa["sizes"] == [100, 1000, 10000, 100000]
    assert len(pa["median_ns_per_ack"]) == 4 and all(x > 0 for x in pa["best_ns_per_ack"])
    assert pa["flatness"] > 0
    al = obj["per_ack_app_limited"]
    assert al["presets"] == ["rfc", "prr", "linux", "rack-tlp"]
    assert al["sizes"] == [1000, 10000, 100000]
    assert all(len(b) == 3 and all(x > 0 for x in b) for b in al["best_ns_per_ack"])
    assert len(al["flatness"]) == 4
    fl = obj["flows"]
    assert fl["flows"] == [1, 100, 1000, 10000, 100000]
    assert fl["ratio_to_one_flow"][0] == 1.0 and all(e > 2_000_000 for e in fl["events"])
    assert fl["peak_open_flows"] == fl["flows"]
    # Memory is counted by the extension's allocator: every flow count has its figures.
    assert all(1024 < b < 4096 for b in fl["bytes_per_open_flow"])
    # A finished flow keeps its result and its share of the recovery episodes.
    assert fl["result_bytes_per_flow"][-1] < 1_000


def test_bench_only_per_ack_table(cli):
    r = cli("bench", "--only", "per_ack")
    assert r.code == 0, r.stderr
    assert "100,000 in flight" in r.stdout and "flatness" in r.stdout


def test_bench_only_app_limited_table(cli):
    r = cli("bench", "--only", "per_ack_app_limited")
    assert r.code == 0, r.stderr
    for p in ("rfc", "prr", "linux", "rack-tlp"):
        assert p in r.stdout
    assert "100,000 in flight" in r.stdout and "flatness" in r.stdout


def test_bench_only_sweep_table(cli):
    r = cli("bench", "--only", "sweep")
    assert r.code == 0, r.stderr
    assert "speedup, 2 threads vs 1" in r.stdout and "overhead per scenario" in r.stdout
    assert "machine's own speedup" in r.stdout


def test_dotted_dict_keys_run():
    res = lossrec.run({"path": {"rtt_ms": 40}, "path.loss": {"model": "tail", "count": 2},
                       "workload.segments": 10})
    assert res.flows.loc[0, "retransmits"] >= 2


def test_set_and_preset_override_a_scenario_file(cli, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[sender]\npreset = "rfc"\nmin_rto_ms = 300\n[path.loss]\nmodel = "tail"\n')
    base = json.loads(cli("run", str(f), "--json").stdout)["flows"][0]
    r = cli("run", str(f), "--json", "--preset", "linux-classic", "--set", "initial_cwnd=4")
    assert r.code == 0, r.stderr
    flow = json.loads(r.stdout)["flows"][0]
    assert flow["preset"] == "linux-classic" and base["preset"] == "rfc"
    # A relation error after rewriting names the file and the field, not a bogus line.
    r = cli("run", str(f), "--set", "min_rto_ms=200000")
    assert r.code == 2
    assert r.stderr.startswith(f"lossrec: error: {f} (with --set sender.min_rto_ms=200000): sender:")


def test_scenario_error_in_a_dict_names_the_field():
    with pytest.raises(lossrec.ScenarioError) as e:
        lossrec.run({"path": {"rtt_ms": -4}})
    assert e.value.field == "path.rtt_ms" and str(e.value).startswith("<dict>:")
    assert type(e.value).__name__ == "ScenarioError"


def test_bench_only_attacks_table(cli):
    r = cli("bench", "--only", "attacks")
    assert r.code == 0, r.stderr
    for p in ("rfc", "prr", "linux", "rack-tlp"):
        assert p in r.stdout
    for a in ("ack_division", "dupack_spoofing", "dsack_spoofing", "optimistic_ack"):
        assert a in r.stdout
    for phase in ("slow_start", "congestion_avoidance", "lossy", "bottleneck"):
        assert phase in r.stdout
    assert "bounded rows within" in r.stdout
    assert "optimistic-ACK defence" in r.stdout


def test_bench_only_attacks_json(cli):
    r = cli("bench", "--only", "attacks", "--json")
    assert r.code == 0, r.stderr
    a = json.loads(r.stdout)["attacks"]
    assert a["columns"][:4] == ["preset", "sack", "phase", "attack"]
    presets = {row[0] for row in a["rows"]}
    assert {"rfc", "prr", "linux", "rack-tlp"} <= presets
    # Each preset as its stack is, with issue 13's defences, and hardened (issue 23.3).
    assert {row[4] for row in a["rows"]} == {"stack", "all-but-optack", "hardened"}
    assert len(a["rows"]) == 3 * len(presets) * 2 * 4 * 4
    assert len(a["rtt_ms"]) == 5 and a["columns"][-1] == "worst_path_ratio"
    for row in a["rows"]:
        v = dict(zip(a["columns"], row))
        # Issue 13's bound, on the sum over the paths, with its defences on.
        if v["defences"] == "all-but-optack":
            assert v["attack"] == "optimistic_ack" or v["within_bounds"], v
    d = a["defence"]
    attackers = {"optimistic_ack", "paced_1mss", "paced_2mss", "paced_3mss", "hiding"}
    assert {row[3] for row in d["rows"]} == attackers
    assert len(d["rows"]) == len(presets) * 2 * 4 * len(attackers)
    for row in d["rows"]:
        v = dict(zip(d["columns"], row))
        assert v["attacker_stopped"] or v["ratio_on"] <= 1.1, v
        assert not v["honest_stopped"], v


def test_default_run_shows_what_each_family_buys(cli):
    # issue 28 item 6: tail losses of 1 and 3 segments at a short and a long RTT, presets
    # that behave alike in all four merged into one row, and a line for every tie left.
    r = cli("run")
    assert r.code == 0, r.stderr
    text = r.stdout
    assert "What each family buys" in text
    block = text[text.index("What each family buys"):]
    lines = block.splitlines()
    header = next(line for line in lines if line.startswith("presets"))
    for case in default.CASES:
        assert default.case_label(*case).split(",")[0] in header
    rows = default.family_rows(default.family_runs())
    listed = [p for row in rows for p in row.presets]
    assert sorted(listed) == sorted(lossrec.api.preset_names())  # each preset in one row
    # a probe preset beats every RTO-only one when three segments are lost at 20 ms
    col = default.CASES.index((3, 20))
    probe = min(r.cells[col].fct_ms for r in rows if r.cells[col].repair == "probe")
    rto = min(r.cells[col].fct_ms for r in rows if r.cells[col].repair == "RTO")
    assert probe < rto
    ties = default.ties(rows)
    for t in ties:
        assert t in text
    # the 1-segment tail at 20 ms: Linux's probe waits 2·SRTT + 200 ms, capped by the RTO
    assert any("1 segment lost, RTT 20 ms" in t and "capped by the RTO" in t for t in ties)
