"""The worker processes every parallel step of a run shares.

joblib's ``Parallel`` and ``get_memmapping_executor`` each keep a reusable loky pool, but
with different settings, so a run that compiled its kernels with one, collected teacher
data with the other and evolved with the first again started its workers twice and
loaded every kernel into each new worker again (about 2 s each time). Every parallel
step here takes the one pool ``executor`` returns: its workers stay up between steps
with what they have compiled or loaded, and it only shrinks or grows as a step needs.
Tasks are module-level functions of plain data (numpy arrays, numbers, frozen
dataclasses), so no worker unpickles a DEAP ``creator`` class.
"""

from __future__ import annotations

import atexit
import logging
import sys
from typing import Callable, Iterable, Iterator

from evolve.core.errors import UsageError
from evolve.core.source import source_digest

_pools: list = []
_cluster: dict = {"address": "", "client": None}


class SchedulerLost(UsageError):
    """The Dask scheduler went away mid-step: the step did not finish (a run resumes from
    its last checkpoint with ``--resume``)."""


def versions() -> dict[str, str]:
    """What a process must share with every worker for a task to give the same figures: the
    Python, numpy and Numba versions and a digest of the package's source."""
    import numba
    import numpy

    return {"python": sys.version.split()[0], "numpy": numpy.__version__, "numba": numba.__version__,
            "evolve source": source_digest()}


def use_scheduler(address: str) -> None:
    """Send every parallel step of this process (the ``map_ordered`` / ``map_unordered``
    tasks: compiling, teacher data, relabelling, validation, benchmarks, matrices, studies,
    reproductions) to the Dask scheduler at ``address`` (``""``: back to the local pool).
    Refuses, in one line, a cluster none of whose workers answer, or a worker whose Python,
    numpy, Numba or package source differs from this process's."""
    address = str(address or "")
    if address == _cluster["address"]:
        return
    if _cluster["client"] is not None:
        _cluster["client"].close()
        _cluster.update(address="", client=None)
    if not address:
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs dask.distributed: pip install 'trick-evolve[dask]'") from None
    try:
        client = Client(address, timeout=10)
    except ValueError as e:          # not an address: "missing port number", an unknown protocol
        raise UsageError(f"--scheduler {address}: {e}; expected an address such as tcp://host:8786") from None
    except (OSError, TimeoutError) as e:
        raise UsageError(f"--scheduler {address}: no Dask scheduler answers there ({e.__class__.__name__})") from None
    try:
        client.wait_for_workers(1, timeout=30)
        theirs = client.run(versions)
    except (OSError, TimeoutError):
        client.close()
        raise UsageError(f"--scheduler {address}: no worker joined the scheduler within 30 s") from None
    mine = versions()
    for worker, got in sorted(theirs.items()):
        differ = [f"{k} {got.get(k)} (here {v})" for k, v in mine.items() if got.get(k) != v]
        if differ:
            client.close()
            raise UsageError(f"--scheduler {address}: worker {worker} has {', '.join(differ)}; every worker needs "
                             "the same versions and the same checkout")
    _cluster.update(address=address, client=client)
    # a lost scheduler is reported in one line (``SchedulerLost``), not by the client's log too
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    if not _pools:
        atexit.register(_shut_down)


def cluster_workers() -> int:
    """The threads of the connected Dask cluster's workers (0 when none is connected)."""
    client = _cluster["client"]
    if client is None:
        return 0
    try:
        return int(sum(client.nthreads().values()))
    except (OSError, TimeoutError):
        return 0


def scheduler() -> str:
    """The address of the Dask scheduler the parallel steps go to ("" : the local pool)."""
    return _cluster["address"]


def executor(workers: int):
    """joblib's reusable loky pool with ``workers`` processes (resized if it has another
    size; large arrays travel as memory maps). The pool is shut down when the process
    exits (``_shut_down``)."""
    from joblib.executor import get_memmapping_executor

    pool = get_memmapping_executor(max(1, int(workers)))
    if not _pools:
        atexit.register(_shut_down)
    if pool not in _pools:
        _pools.append(pool)
    return pool


def _shut_down() -> None:
    """Stop the pools and delete their memory-mapped arrays. Left to joblib, the arrays
    sent to workers stayed registered until its resource tracker stopped, and every
    parallel command ended with its "There appear to be N leaked file objects" warning."""
    while _pools:
        _pools.pop().terminate()
    if _cluster["client"] is not None:
        _cluster["client"].close()
        _cluster.update(address="", client=None)


def map_ordered(fn: Callable, tasks: Iterable[tuple], workers: int) -> Iterator:
    """``fn(*task)`` for every task on ``workers`` processes, yielded in task order as each
    becomes ready (in this process, one after another, when ``workers`` <= 1)."""
    return _map(fn, tasks, workers, ordered=True)


def map_unordered(fn: Callable, tasks: Iterable[tuple], workers: int) -> Iterator:
    """``fn(*task)`` for every task on ``workers`` processes, yielded as they finish."""
    return _map(fn, tasks, workers, ordered=False)


def _map(fn: Callable, tasks: Iterable[tuple], workers: int, ordered: bool) -> Iterator:
    from concurrent.futures import as_completed

    tasks = list(tasks)
    if _cluster["client"] is not None and tasks:
        yield from _map_on_cluster(_cluster["client"], fn, tasks, ordered)
        return
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield fn(*task)
        return
    pool = executor(workers)
    futures = [pool.submit(fn, *task) for task in tasks]
    try:
        for future in futures if ordered else as_completed(futures):
            yield future.result()
    finally:
        for future in futures:      # an abandoned map (an error, Ctrl-C) leaves no work queued
            future.cancel()


def _map_on_cluster(client, fn: Callable, tasks: list[tuple], ordered: bool) -> Iterator:
    """``_map`` on the Dask cluster. A task of a worker that dies is run again on another
    (the scheduler's own rescheduling); tasks are seeded plain data, so the figures are
    the same wherever they ran. A lost scheduler ends the step with ``SchedulerLost``."""
    from concurrent.futures import CancelledError

    from dask.distributed import as_completed

    try:
        futures = [client.submit(fn, *task, pure=False) for task in tasks]
    except (OSError, TimeoutError) as e:
        raise SchedulerLost(f"lost the Dask scheduler at {_cluster['address']} ({e.__class__.__name__})") from None
    try:
        for future in futures if ordered else as_completed(futures):
            try:
                result = future.result()
            except (OSError, TimeoutError, CancelledError) as e:
                if future.status == "error":        # the task's own error, raised where it ran
                    raise
                raise SchedulerLost(f"lost the Dask scheduler at {_cluster['address']} "
                                    f"({e.__class__.__name__})") from None
            yield result
    finally:
        for future in futures:
            if not future.done():
                future.cancel()
