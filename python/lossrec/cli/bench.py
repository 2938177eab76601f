"""``lossrec bench``: simulator throughput, against the targets and ns-3.37."""

from __future__ import annotations

import json
from typing import Optional

import click

from .. import _core, api
from ..table import render
from .common import handle_errors, main

#: (benchmark, headline metric, unit) in display order.
HEADLINES = (("bulk", "data_packets_per_s", "data packets/s"), ("short_flows", "flows_per_s", "flows/s"))

DESCRIPTIONS = {
    "bulk": "1 flow, 100 Mb/s, 40 ms RTT, 333-packet queue, 1% loss, preset rfc, 60 s bulk",
    "short_flows": "10,000 sequential 10-segment flows, 10 Mb/s, 40 ms RTT, tail loss, handshake",
}


@main.command("bench")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"bulk": {"data_packets_per_s", "events_per_s", "wall_s", "runs"}, '
                   '"short_flows": {"flows_per_s", "wall_s", "runs"}}.')
@click.option("--only", type=click.Choice(api.BENCHMARKS), help="Run one benchmark.")
@handle_errors
def bench_cmd(as_json: bool, only: Optional[str]) -> None:
    """Measure simulator throughput (each benchmark runs for at least 1 s of wall time)."""
    if _core.debug_build():
        click.echo("lossrec: warning: the extension is a debug build; numbers will be low "
                   "(use `pip install .` or `maturin develop --release`)", err=True)
    names = (only,) if only else api.BENCHMARKS
    res = {}
    for n in names:
        if not as_json:
            click.echo(f"running {n}: {DESCRIPTIONS[n]} ...", err=True)
        res.update(api.bench(n))
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    rows = []
    for n, metric, unit in HEADLINES:
        if n not in res:
            continue
        got = res[n][metric]
        target = api.BENCH_TARGETS[n][metric]
        ns3 = api.BENCH_NS3[n][metric]
        rows.append([n, unit, round(got), f">= {target:,}", f"~{ns3:,}", f"{got / ns3:,.0f}x",
                     "yes" if got >= target else "NO", f"{res[n]['wall_s']:.2f}"])
    click.echo(render(["benchmark", "metric", "measured", "target", "ns-3.37", "vs ns-3",
                       "meets target", "wall_s"], rows, align_left=2))
    if "bulk" in res:
        click.echo(f"\nbulk: {res['bulk']['events_per_s']:,.0f} simulator events/s "
                   f"over {res['bulk']['runs']} run(s)")
    click.echo("ns-3.37 reference: the same scenarios measured on the development machine.")
