"""What a seat can infer from its own hand and the public state: the cards it has not
seen, the cards another seat may still hold (voids shown, the Jass Buur, a trump lead
before spades were broken), where the turned or shown card is, its partner and who is
winning the trick. Pure functions of ``(rules, seat, hand, pub)``, shared by the
rule-based agents, the network features and the determinization of the search agents,
so that what is known is worked out in one place; a game's particulars (its shown card, the
Jass Buur) are its hooks (``evolve.games.hooks``)."""

from __future__ import annotations

import numpy as np

from evolve.games.bits import ONE, ZERO, bit, has, kernel, lowest
from evolve.games.hooks import (
    turned_up_card,  # noqa: F401 (what a seat knows, the game's hook)
    void_cards,
)
from evolve.games.hooks import upcard_place as game_upcard_place
from evolve.games.hooks import upcard_state as game_upcard_state
from evolve.games.rules import (
    BREAK_NEVER,
    P_BREAK_SPADES,
    P_N_CARDS,
    P_PARTNERSHIP,
    card_key,
    suit_of,
    trump_of,
    winning_index,
)
from evolve.games.state import (
    DEALER,
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    PLAYED_BY,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    UP_UNKNOWN,
    UPCARD,
    VOIDS,
)


@kernel
def partner_of(rules, seat, pub):
    """The partner seat, or -1 (cut-throat Spades; the partner sits out in Euchre)."""
    if rules[P_PARTNERSHIP] == 0:
        return -1
    p = (seat + 2) % 4
    if p == pub[OUT_SEAT]:
        return -1
    return p


@kernel
def trick_winner_pos(rules, mode, pub):
    """Position of the card now winning the (non-empty) trick."""
    return winning_index(rules, mode, pub, TRICK_CARDS, pub[NPLAYED])


@kernel
def partner_winning(rules, mode, seat, pub):
    """The partner has played in this trick and its card is winning."""
    p = partner_of(rules, seat, pub)
    if p < 0 or pub[NPLAYED] == 0:
        return False
    return pub[TRICK_SEATS + trick_winner_pos(rules, mode, pub)] == p


@kernel
def full_mask(rules):
    return (ONE << np.uint64(rules[P_N_CARDS])) - ONE


@kernel
def upcard_state(rules, pub):
    """The game's ``upcard_state`` hook: 0: no shown card, or one whose holder is unknown
    (Sueca ``setup=study``: a random card of the deck); 1: dead (the Euchre upcard, not taken up); 2: the dealer's (the
    Sueca shown card; the Euchre upcard ordered up, which the dealer holds or discarded)."""
    if pub[UPCARD] < 0:
        return 0
    return game_upcard_state(rules, pub)


@kernel
def played_mask(pub):
    m = ZERO
    for s in range(4):
        m |= np.uint64(pub[PLAYED_BY + s])
    return m


@kernel
def unseen_mask(rules, seat, hand, pub):
    """Cards ``seat`` has not seen: not in its hand, not played, not a dead upcard (nor,
    for the dealer, an upcard it took up and discarded)."""
    m = full_mask(rules) & ~hand & ~played_mask(pub)
    st = upcard_state(rules, pub)
    if st == 1 or (st == 2 and seat == pub[DEALER]):
        m &= ~bit(pub[UPCARD])
    return m


@kernel
def may_hold(rules, mode, seat, hand, pub, s):
    """Cards seat ``s`` may still hold as ``seat`` (holding ``hand``) sees it: unseen
    cards minus the suits ``s`` showed void in; a shown card held by the dealer is only the
    dealer's."""
    m = unseen_mask(rules, seat, hand, pub)
    if upcard_state(rules, pub) == 2 and s != pub[DEALER]:
        m &= ~bit(pub[UPCARD])
    return m & ~void_cards(rules, mode, pub[VOIDS + s])


@kernel
def may_beat(rules, mode, mask, led, key):
    """Some card of ``mask`` has a trick key above ``key`` for a trick led in ``led``."""
    m = mask
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if card_key(rules, mode, c, led) > key:
            return True
    return False


@kernel
def trump_lead_voids(rules, mode, pub, seat_voids_at, iw):
    """Spades ``break_spades``: a trump lead before spades were broken (with
    ``never_broken``: any trump lead) shows a hand of nothing but trumps. Adds those suits
    as void bits into ``iw[seat_voids_at + s]`` for each seat s that led so."""
    tr = trump_of(rules, mode)
    if tr < 0:
        return
    broken = False
    never = rules[P_BREAK_SPADES] == BREAK_NEVER
    n_active = pub[N_ACTIVE]
    t_now = pub[TRICK]
    for t in range(t_now + 1):
        n_in = n_active if t < t_now else pub[NPLAYED]
        if n_in <= 0:
            break
        h = HISTORY + t * HISTORY_STRIDE
        lead = pub[h + 1]
        if (never or not broken) and suit_of(rules, mode, lead) == tr:
            for s in range(4):
                if s != tr:
                    iw[seat_voids_at + pub[h]] |= np.int64(1) << s
        for q in range(n_in):
            if suit_of(rules, mode, pub[h + 1 + q]) == tr:
                broken = True


@kernel
def upcard_place(rules, seat, hand, pub):
    """Where ``seat`` (holding ``hand``) knows the turned card to be (``UP_*`` of
    ``evolve.games.state``), if it has not seen it played or in its hand: the game's
    ``upcard_place`` hook (the Euchre upcard out of play or with the dealer, the Sueca shown
    card in the dealer's hand)."""
    up = pub[UPCARD]
    if up < 0 or has(np.uint64(hand), up) or has(played_mask(pub), up):
        return UP_UNKNOWN
    return game_upcard_place(rules, seat, pub)
