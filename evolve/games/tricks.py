"""The one trick engine every game plays on.

``play_tricks`` runs the card-play phase of a deal: it asks each active seat's agent for a
card given only that seat's observation, checks legality, resolves tricks with the game's
rank tables and keeps ``pub`` (the public state) and the per-deal record up to date.
Games differ only in their tables, legality kind, phases before play and scoring.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from evolve.agents.policy import choose_card
from evolve.games.bits import bit, has, kernel
from evolve.games.rules import (
    GAME_JASS,
    P_GAME,
    P_LAST_BONUS,
    P_N_TRICKS,
    legal_cards,
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
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    PHASE,
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


class DealRecord(NamedTuple):
    """Per-deal output arrays of a batch (row i = deal i). Play-by-play arrays have zero
    rows unless recording was asked for."""

    hands: np.ndarray        # int8 [n, 4, hand]   hands as dealt
    rest: np.ndarray         # int8 [n, rest]      undealt cards (Euchre: upcard, kitty)
    dealer: np.ndarray       # int8 [n]
    mode: np.ndarray         # int8 [n]            trump mode (-1 passed out)
    first_leader: np.ndarray # int8 [n]
    tricks: np.ndarray       # int8 [n, 4]
    points: np.ndarray       # int32 [n, 2]        card points per side (tricks in Spades/Euchre)
    score: np.ndarray        # int32 [n, 4]        hand score per side (cut-throat: per seat)
    bags: np.ndarray         # int32 [n, 2]        Spades standard: overtricks per side
    bids: np.ndarray         # int8 [n, 4]         Spades bids (-1 none)
    calls: np.ndarray        # int8 [n, 8]         Euchre bidding log / Jass calls
    maker: np.ndarray        # int8 [n]            Euchre maker / Jass declarer (-1 none)
    alone: np.ndarray        # int8 [n]
    discard: np.ndarray      # int8 [n]            Euchre dealer's discard (-1 none)
    plays: np.ndarray        # int8 [n or 0, n_cards played]
    leaders: np.ndarray      # int8 [n or 0, tricks]
    winners: np.ndarray      # int8 [n or 0, tricks]


def new_record(n: int, hand: int, n_rest: int, n_tricks: int, record: bool) -> DealRecord:
    """Allocate a ``DealRecord`` for ``n`` deals."""
    r = n if record else 0
    i8 = np.int8
    return DealRecord(
        hands=np.zeros((n, 4, hand), i8),
        rest=np.zeros((n, max(n_rest, 0)), i8),
        dealer=np.zeros(n, i8),
        mode=np.zeros(n, i8),
        first_leader=np.zeros(n, i8),
        tricks=np.zeros((n, 4), i8),
        points=np.zeros((n, 2), np.int32),
        score=np.zeros((n, 4), np.int32),
        bags=np.zeros((n, 2), np.int32),
        bids=np.full((n, 4), -1, i8),
        calls=np.full((n, 8), -1, i8),
        maker=np.full(n, -1, i8),
        alone=np.zeros(n, i8),
        discard=np.full(n, -1, i8),
        plays=np.full((r, 4 * n_tricks), -1, i8),
        leaders=np.full((r, n_tricks), -1, i8),
        winners=np.full((r, n_tricks), -1, i8),
    )


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


@njit(cache=True, inline="always")
def play_card(rules, mode, kinds, params, hands, pub, rngs, seat, q, led):
    """Ask ``seat`` for its card as the q-th of the trick, check it, apply it; return it."""
    hand = hands[seat]
    legal = legal_cards(rules, mode, hand, pub)
    card = choose_card(kinds, params, seat, rules, mode, hand, legal, pub, rngs)
    if not has(legal, card):
        raise ValueError("an agent chose an illegal card")
    hands[seat] = hand & ~bit(card)
    note_play(rules, mode, pub, seat, card, q, led)
    return card


@kernel
def play_tricks(rules, mode, kinds, params, hands, pub, rngs, leader, out_seat):
    """Play every trick of a deal from ``leader``; ``out_seat`` (or -1) sits out.
    Everything that happens is kept in ``pub`` (see ``record_play``)."""
    n_tricks = rules[P_N_TRICKS]
    n_active = 3 if out_seat >= 0 else 4
    pub[N_ACTIVE] = n_active
    pub[OUT_SEAT] = out_seat
    pub[PHASE] = 2
    for t in range(n_tricks):
        start_trick(pub, t, leader)
        lead = play_card(rules, mode, kinds, params, hands, pub, rngs, leader, 0, -1)
        led = suit_of(rules, mode, lead)
        seat = leader
        for q in range(1, n_active):
            seat = (seat + 1) % 4
            if seat == out_seat:
                seat = (seat + 1) % 4
            play_card(rules, mode, kinds, params, hands, pub, rngs, seat, q, led)
        leader = finish_trick(rules, mode, pub, t, n_active)


@kernel
def record_play(rules, pub, rec, i):
    """Copy the outcome of the play phase from ``pub`` into row ``i`` of ``rec``."""
    for s in range(4):
        rec.tricks[i, s] = pub[TRICKS_WON + s]
    rec.points[i, 0] = pub[SIDE_POINTS]
    rec.points[i, 1] = pub[SIDE_POINTS + 1]
    if rec.plays.shape[0] == 0:
        return
    k = 0
    n_active = pub[N_ACTIVE]
    for t in range(rules[P_N_TRICKS]):
        h = HISTORY + t * HISTORY_STRIDE
        rec.leaders[i, t] = pub[h]
        rec.winners[i, t] = pub[h + 5]
        for q in range(n_active):
            rec.plays[i, k] = pub[h + 1 + q]
            k += 1
