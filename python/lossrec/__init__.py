"""lossrec: a sans-IO TCP loss-recovery engine, a deterministic simulator, and this lab.

    >>> import lossrec
    >>> r = lossrec.run("scenario.toml", trace=True)
    >>> r.flows            # pandas DataFrame, one row per flow
    >>> r.trace            # the JSON-lines trace as a DataFrame
    >>> df = lossrec.sweep("scenario.toml", {"path.rtt_ms": [10, 40]}, reps=10)
    >>> lossrec.reproduce("classic-baseline", out="out", quick=True)

See ``lossrec --help`` for the command line.
"""

from ._core import ScenarioError, __version__
from .api import Preset, bench, presets, run, validate
from .result import NotRequestedError, Result
from .scenario import dict_to_toml
from .lab import point_scenario, reproduce, reproduce_all, sweep, sweep_seed
from .wire import wire

__all__ = [
    "run",
    "wire",
    "sweep",
    "sweep_seed",
    "point_scenario",
    "reproduce",
    "reproduce_all",
    "presets",
    "bench",
    "validate",
    "Result",
    "Preset",
    "ScenarioError",
    "NotRequestedError",
    "dict_to_toml",
    "__version__",
]
