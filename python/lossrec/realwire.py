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

import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from . import _core
from .api import override_sender
from .result import Result
from .scenario import ScenarioLike, load

SIDES = ("engine", "linux")


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

    Raises:
        OSError: the machine cannot run the wire, or setting it up failed.
        ValueError: the scenario is invalid or uses what the wire does not support.
        KeyboardInterrupt: Ctrl-C; the run's namespaces are removed first.
    """
    if sender == "both":
        out: Dict[str, Result] = {}
        for s in SIDES:
            r = wire(scenario, s, receiver, seed, _suffixed(trace, s), _suffixed(pcap, s),
                     preset, sets, close)
            assert isinstance(r, Result)
            out[s] = r
        return out
    for what, v in (("sender", sender), ("receiver", receiver)):
        if v not in SIDES:
            raise ValueError(f"{what} must be one of {', '.join(SIDES)}" +
                             (" or both" if what == "sender" else "") + f", got {v!r}")
    text, origin = load(scenario)
    if preset is not None or sets:
        text, origin = override_sender(text, origin, preset, sets or {})
    trace_path = None if isinstance(trace, bool) else os.fspath(trace)
    pcap_path = None if pcap in (None, True, False) else os.fspath(pcap)  # type: ignore[arg-type]
    js, tr, pc = _core.wire_scenario(text, origin, seed, sender, receiver, trace is True,
                                     pcap is True, close, trace_path, pcap_path)
    trace_file = None if trace_path in (None, "-") else Path(trace_path)  # type: ignore[arg-type]
    return Result(js, tr, pc, trace_file=trace_file)


def _suffixed(out: Any, side: str) -> Any:
    """A path with ``-<side>`` before its suffix (``-`` and flags unchanged)."""
    if isinstance(out, bool) or out is None or os.fspath(out) == "-":
        return out
    base, ext = os.path.splitext(os.fspath(out))
    return f"{base}-{side}{ext}"
