"""OpenAI-style evolution strategy for genomes of any size (``algorithm = "es"``).

Salimans et al. (2017), "Evolution Strategies as a Scalable Alternative to Reinforcement
Learning": a search distribution N(centroid, sigma² I) whose mean follows a gradient
estimate. Chosen for networks of thousands of weights because it needs O(n) memory and
time per sample (CMA-ES needs an n² covariance, and separable CMA's diagonal adapts
slowly at these population sizes), and because each of its variance reductions is a
plain, testable step:

- *antithetic sampling*: members come in mirrored pairs centroid ± sigma·eps, so
  the luck that both halves share cancels in the gradient;
- *rank-based fitness shaping*: fitnesses are replaced by their centered ranks in
  [-0.5, 0.5], so the step does not depend on the scale of the fitness or on outliers;
- *common random numbers* live in the tournament (``common_random_numbers``): every member
  plays the same deals, seats and agent random streams.

The centroid moves by Adam (Kingma and Ba) on the shaped gradient, with step size
``[evolution.es] learning_rate`` and optional L2 weight decay ``weight_decay`` (as in Salimans et
al.), and stays inside the unit box. Generation g's noise comes from
``(seed, g)``; the state (centroid, Adam moments, step count) is saved as plain arrays in
the checkpoint, so a run resumes bit for bit. The interface is the one of
``evolve.evolution.strategies.cma`` (``from_config``, ``sample``, ``update``, ``to_arrays``,
``from_arrays``), so the runner treats both alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evolve.core.optim import adam_step

PREFIX = "es_"
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8


@dataclass
class EsStrategy:
    """The search distribution and the optimiser's state."""

    centroid: np.ndarray
    sigma: float
    learning_rate: float
    lambda_: int
    antithetic: bool      # always true (mirrored pairs); kept in the checkpoint's layout
    m: np.ndarray
    v: np.ndarray
    t: int = 0
    weight_decay: float = 0.0

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The state as named arrays for the checkpoint."""
        return {f"{PREFIX}centroid": self.centroid.copy(), f"{PREFIX}m": self.m.copy(), f"{PREFIX}v": self.v.copy(),
                f"{PREFIX}scalars": np.array([self.sigma, self.learning_rate, self.lambda_, float(self.antithetic),
                                              self.t, self.weight_decay], np.float64)}


def from_config(centroid: np.ndarray, lambda_: int, evolution: dict) -> EsStrategy:
    """A fresh strategy around ``centroid`` (unit coordinates) from the ``[evolution]`` table
    (its ``[evolution.es]`` settings)."""
    centroid = np.clip(np.asarray(centroid, np.float64), -1.0, 1.0).copy()
    params = evolution["es"]
    return EsStrategy(centroid, float(params["sigma"]), float(params["learning_rate"]), int(lambda_), True,
                      np.zeros_like(centroid), np.zeros_like(centroid), 0, float(params["weight_decay"]))


def sample(strategy: EsStrategy, seed: int, generation: int) -> np.ndarray:
    """The ``lambda_`` members of ``generation`` [lambda_, dim] (unit coordinates, unclamped):
    the first half is centroid + sigma·eps and the second half the mirror image
    centroid - sigma·eps."""
    rng = np.random.default_rng([seed, generation, 4])
    eps = rng.standard_normal((strategy.lambda_ // 2, strategy.centroid.size))
    return strategy.centroid + strategy.sigma * np.concatenate([eps, -eps])


def centered_ranks(fitness: np.ndarray) -> np.ndarray:
    """Fitnesses replaced by their ranks scaled to [-0.5, 0.5] (ties broken by index)."""
    f = np.asarray(fitness, np.float64)
    ranks = np.empty(len(f))
    ranks[np.argsort(f, kind="stable")] = np.arange(len(f))
    return ranks / max(len(f) - 1, 1) - 0.5


def gradient(strategy: EsStrategy, samples: np.ndarray, fitness: np.ndarray) -> np.ndarray:
    """The shaped estimate of the gradient of the expected fitness at the centroid."""
    shaped = centered_ranks(np.where(np.isfinite(fitness), fitness, -1e300))
    eps = (np.asarray(samples, np.float64) - strategy.centroid) / strategy.sigma
    half = len(shaped) // 2
    # each pair's shared noise enters once, weighted by the difference of its mirrored halves
    return (shaped[:half] - shaped[half:2 * half]) @ eps[:half] / (2 * half * strategy.sigma)


def update(strategy: EsStrategy, samples: np.ndarray, fitness: np.ndarray) -> None:
    """One Adam ascent step of the centroid on the shaped gradient (higher fitness is better),
    with L2 weight decay ``weight_decay`` (pulls every value towards 0)."""
    g = gradient(strategy, samples, fitness) - strategy.weight_decay * strategy.centroid
    strategy.t += 1
    strategy.m, strategy.v, step = adam_step(strategy.m, strategy.v, strategy.t, g, strategy.learning_rate,
                                             BETA1, BETA2, EPSILON)
    strategy.centroid = np.clip(strategy.centroid + step, -1.0, 1.0)


to_arrays = EsStrategy.to_arrays     # the module interface the runner uses (as ``cma.to_arrays``)


def from_arrays(arrays: dict[str, np.ndarray]) -> EsStrategy:
    """The strategy saved by ``to_arrays``, exactly."""
    sigma, lr, lambda_, antithetic, t, decay = (float(x) for x in arrays[f"{PREFIX}scalars"])
    return EsStrategy(np.array(arrays[f"{PREFIX}centroid"]), sigma, lr, int(lambda_), bool(antithetic),
                      np.array(arrays[f"{PREFIX}m"]), np.array(arrays[f"{PREFIX}v"]), int(t), decay)
