"""Plain-text tables for the command line, laid out by ``tabulate``.

Numbers are formatted per *column*, not per value, so that a column reads as one
quantity: thousands separators for the whole column when any value reaches 1,000 (no
``10,799`` above ``9664``), and one number of decimals for the whole column (integers
stay integers; otherwise enough decimals for three significant digits of the column's
smallest value, at most four, one when the column reaches 100). Missing values (``None``,
NaN) print as ``-``, booleans as ``yes``/``no``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, List, Sequence, Tuple

#: Values from this magnitude get thousands separators (for their whole column).
THOUSANDS = 1_000


def _is_number(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


def column_formats(values: Sequence[Any]) -> Tuple[str, str]:
    """``(floatfmt, intfmt)`` for one column's values (tabulate's format specs)."""
    nums = [float(v) for v in values if _is_number(v)]
    sep = "," if any(abs(x) >= THOUSANDS for x in nums) else ""
    fractional = [x for x in nums if x != int(x)] if all(math.isfinite(x) for x in nums) else nums
    if not fractional:
        return f"{sep}.0f", sep
    top = max(abs(x) for x in nums if math.isfinite(x)) if any(math.isfinite(x) for x in nums) else 0.0
    if top >= 100:
        digits = 1
    else:
        small = min((abs(x) for x in fractional if x != 0 and math.isfinite(x)), default=1.0)
        digits = max(0, min(4, 2 - math.floor(math.log10(small))))
    return f"{sep}.{digits}f", sep


def _cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Integral):
        return int(v)
    if isinstance(v, Real):
        return float(v)
    return v


def fmt(v: Any, formats: Tuple[str, str] = ("", "")) -> str:
    """One value as :func:`render` prints it, given its column's ``(floatfmt, intfmt)``
    (:func:`column_formats`; default: the value's own)."""
    c = _cell(v)
    if c is None:
        return "-"
    if isinstance(c, str) or not _is_number(c):
        return str(c)
    floatfmt, intfmt = formats if formats != ("", "") else column_formats([c])
    return format(c, intfmt) if isinstance(c, int) else format(c, floatfmt)


def render(headers: Sequence[str], rows: Sequence[Sequence[Any]], align_left: int = 1) -> str:
    """Renders rows under headers, every column formatted as one (see the module doc);
    the first ``align_left`` columns are left-aligned, the rest right-aligned."""
    from tabulate import tabulate

    cells: List[List[Any]] = [[_cell(v) for v in r] for r in rows]
    formats = [column_formats([r[i] for r in cells if i < len(r)]) for i in range(len(headers))]
    # Numbers are formatted here so that a column mixing numbers and text ("-", a note)
    # is still one quantity; tabulate lays the columns out.
    text = [[fmt(v, formats[i]) if i < len(formats) else fmt(v) for i, v in enumerate(r)] for r in cells]
    out = tabulate(text, headers=list(headers), tablefmt="simple", disable_numparse=True,
                   colalign=["left" if i < align_left else "right" for i in range(len(headers))])
    return "\n".join(line.rstrip() for line in out.splitlines())


def _fast_cells(values: Any) -> List[str]:
    """One column's cells as :func:`render` formats them, vectorised for numpy integer
    and float arrays (a 100,000-flow table formats in milliseconds, not seconds); any
    other column goes through :func:`fmt`."""
    import numpy as np

    a = values if isinstance(values, np.ndarray) else None
    if a is not None and a.dtype.kind in "iu":
        lst = a.tolist()
        if a.size and int(np.abs(a.astype(np.float64)).max()) >= THOUSANDS:
            return list(map("{:,}".format, lst))
        return list(map(str, lst))
    if a is not None and a.dtype.kind == "f":
        nums = a[~np.isnan(a)]
        floatfmt, _ = _float_formats(nums)
        spec = "{:" + floatfmt + "}"
        return ["-" if v != v else spec.format(v) for v in a.tolist()]
    vals = values.tolist() if a is not None else list(values)
    if all(type(v) is str for v in vals):
        return vals  # text prints as itself (fmt), whatever the column's numbers would be
    cells = [_cell(v) for v in vals]
    formats = column_formats(cells)
    return [fmt(v, formats) for v in cells]


def _float_formats(nums: Any) -> Tuple[str, str]:
    """:func:`column_formats` of a numpy float array without NaNs, vectorised."""
    import numpy as np

    if not nums.size:
        return column_formats([])
    mag = np.abs(nums)
    sep = "," if bool((mag >= THOUSANDS).any()) else ""
    finite = np.isfinite(nums)
    fractional = nums[nums != np.trunc(nums)] if bool(finite.all()) else nums
    if not fractional.size:
        return f"{sep}.0f", sep
    top = float(mag[finite].max()) if bool(finite.any()) else 0.0
    if top >= 100:
        digits = 1
    else:
        f = np.abs(fractional)
        f = f[(f != 0) & np.isfinite(f)]
        small = float(f.min()) if f.size else 1.0
        digits = max(0, min(4, 2 - math.floor(math.log10(small))))
    return f"{sep}.{digits}f", sep


def render_columns(headers: Sequence[str], columns: Sequence[Any], align_left: int = 1) -> str:
    """:func:`render` of a table given column by column (numpy arrays or sequences), with
    the same text, laid out here rather than by ``tabulate`` (its "simple" format: a
    column is as wide as its widest cell or its header plus two, two spaces between
    columns, a dashed rule under the headers): a 100,000-row table of a run costs
    milliseconds where ``tabulate`` took seconds (issue 29 item 3)."""
    cols = [_fast_cells(c) for c in columns]
    if not any(cols):
        return render(headers, [], align_left)  # tabulate lays out a header-only table its own way
    widths = [max(len(h) + 2, max(map(len, c))) for h, c in zip(headers, cols)]
    # One format string lays out a whole row (a call per row, not per cell).
    row = "  ".join("{:" + ("<" if i < align_left else ">") + str(w) + "}" for i, w in enumerate(widths))
    lines = [row.format(*headers).rstrip(), "  ".join("-" * w for w in widths).rstrip()]
    rows = map(row.format, *cols)
    # A right-aligned last column ends each line with its cell: nothing to strip unless a
    # cell itself ends in a space.
    plain = align_left < len(headers) and not any(c[-1:].isspace() for c in cols[-1])
    lines.extend(rows if plain else (line.rstrip() for line in rows))
    return "\n".join(lines)
