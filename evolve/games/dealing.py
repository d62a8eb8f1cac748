"""Dealing: the deck of deal ``i`` of a run and its random streams, and the hands given from it.

Deal ``i`` of a run with key ``key`` is a pure function of ``(key, i)`` (see
``evolve.games.bits``): ``deal_cards`` seeds the deal's streams and shuffles its deck, and
``deal_hands`` hands the cards out in order. The batch and lockstep kernels and the
session all start a deal with them, so they deal the very same cards."""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import DEAL_STREAM, bit, kernel, next_u64, seed_streams


# Inlined (Numba IR) into each game's deal: a call would copy the whole ``DealRecord``
# (17 array descriptors, ~150 words) onto the stack once per deal.
@njit(cache=True, _nrt=False, inline="always")
def deal_hands(deck, hand_size, hands, rec, i):
    """Give seat s the cards deck[s*hand_size:(s+1)*hand_size]; record hands and the rest."""
    for s in range(4):
        m = np.uint64(0)
        for k in range(hand_size):
            c = deck[s * hand_size + k]
            m |= bit(c)
            rec.hands[i, s, k] = c
        hands[s] = m
    n_rest = rec.rest.shape[1]
    for k in range(n_rest):
        rec.rest[i, k] = deck[4 * hand_size + k]


@kernel
def shuffle(deck, rngs, stream):
    """Fisher-Yates shuffle of ``deck`` in place with random stream ``stream``. Each 64-bit
    draw serves two swaps (Lemire's multiply-shift on each 32-bit half; the bias is below
    52 / 2**32)."""
    c = deck.shape[0] - 1
    while c > 0:
        r = next_u64(rngs, stream)
        k = np.int64(((r >> np.uint64(32)) * np.uint64(c + 1)) >> np.uint64(32))
        t = deck[c]
        deck[c] = deck[k]
        deck[k] = t
        c -= 1
        if c > 0:
            k = np.int64(((r & np.uint64(0xFFFFFFFF)) * np.uint64(c + 1)) >> np.uint64(32))
            t = deck[c]
            deck[c] = deck[k]
            deck[k] = t
            c -= 1


@kernel
def deal_cards(key, index, rngs, deck, decks, row):
    """Start deal ``index`` of the run with key ``key``: seed its random streams (the
    deal's own and each seat's) into ``rngs``, and put its deck in ``deck``: row ``row`` of
    ``decks`` when decks are given, else a shuffle from the deal stream."""
    seed_streams(key, index, rngs)
    if decks.shape[0] > 0:
        for c in range(deck.shape[0]):
            deck[c] = decks[row, c]
    else:
        for c in range(deck.shape[0]):
            deck[c] = c
        shuffle(deck, rngs, DEAL_STREAM)
