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

from typing import Callable, Iterable, Iterator


def executor(workers: int):
    """joblib's reusable loky pool with ``workers`` processes (resized if it has another
    size; large arrays travel as memory maps)."""
    from joblib.executor import get_memmapping_executor

    return get_memmapping_executor(max(1, int(workers)))


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
