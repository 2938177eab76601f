"""Running sweep chunks on a Dask distributed cluster.

Each chunk becomes one task calling :func:`lossrec.lab.sweep.run_chunk` on a worker (one
thread per task: the worker's own threads give the parallelism). Results come back as
numpy arrays in whatever order the workers finish; the caller keys them by chunk index,
so the final DataFrame is in the same order as a local run's.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .sweeps import Plan


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


def run_on_dask(dask: Any, plan: "Plan", todo: List[int],
                finished: Callable[[int, Dict[str, Any]], None]) -> None:
    """Submits chunks ``todo`` of ``plan`` and calls ``finished(i, result)`` as each completes."""
    from distributed import as_completed

    from .sweeps import _globalise, run_chunk

    client, own = _client(dask)
    futures = {}
    try:
        for i in todo:
            gids, specs, units = plan.payload(i)
            fut = client.submit(run_chunk, specs, units, 1, pure=False)
            futures[fut] = (i, gids)
        for fut in as_completed(list(futures), loop=client.loop):
            i, gids = futures[fut]
            finished(i, _globalise(fut.result(), gids))
    finally:
        if own:
            client.close()
        else:
            client.cancel(list(futures))
