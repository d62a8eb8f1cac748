"""Evolution strategies, one registry (``STRATEGIES``, the config's ``evolution.algorithm``):
the study's GA (``ga``: DEAP operators on the population), CMA-ES (``cma``: DEAP's
``cma.Strategy``) and an OpenAI-style ES (``es``: mirrored samples, centered ranks, Adam).

Every strategy works in the runner's unit coordinates and has the same small interface, so
the run loop (``evolve.evolution.runner``) has one path for all of them:

- ``PARAMS``: its own settings, the keys of its table ``[evolution.<name>]`` in an
  experiment file (as evosax gives each strategy its parameter object), with their
  defaults and descriptions; the config schema takes them from here;
- ``Strategy(evolution)`` from the config's ``[evolution]`` table (its own settings in
  ``evolution[name]``);
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

from evolve.core.schema import Key, non_negative, positive, unit_interval
from evolve.evolution.strategies import cma, es
from evolve.evolution.strategies.ga import make_toolbox, mutation_rate, next_generation


class GA:
    """The study's GA: truncation to the best ``selection`` share, uniform recombination,
    annealed (or Gaussian) mutation; no state beyond the population."""

    name = "ga"
    PARAMS = {
        "mutation_start": Key((float, int), 0.8, "a number in [0, 1]", unit_interval,
            doc=("The mutation rate m in generation 0: each member mutates with probability m, and a mutating "
                 "member changes each weight with probability m / 2.")),
        "mutation_end": Key((float, int), 0.2, "a number in [0, 1]", unit_interval,
            doc=("The mutation rate m from generation `generations - 1` on; it falls along a straight line from "
                 "`mutation_start`.")),
        "mutation_operator": Key(
            (str,), "reset", "reset (a weight is redrawn from U(-1, 1), the study) or gaussian",
            lambda s: s in ("reset", "gaussian"),
            doc=("How a mutated weight changes: `reset` redraws it from U(-1, 1) (the Spades thesis's operator), "
                 "`gaussian` adds N(0, `mutation_sigma`) and clamps it to [-1, 1].")),
        "mutation_sigma": Key((float, int), 0.1, "a positive number (sd of gaussian mutation)", positive,
            doc="Standard deviation, in unit coordinates, of `mutation_operator = \"gaussian\"`."),
        "selection": Key(
            (float, int), 0.5, "a fraction in (0, 1) of the population kept as parents", lambda x: 0 < x < 1,
            doc=("The share of the population kept as parents (truncation to the best, at least two); the "
                 "children of uniform recombination fill the rest, and every member of the new generation may "
                 "mutate, as in the Spades thesis.")),
    }

    def __init__(self, evolution: dict):
        self.evolution = evolution
        self.params = ga = evolution["ga"]
        self.toolbox = make_toolbox(ga["selection"], ga["mutation_operator"], ga["mutation_sigma"])

    def first(self, population: np.ndarray, seed: int) -> np.ndarray:
        return population

    def rate(self, generation: int) -> float:
        return mutation_rate(generation, self.evolution["generations"], self.params["mutation_start"],
                             self.params["mutation_end"])

    def next(self, population, fitness, seed: int, generation: int, rng: np.random.Generator):
        return next_generation(population, fitness, self.rate(generation), self.toolbox, rng,
                               self.params["selection"]), {}

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
    PARAMS = {
        "sigma": Key((float, int), 0.3, "a positive number (CMA-ES initial step size in unit coordinates)", positive,
            doc="The initial step size, in unit coordinates."),
    }


class ES(SearchDistribution):
    """The OpenAI-style evolution strategy."""

    name = "es"
    module = es
    PARAMS = {
        "sigma": Key((float, int), 0.01, "a positive number (sd of the perturbations in unit coordinates)", positive,
            doc=("Standard deviation of the mirrored perturbations around the mean (mean + sigma x eps and "
                 "mean - sigma x eps), in unit coordinates.")),
        "learning_rate": Key((float, int), 0.001, "a positive number (Adam step size of the mean)", positive,
            doc="Adam's step size for the mean."),
        "weight_decay": Key((float, int), 0.0, "a non-negative number (L2 weight decay of the mean)", non_negative,
            doc="L2 weight decay on the mean (0: none)."),
    }


STRATEGIES = {s.name: s for s in (GA, CMA, ES)}


def make_strategy(evolution: dict):
    """The strategy the ``[evolution]`` table names (``algorithm``)."""
    return STRATEGIES[evolution["algorithm"]](evolution)
