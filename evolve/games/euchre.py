"""Euchre: 24 cards (9..A), five each, the turned card proposes trump.

Card id = suit * 6 + rank; suits C, D, H, S (0..3); ranks 9, 10, J, Q, K, A (0..5).
Deal layout: seat s holds deck[5s:5s+5], deck[20] is the upcard, deck[21:24] the kitty.

Phases (in OpenSpiel's order): round 1 from the forehand, order up or pass; if ordered up
the dealer takes the upcard and discards one card (``discard_upcard=false``: not the
upcard itself, as in OpenSpiel); otherwise round 2, name another suit
or pass (``stick_the_dealer``: the dealer may not pass); all pass: the deal is passed out
(no play, no score: redeal with the next dealer). The maker then decides to go alone; the
partner sits out and the forehand leads (the next seat if the forehand sits out).
Scoring: makers 3-4 tricks 1, march 2, lone march 4; euchred makers give the defenders 2.

The bidding log ``calls[0:4]`` holds round 1 (4 = pass, 5 = order up) and ``calls[4:8]``
round 2 (4 = pass, 0..3 = suit named), both in bidding order from the forehand.

``setup = "fixed_spades"`` is the cooperative-agents study: no bidding, the dealer's side
makes spades trump, the upcard is shown but never taken, nobody goes alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import bit, has
from evolve.games.common import GameInfo, Option, deal_hands
from evolve.games.rules import (
    GAME_EUCHRE,
    LEGAL_FOLLOW,
    P_GAME,
    P_HAND,
    P_LEGALITY,
    P_DISCARD_UPCARD,
    P_N_CARDS,
    P_N_MODES,
    P_N_RANKS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_SETUP,
    P_STICK,
    P_TARGET,
    make_rules,
)
from evolve.games.state import ALONE, CALLS, MAKER, MODE, PHASE, UPCARD
from evolve.games.template import policy_hook, template
from evolve.games.tricks import play_tricks, record_play

# supplied by the layer above (evolve.agents.bidding via evolve.engine)
choose_euchre_order = policy_hook("choose_euchre_order", "(kinds, params, seat, rules, hand, pub, rngs) -> bool")
choose_euchre_call = policy_hook(
    "choose_euchre_call", "(kinds, params, seat, rules, hand, pub, rngs, must_call) -> suit or -1")
choose_euchre_alone = policy_hook("choose_euchre_alone", "(kinds, params, seat, rules, hand, pub, rngs, trump) -> bool")
choose_euchre_discard = policy_hook(
    "choose_euchre_discard", "(kinds, params, seat, rules, hand, pub, rngs, trump) -> card")

SETUPS = ("standard", "fixed_spades")
SETUP_FIXED_SPADES = 1
CALL_PASS = 4
CALL_ORDER = 5
JACK = 2

OPTIONS = {
    "setup": Option("standard", "standard bidding, or fixed_spades (the cooperative-agents study)", SETUPS),
    "stick_the_dealer": Option(False, "the dealer must name trump in round 2", kind=bool),
    "discard_upcard": Option(True, "the dealer may discard the upcard itself (OpenSpiel: false)", kind=bool),
    "target": Option(10, "game target in points (0: no games)", kind=int, minimum=0),
}

# fixed strength scores of the cooperative-agents code (SPEC §2), rank 9..A = 0..5
_STUDY_PLAIN = (1, 2, 3, 4, 5, 6)
_STUDY_TRUMP = (7, 8, 13, 9, 10, 11)


def build(opts: dict):
    """Rules tables for Euchre: one mode per trump suit, bowers moved into trump."""
    suit = np.zeros((4, 24), np.int64)
    rank = np.zeros((4, 24), np.int64)
    strength = np.zeros((4, 24), np.int64)
    for t in range(4):
        for c in range(24):
            s, r = divmod(c, 6)
            suit[t, c], rank[t, c] = s, r
            strength[t, c] = _STUDY_PLAIN[r]
            if s == t:
                rank[t, c] = 7 if r == JACK else r
                strength[t, c] = _STUDY_TRUMP[r]
            elif s == 3 - t and r == JACK:  # same colour: C<->S, D<->H
                suit[t, c], rank[t, c] = t, 6
                strength[t, c] = 12
    params = {
        P_GAME: GAME_EUCHRE, P_N_CARDS: 24, P_HAND: 5, P_N_TRICKS: 5, P_N_MODES: 4,
        P_LEGALITY: LEGAL_FOLLOW, P_PARTNERSHIP: 1, P_N_RANKS: 6,
        P_SETUP: SETUPS.index(opts["setup"]), P_STICK: int(opts["stick_the_dealer"]),
        P_TARGET: opts["target"], P_DISCARD_UPCARD: int(opts["discard_upcard"]),
    }
    return make_rules(params, suit, rank, np.arange(4), np.zeros((4, 24)), strength, np.ones(4))


@njit(cache=True, inline="always")
def score_deal(tricks, maker, alone, score):
    """Set the hand score per side in ``score`` (zeros on entry) from the ``tricks`` per seat,
    the ``maker`` and whether it went ``alone``: makers 3-4 tricks 1, march 2, lone march
    4; euchred makers give the defenders 2. The engine's deal and ``evolve.session`` both
    score with it."""
    side = maker % 2
    taken = tricks[maker] + tricks[(maker + 2) % 4]
    if taken >= 3:
        score[side] = 1 if taken < 5 else (4 if alone else 2)
    else:
        score[1 - side] = 2


@template(_nrt=False)
def deal(rules, deck, dealer, kinds, params, rngs, work, hands, pub, rec, i):
    """Play one Euchre deal: bidding, discard, going alone, five tricks, scoring."""
    mode, leader, out = setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i)
    if mode >= 0:
        play_tricks(rules, mode, kinds, params, hands, pub, rngs, work, leader, out)
        finish(rules, pub, rec, i)


@template(_nrt=False, inline="always")
def setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i):
    """Everything before the card play: the deal, both bidding rounds, the dealer's
    discard and going alone. Returns the trump mode (-1: everybody passed, no play),
    the first leader and the seat that sits out (-1 for none)."""
    deal_hands(deck, 5, hands, rec, i)
    up = deck[20]
    pub[UPCARD] = up
    forehand = (dealer + 1) % 4
    trump = -1
    maker = -1
    alone = False
    if rules[P_SETUP] == SETUP_FIXED_SPADES:
        trump = 3
        maker = dealer
    else:
        for k in range(4):
            seat = (forehand + k) % 4
            order = choose_euchre_order(kinds, params, seat, rules, hands[seat], pub, rngs)
            rec.calls[i, k] = CALL_ORDER if order else CALL_PASS
            pub[CALLS + k] = rec.calls[i, k]
            if order:
                trump = up // 6
                maker = seat
                break
        if trump >= 0:
            pub[MODE] = trump
            pub[PHASE] = 1
            choices = hands[dealer] | bit(up) if rules[P_DISCARD_UPCARD] != 0 else hands[dealer]
            hands[dealer] |= bit(up)
            d = choose_euchre_discard(kinds, params, dealer, rules, choices, pub, rngs, trump)
            if not has(choices, d):
                raise ValueError("the dealer must discard a card it holds (not the upcard if discard_upcard=false)")
            hands[dealer] &= ~bit(d)
            rec.discard[i] = d
        else:
            for k in range(4):
                seat = (forehand + k) % 4
                must = rules[P_STICK] != 0 and seat == dealer
                c = choose_euchre_call(kinds, params, seat, rules, hands[seat], pub, rngs, must)
                if c < 0:
                    if must:
                        raise ValueError("stick the dealer: the dealer must name a suit")
                    rec.calls[i, 4 + k] = CALL_PASS
                elif c > 3 or c == up // 6:
                    raise ValueError("round 2: name a suit other than the upcard's")
                else:
                    rec.calls[i, 4 + k] = c
                pub[CALLS + 4 + k] = rec.calls[i, 4 + k]
                if c >= 0:
                    trump = c
                    maker = seat
                    break
            if trump < 0:
                rec.mode[i] = -1
                return -1, -1, -1
        pub[MODE] = trump
        pub[MAKER] = maker
        alone = choose_euchre_alone(kinds, params, maker, rules, hands[maker], pub, rngs, trump)
    pub[MODE] = trump
    pub[MAKER] = maker
    pub[ALONE] = 1 if alone else 0
    rec.mode[i] = trump
    rec.maker[i] = maker
    rec.alone[i] = 1 if alone else 0
    out = (maker + 2) % 4 if alone else -1
    leader = forehand if forehand != out else (forehand + 1) % 4
    rec.first_leader[i] = leader
    return trump, leader, out


@njit(cache=True, _nrt=False, inline="always")
def finish(rules, pub, rec, i):
    """Everything after the card play: the record of the play and the scores."""
    maker = pub[MAKER]
    alone = pub[ALONE] != 0
    record_play(rules, pub, rec, i)
    rec.points[i, 0] = rec.tricks[i, 0] + rec.tricks[i, 2]
    rec.points[i, 1] = rec.tricks[i, 1] + rec.tricks[i, 3]
    score_deal(rec.tricks[i], maker, alone, rec.score[i])


INFO = GameInfo(
    name="euchre", n_cards=24, hand_size=5, n_modes=4, suits="CDHS",
    faces=("9", "10", "J", "Q", "K", "A"), options=OPTIONS, build=build,
    mode_names=("clubs", "diamonds", "hearts", "spades"),
    describe="24 cards, bowers, two bidding rounds, going alone; partnership game to 10",
)
