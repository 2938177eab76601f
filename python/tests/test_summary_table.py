"""Sweep summaries (intervals over repetitions, list-valued keys), per-column tables,
scenario warnings, --version and lazy imports (issue 28)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec import summary as summary_mod
from lossrec.summary import summarize, t_quantile
from lossrec.table import render

EXAMPLES = Path(__file__).resolve().parents[2] / "experiments" / "examples"


def _concurrent(reps: int, flows: int, shift=lambda rep: 0.0) -> pd.DataFrame:
    """``reps`` repetitions of ``flows`` concurrent flows whose FCTs spread widely within
    a run; ``shift(rep)`` moves one repetition's flows together."""
    rows = [{"rep": r, "id": i, "fct_ms": 900.0 + 17.6 * i + shift(r), "retransmits": 1, "rtos": 0}
            for r in range(reps) for i in range(flows)]
    return pd.DataFrame(rows)


def test_t_quantile_is_scipys():
    from scipy.stats import t

    for dof in (1, 2, 3, 4, 7, 30, 200):
        assert t_quantile(0.975, dof) == pytest.approx(float(t.ppf(0.975, dof)), rel=1e-12)
    assert math.isnan(t_quantile(0.975, 0))


def test_interval_is_over_repetitions_not_flows():
    # 20 concurrent flows × 10 reps of a deterministic scenario: every repetition's mean
    # is the same, so the interval has zero width and says why.
    df = _concurrent(10, 20)
    row = summarize(df, None, ["fct_ms"]).iloc[0]
    assert row["n"] == 200 and row["reps"] == 10
    assert row["ci_low"] == pytest.approx(row["mean"]) and row["ci_high"] == pytest.approx(row["mean"])
    assert row["ci_note"] == "reps identical"
    # Repetitions that differ: a t interval (9 dof) over the 10 repetition means.
    df = _concurrent(10, 20, shift=lambda r: 10.0 * r)
    row = summarize(df, None, ["fct_ms"]).iloc[0]
    means = df.groupby("rep")["fct_ms"].mean()
    half = t_quantile(0.975, 9) * means.std(ddof=1) / math.sqrt(10)
    assert row["ci_high"] == pytest.approx(means.mean() + half)
    assert row["ci_low"] == pytest.approx(means.mean() - half)
    assert row["ci_note"] == ""
    # Without a rep column every value is a sample, as before.
    row = summarize(df.drop(columns="rep"), None, ["fct_ms"]).iloc[0]
    assert row["reps"] == 200


def test_sweep_table_prints_the_interval_over_reps_and_says_when_identical():
    text = summary_mod.sweep_table(_concurrent(10, 20), [])
    assert "CI over reps" in text
    mean = 900.0 + 17.6 * 19 / 2
    assert f"[{mean:.4g}, {mean:.4g}] (reps identical)" in text, text


def test_list_valued_keys_are_summarised():
    df = pd.DataFrame({"path.loss.packets": [[2, 3], [2, 3], [4], [4]], "rep": [0, 1, 0, 1],
                       "fct_ms": [1.0, 2.0, 3.0, 4.0], "retransmits": 0, "rtos": 0})
    s = summarize(df, "path.loss.packets", ["fct_ms"])
    assert list(s["path.loss.packets"]) == ["[2, 3]", "[4]"]
    assert list(s["mean"]) == [1.5, 3.5]
    assert "[2, 3]" in summary_mod.sweep_table(df, ["path.loss.packets"])


def test_cli_sweep_over_a_list_valued_key(cli):
    r = cli("sweep", str(EXAMPLES / "drop-list.toml"), "--set", "path.loss.packets=[2,3],[4]", "-q")
    assert r.code == 0, r.stderr
    assert "[2, 3]" in r.stdout and "[4]" in r.stdout


def test_tables_format_per_column():
    text = render(["flow", "bytes", "fct_ms"], [[0, 10799, 1067.25], [1, 9664, 5.0], [2, None, 12.5]])
    lines = text.splitlines()
    assert lines[0].split() == ["flow", "bytes", "fct_ms"]
    assert "9,664" in lines[3] and "10,799" in lines[2]
    # One number of decimals and separators for the column (not 1,067.2 above 5).
    assert lines[2].endswith(" 1,067.2") and lines[3].endswith(" 5.0") and lines[4].endswith("12.5")
    assert lines[4].split()[1] == "-"
    # Right-aligned numbers.
    assert len({len(line) for line in lines[2:4]}) == 1
    assert render(["a"], [[True], [False]]).splitlines()[2:] == ["yes", "no"]


def test_implausible_units_and_empty_scenarios_warn(tmp_path):
    from lossrec.scenario import ScenarioWarning, load

    f = tmp_path / "s.toml"
    f.write_text("seed = 1\n[path]\nrate_mbps = 10\nrtt_ms = 0.04\n")
    with pytest.warns(ScenarioWarning, match=r"path.rtt_ms = 0.04: under 1 ms") as w:
        load(str(f))
    assert w[0].filename == str(f) and w[0].lineno == 4
    g = tmp_path / "bits.toml"
    g.write_text("[path]\nrate_mbps = 10000000\nrtt_ms = 40\n")
    with pytest.warns(ScenarioWarning, match="Mb/s"):
        load(str(g))
    e = tmp_path / "empty.toml"
    e.write_text("# nothing yet\n")
    with pytest.warns(ScenarioWarning, match="empty"):
        load(str(e))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(str(EXAMPLES / "tail-loss.toml"))
        load(str(EXAMPLES / "delay-spikes.toml"))


def test_cli_run_names_the_file_and_line_of_a_warning(tmp_path, cli_proc):
    f = tmp_path / "s.toml"
    f.write_text("[path]\nrate_mbps = 10\nrtt_ms = 0.04\n[workload]\nkind = \"flows\"\nsegments = 3\n")
    r = cli_proc("run", str(f))
    assert r.code == 0, r.stderr
    assert f"{f}:3: ScenarioWarning: path.rtt_ms = 0.04" in r.stderr, r.stderr


def test_version_names_the_commit(cli):
    r = cli("--version")
    assert r.code == 0 and lossrec.__version__ in r.stdout
    m = re.search(r"\(commit ([0-9a-f]{12}(?:-dirty)?|unknown)\)", r.stdout)
    assert m, r.stdout
    built = dict(lossrec._core.build_info())["commit"]
    if built != "unknown":
        assert built.startswith(m.group(1).replace("-dirty", ""))


def test_run_without_plot_does_not_import_matplotlib(tmp_path):
    code = ("import sys; from lossrec.cli import main\n"
            f"try: main(['run', {str(EXAMPLES / 'tail-loss.toml')!r}])\nexcept SystemExit as e: assert not e.code\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n"
            "try: main(['run', '--flows', '0', '--window', '0:1'])\nexcept SystemExit as e: assert not e.code\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported by --flows/--window'\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path, timeout=300)
