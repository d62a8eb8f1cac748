"""Hearts' Numba hooks (``evolve.games.hooks`` calls them for ``rules[P_GAME] == GAME_ID``).

Card id = suit * 13 + rank; suits C, D, H, S (0..3); ranks 2..A (0..12); no trump. The
rules of OpenSpiel's ``hearts``, with its options as the bits of ``rules[P_GAME_OPTIONS]``:

- the legality (``legal_cards``): follow suit; the two of clubs opens the deal (any club
  with ``can_lead_any_club``); on the first trick no heart and not the queen of spades
  unless the hand holds nothing else (``no_pts_on_first_trick``); no heart is led before
  hearts are broken (``pub[BROKEN]``) unless the hand holds nothing else
  (``must_break_hearts``; with ``can_lead_hearts_instead_of_qs`` a hand of the queen of
  spades and hearts may lead a heart);
- a heart breaks hearts, and so does the queen of spades (``qs_breaks_hearts``);
- each heart is 1 point and the queen of spades 13 (the rules' points table); the seat
  that takes all 26 shoots the moon: 0 for it, 26 for each other seat; ``jd_bonus``: -10
  for the seat that takes the jack of diamonds (``pub[GAME_STATE]`` holds it); with
  ``avoid_all_tricks_bonus`` a seat that takes no trick gets -5 (not when the moon is shot).

A seat's result for the search and the value networks is 26 minus its points (OpenSpiel's
returns), which is never negative.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import ZERO, bit, kernel
from evolve.games.rules import P_GAME_OPTIONS, suit_mask, suit_of
from evolve.games.state import BROKEN, GAME_STATE, NPLAYED, SIDE_POINTS, TRICK, TRICK_CARDS, TRICKS_WON

GAME_ID = 4
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
TWO_OF_CLUBS = CLUBS * 13 + 0
QUEEN_OF_SPADES = SPADES * 13 + 10
JACK_OF_DIAMONDS = DIAMONDS * 13 + 9
TOTAL_POINTS = 26           # 13 hearts and the queen of spades
JD_BONUS = -10
AVOID_BONUS = -5
JD_TAKER = GAME_STATE       # pub slot: the seat that took the jack of diamonds (-1: not yet)

# the bits of rules[P_GAME_OPTIONS], in the order of OpenSpiel's parameters
PASS_CARDS = 1
NO_POINTS_ON_FIRST_TRICK = 2
CAN_LEAD_ANY_CLUB = 4
JD_BONUS_OPTION = 8
AVOID_ALL_TRICKS_BONUS = 16
MUST_BREAK_HEARTS = 32
QS_BREAKS_HEARTS = 64
CAN_LEAD_HEARTS_INSTEAD_OF_QS = 128


@njit(cache=True, inline="always")
def has_option(rules, flag):
    """Whether the option ``flag`` (one of the bits above) is on."""
    return rules[P_GAME_OPTIONS] & flag != 0


@njit(cache=True, inline="always")
def legal_cards(rules, mode, hand, pub):
    """The cards the owner of ``hand`` may play now (the module docstring; OpenSpiel's
    ``PlayLegalActions`` in its order of checks)."""
    n = pub[NPLAYED]
    if n > 0:
        follow = hand & suit_mask(rules, mode, suit_of(rules, mode, pub[TRICK_CARDS]))
        if follow != ZERO:
            return follow
    first_trick = pub[TRICK] == 0
    if first_trick and n == 0:
        if has_option(rules, CAN_LEAD_ANY_CLUB):
            return hand & suit_mask(rules, mode, CLUBS)
        return hand & bit(TWO_OF_CLUBS)
    if first_trick and has_option(rules, NO_POINTS_ON_FIRST_TRICK):
        safe = hand & ~suit_mask(rules, mode, HEARTS) & ~bit(QUEEN_OF_SPADES)
        if safe != ZERO:
            return safe
    if n == 0:
        lead = hand
        if pub[BROKEN] == 0:
            lead = hand & ~suit_mask(rules, mode, HEARTS)
        if has_option(rules, CAN_LEAD_HEARTS_INSTEAD_OF_QS) and lead == bit(QUEEN_OF_SPADES):
            lead = ZERO
        if lead != ZERO:
            return lead
    return hand


@njit(cache=True, inline="always")
def breaks(rules, mode, card):
    """A heart breaks hearts; so does the queen of spades with ``qs_breaks_hearts``."""
    if suit_of(rules, mode, card) == HEARTS:
        return True
    return card == QUEEN_OF_SPADES and has_option(rules, QS_BREAKS_HEARTS)


@njit(cache=True, inline="always")
def trick_taken(rules, mode, pub, winner, n_active):
    """Note who took the jack of diamonds (``jd_bonus``)."""
    if has_option(rules, JD_BONUS_OPTION):
        for q in range(n_active):
            if pub[TRICK_CARDS + q] == JACK_OF_DIAMONDS:
                pub[JD_TAKER] = winner


@kernel
def penalty(rules, p, s):
    """Seat ``s``'s points at the end of the deal ``p`` (lower is better): the points it
    took, or 0 / 26 when a seat shot the moon, and the options' bonuses."""
    moon = -1
    for seat in range(4):
        if p[SIDE_POINTS + seat] == TOTAL_POINTS:
            moon = seat
    if moon >= 0:
        points = 0 if moon == s else TOTAL_POINTS
    else:
        points = p[SIDE_POINTS + s]
        if has_option(rules, AVOID_ALL_TRICKS_BONUS) and p[TRICKS_WON + s] == 0:
            points += AVOID_BONUS
    if has_option(rules, JD_BONUS_OPTION) and p[JD_TAKER] == s:
        points += JD_BONUS
    return points


@njit(cache=True, inline="always")
def seat_result(rules, p, s):
    """26 minus the seat's points: what the search maximises."""
    return np.float64(TOTAL_POINTS - penalty(rules, p, s))


@kernel
def result_scale(rules, mode):
    """The largest result: 26, and the bonuses' 10 and 5 where they are on."""
    scale = TOTAL_POINTS
    if has_option(rules, JD_BONUS_OPTION):
        scale -= JD_BONUS
    if has_option(rules, AVOID_ALL_TRICKS_BONUS):
        scale -= AVOID_BONUS
    return np.float64(scale)
