"""A run's flows reach Python as columns (issue 29 item 3): ``Result.flows``, the CLI's
table and its ``--json`` text come from buffers and the simulator's own text, and are
the same as what the per-flow JSON gave."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pandas as pd
import pytest

import lossrec
from lossrec.cli.run import FLOW_COLUMNS, _flow_table
from lossrec.result import FLOW_FIELDS, Result
from lossrec.table import render, render_columns

MANY = """seed = 4
[path]
rtt_ms = 30
rate_mbps = 50
[path.loss]
model = "bernoulli"
p = 0.02
[sender]
preset = "linux"
[workload]
kind = "flows"
flows = 300
segments = 12
arrival = "concurrent"
"""


@pytest.fixture(scope="module")
def run():
    return lossrec.run(MANY)


def test_the_flows_frame_from_columns_is_the_frame_from_json(run):
    from_columns = run.flows
    from_json = Result(run._json_text).flows  # the same text, parsed per flow
    assert list(from_columns.columns) == list(FLOW_FIELDS)
    pd.testing.assert_frame_equal(from_columns, from_json, check_dtype=False)
    assert len(from_columns) == run.n_flows == 300
    assert from_columns["retransmits"].sum() > 0  # lossy: the counters are not all zero


def test_the_table_from_columns_is_the_table_from_rows(run):
    rows = [[f.get(k) for _, k in FLOW_COLUMNS] for f in run.json["flows"]]
    old = render([h for h, _ in FLOW_COLUMNS], rows, align_left=2)
    new = _flow_table(lossrec.run(MANY))  # a fresh run: its JSON never parsed
    assert new.split("\n\n", 1)[1] == old


def _table(rng: random.Random, n: int):
    ints = np.array([rng.choice([0, 7, 999, 1000, 123456]) * rng.randint(0, 3) for _ in range(n)], dtype=np.int64)
    small = np.array([rng.choice([0, 1, 42, 99]) for _ in range(n)], dtype=np.int64)
    scale = rng.choice([0.001, 0.5, 3.0, 150.0, 2500.0])
    floats = np.array([rng.choice([math.nan, 0.0, 1.0, rng.random() * scale, float(rng.randint(0, 9))])
                       for _ in range(n)])
    whole = np.array([float(rng.randint(0, 5000)) for _ in range(n)])
    names = np.array([rng.choice(["rfc", "linux", "rack-tlp"]) for _ in range(n)], dtype=object)
    return ["id", "preset", "bytes", "fct_ms", "n", "whole"], [np.arange(n), names, ints, floats, small, whole]


@pytest.mark.parametrize("seed", range(12))
def test_render_columns_is_render(seed):
    rng = random.Random(seed)
    headers, cols = _table(rng, rng.choice([0, 1, 5, 200]))
    rows = [[c[i].item() if hasattr(c[i], "item") else c[i] for c in cols] for i in range(len(cols[0]))]
    rows = [[None if isinstance(v, float) and math.isnan(v) and rng.random() < 0.5 else v for v in r]
            for r in rows]
    assert render_columns(headers, cols, align_left=2) == render(headers, rows, align_left=2)


def test_cli_json_is_the_object_indented_as_python_does(tmp_path, cli):
    sc = tmp_path / "s.toml"
    sc.write_text(MANY)
    r = cli("run", str(sc), "--json", "--trace", str(tmp_path / "t.jsonl.zst"))
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert list(obj) == ["seed", "flows", "recoveries", "sim", "provenance", "outputs"]
    assert len(obj["flows"]) == 300 and obj["outputs"]["trace"].endswith("t.jsonl.zst")
    assert obj["flows"] == lossrec.run(MANY).json["flows"]
    assert r.stdout.rstrip("\n") == json.dumps(obj, indent=2)


def test_the_cli_flows_bench_reports_both_outputs():
    # Its figures are CPU times of this machine's moment: only their shape is checked.
    from lossrec.lab.cli_overhead import cli_overhead

    r = cli_overhead(flows=50, rounds=1)
    for mode in ("table", "json"):
        assert set(r[mode]) == {"sim_cpu_s", "cli_cpu_s", "overhead_cpu_s", "overhead_pct_median"}
        assert r[mode]["sim_cpu_s"][0] >= 0 and len(r[mode]["cli_cpu_s"]) == 1
