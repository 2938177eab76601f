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
