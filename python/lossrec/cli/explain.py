"""``lossrec explain``: why every data packet of a captured TCP connection was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from .common import fail, handle_errors, main


@main.command("explain")
@click.argument("capture", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--preset", default="linux", show_default=True,
              help="The engine preset whose decisions the capture is held against.")
@click.option("--flow", metavar="A:P-B:P", help="Only this connection (either order).")
@click.option("--app", type=click.Choice(["seen", "bulk"]), default="seen", show_default=True,
              help="Application data: available when the capture first shows it, or all "
                   "at the start (a bulk transfer).")
@click.option("--json", "as_json", is_flag=True,
              help="Print {report, transmissions: [one record per transmission]} as JSON.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Time-sequence graph of the first connection, by cause.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Stream one JSON line per transmission here as decided.")
@click.option("--force", is_flag=True, help="Overwrite existing --plot/--trace files.")
@handle_errors
def explain_cmd(capture: Path, preset: str, flow: Optional[str], app: str, as_json: bool,
                plot_path: Optional[Path], trace_path: Optional[Path], force: bool) -> None:
    """Label every data transmission of CAPTURE (pcap or pcapng) with the engine's cause.

    \b
    Reconstructs each TCP connection (Ethernet, VLAN, Linux cooked, raw IP; IPv4 and
    IPv6; TSO super-packets split by MSS) and runs the engine with PRESET against its
    captured ACKs at their capture times. A transmission the preset makes too is
    labelled with its cause (new, limited_transmit, fast_retransmit, rack,
    rack_reo_timer, early_retransmit, probe_new/probe_retransmit, rto with its backoff,
    loss_retransmit, frto_new); one it would not have made is a divergence, reported
    with the engine's state there, after which the engine follows the capture again.
    Prints a per-connection table; the capture should be taken at the data sender.
    """
    from ..outputs import check_new_file
    from .. import capture as ex

    check_new_file(trace_path, force, "--trace")
    check_new_file(plot_path, force, "--plot")
    if plot_path is not None:
        from ..plot import check_output

        try:
            check_output(plot_path)
        except ValueError as e:
            fail(str(e))
    keep = as_json or plot_path is not None
    try:
        report, rows = ex.run(capture, preset, flow, app,
                              str(trace_path) if trace_path is not None else None, keep)
    except ValueError as e:
        fail(str(e))
    if as_json:
        click.echo(json.dumps({"report": report, "transmissions": rows}))
    else:
        click.echo(ex.table(report))
    if plot_path is not None and report["connections"]:
        ex.plot(ex.frame(rows), plot_path)
