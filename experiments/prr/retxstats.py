"""prr: seed 003's "Retransmission Statistics" and "Fast Recovery Statistics" tables,
measured on the baseline arm (`linux-rh`, the seed's Linux of 2011) of the short-web
workload (DC1: short flows) and the video workload (DC2: YouTube's long flows).

The seed's rows and how we count them, from the flow results' counters (totals over every
response, RTT and repetition of the baseline arm):

* shares of all retransmissions (`retransmits`, Linux `RetransSegs`): fast retransmits
  (`fast_retransmits`, sent in fast recovery), timeout retransmits (one per timeout,
  `rtos`) split by the state the timer fired in (`rtos_in_open`, `_disorder`,
  `_recovery`, and `_loss`: a further timeout, i.e. exponential backoff), slow-start
  retransmits (`slow_start_retransmits`, after a timeout). "Failed retransmits" (the
  connection aborted without ACKs) cannot be measured: our connections never give up.
* per fast recovery (`fast_recoveries`): fast retransmits, DSACKs (`dsacks`) and lost fast
  retransmits (`lost_fast_retransmits`); per retransmission: DSACKs and lost
  retransmissions (`lost_retransmits`). Lost retransmissions are the path's ground truth,
  where the seed's Linux counted those its heuristics noticed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

from lossrec.lab import Verdict, style

ARM = "linux-rh"
#: our workload → the seed's data centre
DCS = {"web": "DC1", "video": "DC2"}
#: row → (the seed's DC1, DC2 values in %, or a plain ratio for the first FR row)
RETX_ROWS: Dict[str, Tuple[float, float]] = {
    "Fast retransmits": (24, 54), "Timeout retransmits": (43, 17),
    "Timeout in Open": (30, 8), "Timeout in Disorder": (2, 3), "Timeout in Recovery": (1, 2),
    "Timeout Exp. Backoff": (10, 4), "Slow start retransmits": (17, 29),
    "Failed retransmits": (15, 0)}
FR_ROWS: Dict[str, Tuple[float, float]] = {
    "Fast retransmits/FR": (3.15, 2.93), "DSACKs/FR": (12, 4), "DSACKs/retransmit": (3.8, 1.4),
    "Lost (fast) retransmits/FR": (6, 9), "Lost retransmits/retransmit": (1.9, 3.1)}
#: rows we cannot measure, with why
UNMEASURED = {"Failed retransmits": "our connections never abort: no failed retransmits"}


def _ratio(a: float, b: float, scale: float = 100.0) -> float:
    return a / b * scale if b else float("nan")


def measure(totals: Dict[str, float]) -> Dict[str, float]:
    """The seed's rows from one workload's counter totals (percent, or a ratio)."""
    r, fr = totals.get("retransmits", 0.0), totals.get("fast_recoveries", 0.0)
    return {
        "Fast retransmits": _ratio(totals.get("fast_retransmits", 0.0), r),
        "Timeout retransmits": _ratio(totals.get("rtos", 0.0), r),
        "Timeout in Open": _ratio(totals.get("rtos_in_open", 0.0), r),
        "Timeout in Disorder": _ratio(totals.get("rtos_in_disorder", 0.0), r),
        "Timeout in Recovery": _ratio(totals.get("rtos_in_recovery", 0.0), r),
        "Timeout Exp. Backoff": _ratio(totals.get("rtos_in_loss", 0.0), r),
        "Slow start retransmits": _ratio(totals.get("slow_start_retransmits", 0.0), r),
        "Failed retransmits": float("nan"),
        "Fast retransmits/FR": _ratio(totals.get("fast_retransmits", 0.0), fr, 1.0),
        "DSACKs/FR": _ratio(totals.get("dsacks", 0.0), fr),
        "DSACKs/retransmit": _ratio(totals.get("dsacks", 0.0), r),
        "Lost (fast) retransmits/FR": _ratio(totals.get("lost_fast_retransmits", 0.0), fr),
        "Lost retransmits/retransmit": _ratio(totals.get("lost_retransmits", 0.0), r),
    }


def near(ours: float, seed: float, factor: float, abs_pp: float) -> bool:
    """Within a factor of the seed's value, or within abs_pp of it (its 1-3 % cells)."""
    if not np.isfinite(ours):
        return False
    return seed / factor <= ours <= seed * factor or abs(ours - seed) <= abs_pp


COUNTERS = ["retransmits", "fast_recoveries", "fast_retransmits", "rtos", "rtos_in_open",
            "rtos_in_disorder", "rtos_in_recovery", "rtos_in_loss", "slow_start_retransmits",
            "dsacks", "lost_fast_retransmits", "lost_retransmits"]


def table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per seed row: the seed's DC1/DC2, ours on web/video (baseline arm)."""
    ours = {}
    for wl in DCS:
        d = df[(df.get("workload") == wl) & (df["arm"] == ARM)] if "workload" in df else df.iloc[0:0]
        ours[wl] = measure({c: float(d[c].sum()) for c in COUNTERS if c in d})
    rows = [{"row": k, "seed_dc1": v[0], "ours_web": ours["web"][k], "seed_dc2": v[1],
             "ours_video": ours["video"][k]} for k, v in {**RETX_ROWS, **FR_ROWS}.items()]
    return pd.DataFrame(rows).set_index("row")


def figure(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    t = table(df)
    from . import figures  # at call time: figures imports this module

    fig, axes = figures._grid(1, 2, (10.4, 4.2))
    axes = np.ravel(axes)
    for ax, rows, unit in ((axes[0], list(RETX_ROWS), "% of retransmissions"),
                           (axes[1], list(FR_ROWS), "% (first row: a ratio)")):
        y = np.arange(len(rows))
        cols = [("seed_dc1", "seed DC1", 1, "//"), ("ours_web", "ours, web", 0, None),
                ("seed_dc2", "seed DC2", 3, "//"), ("ours_video", "ours, video", 2, None)]
        for i, (c, label, k, hatch) in enumerate(cols):
            ax.barh(y + (i - 1.5) * 0.2, t.loc[rows, c].fillna(0), 0.2, label=label,
                    color=style.arm_style(k)["color"], hatch=hatch)
        ax.set_yticks(y)
        ax.set_yticklabels(rows, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(unit)
    axes[0].set_title("Retransmission statistics", fontsize=9)
    axes[1].set_title("Fast recovery statistics", fontsize=9)
    style.legend(axes[1], loc="lower right", fontsize=7)
    return fig, ("Seed 003's two statistics tables (DC1 short flows, DC2 YouTube) beside the "
                 "baseline arm (linux-rh) on our short-web and video workloads; failed "
                 "retransmits cannot occur in our simulator (shown as 0)")


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]]) -> List[Verdict]:
    t = table(df)
    out = []
    w, v = t["ours_web"], t["ours_video"]  # retx_stats_dc_contrast has no parameters
    timeouts = ["Timeout in Open", "Timeout in Disorder", "Timeout in Recovery", "Timeout Exp. Backoff"]

    def top(col: str) -> str:
        v = t.loc[timeouts, col]
        return str(v.idxmax()) if v.fillna(0).max() > 0 else "none (no timeouts)"

    open_top = all(top(col) == "Timeout in Open" for col in ("ours_web", "ours_video"))
    ok = (w["Timeout retransmits"] > w["Fast retransmits"]
          and v["Fast retransmits"] > v["Timeout retransmits"] and open_top)
    out.append(Verdict.judge(
        "retx_stats_dc_contrast", bool(ok),
        f"web: timeout {w['Timeout retransmits']:.0f} % vs fast {w['Fast retransmits']:.0f} %; "
        f"video: fast {v['Fast retransmits']:.0f} % vs timeout {v['Timeout retransmits']:.0f} %; "
        f"largest timeout state: web {top('ours_web')}, video {top('ours_video')}",
        "short responses end before enough duplicate ACKs return, so their losses wait for "
        "the timer; long flows have data behind each loss"))

    for cid, rows in (("retx_stats_table", RETX_ROWS), ("fr_stats_table", FR_ROWS)):
        c = published[cid]
        misses, n = [], 0
        for row in rows:
            if row in UNMEASURED:
                continue
            for col, scol, dc in (("ours_web", "seed_dc1", "DC1"), ("ours_video", "seed_dc2", "DC2")):
                f = c["ratio_factor"] if row == "Fast retransmits/FR" else c["factor"]
                n += 1
                if not near(t.loc[row, col], t.loc[row, scol], f, c["abs_pp"]):
                    misses.append(f"{row} {dc} {t.loc[row, col]:.2f} (seed {t.loc[row, scol]:g})")
        ours = (f"{n - len(misses)} of {n} cells within the rule"
                + (f"; outside: {'; '.join(misses)}" if misses else ""))
        if cid == "retx_stats_table":
            ours += "; not measured: failed retransmits (" + UNMEASURED["Failed retransmits"] + ")"
        out.append(Verdict.judge(
            cid, not misses, ours,
            "the tables fingerprint the seed's traffic (Google's 2011 clients) as much as "
            "Linux's recovery; our workloads are synthetic, built from the seed's averages"))
    return out
