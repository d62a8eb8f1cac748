"""Compile a run's Numba kernels side by side before it starts, instead of one after another.

A first run on a machine (or after an upgrade) spends most of its time in Numba: every
engine kernel (one per game and set of agent families, ``evolve.runtime.batch``) and every
C callback (the searches, their rollout policies, the search bidder,
``evolve.agents.callback_slot``) is compiled on first use, one at a time, on one core.
They are independent of each other, so ``precompile`` hands the ones a run will need and
Numba's cache lacks to worker processes, one kernel per process, longest first; each
writes its result into the cache, and the run then only loads them. With everything
cached it does nothing (it checks Numba's cache index, not by compiling).

What a run needs is found by parsing its seats inside ``compiles_deferred`` (a search
seat would otherwise compile its callback while it is parsed) and taking the union of
their agent families: a run plays all its batches on one engine kernel (``play(...,
engine_families=...)``), so it compiles one engine, not one per table layout.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Sequence

from evolve.agents.callback_slot import SLOTS, index_has
from evolve.agents.dispatch import FAMILIES
from evolve.core import numba_cache
from evolve.core.cores import resolve_workers
from evolve.core.pool import map_unordered

# compile time of the engine of one game with random play and its bidders, and the share
# of each agent family (evolve.agents.dispatch.FAMILIES), roughly, on a 2-core machine
ENGINE_SECONDS = numba_cache.ENGINE_SECONDS


@dataclass(frozen=True)
class CompileJob:
    """One kernel to compile: the engine of ``game`` (with ``options``) with the agent
    ``families`` (and the lockstep root when ``lockstep``), the callback slot ``slot``, or
    ``call`` = (function, args): smaller kernels that a function compiles by running
    (run only beside a kernel that is compiled, as their cache cannot be checked)."""

    what: str
    seconds: float
    game: str = ""
    options: tuple = ()
    families: tuple[str, ...] = ()
    lockstep: bool = False
    slot: str = ""
    call: tuple = ()


def engine_job(game, families: Sequence[str], lockstep: bool = False) -> CompileJob:
    """The job of the engine kernel of ``game`` (a ``Game``) with ``families``."""
    fams = tuple(f.name for f in FAMILIES if f.name in set(families))
    seconds = ENGINE_SECONDS + sum(f.seconds for f in FAMILIES if f.name in fams)
    what = f"the game kernels for {game.name} with agents {', '.join(['random', *fams])}"
    return CompileJob(what + (" (lockstep)" if lockstep else ""), seconds, game.name,
                      tuple(sorted(game.options.items())), fams, bool(lockstep) and "network" in fams)


def slot_job(symbol: str) -> CompileJob:
    """The job of the callback slot ``symbol`` (``evolve.agents.callback_slot.SLOTS``)."""
    slot = SLOTS[symbol]
    return CompileJob(slot.what, slot.seconds, slot=symbol)


def engine_cached(job: CompileJob) -> bool:
    """Whether Numba's cache holds the engine kernel of ``job`` for this machine."""
    from evolve.games.registry import make_game
    from evolve.games.rules import P_GAME
    from evolve.runtime.batch import batch_kernel
    from evolve.runtime.lockstep import play_lockstep_kernel

    game = make_game(job.game, **dict(job.options))
    kernel = batch_kernel(int(game.rules[P_GAME]), job.families, play_lockstep_kernel if job.lockstep else None)
    if kernel.signatures:
        return True
    return index_has(kernel._cache, kernel.targetctx.codegen().magic_tuple(), kernel.py_func.__code__.co_code)


def missing(jobs: Sequence[CompileJob]) -> list[CompileJob]:
    """The jobs whose kernels Numba's cache lacks, longest first (duplicates removed)."""
    out = []
    for job in {job.what: job for job in jobs}.values():
        if job.call:
            continue
        cached = SLOTS[job.slot].cached() if job.slot else engine_cached(job)
        if not cached:
            out.append(job)
    out += [job for job in jobs if job.call] if out else []
    return sorted(out, key=lambda j: -j.seconds)


def compile_job(job: CompileJob) -> tuple[CompileJob, float]:
    """Compile one job's kernel into Numba's cache (run in a worker process); returns the
    job and the seconds it took."""
    import evolve.agents  # noqa: F401  (every slot registers itself on import)

    start = time.perf_counter()
    numba_cache.quiet()         # the parent announces the jobs once
    if job.call:
        job.call[0](*job.call[1])
    elif job.slot:
        SLOTS[job.slot].ensure_compiled()
    else:
        from evolve.runtime.play import play

        play(job.game, ["random"] * 4, 1, seed=0, engine_families=job.families, lockstep=job.lockstep,
             **dict(job.options))
    return job, time.perf_counter() - start


def precompile(jobs: Sequence[CompileJob], workers: int = 0, stream=None) -> list[CompileJob]:
    """Compile the kernels of ``jobs`` that Numba's cache lacks in up to ``workers`` (0: every
    core) worker processes at once, announcing them in one line on ``stream`` (stderr);
    returns the jobs compiled. With one job or one worker it compiles in this process.
    Compiling is one-time work that changes no result, so callers use every core even
    when they play on one."""
    todo = missing(jobs)
    if not todo:
        return []
    stream = stream or sys.stderr
    workers = min(len(todo), resolve_workers(workers))
    total = sum(j.seconds for j in todo)
    estimate = max(max(j.seconds for j in todo), total / workers)
    where = f" in {workers} processes" if workers > 1 else ""
    print(f"compiling {'; '.join(j.what for j in todo)}{where} (first use of this version, "
          f"{numba_cache.about(estimate)})...", file=stream, flush=True)
    start = time.perf_counter()
    if workers <= 1:
        with numba_cache.quieted():
            done = (compile_job(job) for job in todo)
            _report(done, len(todo), start, stream)
    else:
        _report(map_unordered(compile_job, [(j,) for j in todo], workers), len(todo), start, stream)
    return todo


def _report(done, n: int, start: float, stream) -> None:
    """One line per kernel as it is compiled, then the total."""
    for k, (job, seconds) in enumerate(done, 1):
        print(f"  compiled {job.what} in {seconds:.0f} s ({k}/{n})", file=stream, flush=True)
    print(f"compiled {n} kernel{'s' if n > 1 else ''} in {time.perf_counter() - start:.0f} s", file=stream,
          flush=True)


def prepare_seats(game, seats: Sequence, workers: int = 0, lockstep: bool = False) -> tuple[str, ...]:
    """Compile, side by side where Numba's cache lacks them, one engine kernel for every
    seat in ``seats`` (seat strings or specs of ``game``) and the callbacks they need;
    returns the engine's families, for ``evolve.runtime.play.shared_engine``."""
    from evolve.agents.callback_slot import compiles_deferred
    from evolve.agents.registry import parse_seat
    from evolve.runtime.play import engine_families_of

    with compiles_deferred() as wanted:
        specs = [parse_seat(s, game) for s in seats]
    families = engine_families_of(specs)
    compile_engine(game, families, wanted, workers, lockstep)
    return families


def compile_engine(game, families: Sequence[str], slots=(), workers: int = 0, lockstep: bool = False,
                   calls: Sequence[CompileJob] = ()) -> None:
    """Compile the engine kernel of ``game`` with ``families`` (and its lockstep twin) and
    the callback ``slots`` side by side where Numba's cache lacks them (and the ``calls``
    jobs with them), then load the callbacks into this process."""
    jobs = [engine_job(game, families)] + list(calls)
    jobs += [engine_job(game, families, lockstep=True)] if lockstep else []
    precompile(jobs + [slot_job(symbol) for symbol in sorted(slots)], workers)
    for symbol in slots:
        SLOTS[symbol].ensure_compiled()

