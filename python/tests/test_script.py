"""``lossrec script``: the project's conformance scripts pass; failures point at the line."""

from __future__ import annotations

import re
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "crates" / "engine" / "tests" / "scripts"
SINGLE_LOSS = SCRIPTS / "rfc6675-single-loss.pkt"


def test_every_project_script_passes(cli):
    out = cli("script", str(SCRIPTS))
    n = len(list(SCRIPTS.rglob("*.pkt")))
    assert out.code == 0, out.stdout
    assert out.stdout.strip().splitlines()[-1] == f"{n} passed, 0 failed"
    assert out.stdout.count("PASS ") == n


def test_wrong_expectation_names_line_expected_and_actual(cli, tmp_path):
    text = SINGLE_LOSS.read_text()
    bad_line = "+0  > . 1:10001(10000) ack 1"
    assert bad_line in text
    lineno = text.splitlines().index(bad_line) + 1
    f = tmp_path / "bad.pkt"
    f.write_text(text.replace(bad_line, "+0  > . 1:9001(9000) ack 1"))
    out = cli("script", str(f))
    assert out.code == 1
    assert f"FAIL {f}" in out.stdout
    # The engine's 10th segment is reported as unexpected at the next packet line.
    m = re.search(rf"{re.escape(str(f))}:(\d+): unexpected outbound packet", out.stdout)
    assert m and int(m.group(1)) > lineno, out.stdout
    assert "actual:" in out.stdout and "9001:10001(1000)" in out.stdout
    assert out.stdout.strip().endswith("0 passed, 1 failed")


def test_parse_error_has_line_and_column(cli, tmp_path):
    f = tmp_path / "parse.pkt"
    f.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < Q 0:0(0) win 1\n")
    out = cli("script", str(f))
    assert out.code == 1
    assert f"{f}:2:6: bad flags" in out.stdout


def test_preset_and_set_are_checked(cli):
    out = cli("script", str(SINGLE_LOSS), "--preset", "nope")
    assert out.code == 2 and "valid presets" in out.stderr
    out = cli("script", str(SINGLE_LOSS), "--set", "cc=vegas")
    assert out.code == 2 and "reno, cubic" in out.stderr


def test_missing_path(cli, tmp_path):
    out = cli("script", str(tmp_path / "none.pkt"))
    assert out.code == 2 and "no such file" in out.stderr


OPEN = """\
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>
+.1 < . 1:1(0) ack 1 win 257
+0  accept(3, ..., ...) = 4
"""


def test_lenient_and_ignore_psh(cli, tmp_path):
    # No line expects the data: packetdrill's rule (--lenient) does not look at it.
    f = tmp_path / "quiet.pkt"
    f.write_text(OPEN + "+0 write(4, ..., 2000) = 2000\n+.1 < . 1:1(0) ack 2001 win 257\n")
    assert cli("script", str(f)).code == 1
    assert cli("script", "--lenient", str(f)).code == 0
    g = tmp_path / "psh.pkt"
    g.write_text(OPEN + "+0 write(4, ..., 2000) = 2000\n+0 > . 1:2001(2000) ack 1\n")
    out = cli("script", str(g))
    assert out.code == 1 and "mismatch in flags: expected ., actual P." in out.stdout
    assert cli("script", "--ignore-psh", str(g)).code == 0


def test_unsupported_feature_names_its_line(cli, tmp_path):
    f = tmp_path / "urg.pkt"
    f.write_text(OPEN + "+0 < U. 1:1(0) ack 1 win 257\n")
    n = OPEN.count("\n") + 1
    out = cli("script", str(f))
    assert out.code == 1
    assert f"{f}:{n}: unsupported: urgent data (URG) at line {n}" in out.stdout


def test_ecn_setup_and_marks(cli, tmp_path):
    """RFC 3168 through the CLI: `tcp_ecn=2` accepts an ECN-setup SYN (`SE.`) and data
    leaves ECT(0); `tcp_ecn=0` refuses it."""
    open_ecn = OPEN.replace("< S 0", "< SEW 0").replace("> S. 0", "> SE. 0")
    data = "+0 write(4, ..., 1000) = 1000\n+0 > [ect0] P. 1:1001(1000) ack 1\n"
    f = tmp_path / "ecn.pkt"
    f.write_text("`sysctl -q net.ipv4.tcp_ecn=2`\n" + open_ecn + data)
    assert cli("script", str(f)).code == 0
    f.write_text("`sysctl -q net.ipv4.tcp_ecn=0`\n" + open_ecn + data)
    out = cli("script", str(f))
    assert out.code == 1 and "mismatch in flags" in out.stdout


CONFORMANCE = Path(__file__).resolve().parents[2] / "scripts" / "upstream-conformance.sh"


def test_upstream_conformance_table(tmp_path):
    """The conformance script on a stand-in checkout laid out like google/packetdrill and
    the kernel's selftests (the real ones are GPL and never copied here)."""
    import os
    import shutil
    import subprocess
    import sys

    pd = tmp_path / "packetdrill" / "gtests" / "net"
    (pd / "common").mkdir(parents=True)
    (pd / "common" / "defaults.sh").write_text("sysctl -q net.ipv4.tcp_reordering=3\n")
    fr = pd / "tcp" / "fast_retransmit"
    fr.mkdir(parents=True)
    shutil.copy(SCRIPTS / "fin-both-ways.pkt", fr / "ok.pkt")  # passes under `linux`
    (fr / "psh.pkt").write_text("`../common/defaults.sh`\n" + OPEN
                                + "+0 write(4, ..., 2000) = 2000\n+0 > . 1:2001(2000) ack 1\n")
    kd = tmp_path / "linux" / "tools" / "testing" / "selftests" / "net" / "packetdrill"
    kd.mkdir(parents=True)
    (kd / "defaults.sh").write_text("sysctl -q net.ipv4.tcp_sack=1\n")
    (kd / "tcp_sack_urg.pkt").write_text("`./defaults.sh`\n" + OPEN
                                         + "+0 < U. 1:1(0) ack 1 win 257\n")
    env = dict(os.environ, LOSSREC=f"{sys.executable} -m lossrec")
    p = subprocess.run(["bash", str(CONFORMANCE), str(tmp_path / "packetdrill"),
                        str(tmp_path / "linux")], capture_output=True, text=True, env=env,
                       timeout=300)
    out = p.stdout
    assert p.returncode == 1, out + p.stderr
    assert "| fast_retransmit/ok.pkt | pass |  |" in out
    assert "| fast_retransmit/psh.pkt | pass-but-psh | 10: outbound packet mismatch in flags" in out
    n = OPEN.count("\n") + 2
    assert f"| tcp_sack_urg.pkt | unsupported | {n}: unsupported: urgent data" in out
    assert ("2 scripts: 1 passed, 1 failed; without comparing PSH: 2 passed, 0 failed") in out
    assert out.strip().splitlines()[-1] == "1 passed, 2 failed"


def test_upstream_conformance_known_failures(tmp_path):
    """A failure that the list of known failures records (script, line, reason: the
    kernel this project measures fails it too) is reported as `known-fail` with its reason
    and does not fail the run; the same script failing at another line is a new failure."""
    import os
    import subprocess
    import sys

    pd = tmp_path / "packetdrill" / "gtests" / "net"
    (pd / "common").mkdir(parents=True)
    (pd / "common" / "defaults.sh").write_text("sysctl -q net.ipv4.tcp_reordering=3\n")
    fr = pd / "tcp" / "fast_retransmit"
    fr.mkdir(parents=True)
    (fr / "short.pkt").write_text("`../common/defaults.sh`\n" + OPEN
                                  + "+0 write(4, ..., 1000) = 1000\n+0 > P. 1:501(500) ack 1\n")
    n = OPEN.count("\n") + 3
    known = tmp_path / "known.tsv"
    env = dict(os.environ, LOSSREC=f"{sys.executable} -m lossrec",
               UPSTREAM_KNOWN_FAILURES=str(known))

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(CONFORMANCE), str(tmp_path / "packetdrill")],
                              capture_output=True, text=True, env=env, timeout=300)

    known.write_text("# script\tline\treason\n"
                     f"fast_retransmit/short.pkt\t{n}\tLinux 9.9 sends 1000 bytes too\n")
    p = run()
    assert p.returncode == 0, p.stdout + p.stderr
    row = next(r for r in p.stdout.splitlines() if r.startswith("| fast_retransmit/short.pkt"))
    assert row.startswith(f"| fast_retransmit/short.pkt | known-fail | {n}: ")
    assert "known: Linux 9.9 sends 1000 bytes too" in row
    assert "1 scripts: 0 passed, 1 failed (1 known)" in p.stdout
    assert p.stdout.strip().splitlines()[-1] == "0 passed, 1 failed (1 known, 0 new)"

    known.write_text(f"fast_retransmit/short.pkt\t{n + 1}\tat another line\n")
    p = run()
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"| fast_retransmit/short.pkt | fail | {n}: " in p.stdout
    assert p.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"
