"""Batch driver: many deals in one Numba call.

Deal ``i`` of a run with seed ``s`` is fully determined by ``(s, i)``: ``key`` comes from
``numpy.random.SeedSequence(s)``, the deal key is a hash of (key, i), and the deck shuffle
and each seat's agent draw from their own stream hashed from the deal key
(``evolve.games.dealing``). Chunks of deals can therefore be played by any number of
workers and give identical results.

``play_batch_kernel`` is a template (``evolve.games.template``): the game's deal and the
agents' decisions are hooks. ``evolve.runtime.batch`` binds them, per game and per set of
card-play agent families, to the game's deal kernels and the agents' dispatch
(``evolve.agents.dispatch``), so a run compiles only the game and the agent families it
seats, and this layer knows no agent.
"""

from __future__ import annotations

import numpy as np

from evolve.games.bits import N_STREAMS
from evolve.games.card_play import play_deal
from evolve.games.dealing import deal_cards
from evolve.games.rules import (
    P_N_CARDS,
)
from evolve.games.state import PUB_SIZE, reset_pub
from evolve.games.template import template


@template(nogil=True)   # lets the parent's executor threads run while it plays a chunk too
def play_batch_kernel(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, period):
    """Play deals ``start .. start+n-1`` into rows 0..n-1 of ``rec``.

    ``tables`` holds one ``seat_ints`` row (the four agents) per table; deal j is played
    by table ``j // per_table`` (so a whole tournament generation is one call).
    ``decks`` is either empty (shuffle from the deal stream) or holds one deck order per
    deal; ``dealers`` holds the dealer of each deal; ``work`` is the agents' scratch memory
    (kernels may not allocate). ``period`` > 0:
    deal j draws the random streams of deal ``start + j % period`` (common random
    numbers: every table of ``period`` deals plays the same streams)."""
    n_cards = rules[P_N_CARDS]
    deck = np.empty(n_cards, np.int64)
    pub = np.empty(PUB_SIZE, np.int64)
    hands = np.zeros(4, np.uint64)
    rngs = np.empty(N_STREAMS, np.uint64)
    for j in range(n):
        deal_cards(key, start + (j % period if period > 0 else j), rngs, deck, decks, j)
        dealer = dealers[j]
        kinds = tables[min(j // per_table, tables.shape[0] - 1)]
        reset_pub(pub, dealer)
        rec.dealer[j] = dealer
        play_deal(rules, deck, dealer, kinds, params, rngs, work, hands, pub, rec, j)

