"""A Python-level, step-by-step view of the card-play phase, for notebooks and tests.

``TrickState`` drives the very same Numba functions as the batch engine (legality,
public-state updates, trick resolution), one card at a time::

    s = TrickState(make_game("jass"), hands, mode=4, leader=1)
    while not s.done:
        card = s.legal()[0]
        s.play(card)
    s.tricks_won, s.side_points, s.trick_winners
"""

from __future__ import annotations

import numpy as np

from evolve.games.bits import ONE, ZERO, cards_of, mask_of
from evolve.games.hooks import legal_cards
from evolve.games.protocol import ProtocolError
from evolve.games.registry import Game, make_game
from evolve.games.state import (
    ALONE,
    BIDS,
    CALLS,
    HISTORY,
    HISTORY_STRIDE,
    MAKER,
    MODE,
    NPLAYED,
    PUB_SIZE,
    SIDE_POINTS,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    TRICKS_WON,
    UPCARD,
    reset_pub,
)
from evolve.games.trick import next_active, open_play, play_step


class TrickState:
    """The play phase of one deal: hands (card ids per seat), trump ``mode`` and the first
    ``leader``; ``out_seat`` sits out (Euchre alone)."""

    def __init__(self, game: Game | str, hands, mode: int, leader: int, out_seat: int = -1, dealer: int | None = None):
        self.game = make_game(game) if isinstance(game, str) else game
        self.rules = self.game.rules
        info = self.game.info
        self.mode = int(mode)
        if not 0 <= self.mode < info.n_modes:
            raise ValueError(
                f"mode {mode} is invalid for {info.name}; valid modes: 0..{info.n_modes - 1} "
                f"({', '.join(info.mode_names)})"
            )
        if not 0 <= int(leader) < 4 or not -1 <= int(out_seat) < 4:
            raise ValueError(f"leader {leader} / out_seat {out_seat} invalid; expected seats 0..3 (out_seat -1 for "
                             f"none)")
        cards = [int(c) for h in hands for c in h]
        if len(hands) != 4 or len(set(cards)) != len(cards) or any(not 0 <= c < info.n_cards for c in cards):
            raise ValueError(f"hands must be four disjoint lists of card ids 0..{info.n_cards - 1}")
        self.hands = np.array([mask_of(np.asarray(h, np.int64)) for h in hands], dtype=np.uint64)
        self.pub = np.empty(PUB_SIZE, np.int64)
        reset_pub(self.pub, (leader - 1) % 4 if dealer is None else dealer)
        self.pub[MODE] = self.mode
        self.out_seat = int(out_seat)
        self.n_active = 3 if out_seat >= 0 else 4
        self.n_tricks = self.game.info.n_tricks
        self.trick_winners: list[int] = []
        self._finished_pairs: list[list[tuple[int, int]]] = []
        self.done = False
        self.to_move = int(open_play(self.pub, leader if leader != out_seat else (leader + 1) % 4, self.out_seat))

    def legal_mask(self) -> np.uint64:
        """Legal cards of the seat to move, as a mask."""
        return legal_cards(self.rules, self.mode, self.hands[self.to_move], self.pub)

    def legal(self) -> list[int]:
        """Legal cards of the seat to move, ascending."""
        return cards_of(self.legal_mask())

    def hand(self, seat: int) -> list[int]:
        """Cards still held by ``seat``."""
        return cards_of(self.hands[seat])

    def trick(self) -> list[tuple[int, int]]:
        """(seat, card) pairs of the current trick."""
        n = int(self.pub[NPLAYED])
        return [(int(self.pub[TRICK_SEATS + q]), int(self.pub[TRICK_CARDS + q])) for q in range(n)]

    def play(self, card: int) -> None:
        """Play ``card`` for the seat to move (ValueError if it is illegal)."""
        if self.done:
            raise ValueError("the deal is over")
        card = int(card)
        legal = self.legal_mask()
        if (legal >> np.uint64(card)) & ONE == ZERO:
            raise ValueError(f"card {card} is not legal for seat {self.to_move}; legal: {cards_of(legal)}")
        seat = self.to_move
        t = int(self.pub[TRICK])
        self.hands[seat] &= ~(ONE << np.uint64(card))
        nxt = int(play_step(self.rules, self.mode, self.pub, seat, card))
        if nxt < 0 or int(self.pub[TRICK]) != t:
            self.trick_winners.append(int(self.pub[HISTORY + t * HISTORY_STRIDE + 5]))
        if nxt < 0:
            self.done = True
        else:
            self.to_move = nxt

    @property
    def tricks_won(self) -> list[int]:
        return [int(x) for x in self.pub[TRICKS_WON:TRICKS_WON + 4]]

    @property
    def side_points(self) -> list[int]:
        """Card points per side so far (including the Jass last-trick bonus)."""
        return [int(x) for x in self.pub[SIDE_POINTS:SIDE_POINTS + 2]]

    def history(self, start: int = 0) -> list[tuple[int, list[int], int]]:
        """(leader, cards in play order, winner) of each finished trick (from trick ``start``)."""
        out = []
        for t, w in enumerate(self.trick_winners[start:], start):
            h = HISTORY + t * HISTORY_STRIDE
            cards = [int(c) for c in self.pub[h + 1:h + 1 + self.n_active]]
            out.append((int(self.pub[h]), cards, w))
        return out

    def trick_pairs(self) -> list[list[tuple[int, int]]]:
        """The finished tricks as (seat, card) pairs in play order."""
        done = self._finished_pairs         # finished tricks never change: kept, not rebuilt
        for leader, cards, _ in self.history(len(done)):
            done.append(trick_pairs(leader, cards, self.out_seat))
        return list(done)


def trick_pairs(leader: int, cards: list[int], out_seat: int) -> list[tuple[int, int]]:
    """(seat, card) of a trick from its leader and its cards in play order."""
    out, seat = [], int(leader)
    for c in cards:
        out.append((seat, int(c)))
        seat = int(next_active(seat, out_seat))
    return out


def recorded_plays(result, i: int) -> tuple[list[list[int]], list[int], int]:
    """The cards each seat played in deal ``i`` of a recorded ``evolve.play`` result, the
    cards in play order and the seat that sits out (-1)."""
    out = (int(result.maker[i]) + 2) % 4 if result.alone[i] else -1
    n_active = 3 if out >= 0 else 4
    plays = [int(c) for c in result.plays[i] if c >= 0]
    held: list[list[int]] = [[] for _ in range(4)]
    for t in range(result.leaders.shape[1]):
        for seat, card in trick_pairs(int(result.leaders[i, t]), plays[t * n_active:(t + 1) * n_active], out):
            held[seat].append(card)
    return held, plays, out


def replay_decisions(game: Game, result, i: int):
    """The card-play decisions of deal ``i`` of a recorded ``evolve.play`` result
    (``record=True``), replayed on the engine's own rules. Yields ``(seat, hand, legal,
    mode, pub, card)`` per card: the seat's hand and legal mask before it played, and a
    copy of the public play-phase state (tricks, trump, the turned card, and the bidding
    record as the engine's state holds it in play: the calls, bids, maker and lone hand,
    which tell e.g. whether the Euchre upcard was ordered up). Passed-out deals (trump -1)
    yield nothing."""
    if int(result.trump[i]) < 0:
        return
    held, plays, out = recorded_plays(result, i)
    st = TrickState(game, held, int(result.trump[i]), int(result.first_leader[i]), out_seat=out,
                    dealer=int(result.dealer[i]))
    st.pub[CALLS:CALLS + 8] = result.calls[i]
    st.pub[BIDS:BIDS + 4] = result.bids[i]
    st.pub[MAKER] = result.maker[i]
    st.pub[ALONE] = result.alone[i]
    try:
        st.pub[UPCARD] = game.protocol.recorded_shown_card(result, i)
    except ProtocolError:       # Sueca's study setup: drawn by the engine, not recorded
        pass
    for c in plays:
        seat = st.to_move
        yield seat, np.uint64(st.hands[seat]), np.uint64(st.legal_mask()), st.mode, st.pub.copy(), c
        st.play(c)
