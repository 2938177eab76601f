"""``lossrec presets``: every preset and its axis values."""

from __future__ import annotations

import json

import click

from .. import api
from ..table import render
from .common import handle_errors, main


@main.command("presets")
@click.option("--json", "as_json", is_flag=True,
              help='Print [{"name", "summary", "axes": {axis: value}}, ...].')
@handle_errors
def presets_cmd(as_json: bool) -> None:
    """List every preset: a summary each, then axis rows × preset columns."""
    ps = api.presets()
    if as_json:
        click.echo(json.dumps([p._asdict() for p in ps], indent=2))
        return
    width = max(len(p.name) for p in ps)
    for p in ps:
        click.echo(f"{p.name.ljust(width)}  {p.summary}")
    click.echo()
    axes = list(dict.fromkeys(a for p in ps for a in p.axes))
    rows = [[a] + [p.axes.get(a, "") for p in ps] for a in axes]
    click.echo(render(["axis"] + [p.name for p in ps], rows, align_left=1 + len(ps)))
