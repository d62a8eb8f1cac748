"""Learnt Jass trump chooser (``bidder=learnt``, kind ``BID_JASS_NET``): the Jass paper's
"Trump Selection Network" (its Section 6.3, Table 2), trained here to imitate the search
bidder (``bidder=search`` with a large ``bid_iterations``), not human games as in the paper
(``evolve.learn.trump`` trains it; ``python -m evolve.trump`` is the command).

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

Files: ``trump.npz`` (arrays ``w1`` [n_in, n_hidden], ``b1``, ``w2`` [n_hidden, n_out],
``b2``) and ``trump.json`` (metadata: format, game, sizes, how it was made), never
pickled. The shipped net is ``evolve/agents/data/trump_jass.npz``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.core.errors import UsageError
from evolve.core.files import npz_json_paths, read_npz, write_npz_json
from evolve.games.bits import ONE, ZERO, kernel, lowest

BID_JASS_NET = 22

N_CARDS = 36
N_IN = N_CARDS + 1          # the hand, then the "second of the team to be asked" flag
N_OUT = 7                   # modes 0..5, push
PUSH = 6
HEADER = 3
FORMAT = 1
STEM = "trump"
NET_FILE = "a trump.npz written by python -m evolve.trump"
SHIPPED = Path(__file__).resolve().parent.parent / "data" / "trump_jass.npz"     # evolve/agents/data


# ----------------------------------------------------------------------------- forward pass


@kernel
def jass_net_mode(params, lo, hi, hand, may_push):
    """The network's call for ``hand``: a mode 0..5, or 6 (push, only when ``may_push``)."""
    n_in = np.int64(params[lo])
    nh = np.int64(params[lo + 1])
    n_out = np.int64(params[lo + 2])
    if n_in != N_IN or n_out != N_OUT or hi - lo != HEADER + nh * (n_in + 1 + n_out) + n_out:
        raise ValueError("learnt bidder: malformed parameter vector")
    w1 = lo + HEADER
    b1 = w1 + nh * n_in
    w2 = b1 + nh
    b2 = w2 + nh * n_out
    flag = 0.0 if may_push else 1.0
    o0, o1, o2, o3 = params[b2], params[b2 + 1], params[b2 + 2], params[b2 + 3]
    o4, o5, o6 = params[b2 + 4], params[b2 + 5], params[b2 + 6]
    for j in range(nh):
        row = w1 + j * n_in
        z = params[b1 + j] + flag * params[row + N_CARDS]
        m = hand
        while m != ZERO:
            z += params[row + lowest(m)]
            m &= m - ONE
        h = math.tanh(z)
        out = w2 + j * n_out
        o0 += h * params[out]
        o1 += h * params[out + 1]
        o2 += h * params[out + 2]
        o3 += h * params[out + 3]
        o4 += h * params[out + 4]
        o5 += h * params[out + 5]
        o6 += h * params[out + 6]
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


# ----------------------------------------------------------------------------- the network in numpy


@dataclass(frozen=True)
class TrumpNet:
    """A trained trump-selection network (weights as the trainer uses them)."""

    w1: np.ndarray      # [N_IN, n_hidden]
    b1: np.ndarray      # [n_hidden]
    w2: np.ndarray      # [n_hidden, N_OUT]
    b2: np.ndarray      # [N_OUT]
    meta: dict = field(default_factory=dict)

    @property
    def n_hidden(self) -> int:
        return int(self.w1.shape[1])

    def params(self) -> np.ndarray:
        """The float64 parameter vector ``jass_net_mode`` reads (module docstring)."""
        return np.concatenate([[N_IN, self.n_hidden, N_OUT], self.w1.T.ravel(), self.b1, self.w2.ravel(),
                               self.b2]).astype(np.float64)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The seven outputs for input rows ``x`` [n, 37] (numpy; push not yet masked)."""
        return np.tanh(np.asarray(x, np.float64) @ self.w1 + self.b1) @ self.w2 + self.b2


def inputs(hands: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Input rows [n, 37] from hand masks (uint64, bit c = card c) and the second-seat flags."""
    hands = np.asarray(hands, np.uint64)
    x = ((hands[:, None] >> np.arange(N_CARDS, dtype=np.uint64)) & np.uint64(1)).astype(np.float64)
    return np.concatenate([x, np.asarray(second, np.float64)[:, None]], axis=1)


def calls(net: TrumpNet, hands: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The network's calls (0..6; never push for a second seat), computed in numpy."""
    z = net.logits(inputs(hands, second))
    z[np.asarray(second, bool), PUSH] = -np.inf
    return np.argmax(z, axis=1)


def save_trump(directory: str | Path, net: TrumpNet, stem: str = STEM) -> Path:
    """Write ``<stem>.npz`` and ``<stem>.json`` (default ``trump``) into ``directory`` atomically."""
    arrays = {"w1": net.w1, "b1": net.b1, "w2": net.w2, "b2": net.b2}
    meta = {"format": FORMAT, "game": "jass", "n_in": N_IN, "n_hidden": net.n_hidden, "n_out": N_OUT, **net.meta}
    return write_npz_json(directory, stem, arrays, meta)


def load_trump(path: str | Path) -> TrumpNet:
    """Load ``trump.npz`` (or its folder, or any ``X.npz`` with ``X.json`` beside it).
    Anything wrong is one ``UsageError`` naming the file (and the key)."""
    path, meta_path = npz_json_paths(path, STEM, "trump network", f" (expected {NET_FILE})")
    try:
        meta = json.loads(meta_path.read_text())
        n_hidden, game = int(meta["n_hidden"]), str(meta["game"])
        n_in, n_out = int(meta["n_in"]), int(meta["n_out"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError) as e:
        raise UsageError(f"{meta_path}: invalid trump network metadata ({e.__class__.__name__}: {e})") from None
    if game != "jass" or n_in != N_IN or n_out != N_OUT or n_hidden < 1:
        raise UsageError(f"{meta_path}: a trump network for jass with {N_IN} inputs and {N_OUT} outputs expected, "
                         f"got game {game!r}, n_in {n_in}, n_out {n_out}, n_hidden {n_hidden}")
    data = read_npz(path, NET_FILE)
    shapes = {"w1": (N_IN, n_hidden), "b1": (n_hidden,), "w2": (n_hidden, N_OUT), "b2": (N_OUT,)}
    for key, shape in shapes.items():
        if key not in data or data[key].shape != shape:
            got = data[key].shape if key in data else "missing"
            raise UsageError(f"{path}: array {key!r} is {got}, expected shape {shape} ({NET_FILE})")
        if not np.issubdtype(data[key].dtype, np.floating) or not np.isfinite(data[key]).all():
            raise UsageError(f"{path}: array {key!r} must hold finite floats ({NET_FILE})")
    rest = {k: v for k, v in meta.items() if k not in ("format", "game", "n_in", "n_hidden", "n_out")}
    return TrumpNet(*(np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2", "b2")), rest)


_LOADED: dict = {}


def bidder_params(path: str = "") -> np.ndarray:
    """The parameter vector of ``bidder=learnt`` from ``bid_net=PATH`` (default: the
    shipped net). A file is read again only when it or its metadata changed (size or
    modification time), so a matrix of many seats reads it once."""
    npz, meta = npz_json_paths(Path(path) if path else SHIPPED, STEM, "trump network", f" (expected {NET_FILE})")
    key = tuple((str(f.resolve()), f.stat().st_mtime_ns, f.stat().st_size) for f in (npz, meta))
    if key not in _LOADED:
        _LOADED[key] = load_trump(npz).params()
    return _LOADED[key].copy()
