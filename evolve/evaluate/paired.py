"""Paired deals: the very same deals (decks, dealers and random streams) played under
several seatings, so that a comparison sees only the agents' difference and not the
cards'. Every head-to-head and study row plays through ``play_paired``."""

from __future__ import annotations

import numpy as np

from evolve.games.registry import Game
from evolve.runtime.play import PlayResult, play

#: deals generated per block (deck block k comes from the generator seeded (seed, k))
DECK_BLOCK = 4096
#: deals played per engine call (and per progress update)
PLAY_CHUNK = 1 << 15


def make_decks(game: Game, n: int, seed: int, start: int = 0) -> np.ndarray:
    """Decks ``start .. start+n-1`` of a run: uniform permutations, each one reproducible
    from ``(seed, index)`` alone (blocks of DECK_BLOCK deals share a generator)."""
    n_cards = game.info.n_cards
    out = np.empty((n, n_cards), np.int64)
    if n == 0:
        return out
    first, last = start // DECK_BLOCK, (start + n - 1) // DECK_BLOCK
    for blk in range(first, last + 1):
        rng = np.random.default_rng([int(seed), 0x5EED, blk])
        block = rng.permuted(np.tile(np.arange(n_cards, dtype=np.int64), (DECK_BLOCK, 1)), axis=1)
        lo = max(start, blk * DECK_BLOCK)
        hi = min(start + n, (blk + 1) * DECK_BLOCK)
        out[lo - start:hi - start] = block[lo - blk * DECK_BLOCK:hi - blk * DECK_BLOCK]
    return out


def play_paired(game: Game, seatings: list[list], start: int, n: int, seed: int, workers: int = 1
                ) -> tuple[list[PlayResult], np.ndarray]:
    """Deals ``start .. start+n-1`` of a run played once per seating (four seats each) on
    the same decks, dealers (rotating from seat 0 at deal 0) and random streams. Returns
    the results, one per seating, and the decks."""
    decks = make_decks(game, n, seed, start)
    dealers = (start + np.arange(n)) % 4
    results = [play(game, seats, seed=seed, decks=decks, dealer=dealers, start=start, workers=workers)
               for seats in seatings]
    return results, decks
