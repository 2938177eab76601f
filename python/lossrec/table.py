"""Plain-text tables for the command line (no dependencies)."""

from __future__ import annotations

import math
from typing import Any, List, Sequence


def fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}" if abs(v) >= 10_000 else str(int(v))
        return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.3g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    return str(v)


def render(headers: Sequence[str], rows: Sequence[Sequence[Any]], align_left: int = 1) -> str:
    """Renders rows under headers; the first ``align_left`` columns are left-aligned."""
    cells: List[List[str]] = [list(headers)] + [[fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: List[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < align_left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
        ).rstrip()

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)
