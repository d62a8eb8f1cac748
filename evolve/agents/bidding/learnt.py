"""Learnt trump chooser (``bidder=learnt``, kind ``BID_LEARNT``) for Jass and Euchre: the
Jass paper's "Trump Selection Network" (its Section 6.3, Table 2), trained here to imitate
the search bidder (``bidder=search`` with a large ``bid_iterations``), not human games as
in the paper (``evolve.learn.trump`` trains it; ``python -m evolve.trump`` is the command).

Jass

Inputs, as in the paper: the seat's 36-card hand (one input per card, 1 when held) and a
flag, 1 when the seat is the second of its team to be asked (the partner after a push).
One tanh hidden layer and 7 outputs, the modes 0..5 (D, H, S, C, Obe-abe, Une-ufe) and
push; the seat calls the mode with the highest output, push only when it may push (the
second seat's push output is never considered). Ties go to the lower mode.

The bidder reads only the deciding seat's hand and whether it may push (the public
state), so it is honest by construction, and it draws no random number.

Parameters ``params[lo:hi]``, a float64 vector::

    [n_in (37), n_hidden, n_out (7), W1T (n_hidden x n_in, row-major), b1 (n_hidden),
     W2 (n_hidden x n_out, row-major), b2 (n_out)]

W1 is stored transposed so that one hidden unit's input weights are contiguous: the
forward pass walks the hidden units once, adds the weights of the nine held cards (and
the flag), and accumulates the seven outputs in registers. The bidding hooks get no
scratch memory and engine kernels may not allocate, which is why the network has one
hidden layer (a second would need a buffer of the first layer's activations).

Euchre (the same pattern, one network for all of a seat's bidding decisions). Inputs
(60): the seat's 24-card hand, the turned card (24, one-hot), the seat's position from
the dealer's left (4: forehand .. dealer), the decision (4: order up or pass in round 1;
a suit or pass in round 2; alone after ordering up; alone after naming a suit) and trump
(4, one-hot; only for the alone decisions). The calls so far add nothing: a seat is asked
only when every seat before it passed, so its position and the round say what they were.
Seven outputs: the four suits (make that suit trump: in round 1 only the turned suit,
which is ordering up), pass, not alone, alone; the seat takes the best of the outputs
legal for its decision (round 2: the suits other than the turned one, and pass unless it
must call), ties to the lower output. The dealer's discard is the simple rule's (the least
valuable card), as with the search bidder. Parameters as for Jass with n_in 60.

Files: ``trump.npz`` (arrays ``w1`` [n_in, n_hidden], ``b1``, ``w2`` [n_hidden, n_out],
``b2``) and ``trump.json`` (metadata: format, game, sizes, how it was made), never
pickled. The shipped nets are ``evolve/agents/data/trump_jass.npz`` and
``trump_euchre.npz``.
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
from evolve.games.bits import ONE, ZERO, kernel, lowest
from evolve.games.state import DEALER, UPCARD

BID_LEARNT = 22
BID_JASS_NET = BID_LEARNT       # the kind's first name (it was Jass only)

N_CARDS = 36
N_IN = N_CARDS + 1          # the hand, then the "second of the team to be asked" flag
N_OUT = 7                   # modes 0..5, push
PUSH = 6
HEADER = 3
FORMAT = 1
STEM = "trump"
NET_FILE = "a trump.npz written by python -m evolve.trump"
DATA = Path(__file__).resolve().parent.parent / "data"          # evolve/agents/data
SHIPPED = DATA / "trump_jass.npz"
SHIPPED_EUCHRE = DATA / "trump_euchre.npz"
SHIPPED_BY_GAME = {"jass": SHIPPED, "euchre": SHIPPED_EUCHRE}

# Euchre: inputs, outputs, decisions
EU_CARDS = 24
EU_UP = EU_CARDS                # the turned card, one-hot
EU_POS = EU_UP + EU_CARDS       # position from the dealer's left: 0 forehand .. 3 dealer
EU_DEC = EU_POS + 4             # the decision
EU_TRUMP = EU_DEC + 4           # trump, one-hot (alone decisions only)
EU_IN = EU_TRUMP + 4            # 60
EU_OUT = 7                      # suits 0..3, pass, not alone, alone
EU_PASS, EU_NOT_ALONE, EU_ALONE = 4, 5, 6
D_ORDER, D_CALL, D_ALONE_ORDERED, D_ALONE_CALLED = 0, 1, 2, 3
SIZES = {"jass": (N_IN, N_OUT), "euchre": (EU_IN, EU_OUT)}


# ----------------------------------------------------------------------------- forward pass


@njit(cache=True, inline="always")
def _layout(params, lo, hi, n_in):
    """(n_hidden, W1T, b1, W2, b2 offsets) of the network at ``params[lo:hi]``, checked
    against ``n_in`` inputs and the seven outputs."""
    nh = np.int64(params[lo + 1])
    if np.int64(params[lo]) != n_in or np.int64(params[lo + 2]) != N_OUT or \
            hi - lo != HEADER + nh * (n_in + 1 + N_OUT) + N_OUT:
        raise ValueError("learnt bidder: malformed parameter vector")
    w1 = lo + HEADER
    b1 = w1 + nh * n_in
    w2 = b1 + nh
    return nh, w1, b1, w2, w2 + nh * N_OUT


@njit(cache=True, inline="always")
def _hidden(params, row, hand, z):
    """One hidden unit: tanh of ``z`` plus its weights of the held cards."""
    m = hand
    while m != ZERO:
        z += params[row + lowest(m)]
        m &= m - ONE
    return math.tanh(z)


@njit(cache=True, inline="always")
def _add_unit(params, out, h, o0, o1, o2, o3, o4, o5, o6):
    """The seven outputs plus hidden unit ``h`` times its output weights at ``out``."""
    return (o0 + h * params[out], o1 + h * params[out + 1], o2 + h * params[out + 2], o3 + h * params[out + 3],
            o4 + h * params[out + 4], o5 + h * params[out + 5], o6 + h * params[out + 6])


@kernel
def jass_net_mode(params, lo, hi, hand, may_push):
    """The network's call for ``hand``: a mode 0..5, or 6 (push, only when ``may_push``)."""
    nh, w1, b1, w2, b2 = _layout(params, lo, hi, N_IN)
    flag = 0.0 if may_push else 1.0
    o0, o1, o2, o3 = params[b2], params[b2 + 1], params[b2 + 2], params[b2 + 3]
    o4, o5, o6 = params[b2 + 4], params[b2 + 5], params[b2 + 6]
    for j in range(nh):
        row = w1 + j * N_IN
        z = params[b1 + j] + flag * params[row + N_CARDS]
        o0, o1, o2, o3, o4, o5, o6 = _add_unit(params, w2 + j * N_OUT, _hidden(params, row, hand, z),
                                               o0, o1, o2, o3, o4, o5, o6)
    best, best_v = 0, o0
    if o1 > best_v:
        best, best_v = 1, o1
    if o2 > best_v:
        best, best_v = 2, o2
    if o3 > best_v:
        best, best_v = 3, o3
    if o4 > best_v:
        best, best_v = 4, o4
    if o5 > best_v:
        best, best_v = 5, o5
    if may_push and o6 > best_v:
        best = PUSH
    return best


@kernel
def euchre_net_choice(params, lo, hi, hand, up, pos, decision, trump, must_call):
    """The network's output for a Euchre decision (module docstring): a suit 0..3 (order
    up: the turned suit; round 2: another suit), ``EU_PASS`` (never when ``must_call``),
    or ``EU_NOT_ALONE`` / ``EU_ALONE`` for the alone decisions."""
    nh, w1, b1, w2, b2 = _layout(params, lo, hi, EU_IN)
    o0, o1, o2, o3 = params[b2], params[b2 + 1], params[b2 + 2], params[b2 + 3]
    o4, o5, o6 = params[b2 + 4], params[b2 + 5], params[b2 + 6]
    for j in range(nh):
        row = w1 + j * EU_IN
        z = params[b1 + j] + params[row + EU_UP + up] + params[row + EU_POS + pos] + params[row + EU_DEC + decision]
        if trump >= 0:
            z += params[row + EU_TRUMP + trump]
        o0, o1, o2, o3, o4, o5, o6 = _add_unit(params, w2 + j * EU_OUT, _hidden(params, row, hand, z),
                                               o0, o1, o2, o3, o4, o5, o6)
    if decision >= D_ALONE_ORDERED:
        return EU_ALONE if o6 > o5 else EU_NOT_ALONE
    banned = up // 6
    best, best_v = -1, 0.0
    for s in range(4):
        v = o0 if s == 0 else (o1 if s == 1 else (o2 if s == 2 else o3))
        legal = s == banned if decision == D_ORDER else s != banned
        if legal and (best < 0 or v > best_v):
            best, best_v = s, v
    if not must_call and o4 > best_v:
        return EU_PASS
    return best


@kernel
def euchre_position(seat, pub):
    """The seat's position from the dealer's left: 0 forehand .. 3 dealer."""
    return (seat - pub[DEALER] + 3) % 4


@kernel
def euchre_order(params, lo, hi, seat, hand, pub):
    """Round 1: order up (True) or pass."""
    return euchre_net_choice(params, lo, hi, hand, pub[UPCARD], euchre_position(seat, pub), D_ORDER, -1,
                             False) != EU_PASS


@kernel
def euchre_call(params, lo, hi, seat, hand, pub, must_call):
    """Round 2: a suit other than the turned card's, or -1 (pass) unless ``must_call``."""
    c = euchre_net_choice(params, lo, hi, hand, pub[UPCARD], euchre_position(seat, pub), D_CALL, -1, must_call)
    return -1 if c == EU_PASS else c


@kernel
def euchre_alone(params, lo, hi, seat, hand, pub, trump):
    """Whether the maker goes alone (trump is the turned suit only after ordering up)."""
    decision = D_ALONE_ORDERED if trump == pub[UPCARD] // 6 else D_ALONE_CALLED
    return euchre_net_choice(params, lo, hi, hand, pub[UPCARD], euchre_position(seat, pub), decision, trump,
                             False) == EU_ALONE


# ----------------------------------------------------------------------------- the network in numpy


@dataclass(frozen=True)
class TrumpNet:
    """A trained trump-selection network (weights as the trainer uses them)."""

    w1: np.ndarray      # [n_in, n_hidden]
    b1: np.ndarray      # [n_hidden]
    w2: np.ndarray      # [n_hidden, n_out]
    b2: np.ndarray      # [n_out]
    meta: dict = field(default_factory=dict)
    game: str = "jass"

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    def params(self) -> np.ndarray:
        """The float64 parameter vector ``jass_net_mode`` / ``euchre_net_choice`` read
        (module docstring)."""
        n_in, n_out = SIZES[self.game]
        return np.concatenate([[n_in, self.n_hidden, n_out], self.w1.T.ravel(), self.b1, self.w2.ravel(),
                               self.b2]).astype(np.float64)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The outputs for input rows ``x`` [n, n_in] (numpy; not yet masked)."""
        return np.tanh(np.asarray(x, np.float64) @ self.w1 + self.b1) @ self.w2 + self.b2


def _bits(hands: np.ndarray, n: int) -> np.ndarray:
    hands = np.asarray(hands, np.uint64)
    return ((hands[:, None] >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(np.float64)


def inputs(hands: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Jass input rows [n, 37] from hand masks (uint64, bit c = card c) and the second-seat flags."""
    x = _bits(hands, N_CARDS)
    return np.concatenate([x, np.asarray(second, np.float64)[:, None]], axis=1)


def calls(net: TrumpNet, hands: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The network's Jass calls (0..6; never push for a second seat), computed in numpy."""
    z = net.logits(inputs(hands, second))
    z[np.asarray(second, bool), PUSH] = -np.inf
    return np.argmax(z, axis=1)


def euchre_inputs(hands, up, pos, decision, trump) -> np.ndarray:
    """Euchre input rows [n, 60] (module docstring); ``trump`` -1 where there is none."""
    hands = np.asarray(hands, np.uint64)
    n = len(hands)
    rows = np.arange(n)
    x = np.zeros((n, EU_IN))
    x[:, :EU_CARDS] = _bits(hands, EU_CARDS)
    x[rows, EU_UP + np.asarray(up, np.int64)] = 1.0
    x[rows, EU_POS + np.asarray(pos, np.int64)] = 1.0
    x[rows, EU_DEC + np.asarray(decision, np.int64)] = 1.0
    trump = np.asarray(trump, np.int64)
    t = trump >= 0
    x[rows[t], EU_TRUMP + trump[t]] = 1.0
    return x


def euchre_legal(up, decision, must) -> np.ndarray:
    """The outputs legal for each decision, a bool mask [n, 7] (module docstring)."""
    up, decision, must = (np.asarray(a) for a in (up, decision, must))
    n = len(up)
    rows = np.arange(n)
    banned = np.asarray(up, np.int64) // 6
    legal = np.zeros((n, EU_OUT), bool)
    order, call, alone = decision == D_ORDER, decision == D_CALL, decision >= D_ALONE_ORDERED
    legal[rows[order], banned[order]] = True
    legal[call, :4] = True
    legal[rows[call], banned[call]] = False
    legal[:, EU_PASS] = order | (call & ~np.asarray(must, bool))
    legal[alone, EU_NOT_ALONE:] = True
    return legal


def euchre_calls(net: TrumpNet, hands, up, pos, decision, trump, must) -> np.ndarray:
    """The network's Euchre outputs (0..3 a suit, 4 pass, 5 not alone, 6 alone), in numpy."""
    z = net.logits(euchre_inputs(hands, up, pos, decision, trump))
    z[~euchre_legal(up, decision, must)] = -np.inf
    return np.argmax(z, axis=1)


def save_trump(directory: str | Path, net: TrumpNet, stem: str = STEM) -> Path:
    """Write ``<stem>.npz`` and ``<stem>.json`` (default ``trump``) into ``directory`` atomically."""
    arrays = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": net.b2}
    n_in, n_out = SIZES[net.game]
    meta = {"format": FORMAT, "game": net.game, "n_in": n_in, "n_hidden": net.n_hidden, "n_out": n_out, **net.meta}
    return write_npz_json(directory, stem, arrays, meta)


def load_trump(path: str | Path, game: str | None = None) -> TrumpNet:
    """Load ``trump.npz`` (or its folder, or any ``X.npz`` with ``X.json`` beside it), for
    ``game`` when given (else the file's own game). Anything wrong is one ``UsageError``
    naming the file (and the key)."""
    path, meta_path = npz_json_paths(path, STEM, "trump network", f" (expected {NET_FILE})")
    try:
        meta = json.loads(meta_path.read_text())
        n_hidden, file_game = int(meta["n_hidden"]), str(meta["game"])
        n_in, n_out = int(meta["n_in"]), int(meta["n_out"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as e:
        raise UsageError(f"{meta_path}: invalid trump network metadata ({e.__class__.__name__}: {e})") from None
    want = game or (file_game if file_game in SIZES else "jass")
    w_in, w_out = SIZES[want]
    if file_game != want or n_in != w_in or n_out != w_out or n_hidden < 1:
        raise UsageError(f"{meta_path}: a trump network for {want} with {w_in} inputs and {w_out} outputs expected, "
                         f"got game {file_game!r}, n_in {n_in}, n_out {n_out}, n_hidden {n_hidden}")
    data = read_npz(path, NET_FILE)
    shapes = {"w1": (w_in, n_hidden), "b1": (n_hidden,), "w2": (n_hidden, w_out), "b2": (w_out,)}
    for key, shape in shapes.items():
        if key not in data or data[key].shape != shape:
            got = data[key].shape if key in data else "missing"
            raise UsageError(f"{path}: array {key!r} is {got}, expected shape {shape} ({NET_FILE})")
        if not np.issubdtype(data[key].dtype, np.floating) or not np.isfinite(data[key]).all():
            raise UsageError(f"{path}: array {key!r} must hold finite floats ({NET_FILE})")
    rest = {k: v for k, v in meta.items() if k not in ("format", "game", "n_in", "n_hidden", "n_out")}
    return TrumpNet(*(np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2", "b2")), rest, want)


_LOADED: dict = {}


def bidder_params(path: str = "", game: str = "jass") -> np.ndarray:
    """The parameter vector of ``bidder=learnt`` in ``game`` from ``bid_net=PATH`` (default:
    the game's shipped net). A file is read again only when it or its metadata changed
    (size or modification time), so a matrix of many seats reads it once."""
    npz, meta = npz_json_paths(Path(path) if path else SHIPPED_BY_GAME[game], STEM, "trump network",
                               f" (expected {NET_FILE})")
    key = (game, *((str(f.resolve()), f.stat().st_mtime_ns, f.stat().st_size) for f in (npz, meta)))
    if key not in _LOADED:
        _LOADED[key] = load_trump(npz, game).params()
    return _LOADED[key].copy()
