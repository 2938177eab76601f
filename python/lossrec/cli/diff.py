"""``lossrec diff``: the differential test of the ``linux`` preset against the kernel."""

from __future__ import annotations

import json
import platform
import signal
import sys
from pathlib import Path
from typing import Any, Optional, Tuple

import click

from .common import EXIT_INTERRUPTED, fail, handle_errors, main


def _sigterm(*_: Any) -> None:
    # Turned into an exception so the wire's own cleanup (namespaces, devices) happens.
    raise KeyboardInterrupt


def _indices(text: Optional[str]) -> Tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        fail(f"--only: expected comma-separated pattern indices, got {text!r}")


@main.command("diff")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed of the pattern generator (the patterns are a pure function of it).")
@click.option("-n", "--patterns", "n", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many patterns (pattern 0 is the loss-free flow).")
@click.option("--only", metavar="I,J,...", help="Run only these pattern indices of the seed.")
@click.option("--kernel-runs", type=click.IntRange(min=1), default=3, show_default=True,
              help="Runs of the kernel's sender per pattern; their modal sequence is compared.")
@click.option("--engine-wire", is_flag=True,
              help="Also run the engine's sender through the wire and compare its sequence.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), metavar="REPORT.md",
              help="Write the Markdown report here (an existing file only with --force).")
@click.option("--force", is_flag=True, help="Overwrite an existing report file.")
@click.option("--list", "list_only", is_flag=True, help="Print the patterns and exit (runs nothing).")
@handle_errors
def diff_cmd(seed: int, n: int, only: Optional[str], kernel_runs: int, engine_wire: bool,
             as_json: bool, output: Optional[Path], force: bool, list_only: bool) -> None:
    """Hold the engine's `linux` preset against the kernel, pattern by pattern.

    \b
    Generates N exact-drop patterns from SEED (flow sizes, RTTs, drops among first and
    second transmissions: tail, burst, scattered, lost retransmission, lost probe; ACK
    drops; delayed or quick ACKs), runs each through the real wire with the kernel's
    sender (--kernel-runs times: the modal sequence counts) and through the simulator
    with the engine, and compares the transmission sequences, the FCT (within the
    kernel's timer granularity) and the counters (kernel nstat deltas vs the engine's).
    Patterns whose outcome the emulator's own timing decides (no modal kernel sequence,
    a µs race against min_rtt, the kernel's runs parting at or before the engine's first
    difference) are reported as ambiguous and not counted.
    Needs root and /dev/net/tun (except --list).
    """
    from ..lab.diff_patterns import patterns

    pats = patterns(seed, n, _indices(only))
    if list_only:
        for p in pats:
            click.echo(f"{p.name}: {p.describe()}")
        return
    if output is not None and output.exists() and not force:
        fail(f"{output} exists; pass --force to overwrite it")
    from ..realwire import unavailable

    why = unavailable()
    if why:
        fail(why)
    from ..lab import diff_report, differential

    signal.signal(signal.SIGTERM, _sigterm)

    def progress(o: differential.Outcome) -> None:
        click.echo(f"{o.pattern['name']}: {o.verdict} {o.why}", err=True)

    try:
        outs = differential.run_all(pats, kernel_runs, engine_wire, progress)
    except KeyboardInterrupt:
        click.echo("lossrec: interrupted; namespaces removed", err=True)
        sys.exit(EXIT_INTERRUPTED)
    meta = {"seed": seed, "patterns": len(pats), "kernel_runs": kernel_runs,
            "engine_wire": engine_wire, "kernel": platform.release(),
            "command": f"lossrec diff --seed {seed} -n {n} --kernel-runs {kernel_runs}"
                       + (f" --only {only}" if only else "") + (" --engine-wire" if engine_wire else "")}
    if output is not None:
        output.write_text(diff_report.markdown(outs, meta))
    if as_json:
        click.echo(json.dumps(differential.to_json(outs, meta), indent=2))
    else:
        click.echo(diff_report.table(outs))
