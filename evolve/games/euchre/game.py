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

Against the source documents: the Euchre paper's tables use ``setup = "fixed_spades"``
(its Section 3: "it was forced that the dealer call trump to be spades");
the Euchre bidding article does not state its program's options, so its reproduction plays
the defaults above (no stick the dealer, a passed-out deal redealt, games to 10).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.core.errors import checked_int
from evolve.games.bits import bit, has
from evolve.games.card_play import record_play
from evolve.games.dealing import deal_hands
from evolve.games.euchre.hooks import (
    CALL_ALONE,
    CALL_ORDER,
    CALL_PARTNER,
    CALL_PASS,
    GAME_ID,
    SETUP_FIXED_SPADES,
    SETUPS,
)
from evolve.games.info import GameInfo, trump_first_orders
from evolve.games.options import Option
from evolve.games.protocol import CARD, PASSED_OUT, Protocol, ProtocolError
from evolve.games.rules import (
    LEGAL_FOLLOW,
    P_DISCARD_UPCARD,
    P_GAME,
    P_HAND,
    P_LEGALITY,
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

# supplied by the layer above (evolve.agents.dispatch, bound by evolve.runtime.batch)
choose_euchre_order = policy_hook("choose_euchre_order", "(kinds, params, seat, rules, hand, pub, rngs) -> bool")
choose_euchre_call = policy_hook(
    "choose_euchre_call", "(kinds, params, seat, rules, hand, pub, rngs, must_call) -> suit or -1")
choose_euchre_alone = policy_hook("choose_euchre_alone", "(kinds, params, seat, rules, hand, pub, rngs, trump) -> bool")
choose_euchre_discard = policy_hook(
    "choose_euchre_discard", "(kinds, params, seat, rules, hand, pub, rngs, trump) -> card")

JACK = 2

OPTIONS = {
    "setup": Option("standard", "standard bidding, or fixed_spades (the cooperative-agents study)", SETUPS),
    "stick_the_dealer": Option(False, "the dealer must name trump in round 2", kind=bool),
    "discard_upcard": Option(True, "the dealer may discard the upcard itself (OpenSpiel: false)", kind=bool),
    "target": Option(10, "game target in points (0: no games)", kind=int, minimum=0),
}

# fixed strength scores of the Euchre paper's code (docs/explanation/search-and-learnt-agents.md), rank 9..A = 0..5
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
        P_GAME: GAME_ID, P_N_CARDS: 24, P_HAND: 5, P_N_TRICKS: 5, P_N_MODES: 4,
        P_LEGALITY: LEGAL_FOLLOW, P_PARTNERSHIP: 1, P_N_RANKS: 6,
        P_SETUP: SETUPS.index(opts["setup"]), P_STICK: int(opts["stick_the_dealer"]),
        P_TARGET: opts["target"], P_DISCARD_UPCARD: int(opts["discard_upcard"]),
    }
    return make_rules(params, suit, rank, np.arange(4), np.zeros((4, 24)), strength, np.ones(4))


@njit(cache=True, inline="always")
def score_deal(tricks, maker, alone, score):
    """Set the hand score per side in ``score`` (zeros on entry) from the ``tricks`` per seat,
    the ``maker`` and whether it went ``alone``: makers 3-4 tricks 1, march 2, lone march
    4; euchred makers give the defenders 2. The engine's deal and ``evolve.runtime.session`` both
    score with it."""
    side = maker % 2
    taken = tricks[maker] + tricks[(maker + 2) % 4]
    if taken >= 3:
        score[side] = 1 if taken < 5 else (4 if alone else 2)
    else:
        score[1 - side] = 2


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
            rec.private[i, 0] = d
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


CALL_NAMES = {0: "clubs", 1: "diamonds", 2: "hearts", 3: "spades", CALL_PASS: "pass", CALL_ORDER: "order",
              CALL_ALONE: "alone", CALL_PARTNER: "partner"}


class EuchreProtocol(Protocol):
    """Euchre: round 1 from the forehand (order the turned card up or pass); if it is
    ordered up the dealer takes it and discards a card face down; otherwise round 2 (name
    another suit or pass; stick the dealer: the dealer may not pass); four passes more and
    the deal is passed out. The maker then goes alone or plays with its partner, and the
    forehand leads (the next seat if the forehand sits out). ``setup = "fixed_spades"``:
    spades are trump for the dealer's side, no call at all."""

    card_decisions = frozenset({CARD, "discard"})
    private_decisions = frozenset({"discard"})

    @property
    def fixed(self) -> bool:
        return int(self.rules[P_SETUP]) == SETUP_FIXED_SPADES

    @property
    def has_calls(self) -> bool:
        return not self.fixed

    def begin(self, state):
        state.pub[UPCARD] = state.upcard
        if self.fixed:
            state.maker = state.dealer
            state.pub[MODE] = 3
            state.pub[MAKER] = state.dealer
            state.pub[ALONE] = 0
            self.play_from(state, 3, state.forehand)
        else:
            self.ask(state, "order", state.forehand)

    def shown_card(self, deck, dealer, rngs):
        return int(deck[20])

    def recorded_shown_card(self, result, i):
        return int(result.rest[i, 0])

    def bidding_legal(self, state, hand):
        d = state.decision
        if d == "order":
            return CALL_PASS, CALL_ORDER
        if d == "call":
            suits = tuple(s for s in range(4) if s != state.upcard // 6)
            return suits if state.args["must_call"] else suits + (CALL_PASS,)
        if d == "alone":
            return CALL_ALONE, CALL_PARTNER
        # the discard: any of the dealer's six cards (not the turned card with discard_upcard=false)
        if hand is None:
            raise ProtocolError("the dealer's discard needs its six cards")
        return tuple(sorted(c for c in hand if c != state.upcard or self.rules[P_DISCARD_UPCARD] != 0))

    def expected(self, state):
        d = state.decision
        if d == "order":
            return "4 (pass) or 5 (order up) in round 1"
        if d == "call":
            up = state.upcard // 6
            if state.args["must_call"]:
                return (f"a suit 0..3 other than {up} (the turned card's) in round 2; stick the dealer: the dealer "
                        "may not pass")
            return f"a suit 0..3 other than {up} (the turned card's) or 4 (pass) in round 2"
        if d == "alone":
            return "the maker's 6 (alone) or 7 (partner) after trump is made"
        return "a card of the dealer's six" + ("" if self.rules[P_DISCARD_UPCARD] else " other than the turned card")

    def no_calls(self, state):
        if self.fixed:
            return "euchre setup=fixed_spades has no bidding"
        return super().no_calls(state)

    def decision_hand(self, state, seat):
        hand = super().decision_hand(state, seat)
        if hand is not None and state.decision == "discard" and seat == state.dealer:
            hand = sorted(hand + [state.upcard])     # the dealer holds six cards until it discards
        return hand

    def advance(self, state, seat, action):
        d, pub = state.decision, state.pub
        if d == "order":
            k = (seat - state.forehand) % 4
            state.calls.append((seat, action))
            pub[CALLS + k] = action
            if action == CALL_ORDER:
                state.mode, state.maker, state.holder = state.upcard // 6, seat, state.dealer
                pub[MODE] = state.mode
                pub[PHASE] = 1
                self.ask(state, "discard", state.dealer, trump=state.mode)
            elif k == 3:
                self.ask(state, "call", state.forehand, must_call=self._must_call(state, state.forehand))
            else:
                self.ask(state, "order", (seat + 1) % 4)
        elif d == "call":
            k = (seat - state.forehand) % 4
            state.calls.append((seat, action))
            pub[CALLS + 4 + k] = action
            if action != CALL_PASS:
                state.mode, state.maker = action, seat
                pub[MODE] = action
                pub[MAKER] = seat
                self.ask(state, "alone", seat, trump=action)
            elif k == 3:
                state.decision, state.to_act, state.args = PASSED_OUT, -1, {}
            else:
                nxt = (seat + 1) % 4
                self.ask(state, "call", nxt, must_call=self._must_call(state, nxt))
        elif d == "discard":
            self._discarded(state, action)
        else:
            state.calls.append((seat, action))
            state.alone = action == CALL_ALONE
            pub[ALONE] = 1 if state.alone else 0
            self.play_from(state, state.mode, state.forehand)

    def _must_call(self, state, seat):
        return bool(self.rules[P_STICK]) and seat == state.dealer

    def _discarded(self, state, card):
        """The dealer has laid ``card`` away (-1: unseen by this observer); the maker
        decides to go alone (the kernel sets the maker just before it asks)."""
        state.discard = int(card)
        state.private.append(int(card))
        if state.hands is not None and card >= 0:
            six = state.hands[state.dealer] + [state.upcard]
            six.remove(card)
            state.hands[state.dealer] = sorted(six)
        state.pub[MAKER] = state.maker
        self.ask(state, "alone", state.maker, trump=state.mode)

    def skip_private(self, state):
        if state.decision != "discard":
            super().skip_private(state)
        self._discarded(state, -1)

    def apply(self, state, seat, action, where=""):
        if state.decision == "discard" and state.hands is None and seat == state.maker and action in (
                CALL_ALONE, CALL_PARTNER):
            self.skip_private(state)    # a call list never shows the discard: it happened face down
        super().apply(state, seat, action, where)

    def settle(self, state, seat, hand, phase="", first_seat=-1):
        if state.decision == "discard" and not (seat == state.dealer and len(hand) == self.info.hand_size + 1):
            self.skip_private(state)

    def not_to_act(self, state, seat):
        if state.decision == "alone":
            return (f"seat {seat} is not to decide; the maker {state.maker} decides to go alone"
                    + (" (after the dealer's discard)" if state.holder >= 0 else ""))
        return super().not_to_act(state, seat)

    def trump_implied(self, state):
        return self.fixed

    def check_upcard(self, upcard, seat, hand, trump):
        checked_int(upcard, "upcard", 0, 23, expect="the turned card, a card id 0..23", error=ProtocolError)
        return int(upcard)

    def recorded_actions(self, result, i):
        if self.fixed:
            return []
        dealer = int(result.dealer[i])
        fh = (dealer + 1) % 4
        out = [((fh + k % 4) % 4, int(result.calls[i, k])) for k in range(8) if result.calls[i, k] >= 0]
        if int(result.trump[i]) >= 0:
            if int(result.discard[i]) >= 0:
                out.append((dealer, int(result.discard[i])))
            out.append((int(result.maker[i]), CALL_ALONE if result.alone[i] else CALL_PARTNER))
        return out

    def hand_score(self, state, tricks, points, pub=None):
        score = np.zeros(4, np.int64)
        score_deal(np.asarray(tricks, np.int64), state.maker, state.alone, score)
        return score, np.zeros(2, np.int64)

    def extra_cards(self, decision, state=None):
        return (1, "plus the turned card") if decision == "discard" else (0, "")

    def action_name(self, decision, action):
        if decision in self.card_decisions:
            return super().action_name(decision, action)
        return CALL_NAMES.get(int(action), str(action))


INFO = GameInfo(
    name="euchre", n_cards=24, hand_size=5, n_modes=4, suits="CDHS",
    faces=("9", "10", "J", "Q", "K", "A"), options=OPTIONS, build=build,
    mode_names=("clubs", "diamonds", "hearts", "spades"),
    describe="24 cards, bowers, two bidding rounds, going alone; partnership game to 10",
    trump_first=trump_first_orders(4, lambda trump: 3 - trump),   # the left bower's suit second
    game_id=GAME_ID, protocol=EuchreProtocol, n_private=1, openspiel="euchre",
    # the context table wins 95% of games to 10 against the simple rule (which passes 85% of
    # deals) at about the speed of card play; the profile table is as strong but ~3x slower
    # (CardCounting card play on both sides, docs/results/bidders.md)
    default_bidder="context",
)
