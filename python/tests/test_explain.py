"""``lossrec explain`` and ``lossrec.explain``: captures the simulator wrote (``lossrec run
--pcap``) explained under the preset that made them (every decision matched) and under
another (divergences where they differ); outputs follow outputs.py's rules."""

from __future__ import annotations

import json

import pytest

import lossrec

TAIL = """seed = 1
[path]
rtt_ms = 100
rate_mbps = 10
[path.loss]
model = "tail"
count = 1
[sender]
preset = "PRESET"
[workload]
kind = "flows"
flows = 2
segments = 10
"""


@pytest.fixture
def tail_pcap(tmp_path, cli):
    def go(preset: str):
        sc = tmp_path / f"tail-{preset}.toml"
        sc.write_text(TAIL.replace("PRESET", preset))
        out = tmp_path / f"tail-{preset}.pcap"
        r = cli("run", str(sc), "--pcap", str(out))
        assert r.code == 0, r.stderr
        return out
    return go


def test_api_returns_a_frame_with_every_decision_matched(tail_pcap):
    df = lossrec.explain(tail_pcap("linux"), preset="linux")
    rep = df.attrs["report"]
    assert len(rep["connections"]) == 2
    assert (df.verdict == "matched").all()
    assert (df.groupby("cause").size()["probe_retransmit"]) == 2
    assert rep["connections"][0]["capture_point"] == "sender"


def test_wrong_preset_diverges_at_the_probe(tail_pcap):
    path = tail_pcap("linux")
    right = lossrec.explain(path, preset="linux")
    wrong = lossrec.explain(path, preset="rfc")
    probe = right[(right.conn == 0) & (right.cause == "probe_retransmit")].iloc[0]
    first = wrong[(wrong.conn == 0) & (wrong.verdict != "matched")].iloc[0]
    assert (first.start, first.end) == (probe.start, probe.end)
    assert first.cwnd is not None and first.timer == "rto"


def test_plot_draws_the_divergences(tail_pcap, tmp_path, cli):
    out = tmp_path / "div.png"
    r = cli("explain", str(tail_pcap("linux")), "--preset", "rfc", "--plot", str(out))
    assert r.code == 0, r.stderr
    assert out.stat().st_size > 0
    assert "first divergence 0.5" in r.stdout


def test_cli_table_json_trace_and_plot(tail_pcap, tmp_path, cli):
    path = tail_pcap("rack-tlp")
    r = cli("explain", str(path), "--preset", "rack-tlp")
    assert r.code == 0, r.stderr
    assert "decisions matched: 11/11 (100.0 %)" in r.stdout
    r = cli("explain", str(path), "--preset", "rack-tlp", "--json",
            "--flow", "10.0.0.2:80-10.0.0.1:10001")
    doc = json.loads(r.stdout)
    assert len(doc["report"]["connections"]) == 1
    assert {t["verdict"] for t in doc["transmissions"]} == {"matched"}
    trace = tmp_path / "rows.jsonl"
    plot = tmp_path / "ts.png"
    r = cli("explain", str(path), "--trace", str(trace), "--plot", str(plot))
    assert r.code == 0, r.stderr
    assert len(trace.read_text().splitlines()) == 22 and plot.stat().st_size > 0
    # An existing output is refused without --force, and kept.
    r = cli("explain", str(path), "--trace", str(trace))
    assert r.code != 0 and "already exists" in r.stderr
    assert len(trace.read_text().splitlines()) == 22
    assert cli("explain", str(path), "--trace", str(trace), "--force").code == 0


def test_bad_input_is_a_clear_message(tmp_path, cli):
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture at all")
    r = cli("explain", str(junk))
    assert r.code != 0 and "not a pcap or pcapng" in r.stderr
    r = cli("explain", str(junk), "--preset", "bogus")
    assert r.code != 0 and "bogus" in r.stderr


def test_truncated_capture_gives_a_partial_result(tail_pcap, tmp_path, cli):
    data = tail_pcap("linux").read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[: len(data) * 2 // 3])
    r = cli("explain", str(cut))
    assert r.code == 0, r.stderr
    assert "warning: the capture is truncated" in r.stdout


CORPUS = __import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "explain"
#: Counters explain must reproduce from the kernel's nstat deltas (engine Stats names are
#: the MIB's).
KERNEL_COUNTERS = ("RetransSegs", "TCPLossProbes", "TCPFastRetrans", "TCPTimeouts",
                   "TCPSlowStartRetrans", "TCPSpuriousRTOs", "TCPDSACKRecv")


#: Known failures of the committed corpus, with what the rows show (strict: a fix makes
#: them pass and the mark must go).
KNOWN = {
    "ackloss": "the emulator captures ACKs before its ACK-loss model drops them, so the "
               "engine is fed ACKs the kernel never received (engine_only new data)",
    "long": "the emulator's capture times jitter by more than the 200 us ACK-shift "
            "tolerance under load: data an ACK released is captured before the ACK is fed "
            "(late rows; RetransSegs 18 vs 11)",
}


@pytest.mark.parametrize("name", [
    "tail", "burst", "lost-retransmission", "random", "rto", "delack", "burst5",
    *(pytest.param(n, marks=pytest.mark.xfail(reason=why, strict=True)) for n, why in KNOWN.items()),
])
def test_kernel_corpus_under_linux(name, tmp_path):
    """Linux's own sender captured on the wire (scripts/explain-corpus.py): explain
    --preset linux matches its decisions and reproduces its nstat counters."""
    import gzip

    pcap = tmp_path / f"{name}.pcap"
    pcap.write_bytes(gzip.decompress((CORPUS / f"{name}.pcap.gz").read_bytes()))
    kernel = json.loads((CORPUS / f"{name}.json").read_text())["mib"]
    df = lossrec.explain(pcap, preset="linux")
    (c,) = df.attrs["report"]["connections"]
    assert c["capture_point"] == "path"
    # The counters are the truth the issue asks for; decisions in a path capture can land
    # in the neighbouring window when the emulator's timestamps jitter (delack: 63/65).
    assert c["matched"] >= 0.95 * c["decisions"], c
    got = {k: c["engine_counters"][k] for k in KERNEL_COUNTERS}
    assert got == {k: kernel[k] for k in KERNEL_COUNTERS}


def test_a_dsack_shows_both_readings(tmp_path, cli):
    """The kernel's ACK-loss capture holds one DSACK (its TCPDSACKRecv is 1): the
    retransmission it names is listed with both readings, in the report and the table."""
    import gzip

    pcap = tmp_path / "ackloss.pcap"
    pcap.write_bytes(gzip.decompress((CORPUS / "ackloss.pcap.gz").read_bytes()))
    df = lossrec.explain(pcap, preset="linux")
    (c,) = df.attrs["report"]["connections"]
    ro = c["reordering"]
    assert (ro["dsacks"], ro["ambiguous_total"], ro["degree"]) == (1, 1, 0), ro
    (a,) = ro["ambiguous"]
    assert a["evidence"] == "dsack" and len(a["readings"]) == 2
    r = cli("explain", str(pcap), "--preset", "linux")
    assert r.code == 0, r.stderr
    assert f"two readings of packet {a['packet']} (dsack" in r.stdout


def test_reordering_degree_in_the_table(tmp_path, cli):
    sc = tmp_path / "reorder.toml"
    sc.write_text("seed = 11\n[path]\nrtt_ms = 20\nrate_mbps = 50\n[path.reorder]\n"
                  "packets = [5, 6]\nfraction = 0.01\ndelay_ms = 5\ndelay_max_ms = 15\n"
                  "[sender]\npreset = \"linux\"\n[workload]\nkind = \"flows\"\nflows = 2\n"
                  "segments = 200\n")
    out = tmp_path / "reorder.pcap"
    assert cli("run", str(sc), "--pcap", str(out)).code == 0
    df = lossrec.explain(out, preset="linux")
    degrees = [c["reordering"]["degree"] for c in df.attrs["report"]["connections"]]
    assert max(degrees) >= 2, degrees
    r = cli("explain", str(out), "--preset", "linux")
    assert "reordering proven: degree" in r.stdout
