"""Jass' Numba hooks (``evolve.games.hooks`` calls them for ``rules[P_GAME] == GAME_ID``): the
Schieber legality (follow trump except with the Buur alone; trump instead of following; no
undertrumping), what a play shows under it, its calls (six modes and the push) and its
result (card points with the last-trick and match bonuses)."""

from __future__ import annotations

from numba import njit

from evolve.games.bits import ONE, ZERO, bit, kernel, lowest
from evolve.games.rules import P_BUUR_RANK, P_N_RANKS, rank_of, suit_mask, suit_of, suit_voids, trump_of
from evolve.games.scoring import points_result as seat_result  # noqa: F401 (a hook)
from evolve.games.scoring import points_scale as result_scale  # noqa: F401 (a hook)
from evolve.games.state import CALLS, DEALER, NPLAYED, TRICK_CARDS, VOIDS

GAME_ID = 3
JASS_PUSH = 6   # the forehand's call that passes the choice to its partner
# VOIDS bit BUUR_ONLY_SHIFT + s: the seat holds no card of suit s except possibly the Buur
BUUR_ONLY_SHIFT = 4


@njit(cache=True, inline="always")
def legal_cards(rules, mode, hand, pub):
    """Schieber legality: follow trump when trump is led (the Buur never has to be played);
    on a side suit follow or trump; no undertrumping in a trick not led with trump unless
    the hand holds nothing but trumps."""
    n = pub[NPLAYED]
    if n == 0:
        return hand
    led = suit_of(rules, mode, pub[TRICK_CARDS])
    follow = hand & suit_mask(rules, mode, led)
    tr = trump_of(rules, mode)
    if tr < 0:
        if follow != ZERO:
            return follow
        return hand
    trumps = hand & suit_mask(rules, mode, tr)
    if led == tr:
        buur = bit(tr * rules[P_N_RANKS] + rules[P_BUUR_RANK])
        if trumps & ~buur != ZERO:
            return trumps
        return hand
    allowed = follow | trumps if follow != ZERO else hand
    best = -1
    for i in range(n):
        c = pub[TRICK_CARDS + i]
        if suit_of(rules, mode, c) == tr and rank_of(rules, mode, c) > best:
            best = rank_of(rules, mode, c)
    if best >= 0 and hand & ~trumps != ZERO:
        low = ZERO
        rest = trumps
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            if rank_of(rules, mode, c) < best:
                low |= bit(c)
        allowed &= ~low
    return allowed


@njit(cache=True, inline="always")
def note_voids(rules, mode, pub, seat, card, q, led):
    """What a card of another suit than the led one shows under the Schieber legality: on a
    trump lead, no trump but perhaps the Buur; on a side-suit lead, a side card shows a void
    in the led suit, a trump nothing (trumping is always allowed), except a trump below one
    already in the trick, only legal from a hand of nothing but trumps."""
    suit = suit_of(rules, mode, card)
    tr = trump_of(rules, mode)
    if led == tr:
        pub[VOIDS + seat] |= 1 << (BUUR_ONLY_SHIFT + led)
    elif suit != tr:
        pub[VOIDS + seat] |= 1 << led
    else:
        best = -1
        for i in range(q):
            c = pub[TRICK_CARDS + i]
            if suit_of(rules, mode, c) == tr and rank_of(rules, mode, c) > best:
                best = rank_of(rules, mode, c)
        if rank_of(rules, mode, card) < best:
            for s in range(4):
                if s != tr:
                    pub[VOIDS + seat] |= 1 << s


@njit(cache=True, inline="always")
def void_cards(rules, mode, voids):
    """The cards a seat with the void bits ``voids`` cannot hold: the suits it showed void
    in, and those it showed void in but for the Buur (bit ``BUUR_ONLY_SHIFT + s``)."""
    m = suit_voids(rules, mode, voids)
    n_ranks = rules[P_N_RANKS]
    for k in range(4):
        if not (voids >> k) & 1 and (voids >> (BUUR_ONLY_SHIFT + k)) & 1:
            m |= suit_mask(rules, mode, k) & ~bit(k * n_ranks + rules[P_BUUR_RANK])
    return m


@kernel
def n_calls(rules):
    """The number of call values: the six modes and the push."""
    return JASS_PUSH + 1


@kernel
def latest_call(rules, pub, s):
    """Seat ``s``'s trump call (the forehand's, or its partner's after a push), or -1."""
    k = (s - pub[DEALER] - 1) & 3           # the seat's place from the forehand
    if k == 0:
        return pub[CALLS]
    if k == 2:
        return pub[CALLS + 1]
    return -1
