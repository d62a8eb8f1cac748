"""Where tournament chunks run: in process, on loky worker processes (the parent plays
one chunk itself, see ``ParentAndWorkers``), or on Dask.

A runner maps ``play_chunk`` over task tuples of plain arrays and returns the records in
order, so the results are identical for any number of workers and for either backend."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolve.errors import UsageError
from evolve.evolution.tournament import even_bounds, play_chunk

SHARE_BYTES = 1 << 20      # arrays at least this large go through a shared file


@dataclass(frozen=True)
class SharedArray:
    """A reference to an array saved once in a file every local worker maps."""

    path: str


def _resolve(value):
    if isinstance(value, SharedArray):
        # read into the worker's own memory (~4 ms for 14 MB): playing from a map of the
        # file measured 1-10% slower (scattered weight reads through 4 KB pages)
        return np.load(value.path)
    return value


def play_shared_chunk(*args):
    """``play_chunk`` with ``SharedArray`` arguments read from their files; also returns
    when (``time.time()``) it began to play, after the hand-off, and when it ended."""
    args = [_resolve(a) for a in args]
    began = time.time()                         # wall clock: comparable across processes
    rec = play_chunk(*args)
    return rec, began, time.time()


class LocalShare:
    """Hands large task arrays to local worker processes through files in shared memory
    (/dev/shm where present): each distinct array is written once per call instead of
    being hashed and memmapped by joblib for every task (joblib hashes a 14 MB parameter
    array in ~19 ms, per task). Files of the previous call are removed on the next."""

    def __init__(self):
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.folder = Path(tempfile.mkdtemp(prefix="trick-evolve-", dir=base))
        self.counter = itertools.count()
        self.live: list[Path] = []

    def tasks(self, tasks):
        for old in self.live:
            old.unlink(missing_ok=True)
        self.live = []
        saved: dict[int, SharedArray] = {}
        out = []
        for task in tasks:
            row = []
            for a in task:
                if isinstance(a, np.ndarray) and a.nbytes >= SHARE_BYTES:
                    if id(a) not in saved:
                        path = self.folder / f"a{next(self.counter)}.npy"
                        np.save(path, a)
                        self.live.append(path)
                        saved[id(a)] = SharedArray(str(path))
                    a = saved[id(a)]
                row.append(a)
            out.append(tuple(row))
        return out

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)


class ParentAndWorkers:
    """Runner for local worker processes. The parent plays the first chunk itself while
    the workers play the others (it would only wait otherwise); a thread writes the
    shared files and submits the other chunks meanwhile (``play_batch`` releases the
    GIL). Workers start later by the hand-off and may play at another pace, so ``split``
    sizes the parent's chunk for both to finish together, from the timings of the
    previous generations. Chunk sizes never change the results: every table's deals and
    random streams are keyed by its index."""

    def __init__(self, executor, share: LocalShare):
        self.executor = executor
        self.share = share
        self.thread = ThreadPoolExecutor(1)
        self.hand_off: float | None = None      # seconds from submission to a worker's start, smoothed
        self.parent_rate: float | None = None   # tables per second
        self.worker_rate: float | None = None   # tables per second (the slowest worker)
        self.calls = 0

    def split(self, n_tables: int, chunks: int) -> np.ndarray:
        """Table bounds of the chunks: the parent's first, the workers' equal."""
        chunks = max(1, min(chunks, n_tables))
        if chunks < 2 or self.hand_off is None:
            return even_bounds(n_tables, chunks)
        workers_time = n_tables / ((chunks - 1) * self.worker_rate)   # all tables on the workers
        share = (self.hand_off + workers_time) / (n_tables / self.parent_rate + workers_time)
        first = int(np.clip(round(share * n_tables), 1, n_tables - (chunks - 1)))
        return np.concatenate([[0], np.linspace(first, n_tables, chunks).astype(int)])

    def _submit(self, tasks):
        return [(time.time(), self.executor.submit(play_shared_chunk, *t)) for t in self.share.tasks(tasks)]

    def __call__(self, tasks):
        submitted = self.thread.submit(self._submit, tasks[1:])
        start = time.perf_counter()
        first = play_chunk(*tasks[0])
        parent_seconds = time.perf_counter() - start
        sent = submitted.result()
        done = [f.result() for _, f in sent]
        self.calls += 1
        if self.calls > 1 and sent:           # the first call includes the workers' start-up
            tables = [int(t[6]) - int(t[5]) for t in tasks]           # play_chunk's (first, last)
            now = {"hand_off": max(began - t for (t, _), (_, began, _) in zip(sent, done)),
                   "parent_rate": tables[0] / max(parent_seconds, 1e-9),
                   "worker_rate": min(n / max(end - began, 1e-9) for n, (_, began, end) in zip(tables[1:], done))}
            for key, value in now.items():
                old = getattr(self, key)
                setattr(self, key, value if old is None else 0.5 * old + 0.5 * value)
        return [first, *(rec for rec, _, _ in done)]

    def close(self):
        self.thread.shutdown()


@contextmanager
def make_runner(backend: str = "loky", workers: int = 1, scheduler: str = ""):
    """Context manager yielding ``runner(tasks) -> list`` (None for in-process)."""
    if workers <= 1 and backend == "loky":
        yield None
        return
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky":
        from joblib.executor import get_memmapping_executor

        share = LocalShare()
        # joblib's own reusable loky pool (the one ``Parallel`` uses, so both can coexist)
        runner = ParentAndWorkers(get_memmapping_executor(workers - 1), share)
        try:
            yield runner
        finally:
            runner.close()
            share.close()
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
