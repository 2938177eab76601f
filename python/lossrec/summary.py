"""Summaries per group: n, mean with a confidence interval, p50, p95, p99.

The interval is Student's t interval on the mean, ``mean ± t(1-α/2, k-1) · s/√k``, taken
over *repetitions* when the results have a ``rep`` column: the flows of one run share its
path, seed and queue, so they are not independent samples (20 concurrent flows of a
deterministic scenario are one sample, not 20). Each repetition's flows are averaged
first, and the interval is over those ``k`` repetition means (a cluster-robust interval,
clustered by run). Without a ``rep`` column every value is its own sample.
``mean`` is then the mean of the repetition means (equal to the flows' mean when every
repetition finished the same number of flows). When every repetition's mean is the same
(a deterministic scenario, or one whose randomness does not reach the metric) the
interval has zero width, and ``ci_note`` says so.

Percentiles are pandas' linear interpolation over the flows. ``n`` counts the values
present (an unfinished flow's ``fct_ms`` is missing and is counted in ``missing``
instead). Group keys holding lists (a swept ``path.loss.packets=[2,3],[4]``) are grouped
by their TOML/JSON text, ``[2, 3]``.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Union

from .errors import ArgumentError

if TYPE_CHECKING:
    import pandas as pd

#: Metrics summarised by default (when present).
DEFAULT_METRICS = ("fct_ms", "retransmits", "rtos")
#: The column that numbers a sweep's repetitions: intervals are clustered by it.
REP = "rep"


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile ``t(p, df)`` (scipy's ``t.ppf``); NaN below one degree of freedom."""
    if df < 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(p, df))


def hashable_keys(df: "pd.DataFrame", keys: Sequence[str]) -> "pd.DataFrame":
    """``df`` with list-, dict- or array-valued cells of the ``keys`` columns replaced by
    their JSON text (``[2, 3]``), so that they can be grouped by; ``df`` itself when none
    are."""
    out = df
    for k in keys:
        col = df[k]
        if col.dtype == object and col.map(_unhashable).any():
            if out is df:
                out = df.copy()
            out[k] = col.map(_key_text)
    return out


def _unhashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return True
    return False


def _key_text(v: Any) -> Any:
    if not _unhashable(v):
        return v
    if hasattr(v, "tolist"):  # numpy arrays (Parquet reads lists back as arrays)
        v = v.tolist()
    try:
        return json.dumps(v)
    except TypeError:
        return str(v)


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
    cluster: Optional[str] = REP,
) -> "pd.DataFrame":
    """One row per (group, metric): ``n``, ``missing``, ``mean``, ``ci_low``, ``ci_high``,
    ``std``, ``p50``, ``p95``, ``p99``, ``reps`` and ``ci_note``.

    ``by`` is a column or list of columns (default: none, one group); ``metrics`` the
    numeric columns to summarise (default: ``fct_ms``, ``retransmits``, ``rtos``);
    ``cluster`` the column whose values are independent runs (default ``rep``, used when
    present; ``None``: every value is a sample). ``reps`` is the number of samples the
    interval was taken over; ``ci_note`` is ``"reps identical"`` (``"values identical"``
    without clustering) when they are all equal, ``"one rep"`` / ``"one value"`` when
    there is no interval, else empty.
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
    clustered = cluster is not None and cluster in df.columns and cluster not in keys
    df = hashable_keys(df, keys)
    groups: Any = df.groupby(keys, sort=False, observed=True, dropna=False) if keys else [((), df)]
    rows = []
    q = 1 - (1 - confidence) / 2
    for k, d in groups:
        kv = k if isinstance(k, tuple) else (k,)
        for m in metrics:
            x = pd.to_numeric(d[m], errors="coerce").astype(float)
            rows.append(list(kv)[: len(keys)] + [m] + _stats(x, d[cluster] if clustered else None, q))
    cols = keys + ["metric", "n", "missing", "mean", "ci_low", "ci_high", "std", "p50", "p95", "p99",
                   "reps", "ci_note"]
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["confidence"] = confidence
    out.attrs["clustered_by"] = cluster if clustered else None
    return out


def _stats(x: "pd.Series", reps: "Optional[pd.Series]", q: float) -> List[Any]:
    """n, missing, mean, ci_low, ci_high, std, p50, p95, p99, samples, note of one metric
    of one group; the interval over the per-repetition means when ``reps`` is given."""
    v = x.dropna()
    n = int(len(v))
    what = "rep" if reps is not None else "value"
    samples = v.groupby(reps[v.index], sort=False).mean() if reps is not None else v
    k = int(len(samples))
    mean = float(samples.mean()) if k else math.nan
    sd = float(samples.std(ddof=1)) if k > 1 else math.nan
    # Means of identical repetitions may differ in their last bits (summed in another
    # order): equal to 1e-12 of the mean is identical.
    same = k > 1 and float(samples.max() - samples.min()) <= 1e-12 * max(1.0, abs(mean))
    if same:
        sd = 0.0
    half = t_quantile(q, k - 1) * sd / math.sqrt(k) if k > 1 else math.nan
    note = f"one {what}" if k == 1 else f"{what}s identical" if same else ""
    std = float(v.std(ddof=1)) if n > 1 else math.nan
    pct = v.quantile([0.5, 0.95, 0.99]).tolist() if n else [math.nan] * 3
    return [n, int(x.isna().sum()), mean, mean - half, mean + half, std, *pct, k, note]


def sweep_table(df: "pd.DataFrame", keys: List[str], confidence: float = 0.95) -> str:
    """The text table ``lossrec sweep`` prints without ``-o``: per point the flows, FCT's
    mean, interval (over repetitions; a note when they are identical), p50, p95, p99,
    mean retransmits and RTOs, and unfinished flows."""
    from .table import render

    if df.empty:
        return "(no flows)"
    s = summarize(df, keys, ["fct_ms", "retransmits", "rtos"], confidence)
    pct = f"{confidence * 100:g}%"
    rows = []
    for k, d in s.groupby(keys, sort=False, observed=True) if keys else [((), s)]:
        kv = list(k) if isinstance(k, tuple) else [k]
        m = d.set_index("metric")
        f = m.loc["fct_ms"]
        ci = "-" if f["reps"] < 2 else f"[{f['ci_low']:.4g}, {f['ci_high']:.4g}]"
        if f["ci_note"] and f["reps"] >= 2:
            ci += f" ({f['ci_note']})"
        rows.append(kv[: len(keys)] + [int(f["n"] + f["missing"]), f["mean"], ci, f["p50"], f["p95"],
                                       f["p99"], m.loc["retransmits", "mean"], m.loc["rtos", "mean"],
                                       int(f["missing"])])
    over = " over reps" if s.attrs.get("clustered_by") else ""
    headers = keys + ["flows", "fct_ms mean", f"{pct} CI{over}", "p50", "p95", "p99", "rexmits", "RTOs",
                      "unfinished"]
    return render(headers, rows, align_left=max(1, len(keys)))
