"""What a study is, as values: :class:`Study` (a folder's ``study.py`` and its published
numbers), :class:`Sweep` (one sweep it asks for) and :class:`Context` (what its figures and
claims may use). Kept apart from :mod:`lossrec.lab.studies` (which runs studies) so that
the modules a study run uses — calibration, frozen verdicts, jobs, reports — can name these
types without importing the runner back (no import circle; python/tests/test_imports.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional

import pandas as pd


@dataclass
class Sweep:
    """One sweep of a study: ``scenario`` (a file in the study folder) × ``params`` ×
    ``reps``. ``labels`` are constant columns added to its rows (e.g. to mark the
    no-loss sweep with ``{"path.loss.count": 0}``). ``details`` runs it as a
    :func:`~lossrec.lab.details.detailed_sweep`: slower, but the rows get every flow field
    and the recovery episodes go to ``ctx.recoveries`` (and ``recoveries.parquet``)."""

    scenario: str
    params: Dict[str, List[Any]] = field(default_factory=dict)
    reps: int = 1
    common_seeds: bool = False
    labels: Dict[str, Any] = field(default_factory=dict)
    details: bool = False
    #: ``sim`` (the simulator), or ``wire``: each point through the real wire with the
    #: engine's and Linux's sender (:func:`~lossrec.lab.wire_sweeps.wire_sweep`, needs root).
    runner: str = "sim"
    #: Options of :func:`~lossrec.lab.wire_sweeps.wire_sweep` (``close``, ``receiver``).
    wire: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Context:
    """What a study's figures and claims may use besides the DataFrame."""

    study: "Study"
    quick: bool
    out: Path
    #: Values a study computes once and shares between its figures and claims.
    cache: Dict[str, Any] = field(default_factory=dict)
    #: One row per recovery episode of the ``details`` sweeps (with their labels), or None.
    recoveries: Optional[pd.DataFrame] = None

    def scenario(self, name: str) -> Path:
        """A file of the study folder."""
        return self.study.dir / name


@dataclass
class Study:
    name: str
    dir: Path
    module: ModuleType
    published: Dict[str, Any]

    @property
    def title(self) -> str:
        return str(getattr(self.module, "TITLE", self.name))

    @property
    def seed(self) -> str:
        return str(getattr(self.module, "SEED", ""))

    @property
    def claims_published(self) -> Dict[str, Dict[str, Any]]:
        return dict(self.published.get("claims", {}))

    def sweeps(self, quick: bool) -> List[Sweep]:
        return list(self.module.sweeps(quick))
