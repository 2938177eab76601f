"""``lossrec reproduce``: run a seed's experiments and compare with the published numbers."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import List, Optional

import click

from ..lab import studies
from ..lab import calibration, frozen
from ..lab.jobs import PARTIAL, Progress, StudyJob, scenarios
from ..table import render
from . import complete
from .common import EXIT_INTERRUPTED, fail, handle_errors, main


@main.command("reproduce")
@click.argument("name", required=False, shell_complete=complete.studies)
@click.option("--all", "run_all", is_flag=True, help="Run every study and write DIR/index.md.")
@click.option("--list", "list_only", is_flag=True, help="List the studies with their seeds and titles.")
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out"),
              show_default=True, help="Write DIR/<study>/{report.md, *.png, *.svg, results.parquet, run.json}.")
@click.option("--quick", is_flag=True, help="The reduced version (fewer points and repetitions), for CI.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Threads (default: every core).")
@click.option("--experiments", type=click.Path(file_okay=False, exists=True, path_type=Path),
              metavar="DIR", help="Where the studies are (default: ./experiments, or a parent's).")
@click.option("--fresh", is_flag=True,
              help="Rerun every study even if DIR holds a finished or interrupted run of it.")
@click.option("--freeze", is_flag=True,
              help="Write this run's verdicts as the studies' expected ones (experiments/<study>/"
                   "expected.toml, for this mode); review the diff before committing.")
@click.option("--force", is_flag=True,
              help="Write into DIR/NAME/ even if it holds files lossrec did not write (they are "
                   "kept; only the files of lossrec's previous run there are replaced).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@click.option("--progress/--no-progress", "progress_opt", default=None,
              help="Force the progress bars on (even off a terminal) or off.")
@handle_errors
def reproduce_cmd(name: Optional[str], run_all: bool, list_only: bool, out: Path, quick: bool,
                  jobs: Optional[int], experiments: Optional[Path], fresh: bool, freeze: bool,
                  force: bool, quiet: bool, progress_opt: Optional[bool]) -> None:
    """Reproduce study NAME (a folder of experiments/) and write its report.

    \b
    The report (DIR/NAME/report.md) says what was run and gives, per published claim,
    the seed's number beside ours with a verdict: holds, does not hold, not significant
    (inside the noise of the repetitions), not comparable, or seed inconsistent (the seed
    contradicts itself), and why; calibration checks of the workload are reported apart.
    Verdicts that differ from the frozen ones (experiments/NAME/expected.toml) are printed.
    Figures are written as PNG and SVG, the rows as results.parquet, the provenance and
    verdicts as run.json.

    \b
    A long run shows progress with ETA (per study and overall) and can be interrupted:
    the same command resumes it (finished studies and sweeps are kept; a folder under DIR
    is only ever a finished study).

    \b
    lossrec replaces only what it wrote: DIR/NAME/.lossrec-files.json lists the files of
    its last run there. A DIR/NAME/ holding other files is refused unless --force, which
    writes beside them and keeps them.

    \b
    lossrec reproduce --list
    lossrec reproduce classic-baseline -o out
    lossrec reproduce --all --quick -o out      (what CI runs)
    lossrec reproduce --all --freeze            (re-freeze the full verdicts; see scripts/freeze-verdicts.sh)
    """
    if sum(bool(x) for x in (name, run_all, list_only)) != 1:
        fail("give a study NAME, --all or --list (lossrec reproduce --list shows the studies)")
    if list_only:
        rows = studies.list_studies(experiments)
        click.echo(render(["study", "seed", "title"], rows, align_left=3))
        return
    show = False if quiet else (progress_opt if progress_opt is not None else sys.stderr.isatty())
    t0 = time.perf_counter()
    try:
        if run_all:
            def note(n: str) -> None:
                if not quiet and not show:
                    click.echo(f"reproducing {n}{' (quick)' if quick else ''} ...", err=True)

            index = studies.reproduce_all(out, quick=quick, jobs=jobs, root=experiments,
                                          progress=show, on_study=note, resume=not fresh,
                                          freeze=freeze, force=force)
            _print_diffs([studies.load_study(n, experiments) for n in studies.find_studies(experiments)],
                         out, quick, freeze)
            click.echo(f"wrote {index} ({time.perf_counter() - t0:.1f} s)")
            return
        assert name is not None
        study = studies.load_study(name, experiments)
        if not quiet:
            click.echo(f"reproducing {name}{' (quick)' if quick else ''}: {study.title} ...", err=True)
        bar = Progress(show, sum(scenarios(s) for s in study.sweeps(quick)))
        try:
            report, verdicts = studies.run_study(study, out, quick, jobs, bar, resume=not fresh,
                                                 freeze=freeze, force=force)
        finally:
            bar.close()
    except KeyboardInterrupt:
        click.echo(f"\nlossrec: interrupted; finished studies are in {out}/, finished sweeps in "
                   f"{out / PARTIAL}/ — run the same command again to resume", err=True)
        sys.exit(EXIT_INTERRUPTED)
    rows = [[v.claim, v.verdict, v.ours] for v in verdicts]  # type: ignore[misc]
    click.echo(render(["claim", "verdict", "ours"], rows, align_left=3))
    _print_diffs([study], out, quick, freeze)
    n, cal = frozen.counts(study.claims_published, verdicts)
    extra = f"; calibration and cross-checks: {frozen.counts_text(cal)}" if sum(cal.values()) else ""
    done = StudyJob(out, study, quick).finished()
    checks = (done or {}).get("calibration") or []
    if checks:
        extra += "; workload calibration: " + calibration.counts_text(
            {s: sum(c["status"] == s for c in checks) for s in calibration.STATUSES})
    click.echo(f"\nwrote {report} ({frozen.counts_text(n)}{extra}; {time.perf_counter() - t0:.1f} s)")


def _print_diffs(sts: List[studies.Study], out: Path, quick: bool, froze: bool) -> None:
    """Every verdict that differs from the frozen one, and what a quick run cannot judge."""
    diff: List[List[str]] = []
    cannot: List[List[str]] = []
    unfrozen: List[str] = []
    for s in sts:
        run = StudyJob(out, s, quick).finished()
        exp = frozen.load(s)
        if run is None:
            continue
        if not exp and not froze:
            unfrozen.append(s.name)
            continue
        diff += [[s.name, c, e, g] for c, e, g in frozen.differences(exp, StudyJob.verdicts(run), quick)]
        cannot += [[s.name, c, f, q] for c, f, q in frozen.quick_cannot_judge(exp)]
    if froze:
        click.echo(f"froze the {'quick' if quick else 'full'} verdicts of {len(sts)} stud"
                   f"{'y' if len(sts) == 1 else 'ies'} (experiments/<study>/expected.toml)", err=True)
    elif diff:
        click.echo(f"\n{len(diff)} verdict(s) differ from the frozen ones (expected.toml):")
        click.echo(render(["study", "claim", "frozen", "this run"], diff, align_left=4))
    if unfrozen:
        click.echo(f"\nno expected.toml (nothing frozen) for: {', '.join(unfrozen)}")
    if quick and cannot:
        click.echo(f"\nthe quick run cannot judge {len(cannot)} claim(s) (frozen quick ≠ full verdict):")
        click.echo(render(["study", "claim", "full", "quick"], cannot, align_left=4))
