"""Where tournament chunks run: in process, on loky worker processes, or on Dask.

A runner maps ``play_chunk`` over task tuples of plain arrays and returns the records in
order, so the results are identical for any number of workers and for either backend."""

from __future__ import annotations

from contextlib import contextmanager

from evolve.errors import UsageError
from evolve.evolution.tournament import play_chunk


@contextmanager
def make_runner(backend: str = "loky", workers: int = 1, scheduler: str = ""):
    """Context manager yielding ``runner(tasks) -> list`` (None for in-process)."""
    if workers <= 1 and backend == "loky":
        yield None
        return
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky":
        with Parallel(n_jobs=workers, backend="loky") as parallel:
            yield lambda tasks: parallel(delayed(play_chunk)(*t) for t in tasks)
        return
    if backend != "dask":
        raise UsageError(f"parallel backend {backend!r} is invalid; valid: loky, dask")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("parallel.backend = 'dask' needs dask.distributed: pip install 'trick-evolve[dask]'") from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        with parallel_config(backend="dask"):
            with Parallel(n_jobs=-1) as parallel:
                yield lambda tasks: parallel(delayed(play_chunk)(*t) for t in tasks)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
