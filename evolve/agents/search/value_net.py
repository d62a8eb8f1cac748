"""Numba core of the value network (``evolve.learn.value``): the features of a seat's
observation and the network's forward pass, shared by training (``evolve.value``), the
``maxvalue`` agent and DMCTS's depth cutoff (``dmcts:value=PATH,depth=k``).

Features of ``(seat, hand, pub)`` for a game of N cards and M trump modes (n_in = 6N + M + 10):

- ``[0, N)``: the seat's hand; ``[N, 2N)``: the cards of the current trick (the Spades
  thesis's card-based locations "in my hand" / "on the table");
- ``[2N + r N, 3N + r N)`` for r = 0..3: the cards played so far (any trick) by the seat
  r places after this one (0 = itself, 2 = the partner);
- ``[6N, 6N + M)``: a one-hot of the trump mode;
- then: card points (or tricks) won so far by the seat's side and by the other side over
  the deal's maximum, tricks won by each relative seat over the number of tricks, and a
  one-hot of the number of cards already in the current trick.

The network: ``h = tanh(b1 + x W1)``, ``v = b2 + h . w2`` (a linear output), predicting the
seat's side's final result over the deal's maximum (``evolve.games.scoring.seat_result``
and ``result_scale``). Its parameters sit in a float64 vector ``[n_in, n_hidden, W1 (n_in x
n_hidden, row-major), b1, w2, b2]``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from evolve.core.errors import UsageError
from evolve.core.files import npz_json_paths, read_npz, write_npz_json
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

VALUE_FILE = "a value.npz written by python -m evolve.value"
FORMAT = 1


@dataclass(frozen=True)
class ValueNet:
    """A trained value network for one game (with its options)."""

    game: str
    options: dict
    w1: np.ndarray      # [n_in, n_hidden]
    b1: np.ndarray      # [n_hidden]
    w2: np.ndarray      # [n_hidden]
    b2: float
    meta: dict = field(default_factory=dict)

    @property
    def n_in(self) -> int:
        return int(self.w1.shape[0])

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    def params(self) -> np.ndarray:
        """The float64 parameter vector the Numba code reads (``value_of`` above)."""
        return np.concatenate([[self.n_in, self.n_hidden], self.w1.ravel(), self.b1, self.w2, [self.b2]]).astype(
            np.float64)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted results (over the deal's maximum) for feature rows ``x``."""
        return np.tanh(np.asarray(x, np.float64) @ self.w1 + self.b1) @ self.w2 + self.b2


def save_value(directory: str | Path, net: ValueNet) -> Path:
    """Write ``value.npz`` and ``value.json`` into ``directory`` atomically."""
    arrays = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": np.array([net.b2])}
    meta = {"format": FORMAT, "game": net.game, "game_options": net.options, "n_in": net.n_in,
            "n_hidden": net.n_hidden, **net.meta}
    return write_npz_json(directory, "value", arrays, meta)


def load_value(path: str | Path, game=None) -> ValueNet:
    """Load ``value.npz`` (or its folder) with ``value.json`` beside it; with ``game``,
    check that it was trained for that game and its number of inputs. Anything wrong is
    one ``UsageError`` naming the file."""
    path, meta_path = npz_json_paths(path, "value", "value network", f" (expected {VALUE_FILE})")
    try:
        meta = json.loads(meta_path.read_text())
        n_in, n_hidden, name = int(meta["n_in"]), int(meta["n_hidden"]), str(meta["game"])
        options = dict(meta.get("game_options") or {})
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise UsageError(f"{meta_path}: invalid value network metadata ({e.__class__.__name__}: {e})") from None
    data = read_npz(path, VALUE_FILE)
    shapes = {"w1": (n_in, n_hidden), "b1": (n_hidden,), "w2": (n_hidden,), "b2": (1,)}
    for key, shape in shapes.items():
        if key not in data or data[key].shape != shape:
            got = data[key].shape if key in data else "missing"
            raise UsageError(f"{path}: array {key!r} is {got}, expected shape {shape} ({VALUE_FILE})")
    if game is not None:
        if name != game.name:
            raise UsageError(f"value network {str(path)!r} was trained for {name}, not {game.name}")
        want = int(n_features(game.rules))
        if n_in != want:
            raise UsageError(f"value network {str(path)!r} has {n_in} inputs; {game.name} with these options needs "
                             f"{want}")
    rest = {k: v for k, v in meta.items() if k not in ("format", "game", "game_options", "n_in", "n_hidden")}
    return ValueNet(name, options, *(np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2")),
                    float(data["b2"][0]), rest)
