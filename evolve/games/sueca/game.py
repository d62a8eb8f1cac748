"""Sueca: 40 cards (no 8, 9, 10), ten each, partnership, 120 card points.

Card id = suit * 10 + rank; suits C, D, H, S (0..3); ranks 2, 3, 4, 5, 6, 7, J, Q, K, A
(0..9) by face. Trick order high to low: A, 7, K, J, Q, 6, 5, 4, 3, 2. Points: A 11, 7 10,
K 4, J 3, Q 2.

Trump is the suit of one of the dealer's own cards (``trump_card`` first | last dealt to
it, shown to all); the seat after the dealer leads; follow suit, no obligation to trump.
A deal: more than 60 points 1 game point, more than 90 2, all ten tricks 4, 60-60 a draw.
A rubber is won by the first side to 4 game points (``target``).
``setup = "study"``: trump is the suit of a uniformly random card of the deck and seat 0
leads every deal (the strategy study's tables).

Against the Sueca thesis: its tables use ``setup = "study"`` (Chapters 4 and 7) or trump from the
dealer's first card (``trump_card = "first"``, its Table 4.3); seats play in the order of its
Section 2.2 (counter-clockwise, read as N, W, S, E); no rule differs. Its Monte Carlo
"extra" variant scores as if it saw the hidden hands (``docs/reproductions/sueca.md``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.core.errors import checked_int
from evolve.games.bits import DEAL_STREAM, below
from evolve.games.card_play import record_play
from evolve.games.dealing import deal_hands
from evolve.games.info import GameInfo, trump_first_orders
from evolve.games.options import Option
from evolve.games.protocol import Protocol, ProtocolError
from evolve.games.rules import (
    LEGAL_FOLLOW,
    P_GAME,
    P_HAND,
    P_LEGALITY,
    P_N_CARDS,
    P_N_MODES,
    P_N_RANKS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_SETUP,
    P_TARGET,
    P_TRUMP_CARD,
    make_rules,
)
from evolve.games.state import MODE, UPCARD
from evolve.games.sueca.hooks import GAME_ID, SETUPS
from evolve.games.template import template

TRUMP_CARDS = ("last", "first")
# trick strength of faces 2,3,4,5,6,7,J,Q,K,A
_TRICK_RANK = (0, 1, 2, 3, 4, 8, 6, 5, 7, 9)
_POINTS = (0, 0, 0, 0, 0, 10, 3, 2, 4, 11)

OPTIONS = {
    "setup": Option("standard", "standard, or study (random trump card, seat 0 always leads)", SETUPS),
    "trump_card": Option("last", "which of the dealer's cards shows trump: last | first dealt", TRUMP_CARDS),
    "target": Option(4, "rubber target in game points (0: no rubbers)", kind=int, minimum=0),
}


def build(opts: dict):
    """Rules tables for Sueca: one mode per trump suit."""
    cards = np.arange(40)
    suit = np.tile(cards // 10, (4, 1))
    rank = np.tile(np.array(_TRICK_RANK)[cards % 10], (4, 1))
    points = np.tile(np.array(_POINTS)[cards % 10], (4, 1))
    strength = np.where(suit == np.arange(4)[:, None], 100 + rank, rank)
    params = {
        P_GAME: GAME_ID, P_N_CARDS: 40, P_HAND: 10, P_N_TRICKS: 10, P_N_MODES: 4,
        P_LEGALITY: LEGAL_FOLLOW, P_PARTNERSHIP: 1, P_N_RANKS: 10,
        P_SETUP: SETUPS.index(opts["setup"]), P_TRUMP_CARD: TRUMP_CARDS.index(opts["trump_card"]),
        P_TARGET: opts["target"],
    }
    return make_rules(params, suit, rank, np.arange(4), points, strength, np.ones(4))


@njit(cache=True)
def game_points(points, tricks):
    """Game points of a side with ``points`` card points and ``tricks`` tricks."""
    if tricks == 10:
        return 4
    if points > 90:
        return 2
    if points > 60:
        return 1
    return 0


@njit(cache=True, inline="always")
def score_deal(tricks, points, score):
    """Set the game points per side in ``score`` from the card ``points`` per side and the
    ``tricks`` per seat. The engine's deal and ``evolve.runtime.session`` both score with it."""
    for side in range(2):
        score[side] = game_points(points[side], tricks[side] + tricks[side + 2])


@template(_nrt=False, inline="always")
def setup(rules, deck, dealer, kinds, params, rngs, hands, pub, rec, i):
    """Everything before the card play: the deal and the trump card. Returns the trump
    mode, the first leader and the seat that sits out (-1)."""
    deal_hands(deck, 10, hands, rec, i)
    if rules[P_SETUP] == 1:
        shown = deck[below(rngs, DEAL_STREAM, 40)]
        leader = 0
    else:
        pos = dealer * 10 + (9 if rules[P_TRUMP_CARD] == 0 else 0)
        shown = deck[pos]
        leader = (dealer + 1) % 4
    trump = shown // 10
    pub[UPCARD] = shown
    pub[MODE] = trump
    rec.mode[i] = trump
    rec.first_leader[i] = leader
    return trump, leader, -1


@njit(cache=True, _nrt=False, inline="always")
def finish(rules, pub, rec, i):
    """Everything after the card play: the record of the play and the scores."""
    record_play(rules, pub, rec, i)
    score_deal(rec.tricks[i], rec.points[i], rec.score[i])


class SuecaProtocol(Protocol):
    """Sueca: no calls. Trump is the suit of the shown card, one of the dealer's own
    (``trump_card`` first | last dealt to it), which stays in its hand until played, and
    the forehand leads; ``setup = "study"``: a uniformly random card of the deck shows
    trump, its holder is not announced, and seat 0 leads every deal."""

    has_calls = False

    counts = "card points"
    upcard_name = "trump card"

    @property
    def study(self) -> bool:
        return int(self.rules[P_SETUP]) == 1

    def begin(self, state):
        state.pub[UPCARD] = state.upcard
        state.pub[MODE] = state.upcard // 10
        state.holder = -1 if self.study else state.dealer
        self.play_from(state, state.upcard // 10, 0 if self.study else state.forehand)

    def shown_card(self, deck, dealer, rngs):
        if self.study:
            return int(deck[below(rngs, DEAL_STREAM, 40)])
        return int(deck[dealer * 10 + (9 if self.rules[P_TRUMP_CARD] == 0 else 0)])

    def recorded_shown_card(self, result, i):
        if self.study:
            raise ProtocolError("sueca setup=study: the shown trump card is drawn by the engine and not recorded")
        dealer = int(result.dealer[i])
        return int(result.hands[i, dealer, 9 if self.rules[P_TRUMP_CARD] == 0 else 0])

    def bidding_legal(self, state, hand):
        return ()

    def advance(self, state, seat, action):
        raise ProtocolError("sueca has no calls")

    def no_calls(self, state):
        return "sueca has no calls"

    def trump_implied(self, state):
        return True

    def upcard_free(self, state):
        return self.study

    def check_upcard(self, upcard, seat, hand, trump):
        checked_int(upcard, "upcard", 0, 39, expect="the shown trump card, a card id 0..39", error=ProtocolError)
        if trump not in (-1, upcard // 10):
            raise ProtocolError(f"trump={trump} does not match the trump card {self.info.card_name(upcard)} "
                                f"(expected {upcard // 10})")
        return int(upcard)

    def hand_score(self, state, tricks, points, pub=None):
        score = np.zeros(4, np.int64)
        score_deal(np.asarray(tricks, np.int64), np.asarray(points, np.int64), score)
        return score, np.zeros(2, np.int64)


INFO = GameInfo(
    name="sueca", n_cards=40, hand_size=10, n_modes=4, suits="CDHS",
    faces=("2", "3", "4", "5", "6", "7", "J", "Q", "K", "A"), options=OPTIONS, build=build,
    mode_names=("clubs", "diamonds", "hearts", "spades"),
    describe="40 cards, 120 points, trump from the dealer's card; rubber to 4 game points",
    trump_first=trump_first_orders(4),
    game_id=GAME_ID, protocol=SuecaProtocol,
)
