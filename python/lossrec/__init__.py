"""lossrec: a sans-IO TCP loss-recovery engine, a deterministic simulator, and this lab.

    >>> import lossrec
    >>> r = lossrec.run("scenario.toml", trace=True)
    >>> r.flows            # pandas DataFrame, one row per flow
    >>> r.trace            # the JSON-lines trace as a DataFrame
    >>> lossrec.run("scenario.toml", trace="t.jsonl.zst")   # a zstd-compressed trace file
    >>> lossrec.read_trace("t.jsonl.zst")                    # read back (.jsonl too)
    >>> df = lossrec.sweep("scenario.toml", {"path.rtt_ms": [10, 40]}, reps=10)
    >>> lossrec.summarize(df, by="path.rtt_ms")   # n, mean, p50, p95, p99, 95% CI
    >>> lossrec.reproduce("classic-baseline", out="out", quick=True)

See ``lossrec --help`` for the command line.

Attributes are imported on first use (PEP 562), so ``import lossrec`` and
``lossrec --version`` do not pay for pandas and matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._core import ScenarioError as ScenarioError, __version__ as __version__

#: public name → the module that defines it.
_LAZY = {
    "run": "api",
    "presets": "api",
    "bench": "api",
    "validate": "api",
    "Preset": "api",
    "Result": "result",
    "read_trace": "trace_io",
    "NotRequestedError": "result",
    "dict_to_toml": "scenario",
    "summarize": "summary",
    "provenance": "_provenance",
    "sweep": "lab",
    "sweep_seed": "lab",
    "point_scenario": "lab",
    "reproduce": "lab",
    "reproduce_all": "lab",
    "wire": "realwire",
    "explain": "capture",
    "replay": "replay_capture",
}

__all__ = sorted(set(_LAZY) | {"ScenarioError", "__version__"})


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'lossrec' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return __all__
