"""Streaming sweeps (issue 16): a folder output gets a Parquet partition per chunk as it
finishes, reads back as the in-memory sweep's frame, resumes, and keeps memory flat in
the number of scenarios."""

from __future__ import annotations

import json
import tracemalloc

import pandas as pd
import pytest

import lossrec
from lossrec.lab.stream import MANIFEST, partition_name

pytest.importorskip("pyarrow")

RANDOM = """
seed = 7
[path]
rtt_ms = 20
[path.loss]
model = "bernoulli"
p = 0.05
[workload]
flows = 3
segments = 20
"""
PARAMS = {"path.rtt_ms": [10, 40], "sender.preset": ["rfc", "linux-classic"]}


def test_folder_output_is_a_dataset_of_the_same_rows(tmp_path):
    out = tmp_path / "results"
    empty = lossrec.sweep(RANDOM, PARAMS, reps=10, output=out, chunk_size=7)
    a = empty.attrs["sweep"]
    assert empty.empty
    assert a["chunks"] == 6 and a["partitions"] == 6 and a["rows"] == 4 * 10 * 3
    assert sorted(p.name for p in out.glob("*.parquet")) == [partition_name(i) for i in range(6)]
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["complete"] and manifest["definition"] == a["definition"]
    local = lossrec.sweep(RANDOM, PARAMS, reps=10)
    pd.testing.assert_frame_equal(pd.read_parquet(out), local)
    # The empty frame has the dataset's columns and types.
    pd.testing.assert_frame_equal(empty, local.iloc[:0].reset_index(drop=True), check_categorical=False)


def _interrupt_after(monkeypatch, n):
    from lossrec.lab import chunks

    real = chunks.run_chunk
    calls = {"n": 0}

    def flaky(*a, **kw):
        if calls["n"] == n:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(*a, **kw)

    # The runner looks the columns' work function up in lossrec.lab.chunks as it starts.
    monkeypatch.setattr(chunks, "run_chunk", flaky)
    return calls


def test_interrupted_stream_resumes_with_the_missing_partitions(tmp_path, monkeypatch):
    out = tmp_path / "r"
    _interrupt_after(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        lossrec.sweep(RANDOM, PARAMS, reps=10, output=out, chunk_size=6)
    assert sorted(p.name for p in out.glob("*.parquet")) == [partition_name(i) for i in range(3)]
    assert not json.loads((out / MANIFEST).read_text())["complete"]
    monkeypatch.undo()
    calls = _interrupt_after(monkeypatch, 10**9)
    a = lossrec.sweep(RANDOM, PARAMS, reps=10, output=out, chunk_size=6).attrs["sweep"]
    assert a["resumed_chunks"] == 3 and calls["n"] == a["chunks"] - 3
    assert a["rows"] == 4 * 10 * 3
    pd.testing.assert_frame_equal(pd.read_parquet(out), lossrec.sweep(RANDOM, PARAMS, reps=10))


def test_folder_of_another_sweep_or_other_files_is_refused(tmp_path):
    out = tmp_path / "r"
    lossrec.sweep(RANDOM, {"path.rtt_ms": [10]}, reps=2, output=out, chunk_size=1)
    with pytest.raises(ValueError, match="different sweep.*--force"):
        lossrec.sweep(RANDOM, {"path.rtt_ms": [20]}, reps=2, output=out, chunk_size=1)
    lossrec.sweep(RANDOM, {"path.rtt_ms": [20]}, reps=2, output=out, chunk_size=1, force=True)
    assert pd.read_parquet(out)["path.rtt_ms"].unique().tolist() == [20]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not a lossrec sweep"):
        lossrec.sweep(RANDOM, reps=2, output=mine)
    assert (mine / "notes.txt").exists()


def _python_peak(output, reps: int) -> int:
    """Peak bytes Python allocated (numpy and pandas buffers included) during a sweep."""
    tracemalloc.start()
    try:
        lossrec.sweep(RANDOM, {"path.rtt_ms": [10, 40]}, reps=reps, output=output, chunk_size=250)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streaming_memory_is_flat_in_the_number_of_scenarios(tmp_path):
    lossrec.sweep(RANDOM, reps=1, output=tmp_path / "warm")  # imports, thread pools
    small = _python_peak(tmp_path / "small", 500)
    big = _python_peak(tmp_path / "big", 5_000)
    # Ten times the scenarios (30,000 rows), the same chunk: the same peak.
    assert big < small * 1.3, (small, big)
    # Whereas a sweep that returns its rows holds them all.
    held = _python_peak(tmp_path / "big.parquet", 5_000)
    assert held > small * 3, (small, held)


def test_cli_folder_output(cli, tmp_path):
    out = tmp_path / "ds"
    f = tmp_path / "s.toml"
    f.write_text(RANDOM)
    r = cli("sweep", str(f), "--set", "path.rtt_ms=10,40", "--reps", "3", "-o", str(out),
            "--chunk-size", "2")
    assert r.code == 0, r.stderr
    assert f"wrote {out}: 18 rows" in r.stderr
    assert len(pd.read_parquet(out)) == 18
