"""A trick, card by card, in the public state ``pub``: open a trick, note a card (with what it
reveals about the player's hand), resolve a full trick, and the one step that plays a card
and moves the trick on (``play_step``), with the next seat to play (``next_active``, which
skips the seat that sits out). Pure functions of ``(rules, pub)``; no agents here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import bit, has
from evolve.games.hooks import breaks, note_voids, trick_taken
from evolve.games.rules import (
    P_LAST_BONUS,
    P_N_TRICKS,
    side_of,
    suit_of,
    trick_points,
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
)


@njit(cache=True, inline="always")
def note_play(rules, mode, pub, seat, card, q, led):
    """Update the public state for ``seat`` playing ``card`` as the q-th card of the trick
    led in suit ``led``, including what the play reveals about the seat's hand (the game's
    ``note_voids`` hook)."""
    suit = suit_of(rules, mode, card)
    if q > 0 and suit != led:
        note_voids(rules, mode, pub, seat, card, q, led)
    if breaks(rules, mode, card):
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
    pub[SIDE_POINTS + side_of(rules, winner)] += pts
    trick_taken(rules, mode, pub, winner, n_active)
    pub[HISTORY + t * HISTORY_STRIDE + 5] = winner
    return winner


@njit(cache=True, inline="always")
def next_active(seat, out_seat):
    """The seat after ``seat`` in play order, skipping ``out_seat`` (-1: nobody sits out)."""
    nxt = (seat + 1) % 4
    if nxt == out_seat:
        nxt = (nxt + 1) % 4
    return nxt


@njit(cache=True, inline="always")
def open_play(pub, leader, out_seat):
    """Start the card-play phase of a deal played one card at a time (``play_step``): what
    ``play_tricks`` does before its first card. Returns the seat to move."""
    pub[N_ACTIVE] = 3 if out_seat >= 0 else 4
    pub[OUT_SEAT] = out_seat
    pub[PHASE] = 2
    start_trick(pub, 0, leader)
    return leader


@njit(cache=True, inline="always")
def play_step(rules, mode, pub, seat, card):
    """The one trick step: ``seat`` plays ``card`` as the next card of the current trick
    (the caller takes it out of the seat's hand, wherever it keeps hands); a full trick is
    resolved and the next one opened. Returns the next seat to move, or -1 once the last
    trick is over.

    Every deal played one card at a time uses it: the lockstep kernel and the stepper
    (``play_card_step``), the rebuild of a seat's view (``replay_tricks``), the search
    agents' tree descents (``evolve.agents.search.card_search.apply_card``) and the value
    networks' training positions. Two measured fast paths stay apart on purpose:
    ``play_tricks``' own loop (built on this step, random play was ~7% slower) and the
    search's uniform playouts (``card_search.rollout``, which keeps only what legality and
    scoring read); tests check that both play the same cards and tricks as this step."""
    q = pub[NPLAYED]
    led = -1 if q == 0 else suit_of(rules, mode, pub[TRICK_CARDS])
    note_play(rules, mode, pub, seat, card, q, led)
    n_active = pub[N_ACTIVE]
    if q + 1 < n_active:
        return next_active(seat, pub[OUT_SEAT])
    t = pub[TRICK]
    winner = finish_trick(rules, mode, pub, t, n_active)
    if t + 1 == rules[P_N_TRICKS]:
        return -1
    start_trick(pub, t + 1, winner)
    return winner


@njit(cache=True, inline="always")
def play_card_step(rules, mode, hands, pub, seat, card, legal):
    """``seat`` plays ``card``, checked against its ``legal`` mask, out of ``hands[seat]``
    (``play_step``). Returns the next seat to move, or -1 once the last trick is over."""
    if not has(legal, card):
        raise ValueError("an agent chose an illegal card")
    hands[seat] = hands[seat] & ~bit(card)
    return play_step(rules, mode, pub, seat, card)


@njit(cache=True)
def replay_tricks(rules, mode, pub, leader, seats, cards):
    """Replay the plays ``(seats[k], cards[k])`` into ``pub`` from the first trick led by
    ``leader`` (the play phase opened by ``open_play``). Returns ``(k, to_move)``: ``k`` the
    index of the first play out of turn or after the last trick (-1 if none) and
    ``to_move`` the seat to play after the last play (-1 once the deal is over)."""
    seat = leader
    for k in range(seats.shape[0]):
        if seat < 0 or seats[k] != seat:
            return k, seat
        seat = play_step(rules, mode, pub, seat, cards[k])
    return -1, seat
