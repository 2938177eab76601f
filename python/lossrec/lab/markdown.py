"""Markdown tables for the reports: one helper that both :mod:`lossrec.lab.report` and
:mod:`lossrec.lab.calibration` use (and studies, through ``lossrec.lab.report.table``), kept
apart so that neither imports the other for it (no import circle)."""

from __future__ import annotations

from typing import Any, Sequence

import pandas as pd


def cell(x: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(x).replace("|", "\\|").replace("\n", " ").strip()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown (pipe) table by ``DataFrame.to_markdown`` (tabulate): cells as given,
    escaped by :func:`cell`, not padded (``stralign=None``), so a row reads the same in
    the source as rendered."""
    df = pd.DataFrame([[cell(c) for c in r] for r in rows], columns=[cell(h) for h in headers])
    return df.to_markdown(index=False, tablefmt="pipe", disable_numparse=True, stralign=None, numalign=None)
