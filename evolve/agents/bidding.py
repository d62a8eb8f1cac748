"""Bidding and trump-call decisions: the policy hooks of the games' bidding phases.

Each game module declares the decisions it asks for as policy hooks
(``evolve.games.template.policy_hook``) and ``evolve.engine`` binds them to the functions
below (``BIDDING_HOOKS``). The signatures are the contract with the games and must not
change::

    choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid) -> 0..max_bid
    choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs) -> bool (order up)
    choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call) -> suit, or EUCHRE_PASS
    choose_euchre_alone(kinds, params, seat, rules, hand, pub, rngs, trump) -> bool
    choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump) -> card of hand
    choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push) -> 0..5, or JASS_PUSH

A seat's bidder is the integer kind ``kinds[BID_KIND + seat]`` with the parameters
``params[kinds[BID_LO + seat]:kinds[BID_HI + seat]]`` (``bid_param`` reads one with a
default); only the deciding seat's hand and the public state ``pub`` may be read.

Adding a bidder kind (the extension point):

1. pick the next free number below and add it to ``evolve.agents.registry.BIDDERS`` (the
   seat option ``bidder=<name>``; its parameters come from ``bidder_from``);
2. add a branch ``if kind == BID_<NAME>: return ...`` at the top of each ``choose_*``
   function below whose game it plays (a kind a function does not handle falls through to
   the simple bidder), calling your own kernel (``@kernel``), ideally in its own module;
3. nothing to change in ``evolve.games`` or ``evolve.engine``.

Every engine compiles all the bidders of its game, so keep a heavy bidder (a network
forward pass, a search) in its own kernel rather than inlined, or give it its own hook
binding in ``evolve.engine`` like the card-play families (``evolve.agents.policy``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import ONE, ZERO, below, bit, count, has, kernel, lowest, random_card
from evolve.games.jass import JASS_PUSH
from evolve.games.rules import suit_mask
from evolve.games.state import DEALER, UPCARD

# Bidder kinds (``AgentSpec.bid_kind``).
BID_RANDOM = 0
BID_SIMPLE = 1

EUCHRE_PASS = -1

# Layout of the bidder's slots in ``seat_ints`` (see evolve.agents.policy).
BID_KIND = 4
BID_LO = 16
BID_HI = 20


@njit(cache=True, inline="always")
def bid_param(kinds, params, seat, j, default):
    """Parameter ``j`` of the seat's bidder, or ``default`` when it has fewer."""
    a = kinds[BID_LO + seat]
    if a + j < kinds[BID_HI + seat]:
        return params[a + j]
    return default


# ----------------------------------------------------------------------------- Spades


@kernel
def spades_hand_estimate(rules, hand):
    """Rule-of-thumb trick estimate of a Spades hand: side aces, guarded kings and queens,
    high spades and long spades."""
    est = 0.0
    for s in range(4):
        m = hand & suit_mask(rules, 0, s)
        n = count(m)
        if s == 3:
            for r in range(13):
                if has(m, 39 + r):
                    if r == 12:
                        est += 1.0
                    elif r == 11 and n >= 2:
                        est += 1.0
                    elif r == 10 and n >= 3:
                        est += 1.0
            if n > 3:
                est += n - 3
        else:
            if has(m, s * 13 + 12):
                est += 1.0 if n <= 5 else 0.5
            if has(m, s * 13 + 11) and n >= 2 and n <= 5:
                est += 0.75
            if has(m, s * 13 + 10) and n >= 3 and n <= 4:
                est += 0.25
            if n <= 1:
                est += 0.5 if count(hand & suit_mask(rules, 0, 3)) >= 2 else 0.0
    return est


@kernel
def choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid):
    """A Spades bid 0..max_bid (0 is nil under standard bidding)."""
    kind = kinds[BID_KIND + seat]
    if kind == BID_RANDOM:
        return below(rngs, seat, max_bid + 1)
    est = spades_hand_estimate(rules, hand)
    b = np.int64(est + 0.5)
    if b < 1:
        b = 0 if allow_nil else 1
    if b > max_bid:
        b = max_bid
    return b


# ----------------------------------------------------------------------------- Euchre

# SPEC §6: per-card probability (x 1/32512) of winning a trick, by group.
_EU_OTHER = np.array([255, 394, 645, 1456, 4397, 15857], dtype=np.float64)
_EU_SHADOW = np.array([359, 508, 0, 927, 3008, 13127], dtype=np.float64)
_EU_TRUMP = np.array([13833, 13745, 0, 13186, 14738, 17722], dtype=np.float64)
_EU_LEFT = 21129.0
_EU_RIGHT = 32512.0


@njit(cache=True)
def euchre_card_value(card, trump):
    """Expected tricks of one card if ``trump`` is trump (SPEC §6 table)."""
    s = card // 6
    r = card % 6
    shadow = 3 - trump
    if s == trump:
        v = _EU_RIGHT if r == 2 else _EU_TRUMP[r]
    elif s == shadow:
        v = _EU_LEFT if r == 2 else _EU_SHADOW[r]
    else:
        v = _EU_OTHER[r]
    return v / 32512.0


@kernel
def euchre_hand_value(hand, trump):
    """Expected tricks of a hand under ``trump``."""
    total = 0.0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        total += euchre_card_value(c, trump)
    return total


@kernel
def euchre_worst_card(hand, trump):
    """The card of least value under ``trump`` (the natural discard)."""
    best = -1
    best_v = 1e9
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        v = euchre_card_value(c, trump)
        if v < best_v:
            best_v = v
            best = c
    return best


@kernel
def choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs):
    """Round 1: order up the turned card (True) or pass."""
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    up = pub[UPCARD]
    trump = up // 6
    value = euchre_hand_value(hand, trump)
    if seat == pub[DEALER]:
        # the dealer would take the upcard and shed its worst card
        h = hand | bit(up)
        value = euchre_hand_value(h, trump) - euchre_card_value(euchre_worst_card(h, trump), trump)
    elif (seat + 2) % 4 == pub[DEALER]:
        value += 0.5 * euchre_card_value(up, trump)
    else:
        value -= 0.5 * euchre_card_value(up, trump)
    return value >= bid_param(kinds, params, seat, 0, 2.6)


@kernel
def choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call):
    """Round 2: name a suit other than the upcard's, or pass (-1) unless ``must_call``."""
    banned = pub[UPCARD] // 6
    if kinds[BID_KIND + seat] == BID_RANDOM:
        n = 3 if must_call else 4
        k = below(rngs, seat, n)
        if k == 3:
            return EUCHRE_PASS
        for s in range(4):
            if s != banned:
                if k == 0:
                    return s
                k -= 1
    best = -1
    best_v = -1.0
    for s in range(4):
        if s != banned:
            v = euchre_hand_value(hand, s)
            if v > best_v:
                best_v = v
                best = s
    if must_call or best_v >= bid_param(kinds, params, seat, 1, 2.6):
        return best
    return EUCHRE_PASS


@kernel
def choose_euchre_alone(kinds, params, seat, rules, hand, pub, rngs, trump):
    """Whether the maker goes alone."""
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    return euchre_hand_value(hand, trump) >= bid_param(kinds, params, seat, 2, 4.2)


@kernel
def choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump):
    """The dealer's discard from its six cards after taking the upcard."""
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return random_card(rngs, seat, hand)
    return euchre_worst_card(hand, trump)


# ----------------------------------------------------------------------------- Jass

_JASS_TRUMP_POINTS = np.array([1, 2, 3, 12, 5, 13, 7, 8, 9], dtype=np.float64)  # 6..A


@kernel
def jass_safe_tricks(hand, top_down):
    """Tricks a hand surely takes without trump: per suit, the unbroken run from the top
    (Obe-abe: A, K, Q, ...) or from the bottom (Une-ufe: 6, 7, 8, ...)."""
    safe = 0
    for s in range(4):
        for k in range(9):
            r = 8 - k if top_down else k
            if has(hand, s * 9 + r):
                safe += 1
            else:
                break
    return safe


@kernel
def jass_ranked_score(hand, mode, may_push):
    """SPEC §2 "ranked" trump choice: the score of mode 0..5, or of pushing (6)."""
    if mode == JASS_PUSH:
        return 125.0 if may_push else -1.0
    if mode >= 4:
        return 20.0 * jass_safe_tricks(hand, mode == 4)
    n = 0
    score = 0.0
    for r in range(9):
        if has(hand, mode * 9 + r):
            n += 1
            score += 2.0 * _JASS_TRUMP_POINTS[r]
    if n <= 1:
        return 0.0
    if n >= 6:
        score += 120.0
    if has(hand, mode * 9 + 5):
        score += 10.0
    if has(hand, mode * 9 + 3):
        score += 7.0
    if has(hand, mode * 9 + 8):
        score += 3.0
    return score * 1.15 ** n


@kernel
def choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push):
    """A Jass mode 0..5, or JASS_PUSH (only when ``may_push``)."""
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 7 if may_push else 6)
    best = 0
    best_score = jass_ranked_score(hand, 0, may_push)
    for m in range(1, 7):
        v = jass_ranked_score(hand, m, may_push)
        if v > best_score:
            best_score = v
            best = m
    return best


# The hooks the game modules declare, bound by ``evolve.engine``.
BIDDING_HOOKS = {
    "choose_spades_bid": choose_spades_bid,
    "choose_euchre_order": choose_euchre_order,
    "choose_euchre_call": choose_euchre_call,
    "choose_euchre_alone": choose_euchre_alone,
    "choose_euchre_discard": choose_euchre_discard,
    "choose_jass_mode": choose_jass_mode,
}
