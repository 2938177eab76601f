"""The Python API: ``run``, ``presets``, ``bench``."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

from . import _core
from .result import Result
from .scenario import ScenarioLike, load, with_sender

#: The figures the project aims for, and the ns-3.37 reference measured on the dev machine.
BENCH_TARGETS = {"bulk": {"data_packets_per_s": 1_500_000}, "short_flows": {"flows_per_s": 100_000}}
BENCH_NS3 = {"bulk": {"data_packets_per_s": 17_000}, "short_flows": {"flows_per_s": 900}}
BENCHMARKS = ("bulk", "short_flows")


class Preset(NamedTuple):
    name: str
    summary: str
    #: axis name → value text, in the engine's axis order.
    axes: Dict[str, str]


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    trace: bool = False,
    pcap: Union[None, bool, str, "os.PathLike[str]"] = None,
    preset: Optional[str] = None,
    sender: Optional[Mapping[str, Any]] = None,
) -> Result:
    """Runs a scenario and returns its :class:`Result`.

    Args:
        scenario: a path to a TOML file, a dict (serialised to TOML, named ``<dict>`` in
            errors) or TOML text.
        seed: overrides the scenario's seed.
        trace: collect the JSON-lines trace (``Result.trace``).
        pcap: ``True`` to collect a pcap (``Result.write_pcap``), or a path to write it to.
        preset: run the sender under this preset instead of the scenario's ``[sender]
            preset`` (the scenario's other ``[sender]`` axes still apply).
        sender: axis → value settings applied on top (like ``--set axis=value``).

    Raises:
        ValueError (``lossrec.ScenarioError``): the scenario is invalid; the message names
            ``file:line:column: field: message``.
    """
    text, origin = load(scenario)
    rewritten = preset is not None or bool(sender)
    if rewritten:
        text, origin = override_sender(text, origin, preset, sender or {})
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    want_pcap = pcap is not None and pcap is not False
    try:
        js, tr, pc = _core.run_scenario(text, origin, seed, bool(trace), want_pcap)
    except _core.ScenarioError as e:
        if not rewritten:
            raise
        # Lines and columns would point into the rewritten text, not the user's file.
        raise _unlocated(e) from None
    res = Result(js, tr, pc)
    if want_pcap and pcap is not True:
        res.write_pcap(pcap)  # type: ignore[arg-type]
    return res


def override_sender(
    text: str, origin: str, preset: Optional[str], sender: Mapping[str, Any]
) -> Tuple[str, str]:
    """Applies a preset and axis settings to scenario text; returns ``(text, origin)``.

    The original text is validated first, so that its errors name the user's own lines;
    the preset and axes are checked against the engine before rewriting.
    """
    if preset is not None:
        check_preset(preset)
    sets = [(str(k), _axis_text(v)) for k, v in sender.items()]
    for axis, value in sets:
        if axis == "preset":
            raise ValueError("set the preset with preset=/--preset, not as an axis")
        try:
            _core.check_axis(axis, value)
        except ValueError as e:
            raise ValueError(f"--set {axis}={value}: {e}") from None
    _core.validate_scenario(text, origin)
    what = ([f"--preset {preset}"] if preset is not None else []) + [f"--set {a}={v}" for a, v in sets]
    return with_sender(text, preset, sets), f"{origin} (with {' '.join(what)})"


def _unlocated(e: Any) -> Exception:
    """The same scenario error without line and column."""
    field = getattr(e, "field", None)
    msg = f"{e.origin}: {field + ': ' if field else ''}{e.message}"
    new = _core.ScenarioError(msg)
    for k, v in (("origin", e.origin), ("line", None), ("column", None), ("field", field),
                 ("message", e.message)):
        setattr(new, k, v)
    return new


def _axis_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def validate(scenario: ScenarioLike) -> int:
    """Parses and validates a scenario without running it; returns its seed."""
    text, origin = load(scenario)
    return _core.validate_scenario(text, origin)


def presets() -> List[Preset]:
    """Every preset with its axis values, in listing order."""
    return [Preset(n, s, dict(axes)) for n, s, axes in _core.presets()]


def preset_names() -> List[str]:
    return [n for n, _, _ in _core.presets()]


def check_preset(name: str) -> str:
    """Returns ``name`` if it is a preset; raises ValueError listing the valid ones."""
    _core.preset(name)
    return name


def bench(which: Optional[str] = None) -> Dict[str, Any]:
    """Runs the built-in benchmarks.

    ``which`` is ``"bulk"``, ``"short_flows"`` or ``None`` for both. Returns
    ``{"bulk": {"data_packets_per_s", "events_per_s", "wall_s", "runs"},
    "short_flows": {"flows_per_s", "wall_s", "runs"}}`` (only the requested key when
    ``which`` is given). Build with optimisations (``pip install .`` or
    ``maturin develop --release``) for meaningful numbers.
    """
    names = BENCHMARKS if which is None else (which,)
    for n in names:
        if n not in BENCHMARKS:
            raise ValueError(f"unknown benchmark {n!r}; valid: {', '.join(BENCHMARKS)}")
    return {n: dict(_core.bench(n)) for n in names}
