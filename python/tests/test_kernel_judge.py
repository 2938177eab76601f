"""How the kernel study judges a live point (experiments/kernel/study.py): against the
kernel's own spread over its runs, and rerun before it is reported as not holding — never
a fixed tolerance that a busy machine breaks (issue 28: "burst does not hold, 443 vs 491
ms" in a loaded full run; it held alone). Pure: the rows are made up, no wire runs."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from lossrec.lab.studies import sibling

STUDY = Path(__file__).resolve().parents[2] / "experiments" / "kernel" / "study.py"


def study():
    return sibling(str(STUDY), "study")


def rows(case: str, kernel: List[float], engine: List[float], rtos_e: int = 0) -> pd.DataFrame:
    out = []
    for side, fcts in (("kernel", kernel), ("engine", engine), ("sim", [engine[0]] * len(engine))):
        for rep, fct in enumerate(fcts):
            out.append({"case": case, "path.rtt_ms": 80, "rep": rep, "side": side, "fct_ms": fct,
                        "tlp_probes": 0, "rtos": rtos_e if side == "engine" else 0,
                        "fast_recoveries": 1, "retransmits": 3})
    return pd.DataFrame(out)


def test_a_kernel_slowed_by_load_widens_its_own_band():
    # The numbers: the engine's 443 ms against a kernel median of 491 ms. With a
    # fixed 5 % (24.6 ms) it did not hold; the kernel's runs themselves spread over 60 ms,
    # so 443 ms is within what the kernel does on this machine.
    p = study().points(rows("burst", [470, 491, 530], [443, 443, 445]))
    (r,) = p.itertuples()
    assert r.holds, r.why
    assert (r.low_ms, r.high_ms) == (440.0, 560.0)


def test_a_steady_kernel_keeps_a_narrow_band():
    # Runs within 2 ms of each other: the slack is 5 % of the median, and 443 ms is out.
    p = study().points(rows("burst", [490, 491, 492], [443, 443, 445]))
    (r,) = p.itertuples()
    assert not r.holds
    assert "outside the kernel's band" in r.why and "465.4-516.5" in r.why, r.why


def test_a_failing_point_is_rerun_and_judged_on_all_its_runs():
    calls = []

    def calm(g: pd.DataFrame) -> pd.DataFrame:
        calls.append(len(g))
        return rows("burst", [444, 446, 448], [443, 443, 445])

    # Every kernel run stalled in the first round (a steady 12 % slower): rerun once.
    df = study().prepare(rows("burst", [500, 501, 503], [443, 443, 445]), run=calm)
    assert calls == [9]
    assert sorted(df.rerun.unique()) == [0, 1]
    (r,) = study().points(df).itertuples()
    assert r.holds and (r.runs, r.reruns) == (6, 1), r


def test_a_real_difference_stays_after_its_reruns():
    calls = []

    def same(g: pd.DataFrame) -> pd.DataFrame:
        calls.append(1)
        return rows("burst", [443, 444, 445], [443, 443, 445], rtos_e=1)

    # The engine fires an RTO the kernel does not: no rerun makes that hold.
    df = study().prepare(rows("burst", [443, 444, 445], [443, 443, 445], rtos_e=1), run=same)
    assert len(calls) == study().RERUNS == 2
    (r,) = study().points(df).itertuples()
    assert not r.holds and r.reruns == 2 and "timers differ" in r.why, r


def test_points_that_hold_are_not_rerun():
    def never(g: pd.DataFrame) -> pd.DataFrame:
        raise AssertionError("rerun of a point that holds")

    df = rows("burst", [443, 444, 445], [443, 443, 445])
    assert study().prepare(df, run=never).rerun.eq(0).all()
