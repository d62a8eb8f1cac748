"""The rule-based Hearts player, ``hearts_rules``: its pass and its card play, as Numba
kernels the engine binds through the game's ``GameInfo`` (``private_rule``, ``agents``).

Hand-written rules a Hearts player would recognise, not tuned:

- the pass (``rule_pass``, one card at a time): the ace, king and queen of spades unless
  four lower spades guard them; then the highest card of the shorter of clubs and
  diamonds when it has at most three cards (to void it); then hearts from ten up; then the
  highest card;
- the lead: the lowest card of the shortest suit it may lead, never a spade above the
  jack while the queen of spades is out (in another hand);
- following suit: the highest card below the trick's winning card (duck); when it cannot
  duck, the highest card but the queen of spades when it plays last (the trick is its
  anyway), else its lowest;
- void in the led suit: the queen of spades, then the ace and king of spades while the
  queen is out, then its highest heart, then its highest card.

Every choice is among ``legal`` (the game's legality already keeps points off the first
trick and hearts unled until broken). Card id = suit * 13 + rank (``game``).
"""

from __future__ import annotations

import numpy as np

from evolve.games.bits import ZERO, bit, count, has, kernel, lowest
from evolve.games.hearts.hooks import CLUBS, DIAMONDS, HEARTS, QUEEN_OF_SPADES, SPADES
from evolve.games.state import NPLAYED, PLAYED_BY, TRICK_CARDS

ACE_OF_SPADES = SPADES * 13 + 12
KING_OF_SPADES = SPADES * 13 + 11
SUIT_MASK = np.uint64((1 << 13) - 1)


@kernel
def suit_cards(mask, suit):
    """The cards of ``suit`` in ``mask``."""
    return mask & (SUIT_MASK << np.uint64(13 * suit))


@kernel
def highest(mask):
    """The highest-ranked card of a non-empty ``mask`` (ties across suits: the higher suit)."""
    best = -1
    for c in range(52):
        if has(mask, c) and (best < 0 or c % 13 >= best % 13):
            best = c
    return best


@kernel
def lowest_ranked(mask):
    """The lowest-ranked card of a non-empty ``mask`` (ties: the lower suit)."""
    best = -1
    for c in range(52):
        if has(mask, c) and (best < 0 or c % 13 < best % 13):
            best = c
    return best


@kernel
def queen_out(hand, pub):
    """The queen of spades is in another seat's hand: not played, not held."""
    if has(hand, QUEEN_OF_SPADES):
        return False
    for s in range(4):
        if has(np.uint64(pub[PLAYED_BY + s]), QUEEN_OF_SPADES):
            return False
    return True


@kernel
def rule_pass(rules, hand, pub):
    """One card of the pass (see the module docstring)."""
    spades = suit_cards(hand, SPADES)
    low_spades = count(spades & ~(bit(QUEEN_OF_SPADES) | bit(KING_OF_SPADES) | bit(ACE_OF_SPADES)))
    if low_spades < 4:
        for c in (ACE_OF_SPADES, KING_OF_SPADES, QUEEN_OF_SPADES):
            if has(hand, c):
                return c
    clubs = count(suit_cards(hand, CLUBS))
    diamonds = count(suit_cards(hand, DIAMONDS))
    short = -1
    if 0 < clubs <= 3 and (diamonds == 0 or diamonds > 3 or clubs <= diamonds):
        short = CLUBS
    elif 0 < diamonds <= 3:
        short = DIAMONDS
    if short >= 0:
        return highest(suit_cards(hand, short))
    high_hearts = suit_cards(hand, HEARTS) & ~((np.uint64(1) << np.uint64(13 * HEARTS + 8)) - np.uint64(1))
    if high_hearts != ZERO:
        return highest(high_hearts)
    return highest(hand)


@kernel
def rule_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs):
    """The card ``hearts_rules`` plays from ``legal`` (see the module docstring)."""
    n = pub[NPLAYED]
    out = queen_out(hand, pub)
    if n == 0:
        safe = legal
        if out:
            safe = legal & ~(bit(QUEEN_OF_SPADES) | bit(KING_OF_SPADES) | bit(ACE_OF_SPADES))
            if safe == ZERO:
                safe = legal
        best_suit, best_n = -1, 99
        for s in range(4):
            k = count(suit_cards(hand, s))
            if suit_cards(safe, s) != ZERO and k < best_n:
                best_suit, best_n = s, k
        return lowest_ranked(suit_cards(safe, best_suit))
    led = pub[TRICK_CARDS] // 13
    if suit_cards(legal, led) == legal:
        top = -1
        for q in range(n):
            c = pub[TRICK_CARDS + q]
            if c // 13 == led and c % 13 > top:
                top = c % 13
        under = legal & ((np.uint64(1) << np.uint64(13 * led + top)) - np.uint64(1))
        if under != ZERO:
            return highest(under)
        if n == 3:
            rest = legal & ~bit(QUEEN_OF_SPADES)
            return highest(rest if rest != ZERO else legal)
        return lowest(legal)
    if has(legal, QUEEN_OF_SPADES):
        return QUEEN_OF_SPADES
    if out:
        for c in (ACE_OF_SPADES, KING_OF_SPADES):
            if has(legal, c):
                return c
    hearts = suit_cards(legal, HEARTS)
    if hearts != ZERO:
        return highest(hearts)
    return highest(legal)
