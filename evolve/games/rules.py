"""Pure trick-taking rules shared by every game: the rules tables, the follow-suit rule and
trick resolution (a game's own legality and knowledge are its hooks, ``evolve.games.hooks``).

A game is described by one flat int64 ``rules`` array holding its integer options and
tables (built once per game and option set in ``evolve.games.<game>``). Every function here is a pure Numba function of
``(rules, mode, hand, pub)``; none of them reads another seat's hand.

Tables (read through the accessors below) are indexed by the trump *mode* of the deal (Spades has one mode, Euchre and
Sueca
four, Jass six):

- ``suit[mode, card]``: the card's effective suit (Euchre's left bower belongs to trump);
- ``rank[mode, card]``: its rank inside that suit for winning tricks (higher wins);
- ``trump[mode]``: the trump suit, or -1 (Jass Obe-abe / Une-ufe);
- ``suit_mask[mode, suit]``: the cards whose effective suit is ``suit``;
- ``points[mode, card]``: card points (all zero in Spades and Euchre);
- ``strength[mode, card]``: a total order, trumps above all non-trumps, used by
  High/Low-style agents;
- ``multiplier[mode]``: score multiplier of the mode (Jass ``multipliers`` option).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import ZERO
from evolve.games.state import BROKEN, NPLAYED, TRICK_CARDS, VOIDS

# indices into Rules.params
P_GAME = 0
P_N_CARDS = 1
P_HAND = 2
P_N_TRICKS = 3
P_N_MODES = 4
P_LEGALITY = 5
P_BREAK_SPADES = 6
P_PARTNERSHIP = 7
P_BIDDING = 8
P_LAST_BONUS = 9
P_MATCH_BONUS = 10
P_SETUP = 11
P_STICK = 12
P_TRUMP_CARD = 13
P_TARGET = 14
P_N_RANKS = 15
P_BUUR_RANK = 16      # Jass: the rank (in a suit) that never has to follow
P_LONE_DEFENDER = 17
P_DISCARD_UPCARD = 18
P_GAME_OPTIONS = 19    # a bit set of options only the game's own hooks read
N_PARAMS = 24

# rules[P_BREAK_SPADES]: 0 trump may be led any time, 1 once broken, BREAK_NEVER only
# from a hand of nothing but trumps (OpenSpiel's Spades never marks spades broken)
BREAK_NEVER = 2

# rules[P_LEGALITY]: LEGAL_FOLLOW the plain follow-suit rule (``follow_legal``, which the
# search's playouts inline); LEGAL_OWN the game's own ``legal_cards`` hook (Jass)
LEGAL_FOLLOW = 0
LEGAL_OWN = 1

TRUMP_KEY = 1000
LED_KEY = 500


MAX_MODES = 6
CARD_STRIDE = 64
TABLE = MAX_MODES * CARD_STRIDE
SUIT = 32
RANK = SUIT + TABLE
POINTS = RANK + TABLE
STRENGTH = POINTS + TABLE
TRUMP = STRENGTH + TABLE
MULTIPLIER = TRUMP + 8
SUIT_MASK = MULTIPLIER + 8
RULES_SIZE = SUIT_MASK + MAX_MODES * 4


def make_rules(params: dict, suit, rank, trump, points, strength, multiplier) -> np.ndarray:
    """Pack a game's tables into one flat int64 ``rules`` array (layout: the constants
    above; one array keeps the Numba hot loop free of tuple and reference-count overhead)."""
    rules = np.zeros(RULES_SIZE, dtype=np.int64)
    for k, v in params.items():
        rules[k] = v
    suit = np.asarray(suit, dtype=np.int64)
    n_modes, n_cards = suit.shape
    tables = ((SUIT, suit), (RANK, rank), (POINTS, points), (STRENGTH, strength))
    for base, table in tables:
        table = np.broadcast_to(np.asarray(table, dtype=np.int64), (n_modes, n_cards))
        for m in range(n_modes):
            rules[base + m * CARD_STRIDE: base + m * CARD_STRIDE + n_cards] = table[m]
    rules[TRUMP:TRUMP + n_modes] = np.asarray(trump, dtype=np.int64)
    rules[MULTIPLIER:MULTIPLIER + n_modes] = np.asarray(multiplier, dtype=np.int64)
    for m in range(n_modes):
        for c in range(n_cards):
            rules[SUIT_MASK + m * 4 + suit[m, c]] |= 1 << c
    return rules


def table(rules: np.ndarray, base: int) -> np.ndarray:
    """A [modes, cards] view of one table of a rules array (Python helper)."""
    n_modes, n_cards = rules[P_N_MODES], rules[P_N_CARDS]
    return rules[base:base + TABLE].reshape(MAX_MODES, CARD_STRIDE)[:n_modes, :n_cards]


@njit(cache=True, inline="always")
def suit_of(rules, mode, card):
    """Effective suit of ``card`` under ``mode``."""
    return rules[SUIT + mode * CARD_STRIDE + card]


@njit(cache=True, inline="always")
def rank_of(rules, mode, card):
    """Trick rank of ``card`` inside its effective suit (higher wins)."""
    return rules[RANK + mode * CARD_STRIDE + card]


@njit(cache=True, inline="always")
def points_of(rules, mode, card):
    """Card points of ``card`` under ``mode``."""
    return rules[POINTS + mode * CARD_STRIDE + card]


@njit(cache=True, inline="always")
def strength_of(rules, mode, card):
    """Total strength order: trumps above every non-trump."""
    return rules[STRENGTH + mode * CARD_STRIDE + card]


@njit(cache=True, inline="always")
def trump_of(rules, mode):
    """Trump suit of ``mode`` or -1."""
    return rules[TRUMP + mode]


@njit(cache=True, inline="always")
def multiplier_of(rules, mode):
    """Score multiplier of ``mode``."""
    return rules[MULTIPLIER + mode]


@njit(cache=True, inline="always")
def suit_mask(rules, mode, suit):
    """Mask of the cards whose effective suit under ``mode`` is ``suit``."""
    return np.uint64(rules[SUIT_MASK + mode * 4 + suit])


@njit(cache=True, inline="always")
def card_key(rules, mode, card, led_suit):
    """How strongly ``card`` bids for a trick led in ``led_suit``: trumps beat the led suit,
    which beats everything else (key -1)."""
    s = suit_of(rules, mode, card)
    if s == trump_of(rules, mode):
        return TRUMP_KEY + rank_of(rules, mode, card)
    if s == led_suit:
        return LED_KEY + rank_of(rules, mode, card)
    return -1


@njit(cache=True, inline="always")
def winning_index(rules, mode, cards, at, n):
    """Position (0..n-1) of the card that wins the trick ``cards[at:at+n]`` (play order)."""
    led = suit_of(rules, mode, cards[at])
    best = 0
    best_key = card_key(rules, mode, cards[at], led)
    for i in range(1, n):
        k = card_key(rules, mode, cards[at + i], led)
        if k > best_key:
            best_key = k
            best = i
    return best


@njit(cache=True, inline="always")
def follow_legal(rules, mode, hand, pub):
    """Follow the led (effective) suit if possible, else anything. Leading is free, except
    that with ``break_spades`` trump may not be led before it is broken unless the hand
    holds nothing else (``BREAK_NEVER``: never, as in OpenSpiel's Spades)."""
    if pub[NPLAYED] == 0:
        if rules[P_BREAK_SPADES] != 0 and (pub[BROKEN] == 0 or rules[P_BREAK_SPADES] == BREAK_NEVER):
            tr = trump_of(rules, mode)
            if tr >= 0:
                others = hand & ~suit_mask(rules, mode, tr)
                if others != ZERO:
                    return others
        return hand
    led = suit_of(rules, mode, pub[TRICK_CARDS])
    follow = hand & suit_mask(rules, mode, led)
    if follow != ZERO:
        return follow
    return hand


@njit(cache=True, inline="always")
def side_of(rules, seat):
    """The side ``seat`` scores for: its partnership (seat % 2), or the seat itself in a
    game without partners (cut-throat Spades)."""
    if rules[P_PARTNERSHIP] != 0:
        return seat % 2
    return seat


@njit(cache=True, inline="always")
def trump_breaks(rules, mode, card):
    """Whether playing ``card`` breaks the lead restriction (``pub[BROKEN]``): a trump."""
    return suit_of(rules, mode, card) == trump_of(rules, mode)


@njit(cache=True, inline="always")
def follow_voids(rules, mode, pub, seat, card, q, led):
    """What a card that does not follow the led suit shows under the follow-suit rule: the
    seat holds none of the led suit (``pub[VOIDS + seat]`` bit ``led``)."""
    pub[VOIDS + seat] |= 1 << led


@njit(cache=True, inline="always")
def suit_voids(rules, mode, voids):
    """The cards a seat with the void bits ``voids`` (``pub[VOIDS + s]``, bit k: no card of
    suit k) cannot hold."""
    m = ZERO
    for k in range(4):
        if (voids >> k) & 1:
            m |= suit_mask(rules, mode, k)
    return m


@njit(cache=True, inline="always")
def trick_points(rules, mode, cards, at, n):
    """Card points in ``cards[at:at+n]``."""
    total = 0
    for i in range(n):
        total += points_of(rules, mode, cards[at + i])
    return total

