"""Self-contained interactive HTML pages (issue 28): ``lossrec run --html FILE`` (a run's
zoomable time-sequence graphs with click-to-details) and ``lossrec reproduce``'s
``report.html`` per study and ``index.html``. plotly.js is inlined: no network needed."""

from .run_page import write as write_run
from .report_page import write_index, write_study

__all__ = ["write_run", "write_study", "write_index"]
