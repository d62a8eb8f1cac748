"""The result of a seat's side at the end of a deal, as the search agents and value networks
score it: tricks in Spades and Euchre (own tricks in cut-throat Spades), card points in
Sueca and Jass (with the last-trick bonus and the Jass match bonus), and the largest such
result of a deal, which normalises returns to [0, 1]."""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import kernel
from evolve.games.rules import (
    GAME_EUCHRE,
    GAME_SPADES,
    P_GAME,
    P_LAST_BONUS,
    P_MATCH_BONUS,
    P_N_CARDS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    points_of,
)
from evolve.games.state import (
    SIDE_POINTS,
    TRICKS_WON,
)


@njit(cache=True, inline="always")
def seat_result(rules, p, s):
    """The result of ``s``'s side at the end of the deal (see the module docstring)."""
    game = rules[P_GAME]
    if game == GAME_SPADES or game == GAME_EUCHRE:
        if rules[P_PARTNERSHIP] != 0:
            return np.float64(p[TRICKS_WON + s] + p[TRICKS_WON + (s + 2) % 4])
        return np.float64(p[TRICKS_WON + s])
    v = p[SIDE_POINTS + s % 2]
    if rules[P_MATCH_BONUS] > 0 and p[TRICKS_WON + s] + p[TRICKS_WON + (s + 2) % 4] == rules[P_N_TRICKS]:
        v += rules[P_MATCH_BONUS]
    return np.float64(v)


@kernel
def result_scale(rules, mode):
    """The largest result of a deal (normalises UCT returns to [0, 1])."""
    game = rules[P_GAME]
    if game == GAME_SPADES or game == GAME_EUCHRE:
        return np.float64(rules[P_N_TRICKS])
    total = rules[P_LAST_BONUS] + rules[P_MATCH_BONUS]
    for c in range(rules[P_N_CARDS]):
        total += points_of(rules, mode, c)
    return np.float64(max(total, 1))
