"""The two ways a side's result at the end of a deal is counted, as the search agents and
value networks score it, for the games' ``seat_result`` and ``result_scale`` hooks
(``evolve.games.hooks``): tricks (Spades and Euchre; own tricks in cut-throat Spades) or card
points (Sueca and Jass, with the last-trick bonus and the Jass match bonus), with the largest
such result of a deal, which normalises returns to [0, 1]."""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import kernel
from evolve.games.rules import (
    P_LAST_BONUS,
    P_MATCH_BONUS,
    P_N_CARDS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    points_of,
    side_of,
)
from evolve.games.state import (
    SIDE_POINTS,
    TRICKS_WON,
)


@njit(cache=True, inline="always")
def tricks_result(rules, p, s):
    """The tricks ``s``'s side took (its own in a cut-throat game)."""
    if rules[P_PARTNERSHIP] != 0:
        return np.float64(p[TRICKS_WON + s] + p[TRICKS_WON + (s + 2) % 4])
    return np.float64(p[TRICKS_WON + s])


@kernel
def tricks_scale(rules, mode):
    """The largest trick result of a deal: every trick."""
    return np.float64(rules[P_N_TRICKS])


@njit(cache=True, inline="always")
def points_result(rules, p, s):
    """The card points ``s``'s side took, with the match bonus when it took every trick."""
    v = p[SIDE_POINTS + side_of(rules, s)]
    if rules[P_MATCH_BONUS] > 0 and p[TRICKS_WON + s] + p[TRICKS_WON + (s + 2) % 4] == rules[P_N_TRICKS]:
        v += rules[P_MATCH_BONUS]
    return np.float64(v)


@kernel
def points_scale(rules, mode):
    """The largest points result of a deal: every card's points and every bonus."""
    total = rules[P_LAST_BONUS] + rules[P_MATCH_BONUS]
    for c in range(rules[P_N_CARDS]):
        total += points_of(rules, mode, c)
    return np.float64(max(total, 1))
