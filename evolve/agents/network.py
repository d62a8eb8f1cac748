"""Evolved fixed-topology tanh networks as card-play agents (SPEC §3).

A network agent's parameter vector is ``header + weights``:

    header  = [encoding, n_in, n_h1, n_h2, n_out]          (HEADER float64 values)
    weights = W1 [n_in, n_h1], b1 [n_h1], W2 [n_h1, n_h2], b2 [n_h2],
              W3T [n_out, n_h2], b3 [n_out]                  (row-major, float32,
              packed two per float64 slot after the header)

Two hidden tanh layers; the agent plays the legal card whose output is highest (outputs
of illegal cards are never computed). The output tanh is monotonic, so it is skipped.

Encodings (``ENC_CARD`` and ``ENC_HAND``; games with a variable trump append a one-hot of
the trump mode):

- card-based: three inputs per card of the deck, a one-hot location — in my hand / on the
  table in the current trick / played in an earlier trick — all zero while unseen; Euchre
  marks the turned card as seen (third input) for everyone who does not hold it. One output
  per card. The input is sparse, so the first layer is a gather of the active rows of W1.
- hand-based: the hand as dealt (sorted by card id), 1 + 4 inputs per card (rank number
  1..R, then a one-hot suit), zeroed once played; then the up to 3 cards already in the
  current trick; then the cards of earlier tricks in the order played. One output per
  position of the dealt hand.

Only the deciding seat's hand and the public state are read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from evolve.games.bits import ONE, ZERO, bit, has, kernel, lowest
from evolve.games.rules import GAME_EUCHRE, P_GAME, P_HAND, P_N_CARDS, P_N_MODES, P_N_RANKS
from evolve.games.state import (
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    NPLAYED,
    PLAYED_BY,
    TRICK,
    TRICK_CARDS,
    UPCARD,
)

NET_CARD = 1  # card-play kinds (see evolve.agents.policy.NETWORK_KINDS)
NET_HAND = 2
ENC_CARD = 0
ENC_HAND = 1
HEADER = 5
SUIT_INPUTS = 4


ENCODINGS = ("card", "hand")


def encoding_sizes(game, encoding: str) -> tuple[int, int]:
    """(inputs, outputs) of an encoding for a game (``GameInfo`` or ``Game``)."""
    info = getattr(game, "info", game)
    trump = info.n_modes if info.n_modes > 1 else 0
    if encoding == "card":
        return 3 * info.n_cards + trump, info.n_cards
    if encoding == "hand":
        per = 1 + SUIT_INPUTS
        h = info.hand_size
        return per * (h + 3 + 4 * (info.n_tricks - 1)) + trump, h
    raise ValueError(f"unknown encoding {encoding!r}; valid: card, hand")


def default_hidden(n_in: int, n_out: int) -> int:
    """SPEC §3 hidden-layer size: round(2/3 x inputs + outputs)."""
    return int(round(2 * n_in / 3 + n_out))


def n_weights(n_in: int, n_h1: int, n_h2: int, n_out: int) -> int:
    """Number of weights and biases of the network."""
    return n_in * n_h1 + n_h1 + n_h1 * n_h2 + n_h2 + n_out * n_h2 + n_out


_F = np.float32


@njit(cache=True, inline="always", fastmath=True)
def fast_tanh(x):
    """float32 tanh by a clamped rational approximation (Eigen's; |error| < 1e-6), which
    LLVM vectorises where ``np.tanh`` is a scalar libm call."""
    x = min(max(x, _F(-9.0)), _F(9.0))
    x2 = x * x
    p = x2 * _F(-2.76076847742355e-16) + _F(2.00018790482477e-13)
    p = x2 * p + _F(-8.60467152213735e-11)
    p = x2 * p + _F(5.12229709037114e-08)
    p = x2 * p + _F(1.48572235717979e-05)
    p = x2 * p + _F(6.37261928875436e-04)
    p = x2 * p + _F(4.89352455891786e-03)
    p = x * p
    q = x2 * _F(1.19825839466702e-06) + _F(1.18534705686654e-04)
    q = x2 * q + _F(2.26843463243900e-03)
    q = x2 * q + _F(4.89352518554385e-03)
    return p / q


@njit(cache=True, inline="always")
def _add_row(h, W, row, n, value):
    """h += value * W[row]  (W is a flat row-major view with rows of length n)."""
    value = _F(value)
    base = row * n
    for j in range(n):
        h[j] += value * W[base + j]


@njit(cache=True, inline="always")
def _add_card(h, W, slot, card, n_ranks, n, per):
    """Hand-based slot ``slot`` holds ``card``: rank number and one-hot suit."""
    _add_row(h, W, slot * per, n, card % n_ranks + 1)
    _add_row(h, W, slot * per + 1 + card // n_ranks, n, 1)


@njit(cache=True, inline="always")
def _dot(h, W, row, n):
    base = row * n
    v = _F(0.0)
    for j in range(n):
        v += h[j] * W[base + j]
    return v


@kernel(fastmath=True)
def network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The legal card with the highest network output (views keep the loops vectorised;
    offset arithmetic on the flat arrays defeats LLVM's vectoriser)."""
    n_in = np.int64(params[lo + 1])
    n_h1 = np.int64(params[lo + 2])
    n_h2 = np.int64(params[lo + 3])
    n_out = np.int64(params[lo + 4])
    # weights are float32, two per float64 slot after the header (halves the memory
    # traffic of four networks at a table, which otherwise spill out of L2)
    w32 = params.view(np.float32)
    a = 2 * (lo + HEADER)
    W1 = w32[a:a + n_in * n_h1]
    a += n_in * n_h1
    b1 = w32[a:a + n_h1]
    a += n_h1
    W2 = w32[a:a + n_h1 * n_h2]
    a += n_h1 * n_h2
    b2 = w32[a:a + n_h2]
    a += n_h2
    W3 = w32[a:a + n_out * n_h2]
    a += n_out * n_h2
    b3 = w32[a:a + n_out]
    w32work = work.view(np.float32)
    h1 = w32work[0:n_h1]
    h2 = w32work[n_h1:n_h1 + n_h2]
    for j in range(n_h1):
        h1[j] = b1[j]
    n_cards = rules[P_N_CARDS]
    n_modes = rules[P_N_MODES]
    n_ranks = rules[P_N_RANKS]
    nplayed = pub[NPLAYED]
    in_trick = ZERO
    for q in range(nplayed):
        in_trick |= bit(pub[TRICK_CARDS + q])
    played = ZERO
    for s in range(4):
        played |= np.uint64(pub[PLAYED_BY + s])
    dealt = hand | np.uint64(pub[PLAYED_BY + seat])
    if kind == NET_CARD:
        m = hand
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            _add_row(h1, W1, 3 * c, n_h1, 1)
        m = in_trick
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            _add_row(h1, W1, 3 * c + 1, n_h1, 1)
        m = played & ~in_trick
        up = pub[UPCARD]
        if rules[P_GAME] == GAME_EUCHRE and up >= 0 and not has(hand, up):
            m |= bit(up)
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            _add_row(h1, W1, 3 * c + 2, n_h1, 1)
        if n_modes > 1:
            _add_row(h1, W1, 3 * n_cards + mode, n_h1, 1)
    else:
        per = 1 + SUIT_INPUTS
        n_hand = rules[P_HAND]
        pos = 0
        m = dealt
        while m != ZERO and pos < n_hand:
            c = lowest(m)
            m &= m - ONE
            if has(hand, c):
                _add_card(h1, W1, pos, c, n_ranks, n_h1, per)
            pos += 1
        for q in range(nplayed):
            _add_card(h1, W1, n_hand + q, pub[TRICK_CARDS + q], n_ranks, n_h1, per)
        k = n_hand + 3
        n_active = pub[N_ACTIVE]
        for t in range(pub[TRICK]):
            h = HISTORY + t * HISTORY_STRIDE
            for q in range(n_active):
                _add_card(h1, W1, k, pub[h + 1 + q], n_ranks, n_h1, per)
                k += 1
        if n_modes > 1:
            _add_row(h1, W1, n_in - n_modes + mode, n_h1, 1)
    for j in range(n_h1):
        h1[j] = fast_tanh(h1[j])
    for j in range(n_h2):
        h2[j] = b2[j]
    for i in range(n_h1):
        _add_row(h2, W2, i, n_h2, h1[i])
    for j in range(n_h2):
        h2[j] = fast_tanh(h2[j])
    best = -1
    best_v = _F(-3.0e38)
    pos = 0
    m = legal if kind == NET_CARD else dealt
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if has(legal, c):
            out = c if kind == NET_CARD else pos
            v = b3[out] + _dot(h2, W3, out, n_h2)
            if v > best_v:
                best_v = v
                best = c
        pos += 1
    return best


@dataclass(frozen=True)
class Architecture:
    """A network shape for one game and encoding. Genomes are flat float64 vectors of
    ``genome_size`` values in [-1, 1] (biases included only when ``bias``)."""

    game: str
    encoding: str
    n_in: int
    n_h1: int
    n_h2: int
    n_out: int
    bias: bool = True

    @classmethod
    def for_game(cls, game, encoding: str = "card", hidden: tuple[int, int] | None = None, bias: bool = True):
        """The SPEC §3 architecture (hidden sizes default to round(2/3 in + out))."""
        info = getattr(game, "info", game)
        n_in, n_out = encoding_sizes(info, encoding)
        h = default_hidden(n_in, n_out)
        h1, h2 = hidden if hidden else (h, h)
        return cls(info.name, encoding, n_in, int(h1), int(h2), n_out, bool(bias))

    @property
    def kind(self) -> int:
        return NET_CARD if self.encoding == "card" else NET_HAND

    @property
    def layers(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the weight arrays, in packing order."""
        return [
            ("W1", (self.n_in, self.n_h1)), ("b1", (self.n_h1,)),
            ("W2", (self.n_h1, self.n_h2)), ("b2", (self.n_h2,)),
            ("W3T", (self.n_out, self.n_h2)), ("b3", (self.n_out,)),
        ]

    @property
    def genome_size(self) -> int:
        return sum(int(np.prod(shape)) for name, shape in self.layers if self.bias or not name.startswith("b"))

    @property
    def work_size(self) -> int:
        """Scratch float64 slots the forward pass needs (it works in float32)."""
        return (self.n_h1 + self.n_h2 + 1) // 2 + 1

    def random_genome(self, rng: np.random.Generator) -> np.ndarray:
        """Weights uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, self.genome_size)

    def unpack(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a genome (zero biases when ``bias`` is off)."""
        genome = np.asarray(genome, dtype=np.float64)
        if genome.shape != (self.genome_size,):
            raise ValueError(f"genome has {genome.shape} values, architecture expects {self.genome_size}")
        out, pos = {}, 0
        for name, shape in self.layers:
            size = int(np.prod(shape))
            if name.startswith("b") and not self.bias:
                out[name] = np.zeros(shape)
                continue
            out[name] = genome[pos:pos + size].reshape(shape)
            pos += size
        return out

    def pack(self, genome: np.ndarray) -> np.ndarray:
        """The engine's parameter vector: header, then every layer (biases zero if off)."""
        header = np.array([ENC_CARD if self.encoding == "card" else ENC_HAND, self.n_in, self.n_h1, self.n_h2, self.n_out], np.float64)
        parts = self.unpack(genome)
        w = np.concatenate([parts[name].ravel() for name, _ in self.layers]).astype(np.float32)
        if w.size % 2:
            w = np.append(w, np.float32(0))
        return np.concatenate([header, w.view(np.float64)])

    def pack_many(self, genomes: np.ndarray) -> np.ndarray:
        """Parameter vectors of many genomes, one row each."""
        return np.stack([self.pack(g) for g in genomes])

    @property
    def packed_size(self) -> int:
        """Length of ``pack``'s float64 vector."""
        n = sum(int(np.prod(shape)) for _, shape in self.layers)
        return HEADER + (n + 1) // 2

    def to_json(self) -> dict:
        return {"game": self.game, "encoding": self.encoding, "n_in": self.n_in, "n_h1": self.n_h1,
                "n_h2": self.n_h2, "n_out": self.n_out, "bias": self.bias}
