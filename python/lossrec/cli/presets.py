"""``lossrec presets [NAME...]``: the presets, or one preset's axis values."""

from __future__ import annotations

import json
import shutil
import textwrap
from typing import Sequence

import click

from .. import api
from ..table import render
from . import complete
from .common import handle_errors, main


@main.command("presets")
@click.argument("names", nargs=-1, metavar="[NAME...]", shell_complete=complete.presets)
@click.option("--json", "as_json", is_flag=True,
              help='Print [{"name", "summary", "axes": {axis: value}}, ...].')
@click.option("--matrix", is_flag=True, help="Every axis × every preset in one table (wide).")
@handle_errors
def presets_cmd(names: Sequence[str], as_json: bool, matrix: bool) -> None:
    """List the presets (a summary each), or show NAME's value on every axis.

    \b
    lossrec presets                 names and summaries, wrapped to the terminal
    lossrec presets rack-tlp        its axes, one per line
    lossrec presets rfc linux       side by side
    """
    for n in names:
        api.check_preset(n)
    ps = [p for p in api.presets() if not names or p.name in names]
    if as_json:
        click.echo(json.dumps([p._asdict() for p in ps], indent=2))
        return
    if names or matrix:
        axes = list(dict.fromkeys(a for p in ps for a in p.axes))
        rows = [[a] + [p.axes.get(a, "") for p in ps] for a in axes]
        if len(ps) == 1:
            click.echo(f"{ps[0].name}: {ps[0].summary}\n")
        click.echo(render(["axis"] + [p.name for p in ps], rows, align_left=1 + len(ps)))
        return
    cols = max(60, min(shutil.get_terminal_size((80, 24)).columns, 120))
    width = max(len(p.name) for p in ps)
    for p in ps:
        lines = textwrap.wrap(p.summary, cols - width - 2) or [""]
        click.echo(f"{p.name.ljust(width)}  {lines[0]}")
        for line in lines[1:]:
            click.echo(f"{'':{width}}  {line}")
    click.echo("\n`lossrec presets NAME` shows a preset's axes; --matrix all of them side by side.")
