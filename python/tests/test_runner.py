"""One runner for every kind of sweep (issue 28 item 13): the columns, the details and the
traced runs all go through lossrec.lab.runner — the same points and seeds, local threads or
Dask (test_dask.py), and resume from kept chunks after an interruption."""

from __future__ import annotations

import pandas as pd
import pytest

import lossrec
from lossrec import _core
from lossrec.lab import detailed_sweep, details, tail

RANDOM = """
seed = 5
[path]
rtt_ms = 20
[path.loss]
model = "bernoulli"
p = 0.05
[workload]
flows = 2
segments = 30
"""
PARAMS = {"path.rtt_ms": [10, 40], "sender.preset": ["rfc", "linux-classic"]}


def test_recovery_schema_comes_from_rust():
    # Not a hand copy: the names and order are the simulator's Recovery, as --json writes it.
    names = [n for n, _ in _core.recovery_fields()]
    assert details.RECOVERY_FIELDS == tuple(names)
    r = lossrec.run({"seed": 1, "path": {"loss": {"model": "bernoulli", "p": 0.1}},
                     "workload": {"segments": 200}})
    recs = r.json["recoveries"]
    assert recs and all(list(x) == names for x in recs)
    kinds = dict(_core.recovery_fields())
    assert kinds["kind"] == "str" and kinds["backoffs"] == "int" and kinds["end_ms"] == "float"


def test_the_kinds_share_points_and_seeds():
    cols = lossrec.sweep(RANDOM, PARAMS, reps=3)
    flows, _ = detailed_sweep(RANDOM, PARAMS, reps=3, jobs=2)
    traced = tail.traced_sweep(RANDOM, PARAMS, reps=3, jobs=2)
    for c in ("path.rtt_ms", "rep", "seed", "fct_ms", "retransmits"):
        assert list(flows[c]) == list(cols[c]), c
    runs = cols.drop_duplicates(["path.rtt_ms", "sender.preset", "rep"])
    assert list(traced["seed"]) == list(runs["seed"])
    # Chunking and threads do not change a row.
    one, _ = detailed_sweep(RANDOM, PARAMS, reps=3, jobs=1)
    pd.testing.assert_frame_equal(one, flows)


def _interrupt(monkeypatch, module, name, after):
    """Makes ``module.name`` raise KeyboardInterrupt on its call number ``after`` + 1."""
    real = getattr(module, name)
    calls = {"n": 0}

    def flaky(*a, **kw):
        if calls["n"] == after:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(*a, **kw)

    monkeypatch.setattr(module, name, flaky)
    return calls


def test_detailed_sweep_resumes_from_kept_chunks(tmp_path, monkeypatch):
    fresh = detailed_sweep(RANDOM, PARAMS, reps=4, jobs=1)
    keep = tmp_path / "details"
    _interrupt(monkeypatch, details, "run_detailed", 2)
    with pytest.raises(KeyboardInterrupt):
        detailed_sweep(RANDOM, PARAMS, reps=4, jobs=1, keep=keep)
    assert len(list((tmp_path / "details.partial").glob("chunk-*.npz"))) == 2
    monkeypatch.undo()
    calls = _interrupt(monkeypatch, details, "run_detailed", 99)
    again = detailed_sweep(RANDOM, PARAMS, reps=4, jobs=1, keep=keep)
    assert calls["n"] == 4 - 2, "only the chunks not kept ran"
    pd.testing.assert_frame_equal(again[0], fresh[0])
    pd.testing.assert_frame_equal(again[1], fresh[1])
    assert not (tmp_path / "details.partial").exists()


def test_traced_sweep_resumes_from_kept_chunks(tmp_path, monkeypatch):
    fresh = tail.traced_sweep(RANDOM, PARAMS, reps=4, jobs=1)
    keep = tmp_path / "traced"
    _interrupt(monkeypatch, tail, "run_traced", 1)
    with pytest.raises(KeyboardInterrupt):
        tail.traced_sweep(RANDOM, PARAMS, reps=4, jobs=1, keep=keep)
    monkeypatch.undo()
    calls = _interrupt(monkeypatch, tail, "run_traced", 99)
    again = tail.traced_sweep(RANDOM, PARAMS, reps=4, jobs=1, keep=keep)
    assert calls["n"] == 4 - 1
    pd.testing.assert_frame_equal(again, fresh)
