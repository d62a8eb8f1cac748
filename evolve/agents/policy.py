"""Numba dispatch from an agent *kind* plus a parameter vector to a decision.

An agent at the table is plain data: an integer kind for card play, an integer kind for
bids and trump calls, and a float parameter vector for each (packed for the four seats
into ``seat_ints`` and ``seat_params``). The engine calls
these functions inside its Numba loop with only the deciding seat's observation:
``(seat, own hand, legal cards, pub)``. Adding an agent means adding a kind here and a
registry entry in ``evolve.agents.registry``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import ONE, ZERO, below, bit, count, has, kernel, lowest, random_card
from evolve.agents import euchre_bidding
from evolve.agents.euchre_bidding import EUCHRE_TABLE_KINDS
from evolve.agents.network import network_card
from evolve.agents.rulebased import rule_card
from evolve.agents.search import search_card
from evolve.agents.table_bidders import BID_JASS_TABLE, BID_SPADES_TABLE, jass_table_mode, spades_table_bid
from evolve.games.rules import suit_mask
from evolve.games.state import DEALER, FOREHAND, UPCARD

# Card-play kinds. Families live in their own modules and are dispatched by range.
PLAY_RANDOM = 0
NETWORK_KINDS = (1, 10)     # evolve.agents.network: evolved tanh networks
RULE_KINDS = (10, 30)       # evolve.agents.rulebased: High/Low/.../rule-based Jass
SEARCH_KINDS = (30, 40)     # evolve.agents.search: MC, DMCTS, ISMCTS

BID_RANDOM = 0
BID_SIMPLE = 1   # EUCHRE_TABLE_KINDS (2..6): Euchre table bidders (evolve.agents.euchre_bidding); simple elsewhere

JASS_PUSH = 6
EUCHRE_PASS = -1


# Layout of ``seat_ints`` (the four agents' kinds and parameter ranges): seat s plays with
# kind seat_ints[PLAY_KIND + s] and parameters
# seat_params[seat_ints[PLAY_LO + s]:seat_ints[PLAY_HI + s]]; likewise BID_*.
PLAY_KIND = 0
BID_KIND = 4
PLAY_LO = 8
PLAY_HI = 12
BID_LO = 16
BID_HI = 20
SEAT_INTS = 24


@njit(cache=True, inline="always")
def bid_param(kinds, params, seat, j, default):
    """Parameter ``j`` of the seat's bidder, or ``default`` when it has fewer."""
    a = kinds[BID_LO + seat]
    if a + j < kinds[BID_HI + seat]:
        return params[a + j]
    return default


@njit(cache=True, inline="always")
def choose_card(kinds, params, seat, rules, mode, hand, legal, pub, rngs, work):
    """The card the seat's agent plays from ``legal`` (a non-empty mask). ``work`` is
    scratch memory for agents that need it (engine kernels may not allocate)."""
    kind = kinds[PLAY_KIND + seat]
    if kind == PLAY_RANDOM:
        return random_card(rngs, seat, legal)
    lo = kinds[PLAY_LO + seat]
    hi = kinds[PLAY_HI + seat]
    if kind < NETWORK_KINDS[1]:
        return network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
    if kind < RULE_KINDS[1]:
        return rule_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)
    if kind < SEARCH_KINDS[1]:
        return search_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
    raise ValueError("unknown card-play agent kind")


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
    if kind == BID_SPADES_TABLE:
        return spades_table_bid(params, kinds[BID_LO + seat], hand, allow_nil, max_bid)
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
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.order(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs)
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
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.call(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, must_call)
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
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.alone(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, trump)
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    return euchre_hand_value(hand, trump) >= bid_param(kinds, params, seat, 2, 4.2)


@kernel
def choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump):
    """The dealer's discard from its six cards after taking the upcard."""
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.discard(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, trump)
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
    if kinds[BID_KIND + seat] == BID_JASS_TABLE:
        return jass_table_mode(params, kinds[BID_LO + seat], hand, may_push)
    best = 0
    best_score = jass_ranked_score(hand, 0, may_push)
    for m in range(1, 7):
        v = jass_ranked_score(hand, m, may_push)
        if v > best_score:
            best_score = v
            best = m
    return best
