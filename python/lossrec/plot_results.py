"""Plots of a sweep's results: a CDF of one metric per group, or the per-group summary
(mean with its confidence interval, p50, p95, p99; :func:`lossrec.summarize`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Sequence

if TYPE_CHECKING:
    import pandas as pd


def read_results(paths: Sequence[str]) -> "pd.DataFrame":
    """One DataFrame from sweep result files (CSV or Parquet; ``-``: CSV on stdin)."""
    import sys

    import pandas as pd

    frames = []
    for p in paths:
        if p == "-":
            frames.append(pd.read_csv(sys.stdin))
        elif p.lower().endswith(".parquet"):
            frames.append(pd.read_parquet(p))
        else:
            frames.append(pd.read_csv(p))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


#: A CDF's x axis is logarithmic by default when its positive values span this ratio
#: (about one and a half decades): FCTs of one RTT and of an RTO (seconds) both readable.
LOG_SPAN = 30.0


def log_scale(values: Any, scale: str = "auto") -> bool:
    """Whether to draw ``values`` on a log axis: ``"log"``, ``"linear"``, or ``"auto"``
    (every value positive and max/min ≥ :data:`LOG_SPAN`)."""
    import numpy as np

    if scale not in ("auto", "log", "linear"):
        raise ValueError(f"scale {scale!r}: expected auto, log or linear")
    if scale != "auto":
        return scale == "log"
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    return bool(len(x)) and bool((x > 0).all()) and float(x.max()) >= LOG_SPAN * float(x.min())


def plot_results(df: "pd.DataFrame", path: "str | os.PathLike[str]", metric: str = "fct_ms",
                 by: Sequence[str] = (), kind: str = "cdf", title: str = "",
                 xscale: str = "auto") -> Path:
    """Writes a CDF (``kind="cdf"``) or summary (``"summary"``) plot of ``metric``.

    ``xscale`` is the CDF's x axis: ``"log"``, ``"linear"`` or ``"auto"`` (log when
    the values span about 1.5 decades, :func:`log_scale`). List-valued group columns are
    grouped by their text (``[2, 3]``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from .plot import check_output
    from .summary import hashable_keys, summarize
    from .suggest import did_you_mean

    check_output(path)
    for c in [metric, *by]:
        if c not in df.columns:
            raise ValueError(f"no column {c!r}{did_you_mean(c, map(str, df.columns))}")
    keys: List[str] = list(by)
    df = hashable_keys(df, keys)
    groups: Any = df.groupby(keys, sort=False, observed=True) if keys else [("all", df)]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        if kind == "cdf":
            for k, d in groups:
                x = np.sort(d[metric].dropna().to_numpy(dtype=float))
                if len(x):
                    y = np.arange(1, len(x) + 1) / len(x)
                    ax.step(x, y, where="post", label=_label(keys, k, len(x), len(d)))
            if log_scale(pd.to_numeric(df[metric], errors="coerce").dropna(), xscale):
                ax.set_xscale("log")
            ax.set_xlabel(metric + (" (log scale)" if ax.get_xscale() == "log" else ""))
            ax.set_ylabel("fraction of flows ≤ x")
            ax.set_ylim(0, 1.01)
        else:
            s = summarize(df, keys, [metric])
            labels = [_label(keys, tuple(r[k] for k in keys) if keys else "all", r["n"], None)
                      for _, r in s.iterrows()]
            xs = np.arange(len(s))
            ax.errorbar(xs, s["mean"], yerr=[s["mean"] - s["ci_low"], s["ci_high"] - s["mean"]],
                        fmt="o", capsize=4, label=f"mean, {s.attrs['confidence']:.0%} CI")
            for q, m in (("p50", "_"), ("p95", "v"), ("p99", "^")):
                ax.plot(xs, s[q], m, label=q)
            ax.set_xticks(xs, labels, rotation=20, ha="right", fontsize=8)
            ax.set_ylabel(metric)
        ax.grid(True, alpha=0.3, which="both" if ax.get_xscale() == "log" else "major")
        ax.legend(fontsize=8)
        if title:
            ax.set_title(title, fontsize=10)
        fig.tight_layout()
        from .plot import _save

        return _save(fig, path)
    finally:
        plt.close(fig)


def _label(keys: Sequence[str], k: Any, n: int, total: Any) -> str:
    kv = k if isinstance(k, tuple) else (k,)
    name = ", ".join(f"{a}={b}" for a, b in zip(keys, kv)) if keys else str(kv[0])
    missing = f", {total - n} unfinished" if total is not None and total != n else ""
    return f"{name} (n={n}{missing})"
