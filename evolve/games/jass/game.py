"""Jass (Schieber): 36 cards (6..A), nine each, six trump modes, 157 points per deal.

Card id = suit * 9 + rank; suits D, H, S, C (0..3, jass-kit's order); ranks 6, 7, 8, 9,
10, J, Q, K, A (0..8). Modes 0..3: that suit is trump; 4 Obe-abe (top-down), 5 Une-ufe
(bottom-up). Trump order J (Buur) > 9 (Nell) > A > K > Q > 10 > 8 > 7 > 6.

The forehand (seat after the dealer) declares a mode or pushes; after a push its partner
must declare. The forehand leads either way. Legality: see ``hooks.legal_cards``.
Points as in ``docs/reference/games.md``, last trick +5 (157). ``match_bonus``: all nine tricks +100.
``multipliers``: diamonds/hearts x1, spades/clubs x2, Obe/Une x3 on the hand score.
Weis (melds) and Stöck (the trump king and queen) are not implemented: a deal scores its
card points only, as in the Jass paper's experiments, which turned them off (its Section
5.3), and as jass-kit and pyschieber score by default.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.card_play import record_play
from evolve.games.dealing import deal_hands
from evolve.games.info import GameInfo, trump_first_orders
from evolve.games.jass.hooks import GAME_ID, JASS_PUSH
from evolve.games.options import Option
from evolve.games.protocol import Protocol
from evolve.games.rules import (
    LEGAL_OWN,
    P_BUUR_RANK,
    P_GAME,
    P_HAND,
    P_LAST_BONUS,
    P_LEGALITY,
    P_MATCH_BONUS,
    P_N_CARDS,
    P_N_MODES,
    P_N_RANKS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_TARGET,
    make_rules,
    multiplier_of,
)
from evolve.games.state import CALLS, MAKER, MODE, PUSHED
from evolve.games.template import policy_hook, template

# supplied by the layer above (evolve.agents.dispatch, bound by evolve.runtime.batch)
choose_jass_mode = policy_hook("choose_jass_mode", "(kinds, params, seat, rules, hand, pub, rngs, may_push) -> mode")

OBE, UNE = 4, 5
# face index: 6 7 8 9 10 J Q K A
_TRUMP_RANK = (0, 1, 2, 7, 3, 8, 4, 5, 6)
_TRUMP_POINTS = (0, 0, 0, 14, 10, 20, 3, 4, 11)
_SIDE_POINTS = (0, 0, 0, 0, 10, 2, 3, 4, 11)
_OBE_POINTS = (0, 0, 8, 0, 10, 2, 3, 4, 11)
_UNE_POINTS = (11, 0, 8, 0, 10, 2, 3, 4, 0)
_MULTIPLIER = (1, 1, 2, 2, 3, 3)

OPTIONS = {
    "match_bonus": Option(False, "taking all nine tricks adds 100 points (257)", kind=bool),
    "multipliers": Option(False, "hand scores x1 (D, H), x2 (S, C), x3 (Obe, Une)", kind=bool),
    "target": Option(0, "game target in points, e.g. 2500 (0: no games)", kind=int, minimum=0),
}


def build(opts: dict):
    """Rules tables for the six Jass modes."""
    suit = np.zeros((6, 36), np.int64)
    rank = np.zeros((6, 36), np.int64)
    points = np.zeros((6, 36), np.int64)
    strength = np.zeros((6, 36), np.int64)
    for m in range(6):
        for c in range(36):
            s, r = divmod(c, 9)
            suit[m, c] = s
            if m == s:
                rank[m, c], points[m, c] = _TRUMP_RANK[r], _TRUMP_POINTS[r]
                strength[m, c] = 100 + rank[m, c]
            elif m == UNE:
                rank[m, c], points[m, c] = 8 - r, _UNE_POINTS[r]
                strength[m, c] = rank[m, c]
            else:
                rank[m, c] = r
                points[m, c] = _OBE_POINTS[r] if m == OBE else _SIDE_POINTS[r]
                strength[m, c] = r
    mult = np.array(_MULTIPLIER) if opts["multipliers"] else np.ones(6)
    params = {
        P_GAME: GAME_ID, P_N_CARDS: 36, P_HAND: 9, P_N_TRICKS: 9, P_N_MODES: 6,
        P_LEGALITY: LEGAL_OWN, P_PARTNERSHIP: 1, P_N_RANKS: 9, P_BUUR_RANK: 5,
        P_LAST_BONUS: 5, P_MATCH_BONUS: 100 if opts["match_bonus"] else 0,
        P_TARGET: opts["target"],
    }
    return make_rules(params, suit, rank, np.array([0, 1, 2, 3, -1, -1]), points, strength, mult)


@njit(cache=True, inline="always")
def score_deal(rules, mode, tricks, points, score):
    """Add the match bonus (option) to the card ``points`` per side of a side that took all
    nine ``tricks`` (per seat), and set the hand ``score`` per side: the points times the
    mode's multiplier (option). The engine's deal and ``evolve.runtime.session`` both score with it."""
    bonus = rules[P_MATCH_BONUS]
    for side in range(2):
        if bonus > 0 and tricks[side] + tricks[side + 2] == 9:
            points[side] += bonus
        score[side] = points[side] * multiplier_of(rules, mode)


@template(_nrt=False, inline="always")
def setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i):
    """Everything before the card play: the deal and the trump declaration (with push).
    Returns the trump mode, the first leader and the seat that sits out (-1)."""
    deal_hands(deck, 9, hands, rec, i)
    forehand = (dealer + 1) % 4
    declarer = forehand
    mode = choose_jass_mode(kinds, params, forehand, rules, hands[forehand], pub, rngs, True)
    rec.calls[i, 0] = mode
    pub[CALLS] = mode
    if mode == JASS_PUSH:
        pub[PUSHED] = 1
        declarer = (forehand + 2) % 4
        mode = choose_jass_mode(kinds, params, declarer, rules, hands[declarer], pub, rngs, False)
        rec.calls[i, 1] = mode
        pub[CALLS + 1] = mode
    if mode < 0 or mode > 5:
        raise ValueError("a Jass mode must be 0..5 (push only for the forehand, once)")
    pub[MODE] = mode
    pub[MAKER] = declarer
    rec.mode[i] = mode
    rec.maker[i] = declarer
    rec.first_leader[i] = forehand
    return mode, forehand, -1


@njit(cache=True, _nrt=False, inline="always")
def finish(rules, pub, rec, i):
    """Everything after the card play: the record of the play and the scores."""
    mode = pub[MODE]
    record_play(rules, pub, rec, i)
    score_deal(rules, mode, rec.tricks[i], rec.points[i], rec.score[i])


class JassProtocol(Protocol):
    """Schieber: the forehand declares a mode or pushes; after a push its partner must
    declare. The forehand leads either way."""

    counts = "card points"
    share_of_points = True      # 157 points per deal (257 with the match bonus)

    def begin(self, state):
        self.ask(state, "trump", state.forehand, may_push=True)

    def bidding_legal(self, state, hand):
        return tuple(range(6)) + ((JASS_PUSH,) if state.args["may_push"] else ())

    def expected(self, state):
        return "a mode 0..5" + (" or 6 (push)" if state.args["may_push"] else " (only after a push)")

    def no_calls(self, state):
        return "jass has at most two trump calls (push, then the partner's mode)"

    def advance(self, state, seat, action):
        state.calls.append((seat, action))
        state.pub[CALLS + len(state.calls) - 1] = action
        if action == JASS_PUSH:
            state.pub[PUSHED] = 1
            self.ask(state, "trump", (seat + 2) % 4, may_push=False)
            return
        state.mode, state.maker = action, seat
        state.pub[MODE] = action
        state.pub[MAKER] = seat
        self.play_from(state, action, state.forehand)

    def recorded_actions(self, result, i):
        fh = (int(result.dealer[i]) + 1) % 4
        out = [(fh, int(result.calls[i, 0]))]
        if int(result.calls[i, 1]) >= 0:
            out.append(((fh + 2) % 4, int(result.calls[i, 1])))
        return out

    def hand_score(self, state, tricks, points, pub=None):
        score = np.zeros(4, np.int64)
        score_deal(self.rules, state.mode, np.asarray(tricks, np.int64), points, score)
        return score, np.zeros(2, np.int64)

    def action_name(self, decision, action):
        if decision == "trump":
            return "push" if action == JASS_PUSH else self.info.mode_names[int(action)]
        return super().action_name(decision, action)


INFO = GameInfo(
    name="jass", n_cards=36, hand_size=9, n_modes=6, suits="DHSC",
    faces=("6", "7", "8", "9", "10", "J", "Q", "K", "A"), options=OPTIONS, build=build,
    mode_names=("diamonds", "hearts", "spades", "clubs", "obe-abe", "une-ufe"),
    describe="Schieber: 36 cards, six modes with push, 157 points per deal",
    trump_first=trump_first_orders(6),
    game_id=GAME_ID, protocol=JassProtocol,
    # the ranked rule and the Graf table are level (+0.7 [-0.1, +1.5] points per deal on 4,000
    # deals) and 21 points per deal better than random trump (docs/results/bidders.md)
    default_bidder="simple",
)
