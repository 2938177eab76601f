"""``lossrec scenario``: every scenario key with its default and meaning."""

from __future__ import annotations

import click

from .. import _core
from .common import handle_errors, main


@main.command("scenario")
@click.option("--defaults", is_flag=True, help="Print every key with its default and meaning (annotated TOML).")
@click.option("--schema", is_flag=True,
              help="Print the JSON Schema of scenario files (for editors: taplo, Even Better TOML).")
@click.option("--check", "check", metavar="FILE.toml|-", help="Validate a scenario file without running it.")
@handle_errors
def scenario_cmd(defaults: bool, schema: bool, check: str | None) -> None:
    """Scenario files: every key's default and meaning (--defaults), their JSON Schema
    (--schema), or a check of one file (--check).

    \b
    The reference is the simulator's own documentation of its scenario format, so it
    cannot drift from what the parser accepts.
    """
    if check is not None:
        from ..api import validate

        seed = validate(check)
        click.echo(f"{check}: valid (seed {seed})")
        return
    if schema:
        click.echo(_core.scenario_schema())
        return
    if not defaults:
        raise click.UsageError("give --defaults, --schema or --check FILE")
    click.echo(_core.scenario_reference())
