"""``lossrec replay``: the path a captured connection saw, run under other presets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Tuple

import click

from .common import fail, handle_errors, main


@main.command("replay")
@click.argument("capture", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--preset", "presets", multiple=True, metavar="NAME",
              help="Run the inferred path under this preset (repeatable; default linux).")
@click.option("--flow", metavar="A:P-B:P", help="Only this connection (either order).")
@click.option("--json", "as_json", is_flag=True,
              help="Print {rows, paths: [inferred path per connection], scenarios} as JSON.")
@handle_errors
def replay_cmd(capture: Path, presets: Tuple[str, ...], flow: Optional[str], as_json: bool) -> None:
    """Infer the path each connection of CAPTURE saw and run it under each PRESET.

    \b
    From the ACK and SACK evidence: the RTT (handshake), the bottleneck rate (ACK
    spacing), each transmission's fate (delivered or lost: lost ones become exact drops
    of that range's n-th transmission), delayed or per-segment ACKs. Prints the capture's
    FCT, retransmissions, timeouts (as explain labels them under the first preset) and spurious
    retransmissions (DSACKed) beside each preset's, and every packet whose fate the
    evidence does not settle, with the reading taken.
    """
    from ..replay_capture import replay, table
    from ..api import check_presets

    names = list(presets) or ["linux"]
    try:
        check_presets(names)
        df = replay(capture, presets=names, flow=flow)
    except ValueError as e:
        fail(str(e))
    if as_json:
        rows = json.loads(df.to_json(orient="records"))
        click.echo(json.dumps({"rows": rows, "paths": df.attrs["paths"],
                               "scenarios": df.attrs["scenarios"]}))
        return
    click.echo(table(df))
