"""No lossrec command removes or overwrites a file it did not write without --force, and
even with --force it never removes one: reproduce keeps a manifest of what it wrote into
DIR/NAME/ and replaces only that; every file output (run --trace/--pcap/--pcap-receiver/
--plot, sweep -o FILE and FOLDER, plot -o, wire --trace/--pcap/--plot) refuses an existing
file unless --force."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.errors import OutputExistsError
from lossrec.lab.jobs import MANIFEST

TOY = '''
from lossrec.lab import Sweep, Verdict

TITLE = "Toy"
SEED = "000"

def sweeps(quick):
    return [Sweep("s.toml", {"path.rtt_ms": [10, 20]}, reps=2)]

def claims(df, published, ctx):
    return [Verdict.judge("calib", True, "1 %", "workload")]
'''
PUBLISHED = '''
[claims.calib]
statement = "the workload's loss rate"
value = 1
where = "a slide"
agreement = "within a factor of 2"
kind = "calibration"
'''
SCENARIO = "seed = 3\n[workload]\nsegments = 6\n[path]\nrtt_ms = 20\n"
FOREIGN = "my notes, not lossrec's"


@pytest.fixture
def toy(write_study):
    return write_study({"study.py": TOY, "published.toml": PUBLISHED,
                        "s.toml": "seed = 5\n[workload]\nsegments = 4\n"})


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    return p


# ------------------------------------------------------------------------------ reproduce

def test_reproduce_refuses_a_study_folder_with_files_it_did_not_write(toy, tmp_path):
    out = tmp_path / "out"
    (out / "toy").mkdir(parents=True)
    notes = out / "toy" / "notes.txt"
    notes.write_text(FOREIGN)
    with pytest.raises(OutputExistsError, match=r"notes\.txt.*force"):
        lossrec.reproduce("toy", out=out, root=toy)
    assert notes.read_text() == FOREIGN
    assert not (out / "toy" / "report.md").exists()


def test_reproduce_force_writes_beside_foreign_files_and_never_removes_them(toy, tmp_path):
    out = tmp_path / "out"
    (out / "toy" / "sub").mkdir(parents=True)
    notes = out / "toy" / "notes.txt"
    notes.write_text(FOREIGN)
    (out / "toy" / "sub" / "data.csv").write_text("a\n1\n")
    for _ in range(2):  # the second run replaces its own files, keeps the others
        report = lossrec.reproduce("toy", out=out, root=toy, force=True, resume=False)
        assert report.exists()
        assert notes.read_text() == FOREIGN
        assert (out / "toy" / "sub" / "data.csv").read_text() == "a\n1\n"
    written = json.loads((out / "toy" / MANIFEST).read_text())["files"]
    assert "report.md" in written and "notes.txt" not in written
    assert not [p for p in out.iterdir() if p.name.startswith(".toy.")]  # no staging left


def test_reproduce_reruns_into_its_own_previous_output(toy, tmp_path, cli):
    out = tmp_path / "out"
    for _ in range(2):
        r = cli("reproduce", "toy", "--experiments", str(toy), "-o", str(out), "-q", "--fresh")
        assert r.code == 0, r.stderr
    files = {p.name for p in (out / "toy").iterdir()}
    assert {"report.md", "run.json", "results.parquet", MANIFEST} <= files
    assert set(json.loads((out / "toy" / MANIFEST).read_text())["files"]) == files - {MANIFEST}


def test_reproduce_cli_refuses_foreign_files_then_force_keeps_them(toy, tmp_path, cli):
    out = tmp_path / "out"
    (out / "toy").mkdir(parents=True)
    (out / "toy" / "notes.txt").write_text(FOREIGN)
    r = cli("reproduce", "toy", "--experiments", str(toy), "-o", str(out), "-q")
    assert r.code == 2 and "lossrec: error:" in r.stderr and "--force" in r.stderr, r.stderr
    r = cli("reproduce", "toy", "--experiments", str(toy), "-o", str(out), "-q", "--force")
    assert r.code == 0, r.stderr
    assert (out / "toy" / "notes.txt").read_text() == FOREIGN
    assert (out / "toy" / "report.md").exists()


def test_reproduce_all_refuses_an_index_it_did_not_write(toy, tmp_path, cli):
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.md").write_text(FOREIGN)
    r = cli("reproduce", "--all", "--experiments", str(toy), "-o", str(out), "-q")
    assert r.code == 2 and "index.md" in r.stderr, r.stderr
    assert (out / "index.md").read_text() == FOREIGN
    (out / "index.md").unlink()
    # the interactive index too (index.html, beside index.md)
    (out / "index.html").write_text(FOREIGN)
    r = cli("reproduce", "--all", "--experiments", str(toy), "-o", str(out), "-q")
    assert r.code == 2 and "index.html" in r.stderr, r.stderr
    assert (out / "index.html").read_text() == FOREIGN
    (out / "index.html").unlink()
    for _ in range(2):  # its own index is replaced
        r = cli("reproduce", "--all", "--experiments", str(toy), "-o", str(out), "-q")
        assert r.code == 0, r.stderr


# ---------------------------------------------------------------------------------- sweep

@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_sweep_refuses_an_existing_file_unless_force(scenario, tmp_path, cli, suffix):
    out = tmp_path / f"r{suffix}"
    out.write_text(FOREIGN)
    r = cli("sweep", str(scenario), "--set", "path.rtt_ms=10,20", "-o", str(out), "-q")
    assert r.code == 2 and "--force" in r.stderr, r.stderr
    assert out.read_text() == FOREIGN
    with pytest.raises(OutputExistsError):
        lossrec.sweep(scenario, {"path.rtt_ms": [10]}, output=out)
    assert out.read_text() == FOREIGN
    r = cli("sweep", str(scenario), "--set", "path.rtt_ms=10,20", "-o", str(out), "-q", "--force")
    assert r.code == 0, r.stderr
    assert len(pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)) == 2


def test_sweep_refuses_a_foreign_csv_provenance_file(scenario, tmp_path):
    out = tmp_path / "r.csv"
    side = tmp_path / "r.csv.json"
    side.write_text(FOREIGN)
    with pytest.raises(OutputExistsError, match="r.csv.json"):
        lossrec.sweep(scenario, {"path.rtt_ms": [10]}, output=out)
    assert side.read_text() == FOREIGN and not out.exists()


def test_sweep_folder_force_keeps_files_it_did_not_write(scenario, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text(FOREIGN)
    with pytest.raises(OutputExistsError, match="--force"):
        lossrec.sweep(scenario, {"path.rtt_ms": [10]}, output=out, chunk_size=1)
    lossrec.sweep(scenario, {"path.rtt_ms": [10]}, output=out, chunk_size=1, force=True)
    assert (out / "notes.txt").read_text() == FOREIGN
    # another sweep replaces the first one's partitions, and still keeps the notes
    lossrec.sweep(scenario, {"path.rtt_ms": [20, 30]}, output=out, chunk_size=1, force=True)
    assert (out / "notes.txt").read_text() == FOREIGN
    rows = pd.concat([pd.read_parquet(p) for p in sorted(out.glob("part-*.parquet"))])
    assert sorted(rows["path.rtt_ms"].unique().tolist()) == [20, 30]


# ------------------------------------------------------------------------------------ run

@pytest.mark.parametrize("option,name", [("--trace", "t.jsonl"), ("--pcap", "p.pcap"),
                                         ("--pcap-receiver", "r.pcap"), ("--plot", "g.png")])
def test_run_refuses_to_overwrite_an_output_unless_force(scenario, tmp_path, cli, option, name):
    f = tmp_path / name
    f.write_text(FOREIGN)
    r = cli("run", str(scenario), option, str(f))
    assert r.code == 2 and str(f) in r.stderr and "--force" in r.stderr, r.stderr
    assert f.read_text() == FOREIGN
    r = cli("run", str(scenario), option, str(f), "--force")
    assert r.code == 0, r.stderr
    assert f.read_bytes() != FOREIGN.encode()


@pytest.mark.parametrize("option,name,written", [("--trace", "t.jsonl", "t.jsonl"),
                                                 ("--pcap", "p.pcap", "p-rfc.pcap"),
                                                 ("--plot", "g.png", "g.png")])
def test_default_run_refuses_to_overwrite_an_output(tmp_path, cli, option, name, written):
    f = tmp_path / written
    f.write_text(FOREIGN)
    r = cli("run", option, str(tmp_path / name))
    assert r.code == 2 and "--force" in r.stderr, r.stderr
    assert f.read_text() == FOREIGN
    r = cli("run", option, str(tmp_path / name), "--force")
    assert r.code == 0, r.stderr
    assert f.read_bytes() != FOREIGN.encode()


def test_api_run_refuses_to_overwrite_a_stream_unless_force(scenario, tmp_path):
    f = tmp_path / "t.jsonl"
    f.write_text(FOREIGN)
    with pytest.raises(OutputExistsError, match="force"):
        lossrec.run(scenario, trace=f)
    assert f.read_text() == FOREIGN
    r = lossrec.run(scenario, trace=f, force=True)
    assert r.json["outputs"]["trace_lines"] > 0


# ------------------------------------------------------------------------------ plot, wire

def test_plot_refuses_to_overwrite_unless_force(scenario, tmp_path, cli):
    trace = tmp_path / "t.jsonl"
    assert cli("run", str(scenario), "--trace", str(trace)).code == 0
    png = tmp_path / "g.png"
    png.write_text(FOREIGN)
    r = cli("plot", str(trace), "-o", str(png))
    assert r.code == 2 and "--force" in r.stderr, r.stderr
    assert png.read_text() == FOREIGN
    assert cli("plot", str(trace), "-o", str(png), "--force").code == 0
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("option", ["--trace", "--pcap", "--plot"])
def test_wire_refuses_to_overwrite_an_output_before_it_starts(scenario, tmp_path, cli, option):
    f = tmp_path / "out.file"
    f.write_text(FOREIGN)
    r = cli("wire", str(scenario), option, str(f))
    assert r.code == 2 and "--force" in r.stderr, r.stderr
    assert f.read_text() == FOREIGN
    (tmp_path / "x-linux.file").write_text(FOREIGN)
    r = cli("wire", str(scenario), "--sender", "both", option, str(tmp_path / "x.file"))
    assert r.code == 2 and "x-linux.file" in r.stderr, r.stderr
    assert (tmp_path / "x-linux.file").read_text() == FOREIGN


def test_a_device_is_not_a_file_to_protect(scenario, cli):
    # `lossrec bench --memory` streams to /dev/null: writing there replaces nothing.
    r = cli("run", str(scenario), "--trace", "/dev/null", "--pcap", "/dev/null")
    assert r.code == 0, r.stderr


# ----------------------------------------------- --pcap-snaplen (issue 28 item 11)

def _records(path):
    import struct

    data = Path(path).read_bytes()
    snap = struct.unpack("<I", data[16:20])[0]
    out, i = [], 24
    while i < len(data):
        _, _, incl, orig = struct.unpack("<IIII", data[i:i + 16])
        out.append((incl, orig))
        i += 16 + incl
    assert i == len(data)
    return snap, out


def test_pcap_snaplen_cuts_every_packet_and_keeps_its_length(cli, tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text("[path]\nrtt_ms = 20\n[path.loss]\nmodel = \"tail\"\ncount = 1\n[workload]\nsegments = 20\n")
    full, cut, rx = tmp_path / "full.pcap", tmp_path / "cut.pcap", tmp_path / "rx.pcap"
    assert cli("run", str(sc), "--pcap", str(full)).code == 0
    r = cli("run", str(sc), "--pcap", str(cut), "--pcap-receiver", str(rx), "--pcap-snaplen", "94")
    assert r.code == 0, r.stderr
    snap_full, whole = _records(full)
    snap, records = _records(cut)
    assert snap == 94 and snap_full > 94
    assert [o for _, o in records] == [o for _, o in whole]  # same packets, original lengths
    assert all(i == min(o, 94) for i, o in records)
    assert any(o > 94 for _, o in records)  # data packets were cut
    rsnap, rrecords = _records(rx)
    assert rsnap == 94 and rrecords and all(i <= 94 for i, _ in rrecords)


def test_pcap_snaplen_in_memory_and_refused_values(tmp_path):
    import lossrec
    from lossrec.errors import ArgumentError

    sc = {"path": {"rtt_ms": 20}, "workload": {"segments": 5}}
    r = lossrec.run(sc, pcap=True, pcap_snaplen=60)
    p = tmp_path / "m.pcap"
    r.write_pcap(p)
    snap, records = _records(p)
    assert snap == 60 and all(i <= 60 for i, _ in records)
    for bad in (0, -1, 300_000, "94", True):
        with pytest.raises(ArgumentError, match="pcap_snaplen"):
            lossrec.run(sc, pcap=True, pcap_snaplen=bad)


def test_pcap_snaplen_run_that_fails_leaves_no_file(tmp_path):
    import lossrec

    out = tmp_path / "never.pcap"
    with pytest.raises(ValueError):
        lossrec.run("[path]\nrtt_ms = -5\n", pcap=str(out), pcap_snaplen=94)
    assert not out.exists()
