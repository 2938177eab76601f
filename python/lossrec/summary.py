"""Summaries per group: n, mean with a confidence interval, p50, p95, p99.

The interval is Student's t interval on the mean, ``mean ± t(1-α/2, n-1) · s/√n``;
percentiles are pandas' linear interpolation. ``n`` counts the values present (an
unfinished flow's ``fct_ms`` is missing and is counted in ``missing`` instead).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Union

from .errors import ArgumentError

if TYPE_CHECKING:
    import pandas as pd

#: Metrics summarised by default (when present).
DEFAULT_METRICS = ("fct_ms", "retransmits", "rtos")


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, else Hill's (1970)
    expansion around the normal quantile (relative error below 1e-3 from df = 3)."""
    if df < 1:
        return math.nan
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    v = float(df)
    return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4


def _names(fn: str, param: str, v: Any) -> List[Any]:
    """A sequence of column names (None: none)."""
    from . import _args

    if v is None:
        return []
    if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
        raise _args.fail(fn, param, "a column name or a list of them", v)
    return list(v)


def summarize(
    df: "pd.DataFrame",
    by: Union[None, str, Sequence[str]] = None,
    metrics: Optional[Sequence[str]] = None,
    confidence: float = 0.95,
) -> "pd.DataFrame":
    """One row per (group, metric): ``n``, ``missing``, ``mean``, ``ci_low``, ``ci_high``,
    ``std``, ``p50``, ``p95``, ``p99``.

    ``by`` is a column or list of columns (default: none, one group); ``metrics`` the
    numeric columns to summarise (default: ``fct_ms``, ``retransmits``, ``rtos``).
    """
    import pandas as pd

    from . import _args
    from .suggest import did_you_mean

    fn = "summarize"
    if not isinstance(df, pd.DataFrame):
        raise _args.fail(fn, "df", "a pandas DataFrame", df)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) \
            or not 0 < confidence < 1:
        raise _args.fail(fn, "confidence", "a number in (0, 1)", confidence)
    keys = [by] if isinstance(by, str) else _names(fn, "by", by)
    for k in keys:
        if k not in df.columns:
            raise ArgumentError(fn, "by", f"{fn}(): by: no column {k!r}"
                                          f"{did_you_mean(k, map(str, df.columns))}")
    if isinstance(metrics, str):
        raise _args.fail(fn, "metrics", "a list of column names (not one string)", metrics)
    metrics = [m for m in DEFAULT_METRICS if m in df.columns] if metrics is None \
        else _names(fn, "metrics", metrics)
    for m in metrics:
        if m not in df.columns:
            raise ArgumentError(fn, "metrics", f"{fn}(): metrics: no column {m!r}"
                                               f"{did_you_mean(m, map(str, df.columns))}")
    groups: Any = df.groupby(keys, sort=False, observed=True, dropna=False) if keys else [((), df)]
    rows = []
    q = 1 - (1 - confidence) / 2
    for k, d in groups:
        kv = k if isinstance(k, tuple) else (k,)
        for m in metrics:
            x = pd.to_numeric(d[m], errors="coerce").astype(float)
            v = x.dropna()
            n = int(len(v))
            mean = float(v.mean()) if n else math.nan
            std = float(v.std(ddof=1)) if n > 1 else math.nan
            half = t_quantile(q, n - 1) * std / math.sqrt(n) if n > 1 else math.nan
            pct = v.quantile([0.5, 0.95, 0.99]).tolist() if n else [math.nan] * 3
            rows.append(list(kv)[: len(keys)] + [m, n, int(x.isna().sum()), mean, mean - half,
                                                   mean + half, std, *pct])
    cols = keys + ["metric", "n", "missing", "mean", "ci_low", "ci_high", "std", "p50", "p95", "p99"]
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["confidence"] = confidence
    return out
