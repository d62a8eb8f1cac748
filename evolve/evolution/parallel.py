"""Where a generation's tables are played: in process, by the parent and local loky
worker processes (or threads) together (``ParentAndWorkers``), or on Dask.

A runner plays ``play_chunk`` over all tables of a job (a tuple of plain arrays) and
returns the records in table order, so the results are identical for any number of
workers and for either backend."""

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

from evolve.core import pool
from evolve.core.errors import UsageError
from evolve.evolution.tournament import play_chunk

SHARE_BYTES = 1 << 20      # arrays at least this large go through a shared file


@dataclass(frozen=True)
class SharedArray:
    """A reference to an array in a file every local worker maps (``inode`` tells a
    rewritten file from the one a worker has mapped)."""

    path: str
    inode: int


_MAPPED: dict[tuple[str, int], np.ndarray] = {}    # a worker's open maps, newest last
_MAPPED_MAX = 8


def _resolve(value):
    if isinstance(value, SharedArray):
        key = (value.path, value.inode)
        mapped = _MAPPED.pop(key, None)
        if mapped is None:
            # writeable, so Numba sees the same array type as the parent's (a read-only
            # array would compile another specialisation); the kernels never write to it
            mapped = np.asarray(np.load(value.path, mmap_mode="r+"))
        _MAPPED[key] = mapped
        while len(_MAPPED) > _MAPPED_MAX:
            _MAPPED.pop(next(iter(_MAPPED)))
        # played from the kept map: its pages are mapped once, and each call is a
        # shared read of what the parent wrote (a private copy costs ~1 ms more)
        return mapped
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
    (/dev/shm where present) instead of letting joblib hash and memmap them for every task
    (19 ms per task for a 14 MB parameter array). The k-th distinct large array of a call
    is copied into the k-th file, which is kept from call to call while its shape and type
    stay the same: copying into the kept file takes ~1 ms for 14 MB where writing a new
    one took ~7 ms (fresh shared-memory pages), and the workers keep their maps of it.
    A caller must not start a call before the workers have read the previous one (the
    runner waits for every chunk)."""

    def __init__(self):
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.folder = Path(tempfile.mkdtemp(prefix="trick-evolve-", dir=base))
        self.counter = itertools.count()
        self.files: list[tuple[SharedArray, np.memmap]] = []
        self.own: tuple[SharedArray, np.ndarray] | None = None     # see ``buffer``

    def _file(self, slot: int, a: np.ndarray) -> SharedArray:
        if slot < len(self.files):
            ref, mapped = self.files[slot]
            if mapped.shape == a.shape and mapped.dtype == a.dtype:
                mapped[...] = a
                return ref
            Path(ref.path).unlink(missing_ok=True)
        path = self.folder / f"a{next(self.counter)}.npy"
        mapped = np.lib.format.open_memmap(path, mode="w+", dtype=a.dtype, shape=a.shape)
        mapped[...] = a
        self.files[slot:slot + 1] = [(SharedArray(str(path), os.stat(path).st_ino), mapped)]
        return self.files[slot][0]

    def buffer(self, n: int, dtype=np.float64) -> np.ndarray:
        """A 1-D array of ``n`` values in a file of its own, for the caller to fill and to
        pass in a task as it is: ``tasks`` hands it over without a copy, and the caller
        reads the very pages the workers map. The same file (and array) while ``n`` and
        ``dtype`` stay the same; refilling it is the caller's next call."""
        dtype = np.dtype(dtype)
        if self.own is None or self.own[1].shape != (n,) or self.own[1].dtype != dtype:
            if self.own is not None:
                Path(self.own[0].path).unlink(missing_ok=True)
            path = self.folder / f"a{next(self.counter)}.npy"
            # a plain ndarray view of the map: Numba types it as the arrays it was compiled for
            mapped = np.asarray(np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=(n,)))
            self.own = (SharedArray(str(path), os.stat(path).st_ino), mapped)
        return self.own[1]

    def tasks(self, tasks):
        """The tasks with every large array replaced by a ``SharedArray`` (the array of
        ``buffer`` by its own file, without a copy)."""
        saved: dict[int, SharedArray] = {}
        out = []
        for task in tasks:
            row = []
            for a in task:
                if self.own is not None and a is self.own[1]:
                    a = self.own[0]
                elif isinstance(a, np.ndarray) and a.nbytes >= SHARE_BYTES:
                    if id(a) not in saved:
                        saved[id(a)] = self._file(len(saved), a)
                    a = saved[id(a)]
                row.append(a)
            out.append(tuple(row))
        return out

    def close(self):
        self.files = []
        self.own = None
        shutil.rmtree(self.folder, ignore_errors=True)


class ParentAndWorkers:
    """Runner for local worker processes. The parent plays the first chunk itself while
    the workers play the others (it would only wait otherwise); a thread writes the
    shared files and submits the other chunks meanwhile (``play_batch`` releases the
    GIL). A worker's result arrives later by the hand-off (files, submission, the way
    back) and workers may play at another pace, so ``split`` sizes the parent's chunk for
    all to finish together, from the timings of the previous calls. (Measured against
    taking tables from a shared counter until none are left: the two fixed chunks were
    4-11% faster on 60-240 tables.) Chunk sizes never change the results: every table's
    deals and random streams are keyed by its index."""

    def __init__(self, executor, share: LocalShare | None):
        self.executor = executor
        self.share = share
        self.thread = ThreadPoolExecutor(1)
        self.hand_off: float | None = None      # seconds a worker's chunk takes beyond its play, smoothed
        self.parent_rate: float | None = None   # tables per second
        self.worker_rate: float | None = None   # tables per second (the slowest worker)
        self.calls = 0

    def params_buffer(self, n: int) -> np.ndarray:
        """Where ``Tournament.evaluate`` packs a generation's parameters: the shared file
        the workers map (``LocalShare.buffer``), or plain memory for threads."""
        return self.share.buffer(n) if self.share else np.empty(n)

    def split(self, n_tables: int, chunks: int) -> np.ndarray:
        """Table bounds of the chunks: the parent's first, the workers' equal."""
        chunks = max(1, min(chunks, n_tables))
        if chunks < 2 or self.hand_off is None:
            return even_bounds(n_tables, chunks)
        workers_time = n_tables / ((chunks - 1) * self.worker_rate)   # all tables on the workers
        share = (self.hand_off + workers_time) / (n_tables / self.parent_rate + workers_time)
        first = int(np.clip(round(share * n_tables), 1, n_tables - (chunks - 1)))
        return np.concatenate([[0], np.linspace(first, n_tables, chunks).astype(int)])

    def _submit(self, job: tuple, bounds: np.ndarray):
        shared = self.share.tasks([job])[0] if self.share else job   # no share: threads of this process
        futures = []
        for a, b in zip(bounds[1:-1], bounds[2:]):
            future = self.executor.submit(play_shared_chunk, *shared, int(a), int(b))
            stamp: list[float] = []
            future.add_done_callback(lambda _, stamp=stamp: stamp.append(time.time()))
            futures.append((future, stamp))
        return futures

    def __call__(self, job: tuple, n_tables: int, chunks: int) -> list:
        bounds = self.split(n_tables, chunks)
        start = time.time()
        submitted = self.thread.submit(self._submit, job, bounds)
        first = play_chunk(*job, 0, int(bounds[1]))
        parent_seconds = time.time() - start
        sent = submitted.result()
        done = [f.result() for f, _ in sent]
        self.calls += 1
        if self.calls > 1 and sent:           # the first call includes the workers' start-up
            tables = np.diff(bounds)
            # hand-off: what a worker's chunk takes beyond its play, from the parent's start
            # (the files are written meanwhile) to the result back in the parent
            now = {"hand_off": max(stamp[0] - start - (end - began) for (_, stamp), (_, began, end) in zip(sent, done)),
                   "parent_rate": tables[0] / max(parent_seconds, 1e-9),
                   "worker_rate": min(n / max(end - began, 1e-9) for n, (_, began, end) in zip(tables[1:], done))}
            for key, value in now.items():
                old = getattr(self, key)
                setattr(self, key, value if old is None else 0.5 * old + 0.5 * value)
        return [first, *(rec for rec, _, _ in done)]

    def close(self):
        self.thread.shutdown()


def even_bounds(n_tables: int, chunks: int) -> np.ndarray:
    """Table bounds of ``chunks`` (at most one per table) chunks of equal size."""
    return np.linspace(0, n_tables, max(1, min(chunks, n_tables)) + 1).astype(int)


@contextmanager
def make_runner(backend: str = "loky", workers: int = 1, scheduler: str = ""):
    """Context manager yielding ``runner(job, n_tables, chunks) -> list`` of the records of
    ``play_chunk(*job, first, last)`` over all tables in order (None for in-process)."""
    if workers <= 1 and backend in ("loky", "threads"):
        yield None
        return
    if backend in ("loky", "threads"):
        if backend == "threads":
            # play_batch releases the GIL: threads of this process play side by side, on
            # the same arrays, with nothing to copy or pickle
            executor, share = ThreadPoolExecutor(workers - 1), None
        else:
            # the run's one reusable pool of workers (``evolve.core.pool``): they stay up,
            # with their kernels loaded, from the compile and the teacher data to the end
            executor, share = pool.executor(workers - 1), LocalShare()
        runner = ParentAndWorkers(executor, share)
        try:
            yield runner
        finally:
            runner.close()
            if share is None:
                executor.shutdown()           # our threads; loky's pool is reused by joblib
            else:
                share.close()
        return
    if backend != "dask":
        raise UsageError(f"parallel backend {backend!r} is invalid; valid: loky, threads, dask")
    from joblib import Parallel, delayed, parallel_config

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("parallel.backend = 'dask' needs dask.distributed: pip install 'trick-evolve[dask]'") from None
    cluster = scratch = None
    if scheduler:
        client = Client(scheduler)
    else:
        import dask

        # the scheduler's and the workers' scratch space in a folder of our own, removed on
        # close (by default every run would leave dask-scratch-space in the temporary folder)
        scratch = tempfile.TemporaryDirectory(prefix="trick-evolve-dask-")
        with dask.config.set({"temporary-directory": scratch.name}):
            cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                   dashboard_address=None, local_directory=scratch.name)
        client = Client(cluster)
    try:
        with parallel_config(backend="dask"):
            with Parallel(n_jobs=-1) as parallel:
                def run(job, n_tables, chunks):
                    bounds = even_bounds(n_tables, chunks)
                    return parallel(delayed(play_chunk)(*job, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]))
                yield run
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if scratch is not None:
            scratch.cleanup()
