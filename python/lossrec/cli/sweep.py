"""``lossrec sweep``: a scenario over every combination of ``--set`` values × repetitions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

import click

from ..sets import parse_sets
from ..lab.stream import is_dataset
from . import complete
from .common import EXIT_INTERRUPTED, handle_errors, main

if TYPE_CHECKING:
    import pandas as pd


@main.command("sweep")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "sets", metavar="KEY=V1,V2,...", multiple=True, shell_complete=complete.set_keys,
              help="Sweep a dotted scenario key over these values (repeatable; every "
                   "combination runs), e.g. --set path.rtt_ms=10:640:x2 --set preset=rfc,linux-classic "
                   "--set path.loss.packets=[2,3],[4]. A bare axis means sender.<axis>; values use "
                   "TOML's grammar; START:STOP:STEP ranges (x2 geometric, +25 arithmetic).")
@click.option("--reps", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repetitions per point, each with its own seed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1),
              help="Threads for a local run (default: every core).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run the chunks on this Dask scheduler, e.g. tcp://127.0.0.1:8786.")
@click.option("-o", "--output", type=click.Path(path_type=Path, allow_dash=True),
              metavar="FILE.csv|FILE.parquet|FOLDER|-",
              help="Write one row per flow (- : CSV on stdout). An interrupted sweep keeps its "
                   "finished chunks in FILE.partial/; the same command resumes it. A FOLDER (no "
                   "suffix) gets a Parquet partition per chunk as it finishes, with memory flat "
                   "in the number of scenarios.")
@click.option("--common-seeds", is_flag=True,
              help="The same seeds at every point (repetition i uses one seed everywhere).")
@click.option("--chunk-size", type=click.IntRange(min=1), metavar="N",
              help="Scenarios per chunk (default: about 1% of the sweep, at least 64).")
@click.option("--force", is_flag=True,
              help="Overwrite an existing FILE (refused otherwise), discard another sweep's partial "
                   "results at FILE.partial/, or replace another sweep's partitions in FOLDER "
                   "(files lossrec did not write there are kept).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary on stderr.")
@click.option("--progress/--no-progress", "progress_opt", default=None,
              help="Force the progress bar on (even off a terminal) or off.")
@click.option("--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
              help="Confidence level of the summary's intervals.")
@handle_errors
def sweep_cmd(scenario: Path, sets: Sequence[str], reps: int, jobs: Optional[int],
              dask_address: Optional[str], output: Optional[Path], common_seeds: bool,
              chunk_size: Optional[int], force: bool, quiet: bool, progress_opt: Optional[bool],
              confidence: float) -> None:
    """Run SCENARIO.toml at every combination of the --set values, --reps times each.

    \b
    Seeds derive from the scenario's seed, the point and the repetition index, so the
    results are identical whatever --jobs or --dask. With -o the rows are written to a
    CSV or Parquet file: a column per swept key, rep, seed, then the flow results (id,
    preset, bytes, fct_ms and every other field of the flow schema `lossrec run --json`
    reports) and time_limit_hit; the file carries lossrec's version, the commit, the
    scenario's hash and the seeds. Without -o a summary per point is printed: n, mean
    with its confidence interval, p50, p95 and p99 of fct_ms, and mean retransmits and
    RTOs. A progress bar with ETA is shown on a terminal (--progress forces it).

    \b
    Example:
      lossrec sweep experiments/examples/tail-loss.toml --set path.rtt_ms=10,40,160 \\
          --set sender.preset=rfc,linux-classic --reps 20 -o results.csv
    """
    from ..lab import sweeps
    from ..lab.store import partial_dir

    params: Dict[str, List[Any]] = parse_sets(sets)
    progress = False if quiet else progress_opt
    to_stdout = output is not None and str(output) == "-"
    if to_stdout:
        output = None
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
    if to_stdout:
        df.to_csv(sys.stdout, index=False)
        return
    a = df.attrs["sweep"]
    if output is not None:
        if not quiet:
            where = f"on {dask_address}" if dask_address else f"{a['jobs']} thread(s)"
            resumed = f", {a['resumed_chunks']} chunk(s) resumed" if a["resumed_chunks"] else ""
            click.echo(f"wrote {output}: {a.get('rows', len(df)):,} rows, {a['points']:,} point(s) × {reps} rep(s) = "
                       f"{a['scenarios']:,} scenarios in {a['wall_s']:.2f} s ({where}{resumed})", err=True)
        return
    click.echo(summary(df, list(params), confidence))


def summary(df: "pd.DataFrame", keys: List[str], confidence: float = 0.95) -> str:
    """Per point: flows, FCT's n, mean, CI over repetitions, p50, p95, p99, mean
    retransmits and RTOs, unfinished flows (:func:`lossrec.summary.sweep_table`)."""
    from ..summary import sweep_table

    return sweep_table(df, keys, confidence)
