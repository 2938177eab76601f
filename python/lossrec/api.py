"""The Python API: ``run``, ``presets``, ``bench``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _args, _core, snaplen
from ._provenance import provenance
from .errors import ArgumentError
from .outputs import check_new_files
from .result import Result
from .scenario import ScenarioLike, apply_sets, load, with_sender
from .suggest import did_you_mean
from .trace_io import check_trace_path

PathLike = Union[str, "os.PathLike[str]"]

#: The figures the project aims for, and the ns-3.37 reference measured on the dev machine.
BENCH_TARGETS = {"bulk": {"data_packets_per_s": 1_500_000}, "short_flows": {"flows_per_s": 100_000}}
BENCH_NS3 = {"bulk": {"data_packets_per_s": 17_000}, "short_flows": {"flows_per_s": 900}}
BENCHMARKS = ("bulk", "short_flows")


class Preset(NamedTuple):
    name: str
    summary: str
    #: axis name → value text, in the engine's axis order.
    axes: Dict[str, str]


def _path_or_flag(v: Union[None, bool, PathLike], what: str) -> Tuple[bool, Optional[str]]:
    """``(collect in memory, stream to this path)`` for a ``trace=``/``pcap=`` argument."""
    if v is None or v is False:
        return False, None
    if v is True:
        return True, None
    return False, os.fspath(v)


def _check_run_args(scenario: Any, seed: Any, trace: Any, pcap: Any, preset: Any, sender: Any,
                    sets: Any, pcap_receiver: Any, force: Any) -> None:
    """:func:`run`'s arguments, each named in its error (see :mod:`lossrec._args`)."""
    fn = "run"
    _args.scenario(fn, scenario)
    _args.seed(fn, seed)
    _args.path_or_flag(fn, "trace", trace)
    _args.path_or_flag(fn, "pcap", pcap)
    _args.path(fn, "pcap_receiver", pcap_receiver, optional=True)
    check_preset_arg(fn, preset)
    _args.mapping(fn, "sender", sender)
    _args.mapping(fn, "sets", sets)
    _args.boolean(fn, "force", force)


def check_preset_arg(fn: str, preset: Any) -> None:
    """``preset=``: None or the name of a preset."""
    if preset is None:
        return
    _args.text(fn, "preset", preset)
    try:
        check_preset(preset)
    except ValueError as e:
        raise ArgumentError(fn, "preset", str(e)) from None


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    trace: Union[bool, PathLike] = False,
    pcap: Union[None, bool, PathLike] = None,
    preset: Optional[str] = None,
    sender: Optional[Mapping[str, Any]] = None,
    sets: Optional[Mapping[str, Any]] = None,
    pcap_receiver: Optional[PathLike] = None,
    force: bool = False,
    pcap_snaplen: Optional[int] = None,
    *,
    pretty: bool = False,
) -> Result:
    """Runs a scenario and returns its :class:`Result`.

    Args:
        scenario: a path to a TOML file (``"-"``: standard input), a dict (serialised to
            TOML, named ``<dict>`` in errors) or TOML text.
        seed: overrides the scenario's seed.
        trace: ``True`` to collect the JSON-lines trace in memory (``Result.trace``), or a
            path (``"-"``: stdout) to stream it to as the run goes (memory stays flat); the
            path's suffix picks the format: ``.jsonl``, or ``.jsonl.zst`` for the same lines
            zstd-compressed (read back with :func:`lossrec.read_trace`); any other is refused.
        pcap: ``True`` to collect a pcap captured at the sender (``Result.write_pcap``),
            or a path to stream it to.
        pcap_receiver: a path to stream a capture taken at the receiver to (what
            Wireshark's spurious-retransmission analysis needs).
        preset: run the sender under this preset instead of the scenario's ``[sender]
            preset`` (the scenario's other ``[sender]`` axes still apply).
        sender: axis → value settings applied on top (like ``--set axis=value``).
        sets: dotted scenario keys → values (``{"path.rtt_ms": 40}``; a bare axis name
            means ``sender.<axis>``), applied last, like ``--set``.
        force: overwrite existing files at the ``trace``, ``pcap`` and ``pcap_receiver``
            paths (an existing file is refused otherwise).
        pcap_snaplen: keep the first N bytes of each captured packet in both captures
            (``tcpdump -s N``; 94 keeps the Ethernet, IPv4 and TCP headers with options):
            :mod:`lossrec.snaplen`.
        pretty: keyword-only; the simulator indents the ``--json`` text it returns
            (:meth:`Result.json_text` then prints it as it is, with no per-flow work in
            Python: what the CLI's ``--json`` uses). The parsed result is the same.

    Raises:
        ValueError (``lossrec.ScenarioError``): the scenario is invalid; the message names
            ``file:line:column: field: message``.
        lossrec.errors.ArgumentError: a bad argument (named in the message).
        lossrec.errors.OutputExistsError: an output file exists and ``force`` is false.
    """
    _check_run_args(scenario, seed, trace, pcap, preset, sender, sets, pcap_receiver, force)
    _args.boolean("run", "pretty", pretty)
    if pcap_snaplen is not None:
        try:
            snaplen.check(pcap_snaplen)
        except ValueError as e:
            raise ArgumentError("run", "pcap_snaplen", f"run(): pcap_snaplen: {e}") from None
    want_trace, trace_path = _path_or_flag(trace, "trace")
    try:
        check_trace_path(trace_path)
    except ValueError as e:
        raise ArgumentError("run", "trace", f"run(): trace: {e}") from None
    want_pcap, pcap_path = _path_or_flag(pcap, "pcap")
    _, rx_path = _path_or_flag(pcap_receiver, "pcap_receiver")
    check_new_files((trace_path, pcap_path, rx_path), force)
    text, origin = load(scenario)
    rewritten = preset is not None or bool(sender) or bool(sets)
    if preset is not None or sender:
        text, origin = override_sender(text, origin, preset, sender or {})
    if sets:
        text, origin = apply_sets(text, origin, sets)
    try:
        with snaplen.streamed(pcap_path, pcap_snaplen) as pcap_to, \
                snaplen.streamed(rx_path, pcap_snaplen) as rx_to:
            js, tr, pc, outputs, cols = _core.run_scenario(text, origin, seed, want_trace,
                                                           want_pcap, trace_path, pcap_to, rx_to,
                                                           columns=True, pretty=pretty)
        if pc is not None and pcap_snaplen is not None:
            pc = snaplen.cut_bytes(bytes(pc), pcap_snaplen)
    except _core.ScenarioError as e:
        if not rewritten:
            raise
        # Lines and columns would point into the rewritten text, not the user's file.
        raise _unlocated(e) from None
    extra: Dict[str, Any] = {"provenance": provenance(text, [json.loads(cols["head"])["seed"]], origin=origin)}
    out = json.loads(outputs)
    if trace_path or pcap_path or rx_path:
        extra["outputs"] = {**out, **{k: v for k, v in (("trace", trace_path), ("pcap", pcap_path),
                                                        ("pcap_receiver", rx_path)) if v}}
    return Result(js, tr, pc, trace_file=Path(trace_path) if trace_path else None, columns=cols,
                  extra=extra)


def merge(runs: Mapping[str, Result]) -> Dict[str, Any]:
    """Several runs (the default run's presets) as one ``--json`` object of the same shape
    as a single run: every flow and recovery episode (each tagged with its preset), the
    ``sim`` figures summed (``sim_time_s`` the longest, ``time_limit_hit`` any), and one
    provenance record listing every scenario hash and seed."""
    flows: List[Dict[str, Any]] = []
    recoveries: List[Dict[str, Any]] = []
    sim: Dict[str, Any] = {"events": 0, "wall_s": 0.0, "sim_time_s": 0.0, "time_limit_hit": False}
    seeds = set()
    hashes = []
    for name, r in runs.items():
        flows += r.json.get("flows", [])
        recoveries += [{**rec, "preset": name} for rec in r.json.get("recoveries", [])]
        s = r.sim
        sim["events"] += s.get("events", 0)
        sim["wall_s"] += s.get("wall_s", 0.0)
        sim["sim_time_s"] = max(sim["sim_time_s"], s.get("sim_time_s", 0.0))
        sim["time_limit_hit"] = sim["time_limit_hit"] or bool(s.get("time_limit_hit"))
        seeds.add(r.seed)
        hashes.append(r.provenance.get("scenario_sha256"))
    prov = provenance(None, seeds, scenario_sha256=hashes, presets=list(runs))
    seed = next(iter(seeds)) if len(seeds) == 1 else sorted(seeds)
    return {"seed": seed, "flows": flows, "recoveries": recoveries, "sim": sim, "provenance": prov}


def override_sender(
    text: str, origin: str, preset: Optional[str], sender: Mapping[str, Any],
    fn: str = "run", param: str = "sender",
) -> Tuple[str, str]:
    """Applies a preset and axis settings to scenario text; returns ``(text, origin)``.

    The original text is validated first, so that its errors name the user's own lines;
    the preset and axes are checked against the engine before rewriting (a bad one is an
    :class:`ArgumentError` naming ``param`` of ``fn``).
    """
    if preset is not None:
        check_preset_arg(fn, preset)
    sets = [(str(k), _axis_text(v)) for k, v in sender.items()]
    for axis, value in sets:
        if axis == "preset":
            raise ArgumentError(fn, param, f"{param}: set the preset with preset=/--preset, "
                                           f"not as an axis")
        try:
            _core.check_axis(axis, value)
        except ValueError as e:
            raise ArgumentError(fn, param, f"{param}[{axis!r}]={value}: {e}") from None
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
    _args.scenario("validate", scenario)
    text, origin = load(scenario)
    return _core.validate_scenario(text, origin)


def presets() -> List[Preset]:
    """Every preset with its axis values, in listing order."""
    return [Preset(n, s, dict(axes)) for n, s, axes in _core.presets()]


def preset_names() -> List[str]:
    return [n for n, _, _ in _core.presets()]


def check_preset(name: str) -> str:
    """Returns ``name`` if it is a preset; raises ValueError naming the closest one and
    listing the valid ones."""
    names = preset_names()
    if name not in names:
        raise ValueError(f"unknown preset `{name}`; valid presets: {', '.join(names)}"
                         f"{did_you_mean(name, names)}")
    return name


def check_presets(names: Sequence[str]) -> None:
    for n in names:
        check_preset(n)


def bench(which: Optional[str] = None) -> Dict[str, Any]:
    """Runs the built-in benchmarks.

    ``which`` is ``"bulk"``, ``"short_flows"`` or ``None`` for both. Returns
    ``{"bulk": {"data_packets_per_s", "events_per_s", "wall_s", "runs"},
    "short_flows": {"flows_per_s", "wall_s", "runs"}}`` (only the requested key when
    ``which`` is given). Build with optimisations (``pip install .`` or
    ``maturin develop --release``) for meaningful numbers.
    """
    if which is not None and which not in BENCHMARKS:
        raise ArgumentError("bench", "which", f"bench(): which: unknown benchmark {which!r}; "
                                              f"valid: {', '.join(BENCHMARKS)}")
    names = BENCHMARKS if which is None else (which,)
    return {n: dict(_core.bench(n)) for n in names}
