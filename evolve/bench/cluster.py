"""``python -m evolve.bench cluster``: what a Dask cluster costs and gives, measured on a
loopback cluster of this machine, and a projection to larger ones.

It starts ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (``Loopback``,
which the tests use too) and measures:

- the **per-task overhead**: the round trip of an empty task through the local pool and
  through the scheduler (submitted together, so the figure is the cost per task when many
  are in flight, and one at a time, the latency);
- two **steps** on 1 and 2 local workers and on the 2 Dask workers: a block of Monte Carlo
  deals (``evolve.play`` of ISMCTS, the teacher's deals, validation, benchmarks, matrices
  and studies are this) and a generation of the main job (its tournament).

The **projection** of a step of ``W`` seconds of one-core work over ``R`` rounds (a
generation is a round; the teacher's deals are one), each round cut into at most ``k``
tasks, on ``N > 1`` cores with a per-task overhead ``o``, plus ``S`` seconds that run in
the parent alone (training), is ``T(N) = S + R * (W / (R min(k, N)) + o)``: a round is
cut into one task per core, up to ``k``, and rounds run one after another (``T(1) = S +
W``, in process). ``o`` is each step's own overhead per task on the loopback
cluster (its time on 2 Dask workers beyond half its one-core time, per wave of tasks: the
scheduler's round trip and the data the task carries), at least the empty task's. A step
stops scaling where ``N`` reaches ``k`` (no task left to give) or the task time
``W / (R N)`` falls to the overhead ``o``; a recipe, at its serial ``S``.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from evolve.core.errors import UsageError


class Loopback:
    """A Dask scheduler and its workers, each a process of its own, on 127.0.0.1."""

    def __init__(self, folder: Path | None = None, cwd: Path | None = None):
        try:
            import distributed
        except ImportError:
            raise UsageError("the cluster bench needs dask.distributed: pip install 'trick-evolve[dask]'") from None
        self._tmp = None if folder is not None else tempfile.TemporaryDirectory(prefix="trick-evolve-cluster-")
        self.folder = Path(folder if folder is not None else self._tmp.name)
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.file = self.folder / "scheduler.json"
        self.logs: list = []
        self.scheduler = self._spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(self.file)], "scheduler", self.cwd)
        deadline = time.time() + 60
        while not self.file.is_file() and time.time() < deadline:
            time.sleep(0.2)
        if not self.file.is_file():
            self.close()
            raise UsageError("the loopback Dask scheduler did not start within 60 s")
        self.address = json.loads(self.file.read_text())["address"]
        self.workers: list[subprocess.Popen] = []
        self.client = distributed.Client(self.address, timeout=30)

    def _spawn(self, module_args: list[str], name: str, cwd: Path) -> subprocess.Popen:
        log = open(self.folder / f"{name}-{len(self.logs)}.log", "w")
        self.logs.append(log)
        return subprocess.Popen([sys.executable, "-m", *module_args], cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def add_worker(self, cwd: Path | None = None) -> subprocess.Popen:
        """One more worker process (one thread, no nanny: a killed worker stays dead), started
        in ``cwd`` (a worker imports an ``evolve`` folder there before the installed one)."""
        before = len(self.client.scheduler_info()["workers"])
        w = self._spawn(["distributed.cli.dask_worker", "--scheduler-file", str(self.file), "--nthreads", "1",
                         "--no-nanny", "--no-dashboard", "--local-directory", str(self.folder / f"w{len(self.logs)}")],
                        "worker", Path(cwd) if cwd is not None else self.cwd)
        self.workers.append(w)
        self.client.wait_for_workers(before + 1, timeout=120)
        return w

    def pids(self) -> dict[str, int]:
        """Worker address -> its process id."""
        return self.client.run(os.getpid)

    def kill(self, process: subprocess.Popen) -> None:
        """Kill a worker's (or the scheduler's) process at once."""
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process in self.workers:
            self.workers.remove(process)

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        for p in [*getattr(self, "workers", []), self.scheduler]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for log in self.logs:
            log.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def _noop(x):
    return x


def task_overhead(submit_many, n: int) -> dict:
    """Seconds per empty task: ``n`` in flight together, and one at a time."""
    t = time.perf_counter()
    submit_many([(i,) for i in range(n)])
    together = (time.perf_counter() - t) / n
    t = time.perf_counter()
    for i in range(max(20, n // 10)):
        submit_many([(i,), (i,)])        # two: a single task runs in this process
    alone = (time.perf_counter() - t) / max(20, n // 10)
    return {"seconds_per_task": together, "latency_seconds": alone}


def _timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def project(work: float, tasks: int, rounds: int, overhead: float, serial: float, cores: int) -> float:
    """``T(N)`` of the module docstring."""
    if cores <= 1:
        return serial + work          # in this process: no task is handed over
    return serial + rounds * (work / (rounds * min(tasks, cores)) + overhead)


def bench_cluster(deals: int = 2000, iterations: int = 100, repeats: int = 3, seed: int = 0) -> dict:
    """The measurements and projections of the module docstring."""
    import evolve.core.pool as pool
    from evolve.bench.evolution import bench_generation
    from evolve.runtime.play import chunk_size, play

    seats = [f"ismcts:iterations={iterations}", "random", "random", "random"]
    out: dict = {"deals": deals, "seats": seats, "repeats": repeats}

    def deals_on(workers):
        return lambda: play("spades", seats, deals, seed, workers=workers)

    play("spades", seats, 20, seed)                       # compiled (or loaded) here first
    play("spades", seats, 4 * 256, seed, workers=2)       # the local pool up, kernels loaded in it
    local = {w: _timed(deals_on(w), repeats) for w in (1, 2)}
    out["overhead"] = {"local pool": task_overhead(lambda tasks: list(pool.map_ordered(_noop, tasks, 2)), 400)}
    generation = bench_generation("experiments/spades_cardbased.toml", workers=(1, 2), repeats=repeats)
    cluster = Loopback()
    try:
        cluster.add_worker()
        cluster.add_worker()
        pool.use_scheduler(cluster.address)
        try:
            play("spades", seats, 4 * 256, seed)          # the workers load their kernels
            dask_deals = _timed(deals_on(1), repeats)
            out["overhead"]["dask"] = task_overhead(lambda tasks: list(pool.map_ordered(_noop, tasks, 2)), 400)
        finally:
            pool.use_scheduler("")
        dask_generation = bench_generation("experiments/spades_cardbased.toml", workers=(2,), repeats=repeats,
                                           backend="dask", sets=[f'parallel.scheduler="{cluster.address}"'])
    finally:
        cluster.close()
    tasks_deals = -(-deals // chunk_size(deals, 2))
    out["steps"] = {
        f"{deals} deals of ISMCTS-{iterations} (play)": {
            "tasks": tasks_deals, "1 local": local[1], "2 local": local[2], "2 dask": dask_deals},
        "a generation of the main job": {
            "tasks": 2, "1 local": generation["workers_1"]["median_seconds_per_generation"],
            "2 local": generation["workers_2"]["median_seconds_per_generation"],
            "2 dask": dask_generation["workers_2"]["median_seconds_per_generation"]},
    }
    # each step's own overhead per task on the cluster: its time on 2 Dask workers beyond
    # half its one-core time, over the waves of tasks (the data each task carries included)
    over = {}
    for name, step in out["steps"].items():
        waves = math.ceil(step["tasks"] / 2)
        over[name] = max(out["overhead"]["dask"]["seconds_per_task"], (step["2 dask"] - step["1 local"] / 2) / waves)
        step["overhead_per_task"] = over[name]
    o_play, o_generation = over.values()
    main = generation["workers_1"]["median_seconds_per_generation"]
    # the main job, from the figures above: 8,000 ISMCTS-200 teacher deals in blocks of 250
    # (ISMCTS's cost taken as proportional to its iterations), 300 generations of at most
    # 100 chunks (one per member)
    teacher = local[1] * 8000 / deals * 200 / iterations
    recipes = {"main job (spades_cardbased)": [(teacher, 32, 1, 0.0), (main * 300, 100, 300, 0.0)],
               **RECIPES}

    def overhead_of(rounds):        # the generations are the phases of many rounds
        return o_generation if rounds > 10 else o_play

    out["projection"] = {name: {str(n): sum(project(w, k, r, overhead_of(r), s, n) for w, k, r, s in phases)
                                for n in CORES} for name, phases in recipes.items()}
    out["serial"] = {name: sum(s for *_, s in phases) for name, phases in recipes.items()}
    out["model"] = "T(N) = S + R * (W / (R min(k, N)) + o)"
    return out


CORES = (1, 2, 8, 64, 512)
MIN = 60.0
# The champion recipes' phases as (W one-core seconds, k tasks per round, R rounds, S serial
# seconds), from the phase times of docs/how-to/reproduce-the-champions.md (wall minutes
# on 2-core machines with both cores busy, so W = 2 x wall; Sueca's teacher ran on one
# worker) and the task counts of the experiment files (teacher and DAgger deals in blocks
# of 250; a generation cut into at most one chunk per member; validation and benchmark
# about 20 blocks). Training is the parent's alone: S.
RECIPES = {
    "spades_champion": [(2 * 5.8 * MIN, 400, 1, 0.0), (0.0, 1, 1, 3.6 * MIN), (2 * 32 * MIN, 200, 3, 0.0),
                        (0.0, 1, 1, 5 * MIN), (2 * 12.5 * MIN, 40, 400, 0.0), (2 * 2.6 * MIN, 20, 1, 0.0)],
    "euchre_champion": [(2 * 30 * MIN, 1200, 1, 0.0), (0.0, 1, 1, 16.5 * MIN), (2 * 7 * MIN, 40, 150, 0.0),
                        (2 * 1 * MIN, 20, 1, 0.0)],
    "sueca_champion": [(22 * MIN, 800, 1, 0.0), (0.0, 1, 1, 54 * MIN), (2 * 154 * MIN, 320, 4, 0.0),
                       (0.0, 1, 1, 74 * MIN), (2 * 70 * MIN, 40, 450, 0.0), (2 * 11 * MIN, 20, 1, 0.0)],
    "jass_champion_float32": [(2 * 12 * MIN, 800, 1, 0.0), (0.0, 1, 1, 42 * MIN), (2 * 115 * MIN, 480, 4, 0.0),
                              (0.0, 1, 1, 47 * MIN), (2 * 6 * MIN, 40, 150, 0.0), (2 * 4.5 * MIN, 20, 1, 0.0)],
}


def format_cluster(r: dict) -> str:
    """The figures as the text ``python -m evolve.bench cluster`` prints."""
    lines = ["per-task overhead (an empty task):"]
    for where, o in r["overhead"].items():
        lines.append(f"  {where:<11} {1e3 * o['seconds_per_task']:7.2f} ms a task with many in flight, "
                     f"{1e3 * o['latency_seconds']:7.2f} ms for two on their own")
    lines.append("steps (median seconds):")
    lines.append(f"  {'step':<36} {'tasks':>5} {'1 local':>8} {'2 local':>8} {'2 dask':>8} {'dask ms/task':>12}")
    for name, s in r["steps"].items():
        lines.append(f"  {name:<36} {s['tasks']:>5} {s['1 local']:8.3f} {s['2 local']:8.3f} {s['2 dask']:8.3f} "
                     f"{1e3 * s['overhead_per_task']:12.1f}")
    lines.append(f"projected wall time, minutes ({r['model']}; S: the parent's training alone):")
    lines.append(f"  {'recipe':<28} " + " ".join(f"{n + ' cores':>10}" for n in r["projection"][next(iter(
        r["projection"]))]) + f" {'S':>8}")
    for name, p in r["projection"].items():
        lines.append(f"  {name:<28} " + " ".join(f"{t / MIN:10.1f}" for t in p.values())
                     + f" {r['serial'][name] / MIN:8.1f}")
    return "\n".join(lines)
