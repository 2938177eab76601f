"""The one runner every kind of sweep goes through: the chunks of a plan
(:mod:`lossrec.lab.plan`) run here on ``jobs`` threads or on a Dask cluster, each by a
*work* function ``work(specs, units, threads) -> result``:

* :func:`lossrec.lab.chunks.run_chunk` — the per-flow columns (:func:`lossrec.lab.sweep`);
* :func:`lossrec.lab.details.run_detailed` — every flow field and the recovery episodes
  (:func:`lossrec.lab.detailed_sweep`);
* :func:`lossrec.lab.tail.run_traced` — one summary row per traced run
  (:func:`lossrec.lab.tail.traced_sweep`).

A work function is a top-level function (Dask pickles it) whose result carries
``version``, the lossrec version of the worker that ran it: a worker of another version is
refused. Resume is the caller's: it passes only the chunks still to do.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import _core
from .plan import globalise

if TYPE_CHECKING:  # pragma: no cover
    from .plan import Plan, Unit
    from .store import ChunkStore

Work = Callable[..., Dict[str, Any]]
ProgressLike = Optional[Union[bool, Callable[[int, int], None]]]


def dispatch(plan: Any, todo: List[int], jobs: int, dask: Any,
             finished: Callable[[int, Dict[str, Any]], None], work: Optional[Work] = None) -> None:
    """Runs the chunks `todo` of `plan` here (`jobs` threads) or on a Dask cluster, each by
    `work` (default: :func:`lossrec.lab.chunks.run_chunk`), calling `finished(i, result)`
    as each completes; refuses a worker of another lossrec version."""
    from . import chunks

    if work is None:
        work = chunks.run_chunk  # looked up now: a test may replace it

    def checked(i: int, res: Dict[str, Any]) -> None:
        if res.get("version") != _core.__version__:
            raise ValueError(f"a worker runs lossrec {res.get('version')}, this client "
                             f"{_core.__version__}; install the same version everywhere")
        finished(i, res)

    if dask is not None:
        from .cluster import run_on_dask

        run_on_dask(dask, plan, todo, checked, work)
    else:
        for i in todo:
            gids, specs, units = plan.payload(i)
            checked(i, globalise(work(specs, units, jobs), gids))


def run_plan(plan: "Plan", jobs: int, dask: Any, *, work: Optional[Work] = None,
             store: Optional["ChunkStore"] = None,
             progress: Union[bool, Callable[[int, int], None]] = False) -> Tuple[List[Dict[str, Any]], int]:
    """Runs every chunk of ``plan`` by ``work`` (:func:`dispatch`), keeping each finished
    chunk in ``store`` when given — so that the same call after an interruption runs only
    the chunks still missing — and showing ``progress`` (a bar, a callback ``f(done,
    total)`` or nothing). Returns the chunk results in chunk order and how many were
    resumed from the store."""
    parts: Dict[int, Dict[str, Any]] = store.load() if store else {}
    resumed = len(parts)
    bar = _Progress(progress, plan.scenarios, sum(plan.chunk_scenarios(i) for i in parts))

    def finished(i: int, res: Dict[str, Any]) -> None:
        if store:
            store.save(i, res)
        parts[i] = res
        bar.update(plan.chunk_scenarios(i))

    todo = [i for i in range(len(plan.chunks)) if i not in parts]
    try:
        dispatch(plan, todo, jobs, dask, finished, work)
    finally:
        bar.close()
    return [parts[i] for i in range(len(plan.chunks))], resumed


def scenario_runs(specs: Sequence[Tuple[str, str, str]], units: Sequence["Unit"], threads: int,
                  one: Callable[[str, str, int], Any]) -> Dict[str, Any]:
    """Runs each scenario of a chunk by ``one(text, origin, seed)`` — one call into the
    simulator each, on ``threads`` threads (it releases the GIL) — with the seeds
    :func:`~lossrec.lab.plan.sweep_seed` gives, as the columns kind does. Returns the
    chunk result of the details and traced kinds: ``point`` (local), ``rep``, ``seed``,
    ``out`` (what ``one`` returned, per scenario, in point-major order), ``scenarios``,
    ``sim_wall_s`` and ``version``."""
    import numpy as np

    t0 = time.perf_counter()
    bases = [_core.validate_scenario(text, origin) for text, origin, _ in specs]
    tasks = [(p, r) for p, a, b in units for r in range(a, b)]
    seeds = [_core.sweep_seed(bases[p], specs[p][2], r) for p, r in tasks]

    def run(k: int) -> Any:
        text, origin, _ = specs[tasks[k][0]]
        return one(text, origin, seeds[k])

    if threads > 1 and len(tasks) > 1:
        with ThreadPoolExecutor(max_workers=threads) as ex:
            out = list(ex.map(run, range(len(tasks))))
    else:
        out = [run(k) for k in range(len(tasks))]
    return {"point": np.asarray([p for p, _ in tasks], dtype=np.int64),
            "rep": np.asarray([r for _, r in tasks], dtype=np.int64),
            "seed": np.asarray(seeds, dtype=np.int64), "out": out,
            "scenarios": len(tasks), "sim_wall_s": time.perf_counter() - t0,
            "version": _core.__version__}


def default_jobs() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _want_progress(progress: ProgressLike) -> Union[bool, Callable[[int, int], None]]:
    if progress is None:
        try:
            return sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False
    return progress


class _Progress:
    """tqdm on stderr (with ETA), a callback, or nothing."""

    def __init__(self, how: Union[bool, Callable[[int, int], None]], total: int, done: int):
        self.cb = how if callable(how) else None
        self.total, self.done = total, done
        self.bar = None
        if how is True:
            from tqdm.auto import tqdm  # a widget in notebooks, text on a terminal

            self.bar = tqdm(total=total, initial=done, unit="scenario",
                            file=sys.stderr, desc="sweep", dynamic_ncols=True, smoothing=0.1)

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        if self.cb is not None:
            self.cb(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
