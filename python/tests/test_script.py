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
