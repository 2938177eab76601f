"""A study's figures-and-verdicts phase, shown and resumable (issue 28 item 8).

After its sweeps, a study draws its figures and judges its claims; both may run traced
sweeps (:func:`lossrec.lab.tail.traced_sweep`), which are most of the phase's time. While
:func:`figure_phase` is active (``run_study`` wraps the phase in it):

- every traced sweep keeps its rows in the job's partial folder, keyed by what decides
  them (the scenarios, reps, seeds rule, the summariser's code and the engine build), so an
  interrupted phase resumes without tracing again; the folder goes when the study's
  output is committed;
- each step is shown on the study's progress bar (:meth:`~lossrec.lab.jobs.Progress.phase`):
  the traced runs as they finish, each figure, the verdicts.

Outside the phase (a notebook calling ``traced_sweep``) nothing is cached or shown.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pandas as pd

PREFIX = "figures and verdicts"


@dataclass
class Phase:
    """Where traced sweeps keep their rows, and the bar that shows the steps (or None)."""

    cache: Path
    progress: Any = None

    def show(self, text: str) -> None:
        """Shows ``figures and verdicts: text`` on the study's bar."""
        if self.progress is not None:
            self.progress.phase(f"{PREFIX}: {text}")

    def path(self, key: str) -> Path:
        return self.cache / f"traced-{key}.pkl"

    def load(self, key: str) -> Optional[pd.DataFrame]:
        """The rows of a traced sweep finished before an interruption, or None."""
        try:
            df = pd.read_pickle(self.path(key))
        except (OSError, ValueError, EOFError, ImportError, AttributeError):
            return None
        return df if isinstance(df, pd.DataFrame) else None

    def save(self, key: str, df: pd.DataFrame) -> None:
        """Writes the rows atomically (a half-written file is never read back)."""
        self.cache.mkdir(parents=True, exist_ok=True)
        final = self.path(key)
        tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
        df.to_pickle(tmp)
        os.replace(tmp, final)


_ACTIVE: contextvars.ContextVar[Optional[Phase]] = contextvars.ContextVar("lossrec_phase", default=None)


def active() -> Optional[Phase]:
    """The phase being run, or None outside ``run_study``'s figures and verdicts."""
    return _ACTIVE.get()


@contextlib.contextmanager
def figure_phase(cache: Path, progress: Any = None) -> Iterator[Phase]:
    """Runs the enclosed figures and verdicts as one resumable, shown phase."""
    token = _ACTIVE.set(Phase(Path(cache), progress))
    try:
        yield _ACTIVE.get()  # type: ignore[misc]
    finally:
        _ACTIVE.reset(token)


def code_id(fn: Callable[..., Any]) -> str:
    """What identifies a summariser across runs: its qualified name and its bytecode (a
    changed summariser must not reuse rows another one made)."""
    code = getattr(fn, "__code__", None)
    body = code.co_code + repr(code.co_consts).encode() if code is not None else b""
    name = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}"
    return name + ":" + hashlib.sha256(body).hexdigest()[:16]
