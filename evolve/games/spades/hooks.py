"""Spades' Numba hooks (``evolve.games.hooks`` calls them for ``rules[P_GAME] == GAME_ID``):
its result is tricks; its calls are the bids 0..13 under bidding. Legality is the shared
follow-suit rule with the ``break_spades`` lead (``evolve.games.rules.follow_legal``)."""

from __future__ import annotations

from evolve.games.bits import kernel
from evolve.games.rules import P_BIDDING, P_HAND
from evolve.games.scoring import tricks_result as seat_result  # noqa: F401 (a hook)
from evolve.games.scoring import tricks_scale as result_scale  # noqa: F401 (a hook)
from evolve.games.state import BIDS

GAME_ID = 0


@kernel
def n_calls(rules):
    """The number of call values: the bids 0..13 when the game is bid."""
    return rules[P_HAND] + 1 if rules[P_BIDDING] != 0 else 0


@kernel
def latest_call(rules, pub, s):
    """Seat ``s``'s bid, or -1."""
    return pub[BIDS + s]
