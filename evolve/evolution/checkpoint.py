"""Checkpoints: one ``.npz`` written atomically (temp file, fsync, rename), never pickled.

It holds the generation to evaluate next, the population, the fitnesses of the last
evaluated generation, the hall of fame, the
generation of the last new best, the logbook (JSON text), the random-number state and
the config hash. Random numbers of generation g
are derived from (seed, g), so the state to restore is (seed, generation)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evolve.core.errors import UsageError
from evolve.core.files import atomic_write, read_npz

FORMAT = 1


@dataclass
class RunState:
    """Everything needed to continue a run bit for bit."""

    generation: int            # next generation to evaluate
    population: np.ndarray     # [P, genome]
    fitness: np.ndarray        # fitness of the last evaluated generation ([P], NaN before)
    hof_genome: np.ndarray
    hof_fitness: float
    hof_generation: int
    best_generation: int       # generation of the last new best (patience rule)
    logbook: list[dict]
    seed: int
    config_hash: str
    finished: bool = False
    elite: np.ndarray | None = None   # best members of the last evaluated generation
    founders: np.ndarray | None = None  # warm-start genomes, kept as champion candidates
    strategy: dict | None = None      # CMA-ES or ES state as named arrays (evolve.evolution.strategies.cma, .es)


# the run's own arrays; any other array of a checkpoint is the search-distribution
# algorithm's state (``evolve.evolution.strategies.cma`` / ``es``: ``to_arrays``); "hall" is the
# opponent hall of checkpoints written before schema version 2 removed it (always empty then)
RUN_ARRAYS = ("population", "fitness", "hof_genome", "elite", "founders", "meta", "logbook", "hall")


def save_checkpoint(path: str | Path, state: RunState) -> None:
    """Write ``state`` to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT, "generation": state.generation, "hof_fitness": state.hof_fitness,
        "hof_generation": state.hof_generation, "best_generation": state.best_generation,
        "seed": state.seed, "config_hash": state.config_hash, "finished": state.finished,
        "rng": {"kind": "numpy.random.SeedSequence", "entropy": [state.seed, state.generation]},
    }
    empty = np.zeros((0, state.population.shape[1]))
    elite = state.elite if state.elite is not None else empty
    founders = state.founders if state.founders is not None else empty
    atomic_write(path, lambda f: np.savez(f, population=state.population, fitness=state.fitness,
                                          hof_genome=state.hof_genome, elite=elite, founders=founders,
                                          meta=np.array(json.dumps(meta)), logbook=np.array(json.dumps(state.logbook)),
                                          **(state.strategy or {})))


def load_checkpoint(path: str | Path) -> RunState:
    """Read a checkpoint; a truncated or foreign file is a UsageError (nothing is touched)."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no checkpoint to resume from")
    what = "a checkpoint written by python -m evolve.run; nothing was changed"
    data = read_npz(path, what)
    try:
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"unsupported checkpoint format {meta.get('format')!r}")
        strategy = {k: v for k, v in data.items() if k not in RUN_ARRAYS}
        return RunState(
            generation=int(meta["generation"]), population=data["population"],
            fitness=data["fitness"], hof_genome=data["hof_genome"],
            hof_fitness=float(meta["hof_fitness"]), hof_generation=int(meta["hof_generation"]),
            best_generation=int(meta["best_generation"]), logbook=json.loads(str(data["logbook"])),
            seed=int(meta["seed"]), config_hash=str(meta["config_hash"]), finished=bool(meta.get("finished", False)),
            elite=data.get("elite"),
            founders=data["founders"] if "founders" in data and data["founders"].size else None,
            strategy=strategy or None,
        )
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: corrupt checkpoint ({e}); expected {what}") from None

