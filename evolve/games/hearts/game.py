"""Hearts: 52 cards, no trump, four players each for itself; lower points are better.

Card id = suit * 13 + rank; suits C, D, H, S (0..3); ranks 2..A (0..12). Each seat is dealt
13 cards. Before the play each seat passes three cards (``pass_cards``): to the left in
a deal dealt by seat 0, to the right when seat 1 deals, across when seat 2 deals and to no
one when seat 3 deals, so the direction rotates left, right, across, none as the deal
moves round; a seat passes its three cards one at a time, seat 0 first, and receives its
three only when every seat has passed (OpenSpiel's order). The holder of the two of clubs
leads it to the first trick; the highest card of the led suit wins the trick.

The legality and the points are in ``hooks``: follow suit, no points on the first trick,
hearts broken before a heart is led, each heart 1 point and the queen of spades 13, the
moon shot. Every rule OpenSpiel's ``hearts`` makes an option is one here, with OpenSpiel's
name and default; ``tests/test_referee_hearts.py`` plays the same deals and actions in both
and compares the legal sets and the points.
"""

from __future__ import annotations

import numpy as np

from evolve.games.hearts.hooks import (
    AVOID_ALL_TRICKS_BONUS,
    CAN_LEAD_ANY_CLUB,
    CAN_LEAD_HEARTS_INSTEAD_OF_QS,
    GAME_ID,
    HEARTS,
    JD_BONUS_OPTION,
    MUST_BREAK_HEARTS,
    NO_POINTS_ON_FIRST_TRICK,
    PASS_CARDS,
    QS_BREAKS_HEARTS,
    QUEEN_OF_SPADES,
)
from evolve.games.options import Option
from evolve.games.rules import (
    LEGAL_OWN,
    P_GAME,
    P_GAME_OPTIONS,
    P_HAND,
    P_LEGALITY,
    P_N_CARDS,
    P_N_MODES,
    P_N_RANKS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_TARGET,
    make_rules,
)

N_PASSED = 3            # cards each seat passes
# where a deal's passes go, by its dealer: the seat offset of the receiver (0: no pass)
PASS_OFFSETS = (1, 3, 2, 0)
PASS_NAMES = {1: "left", 2: "across", 3: "right", 0: "none"}

# OpenSpiel's hearts parameters, as the bits of rules[P_GAME_OPTIONS]
FLAGS = {
    "pass_cards": PASS_CARDS,
    "no_pts_on_first_trick": NO_POINTS_ON_FIRST_TRICK,
    "can_lead_any_club": CAN_LEAD_ANY_CLUB,
    "jd_bonus": JD_BONUS_OPTION,
    "avoid_all_tricks_bonus": AVOID_ALL_TRICKS_BONUS,
    "must_break_hearts": MUST_BREAK_HEARTS,
    "qs_breaks_hearts": QS_BREAKS_HEARTS,
    "can_lead_hearts_instead_of_qs": CAN_LEAD_HEARTS_INSTEAD_OF_QS,
}

OPTIONS = {
    "pass_cards": Option(True, "each seat passes three cards before the play (left, right, across, none by "
                         "the dealer)", kind=bool),
    "no_pts_on_first_trick": Option(True, "no heart and not the queen of spades on the first trick unless the "
                                    "hand holds nothing else", kind=bool),
    "can_lead_any_club": Option(False, "the first trick may be led with any club, not only the two", kind=bool),
    "jd_bonus": Option(False, "the seat that takes the jack of diamonds gets -10", kind=bool),
    "avoid_all_tricks_bonus": Option(False, "a seat that takes no trick gets -5", kind=bool),
    "must_break_hearts": Option(True, "no heart is led before hearts are broken, unless the hand holds nothing "
                                "else", kind=bool),
    "qs_breaks_hearts": Option(True, "the queen of spades breaks hearts", kind=bool),
    "can_lead_hearts_instead_of_qs": Option(False, "a hand of the queen of spades and hearts may lead a heart "
                                            "before hearts are broken", kind=bool),
    "target": Option(100, "the game ends when a seat reaches this many points; the lowest wins (0: no games)",
                     kind=int, minimum=0),
}


def build(opts: dict):
    """Rules tables for Hearts: one mode, no trump; a heart 1 point, the queen of spades 13."""
    cards = np.arange(52)
    suit = (cards // 13)[None, :]
    rank = (cards % 13)[None, :]
    points = np.where(suit == HEARTS, 1, 0)
    points[0, QUEEN_OF_SPADES] = 13
    # the total order of the agents that play high or low: the rank, the queen of spades highest
    strength = rank + 13 * (cards == QUEEN_OF_SPADES)[None, :]
    flags = sum(bit for name, bit in FLAGS.items() if opts[name])
    params = {
        P_GAME: GAME_ID, P_N_CARDS: 52, P_HAND: 13, P_N_TRICKS: 13, P_N_MODES: 1,
        P_LEGALITY: LEGAL_OWN, P_PARTNERSHIP: 0, P_N_RANKS: 13, P_TARGET: opts["target"],
        P_GAME_OPTIONS: flags,
    }
    return make_rules(params, suit, rank, np.array([-1]), points, strength, np.ones(1))


def pass_offset(rules, dealer: int) -> int:
    """The seat offset the passes of a deal dealt by ``dealer`` go to (0: no pass)."""
    if not int(rules[P_GAME_OPTIONS]) & PASS_CARDS:
        return 0
    return PASS_OFFSETS[dealer % 4]
