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
from typing import Callable, Iterable, Iterator

_pools: list = []


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
