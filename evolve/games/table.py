"""Public-state updates of a trick, shared by the engine loop, the stepper and the
playouts of search agents: open a trick, note a card (with what it reveals about the
player's hand), resolve a full trick. Pure functions of ``(rules, pub)``; no agents here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import bit
from evolve.games.rules import (
    GAME_JASS,
    P_GAME,
    P_LAST_BONUS,
    P_N_TRICKS,
    rank_of,
    suit_of,
    trick_points,
    trump_of,
    winning_index,
)
from evolve.games.state import (
    BROKEN,
    HISTORY,
    HISTORY_STRIDE,
    LEADER,
    NPLAYED,
    PLAYED_BY,
    SIDE_POINTS,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    TRICKS_WON,
    VOIDS,
)

# VOIDS bit 4 + s: the seat holds no card of suit s except possibly the Jass Buur
BUUR_ONLY_SHIFT = 4


@njit(cache=True, inline="always")
def note_play(rules, mode, pub, seat, card, q, led):
    """Update the public state for ``seat`` playing ``card`` as the q-th card of the trick
    led in suit ``led``, including what the play reveals about the seat's hand."""
    suit = suit_of(rules, mode, card)
    tr = trump_of(rules, mode)
    if q > 0:
        if suit != led:
            if rules[P_GAME] != GAME_JASS:
                pub[VOIDS + seat] |= 1 << led
            elif led == tr:
                pub[VOIDS + seat] |= 1 << (BUUR_ONLY_SHIFT + led)
            elif suit != tr:
                pub[VOIDS + seat] |= 1 << led
            else:
                # a trump below one already in the trick is only legal from an all-trump hand
                best = -1
                for i in range(q):
                    c = pub[TRICK_CARDS + i]
                    if suit_of(rules, mode, c) == tr and rank_of(rules, mode, c) > best:
                        best = rank_of(rules, mode, c)
                if rank_of(rules, mode, card) < best:
                    for s in range(4):
                        if s != tr:
                            pub[VOIDS + seat] |= 1 << s
    if suit == tr:
        pub[BROKEN] = 1
    pub[TRICK_CARDS + q] = card
    pub[TRICK_SEATS + q] = seat
    pub[NPLAYED] = q + 1
    pub[PLAYED_BY + seat] |= np.int64(bit(card))
    pub[HISTORY + pub[TRICK] * HISTORY_STRIDE + 1 + q] = card


@njit(cache=True, inline="always")
def start_trick(pub, t, leader):
    """Open trick ``t`` led by ``leader``."""
    pub[TRICK] = t
    pub[LEADER] = leader
    pub[NPLAYED] = 0
    for q in range(4):
        pub[TRICK_CARDS + q] = -1
        pub[TRICK_SEATS + q] = -1
    pub[HISTORY + t * HISTORY_STRIDE] = leader


@njit(cache=True, inline="always")
def finish_trick(rules, mode, pub, t, n_active):
    """Resolve the full trick in ``pub``: credit the winner, return the winner's seat."""
    w = winning_index(rules, mode, pub, TRICK_CARDS, n_active)
    winner = pub[TRICK_SEATS + w]
    pub[TRICKS_WON + winner] += 1
    pts = trick_points(rules, mode, pub, TRICK_CARDS, n_active)
    if t == rules[P_N_TRICKS] - 1:
        pts += rules[P_LAST_BONUS]
    pub[SIDE_POINTS + winner % 2] += pts
    pub[HISTORY + t * HISTORY_STRIDE + 5] = winner
    return winner
