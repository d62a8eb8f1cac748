"""CMA-ES for small genomes through DEAP's ``cma.Strategy`` (``algorithm = "cma"``).

DEAP samples from numpy's *global* generator. We own that state: each generation's
sample is drawn under a global state seeded from ``(seed, generation)`` and the caller's
global state is put back afterwards, so a run is reproducible and resumable bit for bit
whatever else uses ``numpy.random``. The strategy's state is saved as plain arrays in the
checkpoint (no pickle). Samples live in the runner's unit coordinates; a sample outside
[-1, 1] is evaluated clamped to the box and updates the strategy as drawn, and the mean
is kept inside the box.
"""

from __future__ import annotations

import numpy as np
from deap import base, cma
from threadpoolctl import threadpool_limits

MAX_DIMENSION = 5000    # a full covariance matrix is dim² floats; beyond this use the GA

# Strategy fields that change during a run (everything else follows from dim and lambda_)
_STATE = ("centroid", "sigma", "pc", "ps", "C", "B", "diagD", "BD", "cond", "update_count")


class _Fitness(base.Fitness):
    weights = (1.0,)


class _Member(np.ndarray):
    """A sample with the ``fitness`` attribute DEAP's update sorts by."""


def new_strategy(centroid: np.ndarray, sigma: float, lambda_: int) -> cma.Strategy:
    """A fresh strategy around ``centroid`` (unit coordinates)."""
    with threadpool_limits(1):
        return cma.Strategy(centroid=np.asarray(centroid, np.float64), sigma=float(sigma), lambda_=int(lambda_))


def from_config(centroid: np.ndarray, lambda_: int, evolution: dict) -> cma.Strategy:
    """A fresh strategy around ``centroid`` from the ``[evolution]`` table (``[evolution.cma] sigma``)."""
    return new_strategy(centroid, evolution["cma"]["sigma"], lambda_)


def sample(strategy: cma.Strategy, seed: int, generation: int) -> np.ndarray:
    """The ``lambda_`` samples of ``generation`` [lambda_, dim] (unit coordinates, unclamped)."""
    saved = np.random.get_state()
    np.random.seed(np.random.SeedSequence([seed, generation, 3]).generate_state(4))
    try:
        with threadpool_limits(1):
            return np.array(strategy.generate(np.array), np.float64)
    finally:
        np.random.set_state(saved)


def update(strategy: cma.Strategy, samples: np.ndarray, fitness: np.ndarray) -> None:
    """Move the strategy towards the best samples (higher fitness is better)."""
    members = []
    for row, f in zip(samples, fitness):
        m = np.array(row, np.float64).view(_Member)
        m.fitness = _Fitness((float(f) if np.isfinite(f) else -1e300,))
        members.append(m)
    with threadpool_limits(1):
        strategy.update(members)
    np.clip(strategy.centroid, -1.0, 1.0, out=strategy.centroid)


def to_arrays(strategy: cma.Strategy) -> dict[str, np.ndarray]:
    """The strategy's state as named arrays for the checkpoint."""
    out = {f"cma_{k}": np.asarray(getattr(strategy, k), np.float64) for k in _STATE}
    out["cma_lambda"] = np.asarray(strategy.lambda_, np.float64)
    return out


def from_arrays(arrays: dict[str, np.ndarray]) -> cma.Strategy:
    """The strategy saved by ``to_arrays``, exactly."""
    s = new_strategy(arrays["cma_centroid"], float(arrays["cma_sigma"]), int(arrays["cma_lambda"]))
    for k in _STATE:
        v = np.array(arrays[f"cma_{k}"])
        setattr(s, k, v if v.ndim else v.item())
    s.update_count = int(s.update_count)
    return s
