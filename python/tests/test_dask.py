"""lossrec sweep on a real Dask cluster: a scheduler and two worker processes on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lossrec

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
TAIL = ROOT / "experiments" / "examples" / "tail-loss.toml"
RANDOM = """
seed = 3
[path]
rtt_ms = 20
[path.loss]
model = "bernoulli"
p = 0.05
[workload]
flows = 2
segments = 20
"""
PARAMS = {"path.rtt_ms": [10, 40], "path.loss.p": [0.01, 0.1], "sender.preset": ["rfc", "linux-classic"]}


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes on loopback, torn down after."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0",
                                  silence_logs=40) as c:
        with distributed.Client(c.scheduler_address) as client:
            client.wait_for_workers(2, timeout=60)
            info = client.scheduler_info()
            # real worker processes, each with its own pid, on loopback
            assert len(info["workers"]) == 2
            assert all(addr.startswith("tcp://127.0.0.1:") for addr in info["workers"])
        yield c.scheduler_address


def test_dask_result_is_identical_to_local(cluster, tmp_path):
    local = lossrec.sweep(RANDOM, PARAMS, reps=15, jobs=2)
    remote = lossrec.sweep(RANDOM, PARAMS, reps=15, dask=cluster, chunk_size=9)
    assert remote.attrs["sweep"]["chunks"] == 14
    pd.testing.assert_frame_equal(local, remote)
    assert local["retransmits"].sum() > 0


def test_dask_with_output_and_resume(cluster, tmp_path):
    out = tmp_path / "d.parquet"
    df = lossrec.sweep(RANDOM, PARAMS, reps=5, dask=cluster, output=out, chunk_size=4)
    pd.testing.assert_frame_equal(df, pd.read_parquet(out))
    pd.testing.assert_frame_equal(df, lossrec.sweep(RANDOM, PARAMS, reps=5))


def test_dask_client_object(cluster):
    with distributed.Client(cluster) as client:
        df = lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40]}, reps=3, dask=client)
        assert client.status == "running"  # the caller's client is left open
    pd.testing.assert_frame_equal(df, lossrec.sweep(TAIL, {"path.rtt_ms": [10, 40]}, reps=3))


def test_cli_dask_matches_local(cluster, cli, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    args = ["sweep", str(TAIL), "--set", "path.rtt_ms=10,40,160", "--set", "sender.preset=rfc,linux-classic",
            "--reps", "4", "-q"]
    r = cli(*args, "--dask", cluster, "-o", str(a))
    assert r.code == 0, r.stderr
    r = cli(*args, "--jobs", "1", "-o", str(b))
    assert r.code == 0, r.stderr
    assert a.read_bytes() == b.read_bytes()


def test_bad_dask_address(cli):
    r = cli("sweep", str(TAIL), "--dask", "   ")
    assert r.code == 2 and "scheduler address" in r.stderr


def test_dask_streams_partitions(cluster, tmp_path):
    out = tmp_path / "ds"
    a = lossrec.sweep(RANDOM, PARAMS, reps=6, dask=cluster, output=out, chunk_size=5).attrs["sweep"]
    assert a["partitions"] == 10 and a["rows"] == 8 * 6 * 2
    assert len(list(out.glob("part-*.parquet"))) == 10
    pd.testing.assert_frame_equal(pd.read_parquet(out), lossrec.sweep(RANDOM, PARAMS, reps=6))


def test_every_kind_of_run_goes_through_dask(cluster):
    """Issue 28 item 13: one runner — the detailed and the traced sweeps run on the
    cluster too, with the rows a local run gives."""
    from lossrec.lab import detailed_sweep, tail

    p = {"path.rtt_ms": [10, 40], "sender.preset": ["rfc", "linux-classic"]}
    lf, lr = detailed_sweep(RANDOM, p, reps=3, jobs=1)
    df, dr = detailed_sweep(RANDOM, p, reps=3, dask=cluster)
    pd.testing.assert_frame_equal(lf, df, check_like=False)
    pd.testing.assert_frame_equal(lr, dr)
    assert len(lr) > 0
    local = tail.traced_sweep(RANDOM, p, reps=3, jobs=1)
    remote = tail.traced_sweep(RANDOM, p, reps=3, dask=cluster)
    pd.testing.assert_frame_equal(local, remote)
