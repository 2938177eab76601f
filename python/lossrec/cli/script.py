"""``lossrec script``: packetdrill-style scripts against the engine, in virtual time.

The engine is the local stack under test; the script plays the peer. See
``crates/script/README.md`` for the supported subset of packetdrill's language.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import _core
from . import complete
from .common import fail, handle_errors, main


def _collect(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.rglob("*.pkt"))
            if not found:
                fail(f"{p}: no *.pkt scripts in this folder")
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            fail(f"{p}: no such file or folder")
    return files


def _parse_sets(sets: tuple[str, ...]) -> list[tuple[str, str]]:
    """The one --set grammar (:mod:`lossrec.sets`); a script has only a sender, so only
    ``sender.<axis>`` keys (or bare axes) apply."""
    from ..sets import parse_sets

    out = []
    for key, value in parse_sets(sets, single=True).items():
        table, _, axis = key.partition(".")
        if table != "sender" or "." in axis or axis == "preset":
            fail(f"--set {key}: a script takes engine axes only (sender.<axis> or a bare axis; "
                 f"--preset for the preset)")
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        _core.check_axis(axis, text)
        out.append((axis, text))
    return out


@main.command("script")
@click.argument("paths", nargs=-1, required=True, metavar="FILE.pkt|DIR...")
@click.option("--preset", shell_complete=complete.presets,
              help="Engine preset (overrides the script's `// lossrec: preset=`).")
@click.option("--set", "sets", multiple=True, metavar="AXIS=VALUE",
              help="Set one engine axis, applied last (repeatable).")
@click.option("--tolerance-us", type=click.IntRange(min=0), default=None,
              help="Fixed timing tolerance in µs (default: 4000, or 12.5% of the gap).")
@click.option("--verbose", "-v", is_flag=True,
              help="Print every packet, call, event, and the knobs that have no effect here.")
@click.option("--lenient", is_flag=True,
              help="packetdrill's rule for outbound packets no line expects: they fail only when "
                   "a later `>` line meets them (default: at the first line after them).")
@click.option("--ignore-psh", is_flag=True,
              help="Do not compare PSH (Linux places it by how tcp_sendmsg cut the write into "
                   "socket buffers; the engine on the segment that ends a write).")
@handle_errors
def script_cmd(paths: tuple[str, ...], preset: str | None, sets: tuple[str, ...],
               tolerance_us: int | None, verbose: bool, lenient: bool, ignore_psh: bool) -> None:
    """Run packetdrill-syntax scripts against the engine; a folder runs every *.pkt in it.

    Prints PASS/FAIL per script (failures name the line, the expected and the actual
    packet) and a closing `N passed, M failed`; exits 1 if any failed.
    """
    if preset is not None:
        _core.preset(preset)  # an unknown preset is a usage error listing the valid ones
    set_pairs = _parse_sets(sets)
    passed = failed = 0
    for f in _collect(paths):
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            fail(f"{f}: not UTF-8 text")
        ok, report = _core.run_script(text, str(f), preset, set_pairs, tolerance_us, verbose,
                                      lenient, ignore_psh)
        click.echo(report, nl=not report.endswith("\n"))
        passed += ok
        failed += not ok
    click.echo(f"{passed} passed, {failed} failed")
    if failed:
        sys.exit(1)
