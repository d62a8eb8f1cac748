"""The protocol of a deal: everything before the card play, and the figures after it, as
plain Python, in one object per game (``Game.protocol``; each game module defines its own
next to its rules and Numba kernels).

The Numba deal kernels (each game's ``setup``) play the bidding inside the engine at full
speed. Everything that walks a deal one decision at a time asks the game's protocol
instead of branching on the game's name: a table moving on after each action
(``evolve.runtime.session``), the rebuild of one seat's view (``evolve.games.observation``),
the decisions of a recorded deal, the OpenSpiel adapter. A protocol

- starts a deal (``start``) with its turned or shown card (``shown_card``,
  ``recorded_shown_card``) and says which decision is due, who takes it and with which
  arguments (a ``DealState``);
- lists the legal actions of a bidding decision (``legal``) and applies one (``apply``),
  writing the engine's public state ``pub`` exactly as the game's ``setup`` kernel does, so
  an agent asked for one decision sees the array it would see inside ``evolve.play``;
- says when the card play starts (decision ``"card"``), who leads it and who sits out;
- scores a finished deal (``hand_score``) and names what its running figure counts.

Actions (the integers calls hold and bids return):

- Spades ``bid``: the bid 0..13 (0 is nil under standard bidding);
- Euchre ``order`` (round 1): ``CALL_ORDER`` 5 or ``CALL_PASS`` 4; ``call`` (round 2): a suit
  0..3 other than the turned card's, or 4 pass; ``alone``: ``CALL_ALONE`` 6 or
  ``CALL_PARTNER`` 7 (play with the partner); ``discard``: the card id the dealer lays away
  (known only to the dealer, so it is never in ``calls``);
- Jass ``trump``: the mode 0..5, or ``JASS_PUSH`` 6 (the forehand only);
- Hearts ``pass``: a card id of the passing seat's hand (private, like the discard);
- ``card``: a card id.

``tests/test_decide.py`` and ``tests/test_session.py`` hold the protocols to the kernels:
every decision of recorded deals of every game is asked again through them and decided
bit for bit as in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evolve.games.state import PUB_SIZE, SIDE_POINTS, TRICKS_WON, reset_pub

DECISIONS = ("bid", "order", "call", "discard", "alone", "trump", "pass", "card")
CARD = "card"
PASSED_OUT = "passed out"       # every seat passed: no play, no score (Euchre)

# what a seat is asked to do at each decision, for "seat S is not to <verb>; seat T is"
_VERBS = {"bid": "bid", "order": "call", "call": "call", "discard": "discard", "alone": "decide",
          "trump": "declare trump", "pass": "pass", CARD: "play"}


class ProtocolError(ValueError):
    """An action or an observation that the protocol refuses (one line naming it)."""


@dataclass
class DealState:
    """One deal as its protocol walks it: the public course before the card play.

    ``pub`` is the engine's public state as the game's ``setup`` kernel leaves it at this
    point; ``decision`` is the decision due (one of ``DECISIONS``, ``"card"`` once the play
    has started, or ``PASSED_OUT``), ``to_act`` the seat to take it and ``args`` its
    arguments (``allow_nil``/``max_bid``, ``must_call``, ``trump``, ``may_push``).
    ``calls`` holds the public calls as ``(seat, action)`` pairs; ``mode`` the trump mode
    (-1 while open), ``maker`` the seat that fixed it, ``alone`` whether it plays alone;
    ``leader`` leads the first trick once the play starts. ``upcard`` is the turned (Euchre)
    or shown (Sueca) card, -1 if none, and ``holder`` the seat known to hold it (-1: no
    one is). ``hands`` holds every seat's cards when the caller knows them (a table, a
    recorded deal): the protocol then keeps them up to date (the Euchre dealer's pick-up
    and discard)."""

    dealer: int
    upcard: int = -1
    hands: list[list[int]] | None = None
    pub: np.ndarray = field(default_factory=lambda: np.empty(PUB_SIZE, np.int64))
    calls: list[tuple[int, int]] = field(default_factory=list)
    decision: str = ""
    to_act: int = -1
    args: dict[str, Any] = field(default_factory=dict)
    mode: int = -1
    maker: int = -1
    alone: bool = False
    holder: int = -1
    leader: int = -1
    bids: list[int] = field(default_factory=lambda: [-1] * 4)
    discard: int = -1
    # the cards of the private decisions so far, in order (-1 where this observer did not
    # see one): the deal record's ``private``
    private: list[int] = field(default_factory=list)

    @property
    def forehand(self) -> int:
        """The seat after the dealer."""
        return (self.dealer + 1) % 4

    @property
    def out_seat(self) -> int:
        """The seat that sits out (the partner of a maker playing alone), or -1."""
        return (self.maker + 2) % 4 if self.alone else -1

    @property
    def playing(self) -> bool:
        """The bidding is over and the cards are played."""
        return self.decision == CARD

    @property
    def passed_out(self) -> bool:
        return self.decision == PASSED_OUT


class Protocol:
    """A game's protocol (see the module docstring). Subclasses implement ``begin``,
    ``bidding_legal`` and ``advance`` for their decisions; the rest has defaults that fit
    games without a turned card and with tricks as the deal's figure."""

    #: what the running figure of a deal counts: "tricks" or "card points"
    counts = "tricks"
    #: the headline of a deal is each side's share of the card points (a constant total)
    share_of_points = False
    #: the name of the turned or shown card in messages
    upcard_name = "turned card"
    #: accumulated bags that cost a side 100 points (0: no bag penalty)
    bag_limit = 0
    #: whether a deal asks the seats for bids or trump calls (their bidders then matter)
    has_calls = True
    #: the decisions whose action is a card of the deciding seat's hand
    card_decisions = frozenset({CARD})
    #: the decisions the other seats do not see the action of (it is not in ``calls``)
    private_decisions = frozenset()
    #: the game's target is a loss: a game ends when a side's total falls to minus the
    #: target and the highest total wins (Hearts, whose hand score is minus the points taken)
    target_is_loss = False
    #: what a deal's hand score is, in reports
    score_name = "hand score"
    #: what a seat's bidder decides, in reports
    calls_name = "bids and trump calls"
    #: taking tricks is what a seat wants (not in Hearts, where a trick brings points)
    tricks_are_aim = True

    def __init__(self, game):
        self.game = game
        self.rules = game.rules
        self.info = game.info

    # ------------------------------------------------------------------ a deal

    def start(self, dealer: int, upcard: int = -1, hands: list[list[int]] | None = None) -> DealState:
        """A deal dealt by ``dealer`` with its turned or shown card ``upcard``: the engine's
        public state as the deal kernel starts it, and the first decision."""
        state = DealState(dealer=int(dealer), upcard=int(upcard), hands=hands)
        reset_pub(state.pub, state.dealer)
        self.begin(state)
        return state

    def begin(self, state: DealState) -> None:
        """Set the first decision (and what the kernel writes into ``pub`` before it)."""
        raise NotImplementedError

    def shown_card(self, deck: np.ndarray, dealer: int, rngs: np.ndarray) -> int:
        """The turned or shown card of a dealt ``deck`` (drawing from the deal stream of
        ``rngs`` exactly as the kernel does where it draws one), or -1."""
        return -1

    def recorded_shown_card(self, result, i: int) -> int:
        """The turned or shown card of deal ``i`` of a recorded ``evolve.play`` result, or -1."""
        return -1

    def recorded_actions(self, result, i: int) -> list[tuple[int, int]]:
        """The bidding decisions of deal ``i`` of a recorded result as ``(seat, action)``, in
        the order the deal took them (the Euchre discard and the Hearts pass included)."""
        return []

    def recorded_held(self, result, i: int) -> list[list[int]]:
        """Each seat's cards when the play of deal ``i`` of a recorded result starts (the
        dealt hands after the Euchre dealer's pick-up and discard or the Hearts pass)."""
        hands = [sorted(int(c) for c in result.hands[i, s]) for s in range(4)]
        actions = self.recorded_actions(result, i)
        if not actions:
            return hands
        state = self.start(int(result.dealer[i]), self.recorded_shown_card(result, i), hands=hands)
        for seat, action in actions:
            self.apply(state, seat, action)
        return state.hands

    # ------------------------------------------------------------------ decisions

    def legal(self, state: DealState, hand: list[int] | None = None) -> tuple[int, ...]:
        """The legal actions of the bidding decision due (ascending); ``hand`` is the
        deciding seat's cards where the decision is about them (the Euchre discard)."""
        if state.decision in (CARD, PASSED_OUT, ""):
            raise ProtocolError(f"no bidding decision is due ({state.decision or 'nothing'})")
        return self.bidding_legal(state, hand)

    def bidding_legal(self, state: DealState, hand: list[int] | None) -> tuple[int, ...]:
        raise NotImplementedError

    def expected(self, state: DealState) -> str:
        """What the decision due expects, for messages ("a bid 0..13")."""
        return "one of " + ", ".join(map(str, self.bidding_legal(state, self.decision_hand(state, state.to_act))))

    def apply(self, state: DealState, seat: int, action: int, where: str = "") -> None:
        """``seat`` takes ``action`` at the decision due; ``ProtocolError`` (one line, prefixed
        with ``where``) when it is not its turn or the action is not legal."""
        prefix = f"{where}: " if where else ""
        if state.decision in (CARD, PASSED_OUT):
            raise ProtocolError(f"{prefix}{self.no_calls(state)}")
        if seat != state.to_act:
            raise ProtocolError(f"{prefix}seat {seat} called out of turn; seat {state.to_act} was to call")
        hand = self.decision_hand(state, seat)
        if action not in self.bidding_legal(state, hand):
            raise ProtocolError(f"{prefix}{action} is invalid at the {state.decision} decision; expected "
                                f"{self.expected(state)}")
        self.advance(state, seat, action)

    def advance(self, state: DealState, seat: int, action: int) -> None:
        """Apply a legal ``action`` of ``seat`` (see ``apply``)."""
        raise NotImplementedError

    def no_calls(self, state: DealState) -> str:
        """Why no call can be taken now."""
        if state.passed_out:
            return "the deal is passed out: no call follows"
        return f"the bidding is over after {len(state.calls)} calls"

    def extra_cards(self, decision: str, state: DealState | None = None) -> tuple[int, str]:
        """The cards a seat holds at ``decision`` (of the deal ``state``) beyond those dealt
        and not yet played, and why, for the check of a view's hand (the Euchre dealer's
        six at its discard; fewer during the Hearts pass)."""
        return 0, ""

    def decision_hand(self, state: DealState, seat: int) -> list[int] | None:
        """The cards ``seat`` decides with (the Euchre dealer's six at its discard), when
        the hands are known."""
        if state.hands is None or seat < 0:
            return None
        return sorted(state.hands[seat])

    def skip_private(self, state: DealState) -> None:
        """The decision due is taken face down (the Euchre discard): go on without seeing
        its action."""
        raise ProtocolError(f"the {state.decision} decision is public")

    def settle(self, state: DealState, seat: int, hand: list[int], phase: str = "", first_seat: int = -1) -> None:
        """Complete what ``seat``, holding ``hand`` in phase ``phase``, cannot see but knows
        has happened (the Euchre dealer's face-down discard, the Hearts pass), before its
        view is checked; ``first_seat`` is the seat of the deal's first card (-1: none yet)."""

    def not_to_act(self, state: DealState, seat: int) -> str:
        """The message for a view of ``seat`` when another seat is to decide."""
        return f"seat {seat} is not to {_VERBS.get(state.decision, state.decision)}; seat {state.to_act} is"

    def play_from(self, state: DealState, mode: int, leader: int) -> None:
        """The bidding is over: trump ``mode``, ``leader`` leads the first trick (the next
        seat if it sits out)."""
        state.mode = int(mode)
        out = state.out_seat
        state.leader = leader if leader != out else (leader + 1) % 4
        state.decision, state.to_act, state.args = CARD, -1, {}

    def ask(self, state: DealState, decision: str, seat: int, **args) -> None:
        state.decision, state.to_act, state.args = decision, int(seat), args

    # ------------------------------------------------------------------ checks of a view

    def check_trump(self, state: DealState, trump: int, phase: str) -> None:
        """A view's ``trump`` against the calls (-1 is accepted where the game implies it)."""
        if phase == "play" and trump != state.mode and not (self.trump_implied(state) and trump == -1):
            raise ProtocolError(f"trump={trump} but the calls make it {state.mode}")
        if phase == "bid" and trump not in (-1, state.mode):
            raise ProtocolError(f"trump={trump} but the calls make it {state.mode}")

    def trump_implied(self, state: DealState) -> bool:
        """Trump follows from the game (and the shown card) without any call."""
        return False

    def check_upcard(self, upcard, seat: int, hand: list[int], trump: int) -> int:
        """A view's turned card: -1 in games without one."""
        if upcard != -1:
            raise ProtocolError(f"upcard={upcard!r} is invalid for {self.info.name}; expected -1 (no turned card)")
        return -1

    def check_cards_seen(self, state: DealState, seat: int, hand: list[int], plays: list[tuple[int, int]]) -> None:
        """The turned card in a view: in the hand only of the seat that holds it, played only
        by it (where it is out of play, by nobody)."""
        up, name = state.upcard, self.upcard_name
        if up < 0:
            return
        card = self.info.card_name(up)
        if up in hand and state.holder != seat and not self.upcard_free(state):
            if state.holder < 0:
                raise ProtocolError(f"hand holds the {name} {card} but seat {seat} did not take it up")
            raise ProtocolError(f"the {name} {card} belongs to seat {state.holder}, not seat {seat}")
        for s, c in plays:
            if c != up:
                continue
            if state.holder < 0 and not self.upcard_free(state):
                raise ProtocolError(f"the {name} {card} was turned down, so nobody can play it")
            if state.holder >= 0 and s != state.holder:
                raise ProtocolError(f"the {name} {card} was played by a seat other than its holder {state.holder}")

    def upcard_free(self, state: DealState) -> bool:
        """The turned card may be in any hand (its holder is not announced)."""
        return False

    # ------------------------------------------------------------------ figures

    def running_score(self, pub: np.ndarray) -> tuple[int, ...]:
        """The deal so far per side (per seat in cut-throat games): tricks, or card points
        where ``counts`` says so."""
        if self.counts == "card points":
            return int(pub[SIDE_POINTS]), int(pub[SIDE_POINTS + 1])
        won = [int(x) for x in pub[TRICKS_WON:TRICKS_WON + 4]]
        return (won[0] + won[2], won[1] + won[3]) if self.game.partnership else tuple(won)

    def side_points(self, tricks: np.ndarray, pub: np.ndarray) -> np.ndarray:
        """The deal's ``points`` per side as the engine records them: card points, or the
        tricks of each side where tricks are what counts."""
        if self.counts == "card points":
            return np.array(pub[SIDE_POINTS:SIDE_POINTS + 2], np.int64)
        return np.array([tricks[0] + tricks[2], tricks[1] + tricks[3]], np.int64)

    def hand_score(self, state: DealState, tricks: np.ndarray, points: np.ndarray,
                   pub: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The hand score per side (per seat in cut-throat games; 4 slots) and the bags per
        side of a played deal, from its ``tricks`` per seat and ``points`` per side (which
        the game may change in place, e.g. the Jass match bonus) or the play's public
        state ``pub`` (Hearts' points per seat), as the kernel's ``finish`` scores it."""
        raise NotImplementedError

    @property
    def fair_share(self) -> float | None:
        """Tricks per seat that no skill would take (13 / 4 in cut-throat Spades), against
        which a seat's ATpR is tested; None in partnership games."""
        if self.game.partnership or not self.tricks_are_aim:
            return None
        return self.info.n_tricks / 4.0

    def action_name(self, decision: str, action: int) -> str:
        """A short readable name of ``action`` taken at ``decision`` ("order", "push",
        "obe-abe", "nil", "QS", ...)."""
        if decision in self.card_decisions:
            return self.info.card_name(int(action))
        return str(int(action))
