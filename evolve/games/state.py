"""Layout of the public state array ``pub`` that the engine keeps for every deal.

``pub`` holds everything all four seats may see: the trump mode, the dealer, calls and
bids, the current trick, who played which card, known voids and the full trick history.
Hidden hands never live in it; the engine keeps them apart and hands each agent only its
own. An agent's observation is therefore ``(seat, own hand, pub)`` and nothing else (the
one exception, the explicitly perfect-information upper bounds, is made in
``evolve.agents.dispatch.choose_card``, not here).

Card masks are stored in int64 slots holding the uint64 bit pattern (see ``as_mask``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MODE = 0            # trump mode of this deal (-1 while undecided)
DEALER = 1
FOREHAND = 2        # seat after the dealer; leads the first trick in most games
LEADER = 3          # leader of the current trick
TRICK = 4           # index of the current trick
NPLAYED = 5         # cards already in the current trick
BROKEN = 6          # Spades: a spade has been played
UPCARD = 7          # Euchre: the turned card; Sueca: the shown trump card (-1 if none)
MAKER = 8           # Euchre: seat that fixed trump; Jass: seat that declared the mode
ALONE = 9           # Euchre: maker goes alone (0/1)
OUT_SEAT = 10       # Euchre: seat sitting out (-1 if none)
PUSHED = 11         # Jass: forehand pushed (0/1)
PHASE = 12          # 0 bidding/trump, 1 discard, 2 play
N_ACTIVE = 13       # players in each trick (3 when someone sits out)
GAME_STATE = 14     # 2 slots a game keeps public state of its own in (its hooks; -1 unless it does)
TRICK_CARDS = 16    # 4 slots: cards of the current trick in play order (-1 empty)
TRICK_SEATS = 20    # 4 slots: seat of each card in the current trick
PLAYED_BY = 24      # 4 slots: mask of cards each seat has played
TRICKS_WON = 28     # 4 slots
BIDS = 32           # 4 slots: Spades bids (-1 none); Euchre/Jass calls see CALLS
VOIDS = 36          # 4 slots: bit s set = that seat showed it is void in suit s
SIDE_POINTS = 40    # 4 slots: card points won per side (seat % 2 in partnership games, else per seat)
CALLS = 44          # 8 slots: Euchre bidding log (see euchre.py), Jass trump calls
HISTORY = 52        # 13 tricks x 6: leader, the cards in play order (-1 empty), winner
HISTORY_STRIDE = 6
PUB_SIZE = HISTORY + 13 * HISTORY_STRIDE

# where the turned or shown card (``pub[UPCARD]``) is, as one seat sees it
# (``evolve.games.knowledge.upcard_place``, each game's ``upcard_place`` hook)
UP_UNKNOWN = 0            # no turned card, or it constrains nothing (seen, or its holder is not announced)
UP_OUT_OF_PLAY = 1        # in the kitty, the seat's own discard or a hand that sits out
UP_DEALER = 2             # in the dealer's hand until played
UP_DEALER_OR_DISCARD = 3  # the dealer holds it or discarded it face down


@njit(cache=True, inline="always")
def as_mask(x):
    """Reinterpret an int64 slot as the uint64 card mask it stores."""
    return np.uint64(x)


@njit(cache=True, inline="always")
def as_slot(mask):
    """Store a uint64 card mask in an int64 slot."""
    return np.int64(mask)


@njit(cache=True)
def reset_pub(pub, dealer):
    """Clear ``pub`` for a new deal dealt by ``dealer``."""
    pub[:] = -1
    pub[DEALER] = dealer
    pub[FOREHAND] = (dealer + 1) % 4
    pub[TRICK] = 0
    pub[NPLAYED] = 0
    pub[BROKEN] = 0
    pub[ALONE] = 0
    pub[PUSHED] = 0
    pub[PHASE] = 0
    pub[N_ACTIVE] = 4
    for s in range(4):
        pub[PLAYED_BY + s] = 0
        pub[TRICKS_WON + s] = 0
        pub[VOIDS + s] = 0
    for s in range(4):
        pub[SIDE_POINTS + s] = 0
