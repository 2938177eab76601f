"""The lab: parameter sweeps (local or on Dask) and ``reproduce`` studies.

* :func:`sweep` runs the cartesian product of dotted-key overrides × repetitions of a
  scenario and returns one DataFrame row per flow (:mod:`lossrec.lab.sweeps`).
* :func:`detailed_sweep` runs the same points through the full ``--json`` output: every
  flow field and every recovery episode (:mod:`lossrec.lab.details`).
* :func:`reproduce` runs a study from ``experiments/<name>/`` and writes its report,
  figures and CSV (:mod:`lossrec.lab.studies`); studies use :class:`Sweep`,
  :class:`Verdict` and the helpers in :mod:`lossrec.lab.claims` and :mod:`lossrec.lab.style`.
"""

from .claims import Verdict, within
from .details import detailed_sweep
from .studies import Study, Sweep, find_studies, load_study, reproduce, reproduce_all
from .sweeps import point_scenario, sweep, sweep_seed

__all__ = [
    "sweep",
    "detailed_sweep",
    "sweep_seed",
    "point_scenario",
    "reproduce",
    "reproduce_all",
    "find_studies",
    "load_study",
    "Study",
    "Sweep",
    "Verdict",
    "within",
]
