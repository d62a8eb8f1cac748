"""Numba core of the value network (``evolve.agents.value``): the features of a seat's
observation and the network's forward pass, shared by training (``evolve.value``), the
``maxvalue`` agent and DMCTS's depth cutoff (``dmcts:value=PATH,depth=k``).

Features of ``(seat, hand, pub)`` for a game of N cards and M trump modes (n_in = 6N + M + 10):

- ``[0, N)``: the seat's hand; ``[N, 2N)``: the cards of the current trick (SPEC §3's
  card-based locations "in my hand" / "on the table");
- ``[2N + r N, 3N + r N)`` for r = 0..3: the cards played so far (any trick) by the seat
  r places after this one (0 = itself, 2 = the partner);
- ``[6N, 6N + M)``: a one-hot of the trump mode;
- then: card points (or tricks) won so far by the seat's side and by the other side over
  the deal's maximum, tricks won by each relative seat over the number of tricks, and a
  one-hot of the number of cards already in the current trick.

The network: ``h = tanh(b1 + x W1)``, ``v = b2 + h . w2`` (a linear output), predicting the
seat's side's final result over the deal's maximum (``evolve.agents.search.seat_result``
and ``result_scale``). Its parameters sit in a float64 vector ``[n_in, n_hidden, W1 (n_in x
n_hidden, row-major), b1, w2, b2]``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from evolve.games.bits import ONE, ZERO, lowest
from evolve.games.rules import P_N_CARDS, P_N_MODES, P_N_TRICKS
from evolve.games.state import NPLAYED, PLAYED_BY, SIDE_POINTS, TRICK_CARDS, TRICKS_WON

N_DENSE = 10
V_HEADER = 2


@njit(cache=True, inline="always")
def n_features(rules):
    """Inputs of the value network for the game of ``rules``."""
    return 6 * rules[P_N_CARDS] + max(rules[P_N_MODES], 1) + N_DENSE


@njit(cache=True, inline="always")
def _dense_features(rules, seat, pub, scale, out, at):
    """The ten dense inputs into ``out[at:at+10]``."""
    out[at] = pub[SIDE_POINTS + seat % 2] / scale
    out[at + 1] = pub[SIDE_POINTS + (seat + 1) % 2] / scale
    for r in range(4):
        out[at + 2 + r] = pub[TRICKS_WON + (seat + r) % 4] / rules[P_N_TRICKS]
    for q in range(4):
        out[at + 6 + q] = 0.0
    out[at + 6 + min(max(pub[NPLAYED], 0), 3)] = 1.0


@njit(cache=True)
def features_into(rules, mode, seat, hand, pub, scale, out):
    """Write the dense feature vector of ``(seat, hand, pub)`` into ``out`` (zeroed here)."""
    n = rules[P_N_CARDS]
    out[:] = 0.0
    m = hand
    while m != ZERO:
        out[lowest(m)] = 1.0
        m &= m - ONE
    for q in range(max(pub[NPLAYED], 0)):
        out[n + pub[TRICK_CARDS + q]] = 1.0
    for r in range(4):
        m = np.uint64(pub[PLAYED_BY + (seat + r) % 4])
        while m != ZERO:
            out[(2 + r) * n + lowest(m)] = 1.0
            m &= m - ONE
    if mode >= 0:
        out[6 * n + mode] = 1.0
    _dense_features(rules, seat, pub, scale, out, 6 * n + max(rules[P_N_MODES], 1))


@njit(cache=True, inline="always")
def _add_row(params, w1, k, nh, h):
    row = w1 + k * nh
    for j in range(nh):
        h[j] += params[row + j]


@njit(cache=True)
def value_of(params, lo, rules, mode, seat, hand, pub, scale, h):
    """The network at ``params[lo:]`` on the observation ``(seat, hand, pub)``: the
    predicted final result of the seat's side over the deal's maximum. ``h`` is scratch
    of at least n_hidden + 10 floats. The sparse inputs add rows of W1 directly."""
    n_in = np.int64(params[lo])
    nh = np.int64(params[lo + 1])
    w1 = lo + V_HEADER
    b1 = w1 + n_in * nh
    w2 = b1 + nh
    b2 = w2 + nh
    n = rules[P_N_CARDS]
    for j in range(nh):
        h[j] = params[b1 + j]
    m = hand
    while m != ZERO:
        _add_row(params, w1, lowest(m), nh, h)
        m &= m - ONE
    for q in range(max(pub[NPLAYED], 0)):
        _add_row(params, w1, n + pub[TRICK_CARDS + q], nh, h)
    for r in range(4):
        m = np.uint64(pub[PLAYED_BY + (seat + r) % 4])
        while m != ZERO:
            _add_row(params, w1, (2 + r) * n + lowest(m), nh, h)
            m &= m - ONE
    if mode >= 0:
        _add_row(params, w1, 6 * n + mode, nh, h)
    d0 = 6 * n + max(rules[P_N_MODES], 1)
    dense = h[nh:nh + N_DENSE]
    _dense_features(rules, seat, pub, scale, dense, 0)
    for k in range(N_DENSE):
        x = dense[k]
        if x != 0.0:
            row = w1 + (d0 + k) * nh
            for j in range(nh):
                h[j] += x * params[row + j]
    v = params[b2]
    for j in range(nh):
        v += params[w2 + j] * math.tanh(h[j])
    return v
