"""Hearts: 52 cards, no trump, four players each for itself; lower points are better.

Card id = suit * 13 + rank; suits C, D, H, S (0..3); ranks 2..A (0..12). Each seat is dealt
13 cards. Before the play each seat passes three cards (``pass_cards``): to the left in
a deal dealt by seat 0, to the right when seat 1 deals, across when seat 2 deals and to no
one when seat 3 deals, so the direction rotates left, right, across, none as the deal
moves round; a seat passes its three cards one at a time, seat 0 first, and receives its
three only when every seat has passed (OpenSpiel's order). The holder of the two of clubs
leads it to the first trick; the highest card of the led suit wins the trick.

The legality and the points are in ``hooks``: follow suit, no points on the first trick,
hearts broken before a heart is led, each heart 1 point and the queen of spades 13, the
moon shot. Every rule OpenSpiel's ``hearts`` makes an option is one here, with OpenSpiel's
name and default; ``tests/test_referee_hearts.py`` plays the same deals and actions in both
and compares the legal sets and the points.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import bit, has
from evolve.games.card_play import record_play
from evolve.games.dealing import deal_hands
from evolve.games.hearts.hooks import (
    AVOID_ALL_TRICKS_BONUS,
    CAN_LEAD_ANY_CLUB,
    CAN_LEAD_HEARTS_INSTEAD_OF_QS,
    GAME_ID,
    HEARTS,
    JD_BONUS_OPTION,
    MUST_BREAK_HEARTS,
    NO_POINTS_ON_FIRST_TRICK,
    PASS_CARDS,
    QS_BREAKS_HEARTS,
    QUEEN_OF_SPADES,
    TWO_OF_CLUBS,
    penalty,
)
from evolve.games.hearts.policy import rule_card, rule_pass
from evolve.games.info import GameAgent, GameInfo
from evolve.games.options import Option
from evolve.games.protocol import CARD, Protocol, ProtocolError
from evolve.games.rules import (
    LEGAL_OWN,
    P_GAME,
    P_GAME_OPTIONS,
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
from evolve.games.state import SIDE_POINTS
from evolve.games.template import policy_hook, template

# the passing seat's choice of one card of its hand (``evolve.agents.dispatch``: random, or
# the game's own rule, ``policy.rule_pass``)
choose_private_card = policy_hook("choose_private_card", "(kinds, params, seat, rules, hand, pub, rngs) -> card")

N_PASSED = 3            # cards each seat passes
# where a deal's passes go, by its dealer: the seat offset of the receiver (0: no pass)
PASS_OFFSETS = (1, 3, 2, 0)
PASS_NAMES = {1: "left", 2: "across", 3: "right", 0: "none"}

# OpenSpiel's hearts parameters, as the bits of rules[P_GAME_OPTIONS]
FLAGS = {
    "pass_cards": PASS_CARDS,
    "no_pts_on_first_trick": NO_POINTS_ON_FIRST_TRICK,
    "can_lead_any_club": CAN_LEAD_ANY_CLUB,
    "jd_bonus": JD_BONUS_OPTION,
    "avoid_all_tricks_bonus": AVOID_ALL_TRICKS_BONUS,
    "must_break_hearts": MUST_BREAK_HEARTS,
    "qs_breaks_hearts": QS_BREAKS_HEARTS,
    "can_lead_hearts_instead_of_qs": CAN_LEAD_HEARTS_INSTEAD_OF_QS,
}

OPTIONS = {
    "pass_cards": Option(True, "each seat passes three cards before the play (left, right, across, none by "
                         "the dealer)", kind=bool),
    "no_pts_on_first_trick": Option(True, "no heart and not the queen of spades on the first trick unless the "
                                    "hand holds nothing else", kind=bool),
    "can_lead_any_club": Option(False, "the first trick may be led with any club, not only the two", kind=bool),
    "jd_bonus": Option(False, "the seat that takes the jack of diamonds gets -10", kind=bool),
    "avoid_all_tricks_bonus": Option(False, "a seat that takes no trick gets -5", kind=bool),
    "must_break_hearts": Option(True, "no heart is led before hearts are broken, unless the hand holds nothing "
                                "else", kind=bool),
    "qs_breaks_hearts": Option(True, "the queen of spades breaks hearts", kind=bool),
    "can_lead_hearts_instead_of_qs": Option(False, "a hand of the queen of spades and hearts may lead a heart "
                                            "before hearts are broken", kind=bool),
    "target": Option(100, "the game ends when a seat reaches this many points; the lowest wins (0: no games)",
                     kind=int, minimum=0),
}


def build(opts: dict):
    """Rules tables for Hearts: one mode, no trump; a heart 1 point, the queen of spades 13."""
    cards = np.arange(52)
    suit = (cards // 13)[None, :]
    rank = (cards % 13)[None, :]
    points = np.where(suit == HEARTS, 1, 0)
    points[0, QUEEN_OF_SPADES] = 13
    # the total order of the agents that play high or low: the rank, the queen of spades highest
    strength = rank + 13 * (cards == QUEEN_OF_SPADES)[None, :]
    flags = sum(bit for name, bit in FLAGS.items() if opts[name])
    params = {
        P_GAME: GAME_ID, P_N_CARDS: 52, P_HAND: 13, P_N_TRICKS: 13, P_N_MODES: 1,
        P_LEGALITY: LEGAL_OWN, P_PARTNERSHIP: 0, P_N_RANKS: 13, P_TARGET: opts["target"],
        P_GAME_OPTIONS: flags,
    }
    return make_rules(params, suit, rank, np.array([-1]), points, strength, np.ones(1))


def pass_offset(rules, dealer: int) -> int:
    """The seat offset the passes of a deal dealt by ``dealer`` go to (0: no pass)."""
    return int(pass_offset_of(rules, np.int64(dealer)))


@njit(cache=True, inline="always")
def pass_offset_of(rules, dealer):
    """``pass_offset`` inside the kernels (``PASS_OFFSETS`` written out: a tuple lookup by
    a runtime index is not compiled in)."""
    if rules[P_GAME_OPTIONS] & PASS_CARDS == 0:
        return 0
    d = dealer % 4
    if d == 0:
        return PASS_OFFSETS[0]
    if d == 1:
        return PASS_OFFSETS[1]
    if d == 2:
        return PASS_OFFSETS[2]
    return PASS_OFFSETS[3]


@njit(cache=True, inline="always")
def two_of_clubs_holder(hands):
    """The seat that holds the two of clubs (it leads the first trick)."""
    for seat in range(4):
        if has(hands[seat], TWO_OF_CLUBS):
            return seat
    return 0


@template(_nrt=False, inline="always")
def setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i):
    """Everything before the card play: the deal and the pass. Each seat in turn from seat
    0 chooses its three cards one at a time (``choose_private_card``, recorded in
    ``rec.private[i, 3 * seat + k]``); the receivers get them when all have passed, and
    the holder of the two of clubs leads. Returns the mode (0: no trump), the first
    leader and the seat that sits out (-1)."""
    deal_hands(deck, 13, hands, rec, i)
    offset = pass_offset_of(rules, dealer)
    if offset != 0:
        for seat in range(4):
            for k in range(N_PASSED):
                c = choose_private_card(kinds, params, seat, rules, hands[seat], pub, rngs)
                if not has(hands[seat], c):
                    raise ValueError("a seat passes cards of its own hand")
                hands[seat] &= ~bit(c)
                rec.private[i, N_PASSED * seat + k] = c
        for seat in range(4):
            to = (seat + offset) % 4
            for k in range(N_PASSED):
                hands[to] |= bit(np.int64(rec.private[i, N_PASSED * seat + k]))
    leader = two_of_clubs_holder(hands)
    rec.mode[i] = 0
    rec.first_leader[i] = leader
    return 0, leader, -1


@njit(cache=True, _nrt=False, inline="always")
def finish(rules, pub, rec, i):
    """Everything after the card play: the record of the play and the hand score per seat,
    minus the points it took (``hooks.penalty``: the moon and the options' bonuses), so
    that a higher score is better as in every game."""
    record_play(rules, pub, rec, i)
    rec.points[i, 0] = 0      # points are per seat here: the score holds them
    rec.points[i, 1] = 0
    for s in range(4):
        rec.score[i, s] = -penalty(rules, pub, s)


def hand_penalties(rules, pub) -> list[int]:
    """Each seat's points of a finished deal (``hooks.penalty``)."""
    return [int(penalty(rules, pub, np.int64(s))) for s in range(4)]


PASS = "pass"


class HeartsProtocol(Protocol):
    """Hearts: the pass (three cards each, seats 0..3 in turn, one card at a time; none
    in a deal dealt by seat 3 or with ``pass_cards=false``), then the holder of the two
    of clubs leads. The pass is private: a seat sees neither the others' cards nor, in its
    observation, its own earlier passes (its hand shows how many it has passed). The hand
    score of a seat is minus the points it took."""

    counts = "points taken"
    target_is_loss = True
    score_name = "hand score (minus the points taken)"
    tricks_are_aim = False
    calls_name = "the pass"
    card_decisions = frozenset({CARD, PASS})
    private_decisions = frozenset({PASS})

    @property
    def has_calls(self) -> bool:
        return bool(int(self.rules[P_GAME_OPTIONS]) & PASS_CARDS)

    def offset(self, state) -> int:
        return pass_offset(self.rules, state.dealer)

    def begin(self, state):
        state.mode = 0
        state.private = []
        if self.offset(state):
            self.ask(state, PASS, 0, offset=self.offset(state), k=0)
        else:
            self._play(state)

    def _play(self, state):
        leader = -1
        if state.hands is not None:
            leader = next(s for s in range(4) if TWO_OF_CLUBS in state.hands[s])
        self.play_from(state, 0, leader)
        state.leader = leader       # -1 (no one sits out): an observer learns it from the first card

    def bidding_legal(self, state, hand):
        if hand is None:
            raise ProtocolError("the pass needs the passing seat's cards")
        return tuple(sorted(hand))

    def expected(self, state):
        return "a card of the passing seat's hand"

    def advance(self, state, seat, action):
        self._passed(state, seat, int(action))

    def _passed(self, state, seat, card):
        """``seat`` has passed ``card`` (-1: unseen by this observer); the next pass, or
        the play once all twelve are passed."""
        state.private.append(int(card))
        if state.hands is not None and card >= 0:
            state.hands[seat] = sorted(c for c in state.hands[seat] if c != card)
        k = state.args["k"] + 1
        if k < N_PASSED:
            self.ask(state, PASS, seat, offset=state.args["offset"], k=k)
        elif seat < 3:
            self.ask(state, PASS, seat + 1, offset=state.args["offset"], k=0)
        else:
            offset = state.args["offset"]
            if state.hands is not None and -1 not in state.private:
                for s in range(4):
                    received = state.private[N_PASSED * s:N_PASSED * (s + 1)]
                    state.hands[(s + offset) % 4] = sorted(state.hands[(s + offset) % 4] + received)
            self._play(state)

    def skip_private(self, state):
        if state.decision != PASS:
            super().skip_private(state)
        self._passed(state, state.to_act, -1)

    def settle(self, state, seat, hand, phase="", first_seat=-1):
        """A view holds no record of the pass: its phase and hand size say how far it is.
        A seat holding 13 - k cards at the pass has passed k; in the play, the first card's
        seat led (the holder of the two of clubs, the seat itself if it holds it)."""
        if state.decision == PASS:
            n = len(hand)
            done = self.info.hand_size - n if phase == "bid" else None
            while state.decision == PASS and (done is None or state.to_act < seat or (
                    state.to_act == seat and state.args["k"] < done)):
                self.skip_private(state)
        if state.playing and state.leader < 0:
            if first_seat >= 0:
                state.leader = first_seat
            elif TWO_OF_CLUBS in hand:
                state.leader = seat
            else:
                raise ProtocolError(f"seat {seat} is not to play; the holder of the two of clubs leads")

    def not_to_act(self, state, seat):
        return f"seat {seat} is not to pass; seat {state.to_act} is"

    def trump_implied(self, state):
        return True

    def recorded_actions(self, result, i):
        if not pass_offset(self.rules, int(result.dealer[i])):
            return []
        return [(k // N_PASSED, int(result.private[i, k])) for k in range(4 * N_PASSED)]

    def running_score(self, pub):
        return tuple(int(x) for x in pub[SIDE_POINTS:SIDE_POINTS + 4])

    def side_points(self, tricks, pub):
        return np.zeros(2, np.int64)

    def hand_score(self, state, tricks, points, pub=None):
        if pub is None:
            raise ProtocolError("the hearts hand score needs the play's public state")
        return -np.array(hand_penalties(self.rules, pub), np.int64), np.zeros(2, np.int64)

    def extra_cards(self, decision, state=None):
        if decision == PASS and state is not None and state.args.get("k"):
            k = state.args["k"]
            return -k, f"less the {k} passed"
        return 0, ""


INFO = GameInfo(
    name="hearts", n_cards=52, hand_size=13, n_modes=1, suits="CDHS",
    faces=("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"),
    options=OPTIONS, build=build, mode_names=("none",),
    describe="52 cards, no trump, each for itself; the pass, hearts 1 and the queen of spades 13, lowest wins",
    game_id=GAME_ID, protocol=HeartsProtocol, n_private=4 * N_PASSED,
    private_rule=rule_pass, searchable_calls=False, openspiel="hearts",
    agents=(GameAgent("hearts_rules", "the rule-based Hearts player: passes the unguarded high spades, then voids a "
                      "short club or diamond suit, then high hearts; ducks under the trick's winner, dumps the queen "
                      "of spades and high cards when void, leads low from its shortest safe suit",
                      rule_card),),
)
