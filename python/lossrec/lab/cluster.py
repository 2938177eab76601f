"""Running sweep chunks on a Dask distributed cluster.

Each chunk becomes one task calling :func:`lossrec.lab.sweep.run_chunk` on a worker (one
thread per task: the worker's own threads give the parallelism). Results come back as
numpy arrays in whatever order the workers finish; the caller keys them by chunk index,
so the final DataFrame is in the same order as a local run's.

Tasks are submitted a window at a time (a few per worker thread, refilled as each
finishes), and each result is handed over and released as it arrives: the client holds
a bounded number of chunks whatever the sweep's size, which is what lets a streaming
sweep (:mod:`lossrec.lab.stream`) keep its memory flat through Dask too.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .plan import Plan


def _client(dask: Any) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--dask needs the distributed package: pip install 'lossrec[dask]'") from None
    if isinstance(dask, Client):
        return dask, False
    if not isinstance(dask, str) or not dask.strip():
        raise ValueError(f"dask must be a scheduler address such as tcp://127.0.0.1:8786 or a "
                         f"distributed.Client, not {dask!r}")
    try:
        return Client(dask, timeout="10s", set_as_default=False), True
    except (OSError, TimeoutError) as e:
        raise ValueError(f"cannot reach the Dask scheduler at {dask}: {e}") from None


#: Tasks in flight per worker thread.
PER_THREAD = 4


def _window(client: Any) -> int:
    try:
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
    except Exception:  # an old scheduler's info: fall back to a fixed window
        threads = 0
    return max(8, PER_THREAD * threads)


def run_on_dask(dask: Any, plan: "Plan", todo: List[int],
                finished: Callable[[int, Dict[str, Any]], None],
                work: Callable[..., Dict[str, Any]]) -> None:
    """Submits chunks ``todo`` of ``plan``, each to be run by ``work`` on a worker (one
    thread: the workers' own threads are the parallelism), and calls ``finished(i,
    result)`` as each completes."""
    from distributed import as_completed

    from .plan import globalise

    client, own = _client(dask)
    futures: Dict[Any, Any] = {}
    pending = iter(todo)

    def submit() -> Any:
        i = next(pending, None)
        if i is None:
            return None
        gids, specs, units = plan.payload(i)
        fut = client.submit(work, specs, units, 1, pure=False)
        futures[fut] = (i, gids)
        return fut

    try:
        first = [f for f in (submit() for _ in range(_window(client))) if f is not None]
        done = as_completed(first, loop=client.loop)
        for fut in done:
            i, gids = futures.pop(fut)
            res = fut.result()
            fut.release()
            nxt = submit()
            if nxt is not None:
                done.add(nxt)
            finished(i, globalise(res, gids))
    finally:
        if own:
            client.close()
        else:
            client.cancel(list(futures))
