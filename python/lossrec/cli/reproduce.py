"""``lossrec reproduce``: run a seed's experiments and compare with the published numbers."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import click

from ..lab import studies
from ..lab.claims import FAILS, HOLDS, NOT_COMPARABLE
from ..table import render
from . import complete
from .common import EXIT_INTERRUPTED, fail, handle_errors, main


@main.command("reproduce")
@click.argument("name", required=False, shell_complete=complete.studies)
@click.option("--all", "run_all", is_flag=True, help="Run every study and write DIR/index.md.")
@click.option("--list", "list_only", is_flag=True, help="List the studies with their seeds and titles.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out"),
              show_default=True, help="Write DIR/<study>/{report.md, *.png, *.svg, results.csv}.")
@click.option("--quick", is_flag=True, help="The reduced version (fewer points and repetitions), for CI.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Threads (default: every core).")
@click.option("--experiments", type=click.Path(file_okay=False, exists=True, path_type=Path),
              metavar="DIR", help="Where the studies are (default: ./experiments, or a parent's).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@handle_errors
def reproduce_cmd(name: Optional[str], run_all: bool, list_only: bool, out: Path, quick: bool,
                  jobs: Optional[int], experiments: Optional[Path], quiet: bool) -> None:
    """Reproduce study NAME (a folder of experiments/) and write its report.

    \b
    The report (DIR/NAME/report.md) says what was run and gives, per published claim,
    the seed's number beside ours with a verdict: holds, does not hold, or not
    comparable, and why. Figures are written as PNG and SVG, the rows as results.csv.

    \b
    lossrec reproduce --list
    lossrec reproduce classic-baseline -o out
    lossrec reproduce --all --quick -o out      (what CI runs)
    """
    if sum(bool(x) for x in (name, run_all, list_only)) != 1:
        fail("give a study NAME, --all or --list (lossrec reproduce --list shows the studies)")
    if list_only:
        rows = studies.list_studies(experiments)
        click.echo(render(["study", "seed", "title"], rows, align_left=3))
        return
    progress = False if quiet else None
    t0 = time.perf_counter()
    try:
        if run_all:
            def note(n: str) -> None:
                if not quiet:
                    click.echo(f"reproducing {n}{' (quick)' if quick else ''} ...", err=True)

            index = studies.reproduce_all(out, quick=quick, jobs=jobs, root=experiments,
                                          progress=progress, on_study=note)
            click.echo(f"wrote {index} ({time.perf_counter() - t0:.1f} s)")
            return
        assert name is not None
        study = studies.load_study(name, experiments)
        if not quiet:
            click.echo(f"reproducing {name}{' (quick)' if quick else ''}: {study.title} ...", err=True)
        report, verdicts = studies.run_study(study, out, quick, jobs, progress)
    except KeyboardInterrupt:
        click.echo("\nlossrec: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    rows = [[v.claim, v.verdict, v.ours] for v in verdicts]  # type: ignore[misc]
    click.echo(render(["claim", "verdict", "ours"], rows, align_left=3))
    n = {k: sum(v.verdict == k for v in verdicts) for k in (HOLDS, FAILS, NOT_COMPARABLE)}
    click.echo(f"\nwrote {report} ({n[HOLDS]} hold, {n[FAILS]} do not hold, "
               f"{n[NOT_COMPARABLE]} not comparable; {time.perf_counter() - t0:.1f} s)")
