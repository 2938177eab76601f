"""CLI argument handling and error paths that need no simulation."""

from __future__ import annotations

import json

import lossrec


def test_help_lists_subcommands(cli):
    r = cli("--help")
    assert r.code == 0
    for cmd in ("run", "presets", "bench"):
        assert cmd in r.stdout


def test_version(cli):
    r = cli("--version")
    assert r.code == 0 and lossrec.__version__ in r.stdout


def test_unknown_preset_lists_valid_ones(cli):
    r = cli("run", "--preset", "bogus")
    assert r.code == 2
    assert r.stderr.startswith("lossrec: error: ")
    assert "bogus" in r.stderr and "rfc" in r.stderr and "linux-classic" in r.stderr
    assert r.stdout == ""


def test_unknown_preset_with_scenario_is_checked_first(cli, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("seed = 1\n")
    r = cli("run", str(f), "--preset", "nope")
    assert r.code == 2 and "valid presets: rfc, linux-classic" in r.stderr


def test_missing_file_names_it(cli, tmp_path):
    missing = tmp_path / "missing.toml"
    r = cli("run", str(missing))
    assert r.code == 2
    assert r.stderr.strip() == f"lossrec: error: {missing}: no such file"


def test_directory_is_refused(cli, tmp_path):
    r = cli("run", str(tmp_path))
    assert r.code == 2


def test_non_utf8_file(cli, tmp_path):
    f = tmp_path / "bin.toml"
    f.write_bytes(b"seed = 1\n\xff\xfe\n")
    r = cli("run", str(f))
    assert r.code == 2
    assert "lossrec: error:" in r.stderr and str(f) in r.stderr and "UTF-8" in r.stderr


def test_bad_seed_values(cli):
    for bad in ("-1", "abc", str(2**64)):
        r = cli("run", "--seed", bad)
        assert r.code == 2, bad
        assert "--seed" in r.stderr


def test_unknown_option_and_command(cli):
    assert cli("run", "--frobnicate").code == 2
    assert cli("nosuchcommand").code == 2


def test_bench_only_choice(cli):
    r = cli("bench", "--only", "nope")
    assert r.code == 2 and "bulk" in r.stderr and "short_flows" in r.stderr


def test_presets_table_lists_rfc_and_linux_classic(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    r = cli("presets")
    assert r.code == 0
    lines = r.stdout.splitlines()
    assert any(line.startswith("rfc ") for line in lines)
    assert any(line.startswith("linux-classic ") for line in lines)
    # Readable on an 80-column terminal (the test runner's width).
    assert max(len(line) for line in lines) <= 80
    # Axis rows × preset columns: for the named presets (or all, with --matrix).
    r = cli("presets", "rfc", "linux-classic")
    assert r.code == 0
    lines = r.stdout.splitlines()
    header = next(line for line in lines if line.startswith("axis"))
    assert "rfc" in header and "linux-classic" in header
    for axis in lossrec._core.axes():
        assert any(line.startswith(axis + " ") for line in lines), axis
    # The table shows where presets differ.
    row = next(line for line in lines if line.startswith("min_rto_ms"))
    assert row.split()[1:3] == ["1000", "200"]


def test_presets_json(cli):
    r = cli("presets", "--json")
    assert r.code == 0
    ps = json.loads(r.stdout)
    names = [p["name"] for p in ps]
    assert names[:2] == ["rfc", "linux-classic"]
    assert ps[1]["axes"]["cc"] == "cubic"
    assert set(ps[0]) == {"name", "summary", "axes"}


def test_errors_have_no_traceback_in_a_real_process(cli_proc, tmp_path):
    r = cli_proc("run", "--preset", "bogus")
    assert r.code == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().startswith("lossrec: error: unknown preset `bogus`")
    r = cli_proc("run", str(tmp_path / "nope.toml"))
    assert r.code == 2 and "Traceback" not in r.stderr


def test_presets_in_a_real_process(cli_proc):
    r = cli_proc("presets")
    assert r.code == 0 and "linux-classic" in r.stdout


def test_set_checks_axis_and_value_before_running(cli):
    r = cli("run", "--set", "colour=red")
    assert r.code == 2
    assert "--set colour=red" in r.stderr and "unknown axis" in r.stderr and "min_rto_ms" in r.stderr
    r = cli("run", "--set", "cc=vegas")
    assert r.code == 2 and "reno, cubic" in r.stderr
    r = cli("run", "--set", "cc")
    assert r.code == 2 and "AXIS=VALUE" in r.stderr
    r = cli("run", "--set", "preset=rfc")
    assert r.code == 2 and "--preset" in r.stderr
