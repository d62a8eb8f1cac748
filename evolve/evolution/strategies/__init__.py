"""Evolution strategies, one registry (``STRATEGIES``, the config's ``evolution.algorithm``):
the study's GA (``ga``: DEAP operators on the population), CMA-ES (``cma``: DEAP's
``cma.Strategy``) and an OpenAI-style ES (``es``: mirrored samples, centered ranks, Adam).

Every strategy works in the runner's unit coordinates and has the same small interface, so
the run loop (``evolve.evolution.runner``) has one path for all of them:

- ``Strategy(evolution)`` from the config's ``[evolution]`` table;
- ``first(population, seed)``: the generation-0 population to evaluate, given the initial
  one (a search distribution centres on its first member and samples around it);
- ``rate(generation)``: the GA's mutation rate (0 for the others), for the logbook;
- ``next(population, fitness, seed, generation, rng)``: the population of the next
  generation (``fitness`` -inf for members that did not play) and the figures to record;
- ``mean()``: the search mean the progress figure follows (None for the GA);
- ``warm_up(few)``: compile its kernels before the run's clock starts;
- ``to_arrays()`` / ``restore(arrays)``: its state in the checkpoint, as plain arrays.

``tests/test_strategies.py`` runs every registered strategy through the same checks.
"""

from __future__ import annotations

import numpy as np

from evolve.evolution.strategies import cma, es
from evolve.evolution.strategies.ga import make_toolbox, mutation_rate, next_generation


class GA:
    """The study's GA: truncation to the best ``selection`` share, uniform recombination,
    annealed (or Gaussian) mutation; no state beyond the population."""

    name = "ga"

    def __init__(self, evolution: dict):
        self.evolution = evolution
        self.toolbox = make_toolbox(evolution["selection"], evolution["mutation_operator"],
                                    evolution["mutation_sigma"])

    def first(self, population: np.ndarray, seed: int) -> np.ndarray:
        return population

    def rate(self, generation: int) -> float:
        ev = self.evolution
        return mutation_rate(generation, ev["generations"], ev["mutation_start"], ev["mutation_end"],
                             ev["mutation_schedule"])

    def next(self, population, fitness, seed: int, generation: int, rng: np.random.Generator):
        ev = self.evolution
        return next_generation(population, fitness, self.rate(generation), self.toolbox, rng, ev["selection"],
                               ev["mutate_parents"]), {}

    def mean(self) -> np.ndarray | None:
        return None

    def warm_up(self, few: np.ndarray) -> None:
        """Compile (or load) the operators' Numba kernels: breed a copy of a few members."""
        next_generation(few.copy(), np.arange(len(few), dtype=float), 0.5, self.toolbox, np.random.default_rng(0))

    def to_arrays(self) -> dict[str, np.ndarray] | None:
        return None

    def restore(self, arrays: dict[str, np.ndarray] | None) -> None:
        pass


class SearchDistribution:
    """A strategy that keeps a search distribution (``module``: ``cma`` or ``es``, each with
    ``from_config``, ``sample``, ``update``, ``to_arrays`` and ``from_arrays``)."""

    name = ""
    module = None

    def __init__(self, evolution: dict):
        self.evolution = evolution
        self.state = None

    def first(self, population: np.ndarray, seed: int) -> np.ndarray:
        self.state = self.module.from_config(population[0], len(population), self.evolution)
        return self.module.sample(self.state, seed, 0)

    def rate(self, generation: int) -> float:
        return 0.0

    def next(self, population, fitness, seed: int, generation: int, rng: np.random.Generator):
        self.module.update(self.state, population, fitness)
        return self.module.sample(self.state, seed, generation + 1), {"sigma": float(self.state.sigma)}

    def mean(self) -> np.ndarray | None:
        return np.clip(self.state.centroid, -1.0, 1.0)

    def warm_up(self, few: np.ndarray) -> None:
        """Nothing to compile: the distribution's updates are numpy."""

    def to_arrays(self) -> dict[str, np.ndarray] | None:
        return self.module.to_arrays(self.state)

    def restore(self, arrays: dict[str, np.ndarray] | None) -> None:
        self.state = self.module.from_arrays(arrays)


class CMA(SearchDistribution):
    """CMA-ES (DEAP), for genomes of up to ``cma.MAX_DIMENSION`` values."""

    name = "cma"
    module = cma


class ES(SearchDistribution):
    """The OpenAI-style evolution strategy."""

    name = "es"
    module = es


STRATEGIES = {s.name: s for s in (GA, CMA, ES)}


def make_strategy(evolution: dict):
    """The strategy the ``[evolution]`` table names (``algorithm``)."""
    return STRATEGIES[evolution["algorithm"]](evolution)
