"""Adam (Kingma & Ba, 2015), written once for every optimiser of the project: the
evolution strategy's mean (``evolve.evolution.strategies.es``), imitation
(``evolve.learn.imitation``) and value networks (``evolve.learn.value``).

``adam_step`` is a pure function of the moment estimates and the gradient; each caller
keeps ``m``, ``v`` and ``t`` where its checkpoints need them. ``gains`` (default
``1 - beta``) and ``square_first`` fix the floating-point rounding of the moment updates:
the three trainers were first written with slightly different expressions, and the runs
recorded with them (the committed champions, the shipped value networks) stay bit for bit
reproducible only with the same rounding. The mathematics is the same in every case.
"""

from __future__ import annotations

import numpy as np


def adam_step(m: np.ndarray, v: np.ndarray, t: int, grad: np.ndarray, learning_rate: float,
              beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
              gains: tuple[float, float] | None = None, square_first: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Adam step at step number ``t`` (1 for the first): the new first and second
    moment estimates and the step ``lr * m_hat / (sqrt(v_hat) + eps)``, which the caller
    adds to its parameters to climb ``grad`` or subtracts to descend it.

    ``gains``: the weights of the new gradient in the moment updates (default ``(1 -
    beta1, 1 - beta2)``); ``square_first``: the second moment adds ``gain * (g * g)``
    instead of ``(gain * g) * g``."""
    g1, g2 = (1 - beta1, 1 - beta2) if gains is None else gains
    m = beta1 * m + g1 * grad
    v = beta2 * v + (g2 * grad ** 2 if square_first else g2 * grad * grad)
    step = learning_rate * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
    return m, v, step
