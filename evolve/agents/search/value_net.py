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
seat's side's final result over the deal's maximum (``evolve.games.hooks.seat_result``
and ``result_scale``). Its parameters sit in a float64 vector ``[n_in, n_hidden, W1 (n_in x
n_hidden, row-major), b1, w2, b2]``.

The three-head network (``python -m evolve.dnn``, the "card play network" of the Jass
paper, Niklaus et al. 2020, Section 6.3, trained on search instead of human games) shares
this trunk and value head and reads ``N_KNOWN`` more inputs after the ten dense ones, what
else the seat knows: the relative seat that made trump (4, one-hot), the Jass push (1), the
Euchre maker going alone (1), each other seat's revealed voids (3 x 4 suits) and the Spades
bids of the four relative seats over the number of tricks (4). A network reads them when
its ``n_in`` says so. Its vector goes on after ``b2`` with the card-distribution head
``[4N, Wc (n_hidden x 4N), bc]`` (for every card, logits of its holder: the next seat, the
partner, the previous seat, or elsewhere, the Euchre kitty, discard or sitting-out hand)
and the policy head ``[N, Wp (n_hidden x N), bp]`` (logits of the card to play, taken over
the legal cards).
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
from evolve.games.state import (
    ALONE,
    BIDS,
    MAKER,
    NPLAYED,
    PLAYED_BY,
    PUSHED,
    SIDE_POINTS,
    TRICK_CARDS,
    TRICKS_WON,
    VOIDS,
)

N_DENSE = 10
N_KNOWN = 22            # the three-head network's extra inputs (module docstring)
V_SCRATCH = N_DENSE + N_KNOWN   # scratch floats a forward pass needs after its hidden layer
V_HEADER = 2
N_HOLDERS = 4           # classes of the card-distribution head: seats +1, +2, +3, elsewhere


@njit(cache=True, inline="always")
def n_features(rules):
    """Inputs of the value network for the game of ``rules``."""
    return 6 * rules[P_N_CARDS] + max(rules[P_N_MODES], 1) + N_DENSE


@njit(cache=True, inline="always")
def n_known_features(rules):
    """Inputs of the three-head network for the game of ``rules``."""
    return n_features(rules) + N_KNOWN


@njit(cache=True, inline="always")
def _known_features(rules, seat, pub, out, at):
    """The ``N_KNOWN`` inputs of what else the seat knows into ``out[at:at+N_KNOWN]``."""
    for k in range(N_KNOWN):
        out[at + k] = 0.0
    maker = pub[MAKER]
    if 0 <= maker < 4:
        out[at + (maker - seat) % 4] = 1.0
    out[at + 4] = 1.0 if pub[PUSHED] == 1 else 0.0
    out[at + 5] = 1.0 if pub[ALONE] == 1 else 0.0
    for r in range(1, 4):
        v = pub[VOIDS + (seat + r) % 4]
        for su in range(4):
            out[at + 6 + (r - 1) * 4 + su] = float((v >> su) & 1)
    for r in range(4):
        b = pub[BIDS + (seat + r) % 4]
        out[at + 18 + r] = b / rules[P_N_TRICKS] if b >= 0 else 0.0


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
    """Write the dense feature vector of ``(seat, hand, pub)`` into ``out`` (zeroed here);
    the three-head network's extra inputs too when ``out`` has room for them."""
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
    d0 = 6 * n + max(rules[P_N_MODES], 1)
    _dense_features(rules, seat, pub, scale, out, d0)
    if out.shape[0] >= d0 + N_DENSE + N_KNOWN:
        _known_features(rules, seat, pub, out, d0 + N_DENSE)


@njit(cache=True, inline="always")
def _add_row(params, w1, k, nh, h):
    row = w1 + k * nh
    for j in range(nh):
        h[j] += params[row + j]


@njit(cache=True)
def trunk_into(params, lo, rules, mode, seat, hand, pub, scale, h):
    """The hidden layer of the network at ``params[lo:]`` on ``(seat, hand, pub)``, tanh
    applied, into ``h[:n_hidden]``. ``h`` is scratch of at least n_hidden + ``V_SCRATCH``
    floats. The sparse inputs add rows of W1 directly. Returns n_hidden."""
    n_in = np.int64(params[lo])
    nh = np.int64(params[lo + 1])
    w1 = lo + V_HEADER
    b1 = w1 + n_in * nh
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
    n_dense = N_DENSE + N_KNOWN if n_in >= d0 + N_DENSE + N_KNOWN else N_DENSE
    dense = h[nh:nh + n_dense]
    _dense_features(rules, seat, pub, scale, dense, 0)
    if n_dense > N_DENSE:
        _known_features(rules, seat, pub, dense, N_DENSE)
    for k in range(n_dense):
        x = dense[k]
        if x != 0.0:
            row = w1 + (d0 + k) * nh
            for j in range(nh):
                h[j] += x * params[row + j]
    for j in range(nh):
        h[j] = math.tanh(h[j])
    return nh


@njit(cache=True, inline="always")
def _value_head(params, lo, nh, h):
    w2 = lo + V_HEADER + np.int64(params[lo]) * nh + nh
    v = params[w2 + nh]
    for j in range(nh):
        v += params[w2 + j] * h[j]
    return v


@njit(cache=True)
def value_of(params, lo, rules, mode, seat, hand, pub, scale, h):
    """The network at ``params[lo:]`` on the observation ``(seat, hand, pub)``: the
    predicted final result of the seat's side over the deal's maximum. ``h`` is scratch
    of at least n_hidden + ``V_SCRATCH`` floats."""
    nh = trunk_into(params, lo, rules, mode, seat, hand, pub, scale, h)
    return _value_head(params, lo, nh, h)


@njit(cache=True, inline="always")
def heads_at(params, lo):
    """Where the three-head network at ``params[lo:]`` keeps its card-distribution head
    (the slot of its size 4N) and its policy head (the slot of its size N)."""
    nh = np.int64(params[lo + 1])
    cards = lo + V_HEADER + np.int64(params[lo]) * nh + 2 * nh + 1
    policy = cards + 1 + (nh + 1) * np.int64(params[cards])
    return cards, policy


@njit(cache=True)
def holder_logp_into(params, lo, rules, mode, seat, hand, pub, scale, h, logp):
    """The card-distribution head on ``(seat, hand, pub)``: ``logp[4 c + r]`` = log of the
    predicted probability that card c is with the seat r + 1 places after this one (r = 0,
    1, 2) or elsewhere (r = 3), a softmax over the four per card."""
    nh = trunk_into(params, lo, rules, mode, seat, hand, pub, scale, h)
    cards, _ = heads_at(params, lo)
    n_out = np.int64(params[cards])
    wc = cards + 1
    bc = wc + nh * n_out
    for k in range(n_out):
        logp[k] = params[bc + k]
    for j in range(nh):
        x = h[j]
        row = wc + j * n_out
        for k in range(n_out):
            logp[k] += x * params[row + k]
    for c in range(n_out // N_HOLDERS):
        a = N_HOLDERS * c
        top = max(max(logp[a], logp[a + 1]), max(logp[a + 2], logp[a + 3]))
        z = 0.0
        for r in range(N_HOLDERS):
            z += math.exp(logp[a + r] - top)
        z = top + math.log(z)
        for r in range(N_HOLDERS):
            logp[a + r] -= z


@njit(cache=True)
def policy_card(params, lo, rules, mode, seat, hand, legal, pub, scale, h):
    """The policy head's choice on ``(seat, hand, pub)``: the legal card with the highest
    logit (the lowest card of a tie), the Jass paper's "DNN max policy"."""
    nh = trunk_into(params, lo, rules, mode, seat, hand, pub, scale, h)
    _, pol = heads_at(params, lo)
    n_out = np.int64(params[pol])
    wp = pol + 1
    bp = wp + nh * n_out
    best = -1
    best_z = -1.0e300
    m = legal
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        z = params[bp + c]
        for j in range(nh):
            z += h[j] * params[wp + j * n_out + c]
        if best < 0 or z > best_z:
            best = c
            best_z = z
    return best


VALUE_FILE = "a value.npz written by python -m evolve.value"
DNN_FILE = "a dnn.npz written by python -m evolve.dnn"
FORMAT = 1
HEAD_ARRAYS = ("wc", "bc", "wp", "bp")


@dataclass(frozen=True)
class ValueNet:
    """A trained value network for one game (with its options), or the three-head network
    (value, card distribution, policy; ``has_heads``) whose trunk and value head it shares."""

    game: str
    options: dict
    w1: np.ndarray      # [n_in, n_hidden]
    b1: np.ndarray      # [n_hidden]
    w2: np.ndarray      # [n_hidden]
    b2: float
    meta: dict = field(default_factory=dict)
    wc: np.ndarray | None = None    # [n_hidden, 4 N]: card-distribution head
    bc: np.ndarray | None = None    # [4 N]
    wp: np.ndarray | None = None    # [n_hidden, N]: policy head
    bp: np.ndarray | None = None    # [N]

    @property
    def n_in(self) -> int:
        return int(self.w1.shape[0])

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def has_heads(self) -> bool:
        """Whether this is the three-head network."""
        return self.wc is not None

    def params(self) -> np.ndarray:
        """The float64 parameter vector the Numba code reads (``value_of``, ``heads_at``)."""
        parts = [[self.n_in, self.n_hidden], self.w1.ravel(), self.b1, self.w2, [self.b2]]
        if self.has_heads:
            parts += [[self.bc.size], self.wc.ravel(), self.bc, [self.bp.size], self.wp.ravel(), self.bp]
        return np.concatenate(parts).astype(np.float64)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted results (over the deal's maximum) for feature rows ``x``."""
        return np.tanh(np.asarray(x, np.float64) @ self.w1 + self.b1) @ self.w2 + self.b2


def save_value(directory: str | Path, net: ValueNet) -> Path:
    """Write ``value.npz`` and ``value.json`` (the three-head network: ``dnn.npz`` and
    ``dnn.json``) into ``directory`` atomically."""
    arrays = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": np.array([net.b2])}
    if net.has_heads:
        arrays.update({k: getattr(net, k) for k in HEAD_ARRAYS})
    meta = {"format": FORMAT, "game": net.game, "game_options": net.options, "n_in": net.n_in,
            "n_hidden": net.n_hidden, **net.meta}
    return write_npz_json(directory, "dnn" if net.has_heads else "value", arrays, meta)


def load_value(path: str | Path, game=None, heads: bool = False) -> ValueNet:
    """Load ``value.npz`` or ``dnn.npz`` (or a folder holding one) with its ``.json`` beside
    it; with ``game``, check that it was trained for that game and its number of inputs;
    with ``heads``, that it is the three-head network. Anything wrong is one ``UsageError``
    naming the file."""
    folder = Path(path)
    stem = "dnn" if heads or (folder.is_dir() and (folder / "dnn.npz").is_file()) else "value"
    what, expected = ("three-head network", DNN_FILE) if heads else ("value network", VALUE_FILE)
    path, meta_path = npz_json_paths(path, stem, what, f" (expected {expected})")
    try:
        meta = json.loads(meta_path.read_text())
        n_in, n_hidden, name = int(meta["n_in"]), int(meta["n_hidden"]), str(meta["game"])
        options = dict(meta.get("game_options") or {})
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as e:
        raise UsageError(f"{meta_path}: invalid {what} metadata ({e.__class__.__name__}: {e})") from None
    data = read_npz(path, expected)
    shapes = {"w1": (n_in, n_hidden), "b1": (n_hidden,), "w2": (n_hidden,), "b2": (1,)}
    with_heads = "wc" in data
    if heads and not with_heads:
        raise UsageError(f"{path}: has no card-distribution or policy head (expected {DNN_FILE})")
    if with_heads:
        n_cards = data["bp"].shape[0] if "bp" in data and data["bp"].ndim == 1 else -1
        shapes.update({"wc": (n_hidden, N_HOLDERS * n_cards), "bc": (N_HOLDERS * n_cards,),
                       "wp": (n_hidden, n_cards), "bp": (n_cards,)})
    for key, shape in shapes.items():
        if key not in data or data[key].shape != shape:
            got = data[key].shape if key in data else "missing"
            raise UsageError(f"{path}: array {key!r} is {got}, expected shape {shape} ({expected})")
    if game is not None:
        if name != game.name:
            raise UsageError(f"{what} {str(path)!r} was trained for {name}, not {game.name}")
        plain, known = int(n_features(game.rules)), int(n_known_features(game.rules))
        if n_in not in (plain, known) or (with_heads and (n_in != known or n_cards != game.info.n_cards)):
            want = known if with_heads else plain
            raise UsageError(f"{what} {str(path)!r} has {n_in} inputs; {game.name} with these options needs {want}")
    rest = {k: v for k, v in meta.items() if k not in ("format", "game", "game_options", "n_in", "n_hidden")}
    arrays = {k: np.asarray(data[k], np.float64) for k in HEAD_ARRAYS} if with_heads else {}
    return ValueNet(name, options, *(np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2")),
                    float(data["b2"][0]), rest, **arrays)
