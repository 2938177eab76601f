"""``lossrec wire``: a scenario through the real wire, the engine and/or Linux's sender."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import click

from ..outputs import check_new_files
from ..realwire import cleanup as wire_cleanup, unavailable as wire_unavailable, wire as run_wire
from ..result import Result
from ..sets import parse_sets
from ..table import render
import sys

from .common import EXIT_INTERRUPTED, fail, handle_errors, main
from .run import FLOW_COLUMNS, _suffixed


def _text(v: Any) -> str:
    """A parsed --set value back in the engine's text form (`true`, `40`, `rack`)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def _side_by_side(runs: Dict[str, Result]) -> str:
    names = list(runs)
    rows = []
    for head, key in FLOW_COLUMNS:
        if key in ("id", "preset"):
            continue
        rows.append([head] + [(r.json["flows"][0] if r.json["flows"] else {}).get(key)
                              for r in runs.values()])
    for head, get in (("timer p50 µs", lambda j: j["timer_lateness"]["p50_us"]),
                      ("timer p99 µs", lambda j: j["timer_lateness"]["p99_us"]),
                      ("delivery p99 µs", lambda j: j["delivery_lateness"]["p99_us"]),
                      ("goodput Mb/s", lambda j: j.get("goodput_mbps")),
                      ("engine CPU ns/packet", lambda j: j.get("engine_ns_per_packet")),
                      ("wall s", lambda j: j.get("wall_s"))):
        rows.append([head] + [get(r.json) for r in runs.values()])
    return render(["flow 0"] + names, rows, align_left=1)


def _notes(r: Result) -> str:
    k = r.json.get("kernel") or {}
    lines = []
    for side in ("sender", "receiver"):
        s = k.get(side)
        if s and s.get("not_applied"):
            lines.append(f"linux {side}: not applied: {', '.join(s['not_applied'])}")
    p = r.json["path"]
    if p["garbage"] or p["foreign"]:
        lines.append(f"emulator dropped {p['garbage']} garbage and {p['foreign']} foreign packets")
    if p.get("syns_on_open_connections"):
        lines.append(f"emulator saw {p['syns_on_open_connections']} SYNs on open connections")
    checks = {k: v for k, v in (r.json.get("acceptance") or {}).items() if v}
    if checks:
        lines.append("engine acceptance checks (RFC 5961): "
                     + ", ".join(f"{k} {v}" for k, v in checks.items()))
    return "\n".join(lines)


@main.command("wire")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--sender", type=click.Choice(["engine", "linux", "both"]), default="engine",
              show_default=True, help="Who sends: the engine, Linux's TCP, or both one after the other.")
@click.option("--receiver", type=click.Choice(["linux", "engine"]), default="linux",
              show_default=True, help="Who receives: a Linux socket, or the engine's Receiver.")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), help="Override the scenario's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.jsonl|FILE.jsonl.zst",
              help="Stream the JSON-lines trace to FILE as the run goes.")
@click.option("--pcap", "pcap_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.pcap",
              help="Stream the emulator's capture (both directions) to FILE as the run goes.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.png", help="Draw a time-sequence graph.")
@click.option("--preset", metavar="NAME", help="Run the sender under this preset.")
@click.option("--set", "sets", metavar="AXIS=VALUE", multiple=True, help="Set one sender axis.")
@click.option("--close", type=click.Choice(["after-ack", "after-write"]), default="after-ack",
              show_default=True,
              help="When the applications close: once every byte is acknowledged (nothing follows "
                   "the data, as in the simulator), or right after the write (a FIN on its own).")
@click.option("--force", is_flag=True, help="Overwrite existing --trace/--pcap/--plot files.")
@click.option("--cleanup", is_flag=True,
              help="Remove namespaces and devices left by wire runs whose process died, and exit.")
@handle_errors
def wire_cmd(scenario: Optional[Path], sender: str, receiver: str, seed: Optional[int],
             as_json: bool, trace_path: Optional[Path], pcap_path: Optional[Path],
             plot_path: Optional[Path], preset: Optional[str], sets: Sequence[str],
             close: str, force: bool, cleanup: bool) -> None:
    """Run SCENARIO.toml through the real wire: TUN devices, an emulated path, Linux.

    \b
    The path's [path] section is emulated in real time by lossrec itself (no netem); the
    engine sends as a user-space TCP endpoint, Linux from a network namespace with the
    scenario's sender settings applied where Linux has a knob (the rest are listed).
    Needs root and /dev/net/tun. Namespaces are named lossrec-<pid>-*, removed on exit,
    Ctrl-C, SIGTERM and SIGHUP; --cleanup removes those of a killed run (SIGKILL).
    An existing --trace/--pcap/--plot file is refused unless --force.
    """
    if cleanup:
        removed = wire_cleanup()
        click.echo(f"removed {len(removed)} namespace(s)" + (": " + ", ".join(removed) if removed else ""))
        return
    if scenario is None:
        fail("a SCENARIO.toml is needed (or --cleanup)")
    # Every output before anything is set up (one per sender with --sender both).
    tags = ["engine", "linux"] if sender == "both" else [None]
    check_new_files([p if t is None else _suffixed(p, t) for p in (trace_path, pcap_path, plot_path)
                     if p is not None for t in tags], force, "lossrec wire")
    why = wire_unavailable()
    if why:
        fail(why)
    try:
        overrides = parse_sets(sets, single=True)
    except ValueError as e:
        fail(str(e))
    # The wire takes sender axes (`--set min_rto_ms=40` or `--set sender.min_rto_ms=40`).
    others = [k for k in overrides if not k.startswith("sender.")]
    if others:
        fail(f"--set {others[0]}: `lossrec wire` takes sender axes only")
    axes = {k[len("sender."):]: _text(v) for k, v in overrides.items()}
    # The trace and capture stream to their files; a plot without --trace keeps the
    # trace in memory.
    want_trace: Any = trace_path if trace_path is not None else plot_path is not None
    try:
        res = run_wire(scenario, sender, receiver, seed, want_trace, pcap_path, preset, axes,
                       close, force)
    except KeyboardInterrupt:
        # The run stopped and removed its namespaces before this reached us.
        click.echo("lossrec: interrupted; namespaces removed", err=True)
        sys.exit(EXIT_INTERRUPTED)
    runs: Dict[str, Result] = res if isinstance(res, dict) else {sender: res}
    for name, r in runs.items():
        tag = (lambda p, n=name: _suffixed(p, n)) if len(runs) > 1 else (lambda p: p)
        if plot_path is not None:
            out = tag(plot_path)
            check_new_files([out], force, "--plot")  # checked before the run; again now
            # A streamed trace is read back from its file as a stream (Result.plot).
            r.plot(out, title=f"{scenario} ({name})")
    if as_json:
        out = {n: r.json for n, r in runs.items()} if len(runs) > 1 else next(iter(runs.values())).json
        click.echo(json.dumps(out, indent=2))
        return
    if len(runs) > 1:
        click.echo(f"{scenario}: side by side, same emulated path\n")
        click.echo(_side_by_side(runs))
    else:
        r = next(iter(runs.values()))
        rows = [[f.get(k) for _, k in FLOW_COLUMNS] for f in r.json["flows"]]
        lat = r.json["timer_lateness"]
        click.echo(f"{scenario}: {sender} → {receiver}, wall {r.json['wall_s']:.2f} s, timer "
                   f"lateness p50 {lat['p50_us']:.1f} µs p99 {lat['p99_us']:.1f} µs\n")
        click.echo(render([h for h, _ in FLOW_COLUMNS], rows, align_left=2))
    for name, r in runs.items():
        n = _notes(r)
        if n:
            click.echo("\n" + (f"[{name}] " if len(runs) > 1 else "") + n.replace("\n", "\n  "))
