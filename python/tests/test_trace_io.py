"""Trace files by suffix (issue 29 item 4): ``.jsonl`` and ``.jsonl.zst`` are written by
the simulator's trace writer and read back by ``lossrec.read_trace``, ``Result.trace`` and
``lossrec plot`` as the same records; any other suffix is refused with the accepted ones
named; a damaged compressed file is a clear error, never a shorter trace."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import lossrec
from lossrec.errors import ArgumentError
from lossrec.trace_io import read_records, trace_format

#: Random data and ACK loss on three concurrent flows: every kind of trace line.
LOSSY = """seed = 5
[path]
rtt_ms = 30
rate_mbps = 20
[path.loss]
model = "bernoulli"
p = 0.03
[path.ack_loss]
model = "bernoulli"
p = 0.02
[workload]
kind = "flows"
flows = 3
segments = 400
arrival = "concurrent"
"""


@pytest.fixture(scope="module")
def memory():
    """The lossy run's trace, collected in memory."""
    r = lossrec.run(LOSSY, trace=True)
    return r.trace_jsonl, r.trace_records, r.trace


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonl.zst"])
def test_a_trace_file_reads_back_as_the_in_memory_records(tmp_path, memory, name):
    text, recs, df = memory
    p = tmp_path / name
    r = lossrec.run(LOSSY, trace=p)
    assert r.json["outputs"]["trace_lines"] == len(recs)
    assert read_records(p) == recs
    pd.testing.assert_frame_equal(lossrec.read_trace(p), df)
    pd.testing.assert_frame_equal(r.trace, df)  # Result.trace reads the streamed file back
    assert r.trace_jsonl == text


def test_a_zstd_trace_is_at_least_five_times_smaller(tmp_path, memory):
    text = memory[0]
    lossrec.run(LOSSY, trace=tmp_path / "t.jsonl.zst")
    size = (tmp_path / "t.jsonl.zst").stat().st_size
    assert len(text.encode()) / size >= 5, (len(text), size)


def test_a_zstd_trace_is_plain_zstd(tmp_path, memory):
    import zstandard

    p = tmp_path / "t.jsonl.zst"
    lossrec.run(LOSSY, trace=p)
    with zstandard.ZstdDecompressor().stream_reader(p.open("rb"), read_across_frames=True) as f:
        assert f.read().decode() == memory[0]


@pytest.fixture
def zst(tmp_path):
    p = tmp_path / "t.jsonl.zst"
    lossrec.run(LOSSY, trace=p)
    return p


def test_a_truncated_zstd_trace_is_a_clear_error(zst):
    data = zst.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 7):
        zst.write_bytes(data[:cut])
        with pytest.raises(ValueError, match=r"t\.jsonl\.zst: truncated zstd trace"):
            lossrec.read_trace(zst)


def test_a_corrupted_zstd_trace_is_a_clear_error(zst):
    data = bytearray(zst.read_bytes())
    for at in (len(data) // 2, len(data) - 2, 1):
        bad = bytearray(data)
        bad[at] ^= 0x5A
        zst.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match=r"t\.jsonl\.zst: corrupt zstd trace"):
            lossrec.read_trace(zst)


def test_an_empty_zstd_trace_is_an_empty_trace(tmp_path):
    p = tmp_path / "e.jsonl.zst"
    p.write_bytes(b"")
    assert lossrec.read_trace(p).empty


@pytest.mark.parametrize("name", ["t.json", "t.txt", "t.zst", "trace", "t.jsonl.gz"])
def test_an_unknown_suffix_is_refused_before_the_run(tmp_path, name):
    p = tmp_path / name
    with pytest.raises(ArgumentError, match=r"\.jsonl\.zst"):
        lossrec.run(LOSSY, trace=p)
    assert not p.exists()
    p.write_text("{}\n")
    with pytest.raises(ValueError, match=r"unknown trace format.*\.jsonl\.zst, \.jsonl"):
        lossrec.read_trace(p)


def test_a_device_is_json_lines():
    assert trace_format("/dev/null") == "jsonl"
    assert trace_format("-") == "jsonl"


def test_cli_run_writes_and_plot_reads_a_zstd_trace(tmp_path, cli):
    sc = tmp_path / "s.toml"
    sc.write_text(LOSSY)
    t = tmp_path / "t.jsonl.zst"
    r = cli("run", str(sc), "--trace", str(t))
    assert r.code == 0, r.stderr
    assert lossrec.read_trace(t)["kind"].isin(["send", "ack", "recv", "drop", "event"]).all()
    r = cli("plot", str(t), "-o", str(tmp_path / "g.png"))
    assert r.code == 0, r.stderr
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")
    r = cli("run", str(sc), "--trace", str(tmp_path / "t.log"))
    assert r.code != 0 and ".jsonl.zst" in r.stderr, r.stderr
    assert not (tmp_path / "t.log").exists()


def test_cli_default_run_writes_a_zstd_trace(tmp_path, cli):
    t = tmp_path / "d.jsonl.zst"
    r = cli("run", "--preset", "rfc", "--trace", str(t))
    assert r.code == 0, r.stderr
    plain = tmp_path / "d.jsonl"
    assert cli("run", "--preset", "rfc", "--trace", str(plain)).code == 0
    assert read_records(t) == [json.loads(x) for x in plain.read_text().splitlines()]
