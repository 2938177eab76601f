"""lossrec.sweep / lossrec sweep: shape, determinism across --jobs and chunking, seeds,
errors, resumable output, progress."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lossrec
from lossrec.lab import sweeps
from lossrec.lab.store import partial_dir

ROOT = Path(__file__).resolve().parents[2]
TAIL = ROOT / "experiments" / "examples" / "tail-loss.toml"
PARAMS = {"path.rtt_ms": [10, 40, 160], "sender.preset": ["rfc", "linux-classic"]}
#: A scenario with randomness, so that seeds matter: Bernoulli loss on 20-segment flows.
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
COLUMNS = ["path.rtt_ms", "sender.preset", "rep", "seed", "id", "preset", "bytes", "fct_ms",
           "data_packets_sent", "retransmits", "fast_recoveries", "rtos", "spurious_rtos",
           "tlp_probes", "undos", "final_cwnd", "fast_retransmits", "lost_retransmits",
           "lost_fast_retransmits", "slow_start_retransmits", "rtos_in_open", "rtos_in_disorder",
           "rtos_in_recovery", "rtos_in_loss", "dsacks", "early_retransmits",
           "spurious_early_retransmits", "tail_drops", "time_limit_hit"]


def test_shape_columns_and_order():
    df = lossrec.sweep(TAIL, PARAMS, reps=3, jobs=1)
    assert list(df.columns) == COLUMNS
    assert len(df) == 3 * 2 * 3  # one flow per scenario
    # point-major (last key fastest), then rep
    assert list(df["path.rtt_ms"][:6]) == [10] * 6
    assert list(df["sender.preset"][:6]) == ["rfc"] * 3 + ["linux-classic"] * 3
    assert list(df["rep"][:3]) == [0, 1, 2]
    assert (df["preset"].astype(str) == df["sender.preset"].astype(str)).all()
    assert df["path.rtt_ms"].dtype == np.int64 and df["fct_ms"].dtype == np.float64
    assert df["time_limit_hit"].dtype == bool and not df["time_limit_hit"].any()
    # the published tail-loss numbers: RTO + RTT after the last ACK
    fct = df.groupby(["path.rtt_ms", "sender.preset"], observed=True)["fct_ms"].mean()
    assert fct[(40, "rfc")] == pytest.approx(1112.17, abs=0.01)
    a = df.attrs["sweep"]
    assert a["scenarios"] == 18 and a["points"] == 6 and a["sim_wall_s"] > 0
    # the DataFrame is an ordinary, writable one
    df.loc[0, "rep"] = 5
    assert df.loc[0, "rep"] == 5


def test_several_flows_per_scenario_and_no_params():
    df = lossrec.sweep(RANDOM, reps=4)
    assert len(df) == 4 * 3
    assert list(df["id"][:3]) == [0, 1, 2]
    assert list(df.columns) == COLUMNS[2:]
    assert df["seed"].nunique() == 4


def test_results_do_not_depend_on_jobs_or_chunking(tmp_path):
    p = {"path.rtt_ms": [10, 30], "path.loss.p": [0.02, 0.1]}
    a = lossrec.sweep(RANDOM, p, reps=20, jobs=1)
    b = lossrec.sweep(RANDOM, p, reps=20, jobs=2)
    c = lossrec.sweep(RANDOM, p, reps=20, jobs=2, chunk_size=7)
    d = lossrec.sweep(RANDOM, p, reps=20, jobs=1, output=tmp_path / "d.parquet", chunk_size=13)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    pd.testing.assert_frame_equal(a, d)
    pd.testing.assert_frame_equal(a, pd.read_parquet(tmp_path / "d.parquet"))
    assert a["retransmits"].sum() > 0  # the loss is random: the seeds matter
    assert a.groupby(["path.rtt_ms", "path.loss.p"])["fct_ms"].nunique().max() > 1


def test_seed_rule():
    df = lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40]}, reps=2)
    for row in df.itertuples():
        key = f"path.rtt_ms={row[1]}"
        assert row.seed == lossrec.sweep_seed(1, key, row.rep)
    assert 0 <= df["seed"].min() and df["seed"].max() < 2**63
    # canonical keys are sorted: the order of the swept keys does not change seeds
    x = lossrec.sweep(TAIL, {"path.rtt_ms": [10], "sender.preset": ["rfc"]}, reps=2)
    y = lossrec.sweep(TAIL, {"sender.preset": ["rfc"], "path.rtt_ms": [10]}, reps=2)
    assert list(x["seed"]) == list(y["seed"])
    # common seeds: every point shares repetition i's seed
    c = lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40]}, reps=2, common_seeds=True)
    assert list(c["seed"][:2]) == list(c["seed"][2:])
    assert c["seed"][0] == lossrec.sweep_seed(1, "", 0)


M64 = 2**64 - 1


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def _splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def test_sweep_seed_is_the_documented_formula():
    # splitmix64(splitmix64(base ^ fnv1a64(key)) ^ rep) >> 1, fixed for all time
    for base, key, rep in [(1, "path.rtt_ms=10", 0), (7, 'sender.preset="rfc"', 99), (0, "", 3)]:
        want = _splitmix64(_splitmix64(base ^ _fnv1a64(key.encode())) ^ rep) >> 1
        assert lossrec.sweep_seed(base, key, rep) == want
    df = lossrec.sweep(TAIL, PARAMS)
    assert df["seed"][0] == lossrec.sweep_seed(1, 'path.rtt_ms=10;sender.preset="rfc"', 0)


def test_point_scenario_applies_overrides():
    text = lossrec.point_scenario(TAIL, {"path.rtt_ms": 80, "receiver.delayed_ack_ms": 40})
    r = lossrec.run(text)
    df = lossrec.sweep(TAIL, {"path.rtt_ms": [80], "receiver.delayed_ack_ms": [40]})
    assert r.flows["fct_ms"][0] == df["fct_ms"][0]


@pytest.mark.parametrize("params, match", [
    ({"path.rtt_m": [10]}, r"tail-loss.toml \(with --set path.rtt_m=10\): path.rtt_m: unknown field"),
    ({"path.rtt_ms": [-5]}, r"--set path.rtt_ms=-5\): path.rtt_ms: must be"),
    ({"sender.preset": ["rfc", "bogus"]}, r"sender.preset: unknown preset `bogus`"),
    ({"seed.x": [1]}, r"seed.x: `seed` is a value"),
    ({"path..x": [1]}, r"not a dotted key"),
    ({"seed": [1, 2]}, r"--set seed: cannot be swept"),
    ({"path.rtt_ms": []}, r"--set path.rtt_ms: no values"),
    ({"path.rtt_ms": [10, 10]}, r"value 10 is given twice"),
])
def test_bad_keys_and_values_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        lossrec.sweep(TAIL, params)


def test_bad_arguments():
    with pytest.raises(ValueError, match="reps"):
        lossrec.sweep(TAIL, reps=0)
    with pytest.raises(ValueError, match="jobs"):
        lossrec.sweep(TAIL, jobs=0)
    with pytest.raises(ValueError, match=".csv or .parquet"):
        lossrec.sweep(TAIL, output="x.txt")
    with pytest.raises(TypeError, match="must be a bool, int, float or str"):
        lossrec.sweep(TAIL, {"path.rtt_ms": [object()]})
    with pytest.raises(ValueError, match="no such file"):
        lossrec.sweep(TAIL.with_name("missing.toml"))


def test_parse_set_and_values():
    assert sweeps.parse_set("path.rtt_ms=10,20.5") == ("path.rtt_ms", [10, 20.5])
    assert sweeps.parse_set("sender.preset=rfc, linux-classic") == ("sender.preset", ["rfc", "linux-classic"])
    assert sweeps.parse_set('a.b=true,"10",1e-3') == ("a.b", [True, "10", 0.001])
    for bad in ("path.rtt_ms", "=1", "a=", "a=1,,2"):
        with pytest.raises(ValueError, match="expected KEY=V1,V2"):
            sweeps.parse_set(bad)


def test_chunks_cover_every_scenario_once():
    for points, reps, size in [(3, 5, 4), (1, 10, 3), (7, 1, 2), (4, 4, 100)]:
        seen = [(p, r) for ch in sweeps.cut_chunks(points, reps, size) for p, a, b in ch for r in range(a, b)]
        assert seen == [(p, r) for p in range(points) for r in range(reps)]
        assert all(sum(b - a for _, a, b in ch) <= size for ch in sweeps.cut_chunks(points, reps, size))


# ------------------------------------------------------------------------------ resume


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


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_resume_after_interruption(tmp_path, monkeypatch, suffix):
    p = {"path.rtt_ms": [10, 30], "path.loss.p": [0.02, 0.1]}
    fresh = tmp_path / f"fresh{suffix}"
    lossrec.sweep(RANDOM, p, reps=10, output=fresh, chunk_size=6)
    out = tmp_path / f"out{suffix}"
    _interrupt_after(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        lossrec.sweep(RANDOM, p, reps=10, output=out, chunk_size=6)
    part = partial_dir(out)
    assert not out.exists()
    assert sorted(f.name for f in part.glob("chunk-*.npz")) == [f"chunk-{i:06d}.npz" for i in range(3)]
    monkeypatch.undo()
    calls = _interrupt_after(monkeypatch, 10**9)
    df = lossrec.sweep(RANDOM, p, reps=10, output=out, chunk_size=6)
    assert df.attrs["sweep"]["resumed_chunks"] == 3
    assert calls["n"] == df.attrs["sweep"]["chunks"] - 3  # only the missing chunks ran
    assert not part.exists()
    assert out.read_bytes() == fresh.read_bytes()


def test_other_sweep_partial_results_are_refused(tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    _interrupt_after(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        lossrec.sweep(RANDOM, {"path.rtt_ms": [10, 20]}, reps=5, output=out, chunk_size=2)
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"partial results of a different sweep.*--force"):
        lossrec.sweep(RANDOM, {"path.rtt_ms": [10, 30]}, reps=5, output=out, chunk_size=2)
    df = lossrec.sweep(RANDOM, {"path.rtt_ms": [10, 30]}, reps=5, output=out, chunk_size=2, force=True)
    assert df.attrs["sweep"]["resumed_chunks"] == 0 and out.exists()


def test_corrupt_chunk_is_redone(tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    _interrupt_after(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        lossrec.sweep(RANDOM, reps=6, output=out, chunk_size=2)
    monkeypatch.undo()
    (partial_dir(out) / "chunk-000001.npz").write_bytes(b"garbage")
    df = lossrec.sweep(RANDOM, reps=6, output=out, chunk_size=2)
    assert df.attrs["sweep"]["resumed_chunks"] == 1
    pd.testing.assert_frame_equal(df, lossrec.sweep(RANDOM, reps=6))


# ---------------------------------------------------------------------------- progress


def test_progress_callback_and_bar(capsys):
    seen = []
    lossrec.sweep(TAIL, PARAMS, reps=40, chunk_size=50, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (240, 240) and len(seen) == 5
    assert all(a[0] < b[0] for a, b in zip(seen, seen[1:]))
    lossrec.sweep(TAIL, PARAMS, reps=40, chunk_size=50, progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "240/240" in err and "scenario" in err


# --------------------------------------------------------------------------------- CLI


def test_cli_sweep_writes_output(cli, tmp_path):
    out = tmp_path / "r.csv"
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10,40", "--set", "sender.preset=rfc,linux-classic",
            "--reps", "3", "-o", str(out))
    assert r.code == 0, r.stderr
    assert "wrote" in r.stderr and "12 rows" in r.stderr
    df = pd.read_csv(out)
    assert list(df.columns) == COLUMNS and len(df) == 12
    api = lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40], "sender.preset": ["rfc", "linux-classic"]}, reps=3)
    assert list(df["seed"]) == list(api["seed"]) and np.allclose(df["fct_ms"], api["fct_ms"])


def test_cli_sweep_summary_and_quiet(cli):
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10,40", "--reps", "2", "-q")
    assert r.code == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["path.rtt_ms", "flows"]
    assert "1,112.2" in r.stdout


def test_cli_sweep_errors(cli):
    r = cli("sweep", str(TAIL), "--set", "path.rtt_m=10")
    assert r.code == 2 and "lossrec: error:" in r.stderr and "path.rtt_m" in r.stderr
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10,abc")
    assert r.code == 2 and 'path.rtt_ms="abc"' in r.stderr
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10", "--set", "path.rtt_ms=20")
    assert r.code == 2 and "given twice" in r.stderr
    r = cli("sweep", str(TAIL), "--reps", "0")
    assert r.code == 2


def test_cli_interrupt_says_how_to_resume(cli, tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    _interrupt_after(monkeypatch, 1)
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10,20,40", "--reps", "4", "--chunk-size", "3",
            "-o", str(out), "-q")
    assert r.code == 130
    assert "run the same command again to resume" in r.stderr and str(partial_dir(out)) in r.stderr
    monkeypatch.undo()
    r = cli("sweep", str(TAIL), "--set", "path.rtt_ms=10,20,40", "--reps", "4", "--chunk-size", "3",
            "-o", str(out))
    assert r.code == 0 and "1 chunk(s) resumed" in r.stderr
    assert len(pd.read_csv(out)) == 12 and not math.isnan(pd.read_csv(out)["fct_ms"].sum())


BULK = """
[path]
rtt_ms = 20
rate_mbps = 10
[path.loss]
model = "bernoulli"
p = 0.01
[workload]
kind = "bulk"
duration_s = 5
"""


def test_ctrl_c_in_a_real_process_then_resume(tmp_path):
    """SIGINT to `lossrec sweep -o` stops it promptly with exit 130, keeping the finished
    chunks; the same command then resumes and writes the same file as an uninterrupted run."""
    import signal
    import subprocess
    import sys
    import time

    scen = tmp_path / "bulk.toml"
    scen.write_text(BULK)
    out = tmp_path / "r.csv"
    args = [sys.executable, "-m", "lossrec", "sweep", str(scen), "--set", "path.rtt_ms=20,40",
            "--reps", "150", "--chunk-size", "10", "-j", "2", "-q", "-o", str(out)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    part = partial_dir(out)
    deadline = time.time() + 60
    while len(list(part.glob("chunk-*.npz"))) < 2 and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert p.poll() is None, "the sweep finished before it could be interrupted"
    before = len(list(part.glob("chunk-*.npz")))
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "run the same command again to resume" in err and not out.exists()
    saved = len(list(part.glob("chunk-*.npz")))
    # Promptly: chunks run one at a time (both threads inside it), and each thread stops
    # after its current scenario, so at most the one chunk in flight at the signal is
    # finished after it. Counted in chunks, not seconds: a wall-clock bound (it was < 5 s)
    # depends on the machine's load.
    assert 2 <= before <= saved <= before + 1 and saved < 30, (before, saved)
    r = subprocess.run(args[:-1] + [str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not part.exists()
    fresh = tmp_path / "fresh.csv"
    lossrec.sweep(scen, {"path.rtt_ms": [20, 40]}, reps=150, output=fresh, chunk_size=10)
    assert out.read_bytes() == fresh.read_bytes()
