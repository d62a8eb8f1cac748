"""One tanh multilayer perceptron in numpy, forward and backward, for the trainers that
fit networks by gradient descent: imitation of a teacher (``evolve.learn.imitation``: two
tanh hidden layers, tanh outputs scored by a softmax over the legal cards) and value
networks (``evolve.learn.value``: one tanh hidden layer, a linear output).

A network is a list of layers ``(W, b)`` with ``W`` of shape [inputs, outputs] (a vector
for a single linear output). Hidden layers are tanh; ``forward`` applies tanh to the
output layer too unless ``linear_output``. The caller turns its loss into ``delta``, the
gradient with respect to the output layer's pre-activation, and ``backward`` carries it
down through the tanh layers (derivative ``1 - h**2``)."""

from __future__ import annotations

import numpy as np


def forward(x: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]], linear_output: bool = False
            ) -> list[np.ndarray]:
    """The activations ``[x, h1, ..., out]`` of the network at inputs ``x`` [n, inputs]."""
    acts = [x]
    for k, (w, b) in enumerate(layers):
        z = acts[-1] @ w + b
        acts.append(z if linear_output and k == len(layers) - 1 else np.tanh(z))
    return acts


def backward(acts: list[np.ndarray], layers: list[tuple[np.ndarray, np.ndarray]], delta: np.ndarray
             ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The gradients ``(dW, db)`` of every layer, given ``delta`` = d loss / d (the output
    layer's pre-activation) [n, outputs] (or [n] for a single output)."""
    grads = []
    for k in range(len(layers) - 1, -1, -1):
        w, _ = layers[k]
        below = acts[k]
        grads.append((below.T @ delta, delta.sum(axis=0)))
        if k:
            back = np.outer(delta, w) if delta.ndim == 1 else delta @ w.T
            delta = back * (1.0 - below ** 2)
    return grads[::-1]
