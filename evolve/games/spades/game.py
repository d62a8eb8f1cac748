"""Spades: 52 cards, spades always trump.

Card id = suit * 13 + rank; suits C, D, H, S (0..3); ranks 2..A (0..12).
Default: cut-throat (four individual players), no bidding, objective tricks, spades may be
led at any time. Options: ``partnership``, ``break_spades`` (``never_broken``: OpenSpiel's
rule, a spade is led only from a hand of spades), ``bidding`` none | exact |
standard (see ``docs/reference/games.md``), and ``target`` (game to 500 under standard bidding).

Standard scoring, per side: the contract is the sum of the two non-nil bids; a made
contract scores 10 x contract plus one per overtrick (a "bag"), a set one -10 x contract;
the tricks of a nil bidder count toward the side's tricks (as in OpenSpiel); partners'
bids total at most 13; a nil bid scores +100 if the
bidder takes no trick, else -100; every 10 accumulated bags cost 100 (applied in the game
score, see ``evolve.games.match.accumulate_games``).

Against the source documents: the default is the Spades thesis's game (its Sections 1.1
and 2.2, Appendix A: four players not in teams, no bidding, the most tricks, the leader
plays any card); no rule differs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.card_play import record_play
from evolve.games.dealing import deal_hands
from evolve.games.info import GameInfo
from evolve.games.options import Option
from evolve.games.protocol import Protocol
from evolve.games.rules import (
    BREAK_NEVER,
    LEGAL_FOLLOW,
    P_BIDDING,
    P_BREAK_SPADES,
    P_GAME,
    P_HAND,
    P_LEGALITY,
    P_N_CARDS,
    P_N_MODES,
    P_N_RANKS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_TARGET,
    make_rules,
)
from evolve.games.spades.hooks import GAME_ID
from evolve.games.state import BIDS
from evolve.games.template import policy_hook, template

# supplied by the layer above (evolve.agents.dispatch, bound by evolve.runtime.batch)
choose_spades_bid = policy_hook(
    "choose_spades_bid", "(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid) -> bid")

BIDDING = ("none", "exact", "standard")
BID_NONE, BID_EXACT, BID_STANDARD = 0, 1, 2

OPTIONS = {
    "partnership": Option(False, "seats {0,2} vs {1,3} instead of cut-throat", kind=bool),
    "break_spades": Option(False, "spades may not be led until broken", kind=bool),
    "never_broken": Option(False, "OpenSpiel's rule: spades are never broken, a spade is led only from a hand of "
                           "spades (implies break_spades)", kind=bool),
    "bidding": Option("none", "none | exact (per player) | standard (partnership, nil, bags)", BIDDING),
    "target": Option(-1, "game target in points (default: 500 with standard bidding, else none)", kind=int, minimum=-1),
}


def build(opts: dict):
    """Rules tables for Spades with the given (validated) options."""
    bidding = BIDDING.index(opts["bidding"])
    if bidding == BID_STANDARD and not opts["partnership"]:
        raise ValueError("option bidding='standard' needs partnership=true")
    target = opts["target"]
    if target < 0:
        target = 500 if bidding == BID_STANDARD else 0
    cards = np.arange(52)
    suit = (cards // 13)[None, :]
    rank = (cards % 13)[None, :]
    strength = np.where(suit == 3, 100 + rank, rank)
    params = {
        P_GAME: GAME_ID, P_N_CARDS: 52, P_HAND: 13, P_N_TRICKS: 13, P_N_MODES: 1,
        P_LEGALITY: LEGAL_FOLLOW, P_BREAK_SPADES: BREAK_NEVER if opts["never_broken"] else int(opts["break_spades"]),
        P_PARTNERSHIP: int(opts["partnership"]), P_BIDDING: bidding, P_TARGET: target,
        P_N_RANKS: 13,
    }
    return make_rules(params, suit, rank, np.array([3]), np.zeros((1, 52)), strength, np.ones(1))


@njit(cache=True)
def exact_score(bid, tricks):
    """The study's exact-bid score: 10 + 5 per trick when exact, else -5 per trick off."""
    if bid == tricks:
        return 10 + 5 * tricks
    return -5 * abs(tricks - bid)


@njit(cache=True, inline="always")
def score_deal(rules, bids, tricks, score, bags):
    """Add the hand score of a played deal to ``score`` (per side, or per seat in cut-throat;
    zeros on entry) and the standard-bidding overtricks to ``bags`` (per side), from the
    ``bids`` and the ``tricks`` per seat. The engine's deal and ``evolve.runtime.session`` both
    score with it."""
    bidding = rules[P_BIDDING]
    partnership = rules[P_PARTNERSHIP] != 0
    t = tricks
    if bidding == BID_NONE:
        for s in range(4):
            if partnership:
                score[s % 2] += t[s]
            else:
                score[s] = t[s]
    elif bidding == BID_EXACT:
        for s in range(4):
            v = exact_score(bids[s], t[s])
            if partnership:
                score[s % 2] += v
            else:
                score[s] = v
    else:
        for side in range(2):
            a, b = side, side + 2
            contract = 0
            nil = 0
            for s in (a, b):
                if bids[s] == 0:
                    nil += 100 if t[s] == 0 else -100
                else:
                    contract += bids[s]
            taken = t[a] + t[b]
            if taken >= contract:
                score[side] = 10 * contract + (taken - contract) + nil
                bags[side] = taken - contract
            else:
                score[side] = -10 * contract + nil


@template(_nrt=False, inline="always")
def setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i):
    """Everything before the card play: the deal and the bidding (if any). Returns the
    trump mode, the first leader and the seat that sits out (-1)."""
    deal_hands(deck, 13, hands, rec, i)
    forehand = (dealer + 1) % 4
    bidding = rules[P_BIDDING]
    partnership = rules[P_PARTNERSHIP] != 0
    if bidding != BID_NONE:
        for k in range(4):
            seat = (forehand + k) % 4
            max_bid = 13
            partner_bid = pub[BIDS + (seat + 2) % 4]
            if partnership and partner_bid >= 0:
                max_bid = 13 - partner_bid
            b = choose_spades_bid(kinds, params, seat, rules, hands[seat], pub, rngs, bidding == BID_STANDARD, max_bid)
            if b < 0 or b > max_bid:
                raise ValueError("a Spades bid must be 0..13, and a side's bids at most 13 together")
            pub[BIDS + seat] = b
            rec.bids[i, seat] = b
    rec.mode[i] = 0
    rec.first_leader[i] = forehand
    return 0, forehand, -1


@njit(cache=True, _nrt=False, inline="always")
def finish(rules, pub, rec, i):
    """Everything after the card play: the record of the play and the scores."""
    record_play(rules, pub, rec, i)
    t = rec.tricks[i]
    rec.points[i, 0] = t[0] + t[2]
    rec.points[i, 1] = t[1] + t[3]
    score_deal(rules, rec.bids[i], t, rec.score[i], rec.bags[i])


class SpadesProtocol(Protocol):
    """Spades: four bids from the forehand (none with ``bidding=none``), then the forehand
    leads; spades are trump throughout."""

    @property
    def bidding(self) -> int:
        return int(self.rules[P_BIDDING])

    @property
    def has_calls(self) -> bool:
        return self.bidding != BID_NONE

    @property
    def bag_limit(self) -> int:
        """Accumulated bags that cost a side 100 points (standard bidding: 10; 0: none)."""
        return 10 if self.bidding == BID_STANDARD else 0

    def begin(self, state):
        state.mode = 0      # spades are trump from the start (the kernel never writes pub[MODE])
        if self.bidding == BID_NONE:
            self.play_from(state, 0, state.forehand)
        else:
            self._ask_bid(state, state.forehand)

    def _ask_bid(self, state, seat):
        partner = state.bids[(seat + 2) % 4]
        top = 13 - partner if self.rules[P_PARTNERSHIP] and partner >= 0 else 13
        self.ask(state, "bid", seat, allow_nil=self.bidding == BID_STANDARD, max_bid=int(top))

    def bidding_legal(self, state, hand):
        return tuple(range(state.args["max_bid"] + 1))

    def expected(self, state):
        return f"a bid 0..{state.args['max_bid']}"

    def no_calls(self, state):
        n = 0 if self.bidding == BID_NONE else 4
        return f"spades with bidding={BIDDING[self.bidding]} has {n} bids"

    def advance(self, state, seat, action):
        state.bids[seat] = action
        state.pub[BIDS + seat] = action
        state.calls.append((seat, action))
        nxt = (seat + 1) % 4
        if nxt == state.forehand:
            self.play_from(state, 0, state.forehand)
        else:
            self._ask_bid(state, nxt)

    def trump_implied(self, state):
        return True

    def recorded_actions(self, result, i):
        if self.bidding == BID_NONE:
            return []
        fh = (int(result.dealer[i]) + 1) % 4
        return [((fh + k) % 4, int(result.bids[i, (fh + k) % 4])) for k in range(4)]

    def hand_score(self, state, tricks, points, pub=None):
        score = np.zeros(4, np.int64)
        bags = np.zeros(2, np.int64)
        score_deal(self.rules, np.array(state.bids, np.int64), np.asarray(tricks, np.int64), score, bags)
        return score, bags

    def action_name(self, decision, action):
        if decision == "bid" and action == 0 and self.bidding == BID_STANDARD:
            return "nil"
        return super().action_name(decision, action)


INFO = GameInfo(
    name="spades", n_cards=52, hand_size=13, n_modes=1, suits="CDHS",
    faces=("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"),
    options=OPTIONS, build=build, mode_names=("spades",),
    describe="52 cards, spades trump; cut-throat by default, optional partnership and bidding",
    game_id=GAME_ID, protocol=SpadesProtocol, openspiel="spades",
    default_bidder="simple",       # the rule of thumb (docs/results/bidders.md)
)
