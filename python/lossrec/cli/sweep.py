"""``lossrec sweep``: a scenario over every combination of ``--set`` values × repetitions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import click
import pandas as pd

from ..lab import sweeps
from ..lab.store import partial_dir
from ..lab.stream import is_dataset
from ..table import render
from .common import EXIT_INTERRUPTED, handle_errors, main


@main.command("sweep")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "sets", metavar="KEY=V1,V2,...", multiple=True,
              help="Sweep a dotted scenario key over these values (repeatable; every "
                   "combination runs), e.g. --set path.rtt_ms=10,20,40 --set sender.preset=rfc,linux-classic. "
                   "Values are integers, floats, true/false, or text (quote to force text).")
@click.option("--reps", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repetitions per point, each with its own seed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1),
              help="Threads for a local run (default: every core).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run the chunks on this Dask scheduler, e.g. tcp://127.0.0.1:8786.")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              metavar="FILE.csv|FILE.parquet|FOLDER",
              help="Write one row per flow. An interrupted sweep keeps its finished chunks in "
                   "FILE.partial/; the same command resumes it. A FOLDER (no suffix) gets a "
                   "Parquet partition per chunk as it finishes, with memory flat in the "
                   "number of scenarios.")
@click.option("--common-seeds", is_flag=True,
              help="The same seeds at every point (repetition i uses one seed everywhere).")
@click.option("--chunk-size", type=click.IntRange(min=1), metavar="N",
              help="Scenarios per chunk (default: about 1% of the sweep, at least 64).")
@click.option("--force", is_flag=True, help="Discard another sweep's partial results at FILE.partial/.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary on stderr.")
@handle_errors
def sweep_cmd(scenario: Path, sets: Sequence[str], reps: int, jobs: Optional[int],
              dask_address: Optional[str], output: Optional[Path], common_seeds: bool,
              chunk_size: Optional[int], force: bool, quiet: bool) -> None:
    """Run SCENARIO.toml at every combination of the --set values, --reps times each.

    \b
    Seeds derive from the scenario's seed, the point and the repetition index, so the
    results are identical whatever --jobs or --dask. With -o the rows are written to a
    CSV or Parquet file: a column per swept key, rep, seed, then the flow results (id,
    preset, bytes, fct_ms, data_packets_sent, retransmits, fast_recoveries, rtos,
    spurious_rtos, tlp_probes, undos, final_cwnd) and time_limit_hit. Without -o a
    summary per point is printed. A progress bar with ETA is shown on a terminal.

    \b
    Example:
      lossrec sweep experiments/examples/tail-loss.toml --set path.rtt_ms=10,40,160 \\
          --set sender.preset=rfc,linux-classic --reps 20 -o results.csv
    """
    params: Dict[str, List[Any]] = {}
    for item in sets:
        key, values = sweeps.parse_set(item)
        if key in params:
            raise ValueError(f"--set {key}: given twice; list every value in one --set {key}=V1,V2")
        params[key] = values
    progress = False if quiet else None
    try:
        df = sweeps.sweep(scenario, params, reps=reps, jobs=jobs, dask=dask_address, output=output,
                          progress=progress, common_seeds=common_seeds, chunk_size=chunk_size,
                          force=force)
    except KeyboardInterrupt:
        if output is not None and is_dataset(output) and output.exists():
            click.echo(f"\nlossrec: interrupted; finished partitions are in {output}/ "
                       f"— run the same command again to resume", err=True)
        elif output is not None and partial_dir(output).exists():
            click.echo(f"\nlossrec: interrupted; finished chunks are kept in {partial_dir(output)}/ "
                       f"— run the same command again to resume", err=True)
        else:
            click.echo("\nlossrec: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    a = df.attrs["sweep"]
    if output is not None:
        if not quiet:
            where = f"on {dask_address}" if dask_address else f"{a['jobs']} thread(s)"
            resumed = f", {a['resumed_chunks']} chunk(s) resumed" if a["resumed_chunks"] else ""
            click.echo(f"wrote {output}: {a.get('rows', len(df)):,} rows, {a['points']:,} point(s) × {reps} rep(s) = "
                       f"{a['scenarios']:,} scenarios in {a['wall_s']:.2f} s ({where}{resumed})", err=True)
        return
    click.echo(summary(df, list(params)))


def summary(df: pd.DataFrame, keys: List[str]) -> str:
    """Per point: flows, mean and median FCT, mean retransmits and RTOs, unfinished flows."""
    if df.empty:
        return "(no flows)"
    g = df.groupby(keys, sort=False, observed=True) if keys else df.groupby(lambda _: 0)
    rows = []
    for k, d in g:
        kv = list(k) if isinstance(k, tuple) else ([k] if keys else [])
        rows.append(kv + [len(d), d["fct_ms"].mean(), d["fct_ms"].median(), d["retransmits"].mean(),
                          d["rtos"].mean(), int(d["fct_ms"].isna().sum())])
    headers = keys + ["flows", "mean fct_ms", "median fct_ms", "rexmits", "RTOs", "unfinished"]
    return render(headers, rows, align_left=max(1, len(keys)))
