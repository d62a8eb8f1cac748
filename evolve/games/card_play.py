"""The one trick engine every game plays on.

``play_deal`` plays a deal: the game's ``setup`` (the deal and its calls), ``play_tricks``
and the game's ``finish``. ``play_tricks`` runs the card-play phase: it asks each active
seat's agent for a card given only that seat's observation, checks legality, resolves
tricks with the game's rank tables and keeps ``pub`` (the public state) and the per-deal
record up to date. Games differ only in their tables, legality kind, phases before play
and scoring.

The game's phases and the agents' card choice are policy hooks (``game_setup``,
``game_finish``, ``choose_card``): this module knows neither the games' modules nor the
agents. Both functions are templates (``evolve.games.template``) that
``evolve.runtime.batch`` specialises per game and per set of agent families.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from evolve.games.bits import bit, has
from evolve.games.hooks import legal_cards
from evolve.games.rules import P_N_TRICKS, suit_of
from evolve.games.state import (
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    OUT_SEAT,
    PHASE,
    SIDE_POINTS,
    TRICKS_WON,
)
from evolve.games.template import policy_hook, template
from evolve.games.trick import finish_trick, next_active, note_play, start_trick

# ``hands`` is all four hands: the layer above passes only ``hands[seat]`` to every agent
# family except the explicitly perfect-information one (see evolve.agents.dispatch)
# each game's phases before and after the card play (its module's ``setup`` and ``finish``)
game_setup = policy_hook(
    "game_setup", "(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i) -> (mode, leader, out)")
game_finish = policy_hook("game_finish", "(rules, pub, rec, i)")
choose_card = policy_hook(
    "choose_card", "(kinds, params, seat, rules, mode, hands, legal, pub, rngs, work) -> card from legal")
# the deal, for the kernels that deal as they go (the lockstep and the environments' kernels)
deal_cards = policy_hook("deal_cards", "(key, index, rngs, deck, decks, row)")

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
    private: np.ndarray      # int8 [n, private]   cards of the private decisions (the Euchre discard; -1 none)
    plays: np.ndarray        # int8 [n or 0, n_cards played]
    leaders: np.ndarray      # int8 [n or 0, tricks]
    winners: np.ndarray      # int8 [n or 0, tricks]


def record_shape(info) -> tuple[int, int, int, int]:
    """The sizes ``new_record`` takes after ``n`` for a game's ``GameInfo``: the hand, the
    undealt cards, the tricks and the cards of the private decisions of a deal."""
    return info.hand_size, info.n_rest, info.n_tricks, info.n_private


def new_record(n: int, hand: int, n_rest: int, n_tricks: int, n_private: int, record: bool) -> DealRecord:
    """Allocate a ``DealRecord`` for ``n`` deals (the sizes: ``record_shape``)."""
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
        private=np.full((n, n_private), -1, i8),
        plays=np.full((r, 4 * n_tricks), -1, i8),
        leaders=np.full((r, n_tricks), -1, i8),
        winners=np.full((r, n_tricks), -1, i8),
    )


@template(inline="always")
def play_card(rules, mode, kinds, params, hands, pub, rngs, work, seat, q, led):
    """Ask ``seat`` for its card as the q-th of the trick, check it, apply it; return it."""
    hand = hands[seat]
    legal = legal_cards(rules, mode, hand, pub)
    card = choose_card(kinds, params, seat, rules, mode, hands, legal, pub, rngs, work)
    if not has(legal, card):
        raise ValueError("an agent chose an illegal card")
    hands[seat] = hand & ~bit(card)
    note_play(rules, mode, pub, seat, card, q, led)
    return card


@template(_nrt=False)
def play_deal(rules, deck, dealer, kinds, params, rngs, work, hands, pub, rec, i):
    """Play one deal: the game's ``setup`` (the deal and its calls; mode -1: passed out,
    nothing to play), every trick, the game's ``finish`` (the record and the scores)."""
    mode, leader, out = game_setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i)
    if mode >= 0:
        play_tricks(rules, mode, kinds, params, hands, pub, rngs, work, leader, out)
        game_finish(rules, pub, rec, i)


@template(_nrt=False)
def play_tricks(rules, mode, kinds, params, hands, pub, rngs, work, leader, out_seat):
    """Play every trick of a deal from ``leader``; ``out_seat`` (or -1) sits out.
    Everything that happens is kept in ``pub`` (see ``record_play``)."""
    n_tricks = rules[P_N_TRICKS]
    n_active = 3 if out_seat >= 0 else 4
    pub[N_ACTIVE] = n_active
    pub[OUT_SEAT] = out_seat
    pub[PHASE] = 2
    for t in range(n_tricks):
        start_trick(pub, t, leader)
        lead = play_card(rules, mode, kinds, params, hands, pub, rngs, work, leader, 0, -1)
        led = suit_of(rules, mode, lead)
        seat = leader
        for q in range(1, n_active):
            seat = next_active(seat, out_seat)
            play_card(rules, mode, kinds, params, hands, pub, rngs, work, seat, q, led)
        leader = finish_trick(rules, mode, pub, t, n_active)


# Inlined (Numba IR) into each game's deal: a call would copy the whole ``DealRecord``
# (17 array descriptors, ~150 words) onto the stack once per deal.
@njit(cache=True, _nrt=False, inline="always")
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
