"""The study's variation and selection operators as free functions on genome arrays,
registered in a DEAP toolbox (SPEC §4). Genomes are rows of a float64 matrix in [-1, 1];
every function takes an explicit ``numpy.random.Generator`` so a run is reproducible."""

from __future__ import annotations

import numpy as np
from deap import base


def uniform_recombination(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One child taking each weight from parent ``a`` or ``b`` with equal chance."""
    return np.where(rng.random(a.shape[0]) < 0.5, a, b)


def annealed_mutation(genome: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """With probability ``rate`` the member mutates: each weight is then replaced with
    probability ``rate / 2`` by a fresh draw from U(-1, 1)."""
    if rng.random() >= rate:
        return genome
    mask = rng.random(genome.shape[0]) < rate / 2
    out = genome.copy()
    out[mask] = rng.uniform(-1.0, 1.0, int(mask.sum()))
    return out


def gaussian_mutation(genome: np.ndarray, rate: float, rng: np.random.Generator, sigma: float = 0.1) -> np.ndarray:
    """With probability ``rate`` the member mutates: each weight is then perturbed with
    probability ``rate / 2`` by N(0, sigma) and clamped to [-1, 1]."""
    if rng.random() >= rate:
        return genome
    mask = rng.random(genome.shape[0]) < rate / 2
    out = genome.copy()
    out[mask] = np.clip(out[mask] + rng.normal(0.0, sigma, int(mask.sum())), -1.0, 1.0)
    return out


def truncation(fitness: np.ndarray, fraction: float) -> np.ndarray:
    """Indices of the best ``fraction`` of the population, best first (ties by index)."""
    k = max(2, int(round(fraction * fitness.shape[0])))
    order = np.lexsort((np.arange(fitness.shape[0]), -fitness))
    return order[:k]


def mutation_rate(generation: int, span: int, start: float = 0.8, end: float = 0.2, schedule: str = "linear") -> float:
    """Annealed mutation rate m: from ``start`` to ``end`` over ``span`` generations, then
    ``end`` (linear by default, or exponential)."""
    x = min(1.0, generation / max(1, span - 1))
    if schedule == "exponential" and start > 0 and end > 0:
        return float(start * (end / start) ** x)
    return float(start + (end - start) * x)


def next_generation(population: np.ndarray, fitness: np.ndarray, rate: float, toolbox: base.Toolbox,
                    rng: np.random.Generator, fraction: float = 0.5, mutate_parents: bool = True) -> np.ndarray:
    """Truncation to the best ``fraction``; each parent recombines with another random
    parent into one child until the population is full; then every member (parents
    included, unless ``mutate_parents`` is false) may mutate."""
    size = population.shape[0]
    parents = population[toolbox.select(fitness)]
    children = []
    i = 0
    while len(parents) + len(children) < size:
        a = i % len(parents)
        b = (a + 1 + rng.integers(len(parents) - 1)) % len(parents)
        children.append(toolbox.mate(parents[a], parents[b], rng))
        i += 1
    nxt = np.concatenate([parents, np.array(children).reshape(-1, population.shape[1])])
    first = 0 if mutate_parents else len(parents)
    return np.stack([g if i < first else toolbox.mutate(g, rate, rng) for i, g in enumerate(nxt)])


def make_toolbox(fraction: float = 0.5, mutation: str = "reset", sigma: float = 0.1) -> base.Toolbox:
    """A DEAP toolbox with the study's operators registered (``mutation="gaussian"``
    swaps in Gaussian perturbation)."""
    tb = base.Toolbox()
    tb.register("mate", uniform_recombination)
    if mutation == "gaussian":
        tb.register("mutate", gaussian_mutation, sigma=sigma)
    else:
        tb.register("mutate", annealed_mutation)
    tb.register("select", truncation, fraction=fraction)
    return tb
