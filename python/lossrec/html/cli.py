"""``lossrec run --html``: the few lines the CLI needs, kept here so that the command's
module only names them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Tuple

from . import page, run_page

if TYPE_CHECKING:  # pragma: no cover
    from ..result import Result


def html_check(path: str, force: bool, trace_path: Optional[str]) -> None:
    """Before the run: the page's file may be written (an existing one only with
    ``--force``), and the trace it is drawn from is not going to stdout."""
    if path == "-":
        raise ValueError("--html writes a file (an HTML page is not streamed to stdout)")
    if trace_path == "-":
        raise ValueError("--html cannot read back a trace written to stdout; give --trace a file")
    page.check_writable(path, force)


def html_run(path: str, trace: Path, summary: Mapping[str, Any], title: str,
             columns: Sequence[Tuple[str, str]], plot_kw: Mapping[str, Any], force: bool) -> Path:
    """The page of a scenario run, drawn from its trace file (``--flows``/``--window``
    choose what is drawn); ``summary`` is the run's JSON."""
    from ..trace_io import read_records

    records = read_records(trace)
    return run_page.write(path, records, title, dict(summary), columns,
                          flows=plot_kw.get("flows"), window=plot_kw.get("window"), force=force)


def html_default(path: str, runs: Mapping[str, "Result"], columns: Sequence[Tuple[str, str]],
                 plot_kw: Mapping[str, Any], force: bool) -> Path:
    """The page of the default run: one graph per preset (each preset's flow 0)."""
    from ..default import DESCRIPTION

    recs = [{**rec, "flow": name} for name, r in runs.items() for rec in r.trace_records]
    summary: Dict[str, Any] = {"flows": [{"preset": n, **(r.json.get("flows") or [{}])[0]}
                                       for n, r in runs.items()]}
    cols = [("preset", "preset"), *columns]
    return run_page.write(path, recs, DESCRIPTION.splitlines()[0] if DESCRIPTION else "lossrec run",
                          summary, cols, flows=list(runs), window=plot_kw.get("window"), force=force)
