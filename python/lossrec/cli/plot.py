"""``lossrec plot``: CDFs and summaries from a sweep's results, time-sequence and state
graphs from traces (several overlaid in one panel with --overlay)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import click

from .common import handle_errors, main


@main.command("plot")
@click.argument("inputs", nargs=-1, required=True, metavar="RESULTS.csv|.parquet|TRACE.jsonl|.jsonl.zst...")
@click.option("-o", "--output", required=True, metavar="FILE.png|.svg|.pdf|-",
              help="Where to draw; the suffix picks the format (png, svg, pdf, jpg, ...; "
                   "others are refused), - : PNG on stdout.")
@click.option("--metric", default="fct_ms", show_default=True, help="Results: the column to plot.")
@click.option("--by", "by", metavar="COLUMN", multiple=True,
              help="Results: one curve per value of this column (repeatable), e.g. --by sender.preset.")
@click.option("--kind", type=click.Choice(["cdf", "summary"]), default="cdf", show_default=True,
              help="Results: a CDF per group, or mean with its confidence interval and p50/p95/p99.")
@click.option("--xscale", type=click.Choice(["auto", "log", "linear"]), default="auto", show_default=True,
              help="Results: the CDF's x axis; auto is log when the values span 1.5 decades (max/min ≥ 30).")
@click.option("--flows", "flows", metavar="IDS", help="Traces: these flows (e.g. 0,3 or 0:9).")
@click.option("--window", "window", metavar="START:END", help="Traces: this time window, seconds.")
@click.option("--overlay", is_flag=True, help="Traces: draw every trace in one panel.")
@click.option("--force", is_flag=True, help="Overwrite an existing FILE (refused otherwise).")
@handle_errors
def plot_cmd(inputs: Sequence[str], output: str, metric: str, by: Sequence[str], kind: str,
             xscale: str, flows: Optional[str], window: Optional[str], overlay: bool,
             force: bool) -> None:
    """Draw a sweep's results or one or more traces.

    \b
    lossrec plot results.csv --by sender.preset -o fct-cdf.png
    lossrec plot results.parquet --by path.rtt_ms --kind summary -o fct.png
    lossrec plot a.jsonl b.jsonl --overlay --flows 0 -o ab.png

    An existing FILE is refused unless --force.
    """
    from ..outputs import check_new_file

    check_new_file(output, force, "-o")
    suffixes = {".jsonl" if i.lower().endswith(".jsonl.zst") else Path(i).suffix.lower() for i in inputs}
    if suffixes <= {".csv", ".parquet"}:
        from ..plot_results import plot_results, read_results

        df = read_results(inputs)
        plot_results(df, output, metric=metric, by=list(by), kind=kind, xscale=xscale)
    elif suffixes <= {".jsonl", ".json", ""}:
        from ..plot import check_output, parse_flows, parse_window, time_sequence
        from ..result import parse_jsonl

        check_output(output)
        # Files are read as streams (memory flat in their length); stdin is read once.
        from ..trace_io import stem

        traces = {stem(i) if i != "-" else "stdin": parse_jsonl(_read(i)) if i == "-" else Path(i)
                  for i in inputs}
        time_sequence(traces if len(traces) > 1 else next(iter(traces.values())), output,
                      flows=parse_flows(flows) if flows else None,
                      window=parse_window(window) if window else None, overlay=overlay)
    else:
        raise ValueError(f"cannot plot {', '.join(inputs)}: give a sweep's .csv/.parquet "
                         f"results or .jsonl/.jsonl.zst traces, not both")
    click.echo("wrote a PNG to stdout" if output == "-" else f"wrote {output}", err=True)


def _read(name: str) -> str:
    if name == "-":
        import sys

        return sys.stdin.read()
    from ..trace_io import read_text

    return read_text(name)
