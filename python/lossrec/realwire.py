"""`lossrec.wire` (this module is `lossrec.realwire`): a scenario through the real wire —
the engine and Linux's TCP over a user-space path emulator between TUN devices in network
namespaces (``crates/tun``).

Needs root, ``/dev/net/tun`` and iproute2; :func:`unavailable` says why not. Results have
the shape of :func:`lossrec.run`'s (a :class:`~lossrec.result.Result` whose ``flows`` carry
the same fields); the JSON adds ``sender``, ``receiver``, ``path`` (the emulator's
counters, including garbage and foreign packets dropped), ``timer_lateness`` (p50/p99 of
how late the emulator woke for the deadlines it slept towards, µs), ``delivery_lateness``
(how late every packet arrival and engine timer was handled, which adds the loop's
backlog when the emulator is saturated), ``kernel`` (the Linux settings applied,
those that could not be, the result fields the kernel does not expose, and ``mib``, each
Linux-sent connection's nstat deltas), ``acceptance`` (what the engine endpoints' RFC 5961
checks dropped or challenged, by Linux MIB name: ``TCPSYNChallenge``, ``TCPChallengeACK``,
``TCPRstInWindow``, ``EstabResets`` …), ``handshake_rtt_ms`` (the sender's own first RTT
sample, the kernel's ``tcpi_rtt`` after ``connect``) beside ``handshake_emulator_rtt_ms``
and ``path_rtt_ms`` (what the path alone takes for a SYN and its SYN-ACK), ``wall_s``,
and for bulk runs ``goodput_mbps``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from . import _args, _core
from .api import check_preset_arg, override_sender
from .outputs import check_new_files
from .result import Result
from .scenario import ScenarioLike, load

SIDES = ("engine", "linux")
#: When the applications close (``close=``).
CLOSE = ("after-ack", "after-write")


def unavailable() -> Optional[str]:
    """Why the wire cannot run on this machine (not root, no TUN, no ``ip``), or None."""
    return _core.wire_unavailable()


def cleanup() -> List[str]:
    """Removes the namespaces (and devices) of wire runs whose process is gone."""
    return _core.wire_cleanup()


def namespaces() -> List[Tuple[str, int]]:
    """The ``lossrec-<pid>-*`` namespaces that exist now, with their pids."""
    return [(n, p) for n, p in _core.wire_namespaces()]


def wire(
    scenario: ScenarioLike,
    sender: str = "engine",
    receiver: str = "linux",
    seed: Optional[int] = None,
    trace: Union[bool, str, "os.PathLike[str]"] = False,
    pcap: Union[None, bool, str, "os.PathLike[str]"] = None,
    preset: Optional[str] = None,
    sets: Optional[Mapping[str, Any]] = None,
    close: str = "after-ack",
    force: bool = False,
) -> Union[Result, Dict[str, Result]]:
    """Runs a scenario through the wire.

    Args:
        scenario: a TOML path, dict or text, as for :func:`lossrec.run`.
        sender: ``engine`` (the engine's sender as a user-space TCP endpoint), ``linux``
            (the kernel's own TCP from a namespace), or ``both``: the two one after the
            other on the same emulated path, returned as ``{"engine": ..., "linux": ...}``.
        receiver: ``linux`` (a socket server in a namespace) or ``engine`` (the engine's
            ``Receiver`` answering).
        trace: ``True`` to keep the JSON-lines trace in the result, or a path (``-`` for
            stdout) to stream it to while the run goes (memory stays flat; the result's
            ``json["trace_lines"]`` counts the lines).
        pcap: ``True`` to collect the emulator's capture, or a path to stream it to (with
            ``sender="both"``, ``-engine``/``-linux`` are added before the suffix, to the
            trace's path too).
        preset, sets: the sender's preset and axis settings (the kernel gets what it can
            of them; ``Result.json["kernel"]["sender"]["not_applied"]`` lists the rest).
        close: when both senders' applications close: ``after-ack`` (once every byte is
            acknowledged: nothing follows the data, as in the simulator, whose FIN rides on
            the last segment) or ``after-write`` (``write`` then ``shutdown``: the FIN goes
            on its own right after the data when the data was already sent).
        force: overwrite existing files at the ``trace`` and ``pcap`` paths (refused
            otherwise, before anything is set up).

    SIGTERM and SIGHUP (a closed terminal or ssh session) stop the run like Ctrl-C while
    it goes, when this process had left them at their default action: the namespaces and
    devices are removed, then ``KeyboardInterrupt`` is raised.

    Raises:
        OSError: the machine cannot run the wire, or setting it up failed.
        ValueError: the scenario is invalid or uses what the wire does not support.
        lossrec.errors.ArgumentError: a bad argument (named in the message).
        lossrec.errors.OutputExistsError: an output file exists and ``force`` is false.
        KeyboardInterrupt: Ctrl-C, SIGTERM or SIGHUP; the run's namespaces are removed first.
    """
    _check_wire_args(scenario, sender, receiver, seed, trace, pcap, preset, sets, close, force)
    sides = SIDES if sender == "both" else (sender,)
    outputs = [_suffixed(x, s) if sender == "both" else x for s in sides for x in (trace, pcap)]
    check_new_files([x for x in outputs if not isinstance(x, bool)], force)
    if sender == "both":
        out: Dict[str, Result] = {}
        for s in SIDES:
            r = wire(scenario, s, receiver, seed, _suffixed(trace, s), _suffixed(pcap, s),
                     preset, sets, close, force)
            assert isinstance(r, Result)
            out[s] = r
        return out
    text, origin = load(scenario)
    if preset is not None or sets:
        text, origin = override_sender(text, origin, preset, sets or {}, "wire", "sets")
    trace_path = None if isinstance(trace, bool) else os.fspath(trace)
    pcap_path = None if pcap in (None, True, False) else os.fspath(pcap)  # type: ignore[arg-type]
    with _signals_interrupt():
        js, tr, pc = _core.wire_scenario(text, origin, seed, sender, receiver, trace is True,
                                         pcap is True, close, trace_path, pcap_path)
    trace_file = None if trace_path in (None, "-") else Path(trace_path)  # type: ignore[arg-type]
    return Result(js, tr, pc, trace_file=trace_file)


def _check_wire_args(scenario: Any, sender: Any, receiver: Any, seed: Any, trace: Any, pcap: Any,
                     preset: Any, sets: Any, close: Any, force: Any) -> None:
    """:func:`wire`'s arguments, each named in its error (see :mod:`lossrec._args`)."""
    fn = "wire"
    _args.scenario(fn, scenario)
    _args.choice(fn, "sender", sender, SIDES + ("both",))
    _args.choice(fn, "receiver", receiver, SIDES)
    _args.seed(fn, seed)
    _args.path_or_flag(fn, "trace", trace)
    _args.path_or_flag(fn, "pcap", pcap)
    check_preset_arg(fn, preset)
    _args.mapping(fn, "sets", sets)
    _args.choice(fn, "close", close, CLOSE)
    _args.boolean(fn, "force", force)


#: Signals that end a wire run as Ctrl-C does (SIGINT is Python's KeyboardInterrupt already).
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


def _interrupt(signum: int, _frame: Any) -> None:
    # An exception, so that the Rust loop's signal check (crates/py/src/wire.rs) stops the
    # run and its Drop guards remove the namespaces and devices before this propagates.
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """While a run goes: SIGTERM and SIGHUP raise KeyboardInterrupt instead of killing the
    process (their default action, which would leave the namespaces behind), unless the
    program installed its own handler. Only the main thread may set handlers; elsewhere
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) == signal.SIG_DFL:
            saved[sig] = signal.signal(sig, _interrupt)
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


def _suffixed(out: Any, side: str) -> Any:
    """A path with ``-<side>`` before its suffix (``-`` and flags unchanged)."""
    if isinstance(out, bool) or out is None or os.fspath(out) == "-":
        return out
    name = os.fspath(out)
    if name.endswith(".jsonl.zst"):  # a compound suffix stays whole (trace_io.SUFFIXES)
        return f"{name[:-len('.jsonl.zst')]}-{side}.jsonl.zst"
    base, ext = os.path.splitext(name)
    return f"{base}-{side}{ext}"
