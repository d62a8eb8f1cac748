"""``Observation``: what one seat sees when it has to decide, as plain data.

An observation holds the seat's own hand and the public record of the deal, nothing
else: the dealer, the calls in order, the turned card, the trump mode, the finished
tricks with who played what, the trick in progress, the scores. It is what
``evolve.agent(...).play(obs)`` / ``.bid(obs)`` decide on, what ``evolve.serve`` sends a
remote bot, and it converts to and from plain JSON types (``to_dict`` / ``from_dict``).

Card ids and trump modes are each game's own (``evolve.games.<game>`` docstrings;
``card_name`` prints one). Calls are ``(seat, action)`` pairs, actions as in
``evolve.games.protocol``: Spades bids; Euchre 5 order up / 4 pass (round 1), a suit 0..3
or 4 pass (round 2), then the maker's 6 alone / 7 with the partner; Jass a mode 0..5 or 6
push. Which decision is due (``decision``), its legal actions (``legal()``) and the
engine's public-state array are rebuilt by ``public_state``: it replays the calls through
the game's protocol and the tricks through the one trick step, with the same Numba
functions and in the same order as the game's deal kernel, so an agent asked for one
decision sees the very array it would have seen inside ``evolve.play``. Any inconsistent
observation is rejected with a one-line ``ValueError``.

``observations(result, i)`` turns deal ``i`` of a recorded ``evolve.play(...,
record=True)`` into the observation of every decision in the engine's order, each with
the action the engine's agent took.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any, Iterator

import numpy as np

from evolve.core.errors import UsageError, checked_int, is_int
from evolve.games.bits import cards_of, mask_of
from evolve.games.hooks import legal_cards
from evolve.games.protocol import CARD, DealState, ProtocolError
from evolve.games.registry import Game, make_game
from evolve.games.rules import winning_index
from evolve.games.stepper import recorded_plays
from evolve.games.trick import next_active, open_play, replay_tricks

PHASES = ("bid", "play")

_FIELDS = ("game", "options", "seat", "dealer", "hand", "phase", "trump", "upcard", "calls", "maker", "out_seat",
           "tricks", "trick", "score", "game_score")


def _tuple_pairs(x) -> tuple:
    return tuple((int(s), int(a)) if isinstance(s, (int, np.integer)) and isinstance(a, (int, np.integer))
                 else (s, a) for s, a in x)


@dataclass(frozen=True)
class Observation:
    """One seat's view of a deal at a decision (see the module docstring).

    - ``game`` ("spades" | "euchre" | "sueca" | "jass") and ``options`` (game options,
      e.g. ``{"stick_the_dealer": True}``; defaults fill the rest);
    - ``seat`` (0..3, the seat to act) and ``dealer`` (0..3);
    - ``hand``: the seat's cards (card ids);
    - ``phase``: "bid" (bids, trump calls, Euchre discard) or "play";
    - ``trump``: the engine's mode id (Spades 0; -1 while not chosen); ``upcard``: the
      Euchre turned card / the Sueca trump card shown, else -1;
    - ``calls``: ``(seat, action)`` pairs in order; ``maker``: the seat that fixed trump
      (Euchre maker, Jass declarer; -1 if none); ``out_seat``: the Euchre partner sitting
      out (-1 if none);
    - ``tricks``: finished tricks, each ``(seat, card)`` pairs in play order; ``trick``:
      the trick in progress;
    - ``score``: this deal so far per side (card points in Sueca and Jass, tricks in
      Spades and Euchre; per seat in cut-throat Spades), computed from the tricks when
      not given; ``game_score``: per side before this deal (for display; agents do not
      read it).
    """

    game: str
    seat: int
    dealer: int
    hand: tuple
    phase: str = "play"
    trump: int = -1
    upcard: int = -1
    calls: tuple = ()
    maker: int = -1
    out_seat: int = -1
    tricks: tuple = ()
    trick: tuple = ()
    score: tuple | None = None
    game_score: tuple = (0, 0)
    options: dict = field(default_factory=dict)

    def __post_init__(self):
        # normalise to hashable tuples of ints (lists come from JSON)
        set_ = object.__setattr__
        set_(self, "hand", tuple(int(c) if isinstance(c, (int, np.integer)) and not isinstance(c, bool) else c
                                 for c in self.hand))
        set_(self, "calls", _tuple_pairs(self.calls))
        set_(self, "tricks", tuple(_tuple_pairs(t) for t in self.tricks))
        set_(self, "trick", _tuple_pairs(self.trick))
        set_(self, "options", dict(self.options))
        set_(self, "game_score", tuple(int(x) for x in self.game_score))
        state = self.state     # validates; ValueError with one line
        if self.phase == "play":
            set_(self, "trump", state.mode)     # Spades, Sueca: implied by the game when left at -1
        if self.score is None:
            set_(self, "score", state.score)
        else:
            set_(self, "score", tuple(int(x) for x in self.score))

    @cached_property
    def game_obj(self) -> Game:
        """The ``evolve.games.registry.Game`` with these options."""
        try:
            return _game(self.game, tuple(sorted(self.options.items())))
        except UsageError as e:
            raise ValueError(str(e)) from None
        except TypeError:       # an unhashable option value
            raise ValueError(f"options={self.options!r} is invalid; expected a JSON object of plain values") from None

    @cached_property
    def state(self) -> PublicState:
        """The engine's public state and the decision due (``public_state``)."""
        return public_state(self.game_obj, seat=self.seat, dealer=self.dealer, hand=self.hand, phase=self.phase,
                            trump=self.trump, upcard=self.upcard, calls=self.calls, maker=self.maker,
                            out_seat=self.out_seat, tricks=self.tricks, trick=self.trick, score=self.score)

    @property
    def decision(self) -> str:
        """The decision due: "card", or at phase "bid" one of "bid" (Spades), "order",
        "call", "discard", "alone" (Euchre), "trump" (Jass)."""
        return self.state.decision

    def legal(self) -> list[int]:
        """Legal card ids in the play phase (and at the Euchre discard), legal actions in
        the bidding phase, ascending."""
        return list(self.state.legal)

    def action_name(self, action: int) -> str:
        """A readable name of ``action`` at this decision ("QS", "order", "push", "nil")."""
        return self.game_obj.protocol.action_name(self.decision, action)

    def card_name(self, card: int) -> str:
        """The name of a card id of this game ("QS", "10H")."""
        return self.game_obj.info.card_name(int(card))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (lists for tuples); ``from_dict`` inverts it."""
        out: dict[str, Any] = {}
        for k in _FIELDS:
            v = getattr(self, k)
            if k in ("calls", "trick"):
                v = [list(p) for p in v]
            elif k == "tricks":
                v = [[list(p) for p in t] for t in v]
            elif isinstance(v, tuple):
                v = list(v)
            elif k == "options":
                v = dict(v)
            out[k] = v
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Observation":
        """An observation from ``to_dict`` output (or hand-written JSON); unknown or
        missing keys raise one-line ``ValueError``s."""
        if not isinstance(d, dict):
            raise ValueError(f"an observation is a JSON object with keys {', '.join(_FIELDS)}; got {type(d).__name__}")
        unknown = sorted(set(d) - set(_FIELDS))
        if unknown:
            raise ValueError(f"unknown observation key(s) {', '.join(map(repr, unknown))}; valid keys: "
                             f"{', '.join(_FIELDS)}")
        missing = [k for k in ("game", "seat", "dealer", "hand") if k not in d]
        if missing:
            raise ValueError(f"observation is missing {', '.join(missing)}")
        try:
            return cls(**d)
        except TypeError as e:
            raise ValueError(f"malformed observation: {e}") from None


@lru_cache(maxsize=64)
def _game(name: str, options: tuple) -> Game:
    """``make_game`` memoised: building a game's rules tables costs ~0.1 ms."""
    return make_game(name, **dict(options))


_OBS_NAMES = {f.name for f in fields(Observation)}
assert set(_FIELDS) == _OBS_NAMES


def observations(result, i: int) -> Iterator[tuple[Observation, int]]:
    """Every decision of deal ``i`` of a recorded ``evolve.play(..., record=True)``
    result, in the engine's order: ``(observation of the deciding seat, action taken)``.
    The bidding comes from the game's protocol (``recorded_actions``), the cards from
    ``plays``."""
    g = result.game
    protocol = g.protocol
    i = int(i)
    dealer = int(result.dealer[i])
    hands = [sorted(int(c) for c in result.hands[i, s]) for s in range(4)]
    state = protocol.start(dealer, protocol.recorded_shown_card(result, i), hands=hands)
    gid = int(result.game_id[i])
    game_score = tuple(int(x) for x in result.game_score[i - 1]) if i > 0 and int(result.game_id[i - 1]) == gid \
        else (0,) * result.game_score.shape[1]
    base = dict(game=g.name, options=dict(g.options), dealer=dealer, game_score=game_score, upcard=state.upcard)
    for seat, action in protocol.recorded_actions(result, i):
        yield Observation(seat=seat, hand=tuple(protocol.decision_hand(state, seat)), phase="bid",
                          calls=tuple(state.calls), trump=state.mode, maker=state.maker, **base), action
        protocol.apply(state, seat, action)
    if not state.playing:
        return
    _, plays, out = recorded_plays(result, i)
    n_active = 3 if out >= 0 else 4
    tricks: list[tuple] = []
    trick: list[tuple[int, int]] = []
    seat = int(result.first_leader[i])
    for c in plays:
        obs = Observation(seat=seat, hand=tuple(hands[seat]), phase="play", trump=state.mode, calls=tuple(state.calls),
                          maker=state.maker, out_seat=out, tricks=tuple(tricks), trick=tuple(trick), **base)
        yield obs, c
        hands[seat].remove(c)
        trick.append((seat, c))
        if len(trick) == n_active:
            tricks.append(tuple(trick))
            trick = []
            seat = int(result.winners[i, len(tricks) - 1])
        else:
            seat = int(next_active(seat, out))


def seat_plays(game: Game, mode: int, leader: int, out_seat: int, cards) -> tuple[tuple, tuple]:
    """Cards in play order from the first trick led by ``leader`` -> (finished tricks,
    current trick) of ``(seat, card)`` pairs, each trick's winner (the next leader) found
    with the engine's own trick rule; for hosts that log cards without seats."""
    rules = game.rules
    n_active = 3 if out_seat >= 0 else 4
    tricks, trick = [], []
    seat = leader
    for c in cards:
        trick.append((seat, int(c)))
        if len(trick) == n_active:
            w = winning_index(rules, mode, np.array([x for _, x in trick], np.int64), 0, n_active)
            seat = trick[int(w)][0]
            tricks.append(tuple(trick))
            trick = []
        else:
            seat = int(next_active(seat, out_seat))
    return tuple(tricks), tuple(trick)


# ----------------------------------------------------------------------------- a seat's view


@dataclass(frozen=True)
class PublicState:
    """The engine's view of one seat at one decision.

    ``pub`` is the engine's public-state array; ``mode`` the trump mode passed to card
    play (-1 before trump is fixed); ``decision`` one of ``DECISIONS``; ``hand`` the mask
    the game hands the deciding agent (the Euchre dealer's discard choices at
    ``discard``); ``legal`` the legal actions, ascending; ``args`` the extra arguments of
    the decision (``allow_nil``/``max_bid``, ``must_call``, ``trump``, ``may_push``);
    ``score`` the deal so far per side (card points in Sueca and Jass, tricks in Spades
    and Euchre; per seat in cut-throat Spades)."""

    pub: np.ndarray
    mode: int
    decision: str
    hand: np.uint64
    legal: tuple[int, ...]
    args: dict
    score: tuple[int, ...]


def _card(game: Game, c, what: str) -> int:
    if type(c) is int and 0 <= c < game.info.n_cards:     # the common case, checked without the generic test
        return c
    if not is_int(c) or not 0 <= int(c) < game.info.n_cards:
        raise ValueError(f"{what}: {c!r} is not a card of {game.name}; expected a card id 0..{game.info.n_cards - 1}")
    return int(c)


def _seat(x, what: str) -> int:
    return checked_int(x, what, 0, 3, expect="a seat 0..3", error=ValueError)


def _int(x, what: str) -> int:
    return checked_int(x, what, error=ValueError)


def _pairs(items, what: str) -> list[tuple[int, int]]:
    out = []
    for k, x in enumerate(items):
        if type(x) is tuple and len(x) == 2 and type(x[0]) is int and 0 <= x[0] <= 3:
            out.append(x)       # the common case (a table's own view), checked without the generic test
            continue
        if not isinstance(x, (tuple, list)) or len(x) != 2:
            raise ValueError(f"{what}: {x!r} is not a (seat, value) pair")
        out.append((_seat(x[0], f"{what}[{k}] seat"), x[1]))
    return out


def _first_seat(tricks, trick) -> int:
    """The seat of a view's first card (-1: none played), read before the plays are checked."""
    for t in list(tricks) + [trick]:
        for x in t:
            if isinstance(x, (tuple, list)) and len(x) == 2 and is_int(x[0]) and 0 <= int(x[0]) <= 3:
                return int(x[0])
            return -1
    return -1


def _bidding(game: Game, seat: int, dealer: int, phase: str, trump: int, upcard, calls, hand: list[int],
             first_seat: int = -1) -> DealState:
    """The deal's course from its calls, through the game's protocol: the public state
    after them and the decision due (checked against ``seat`` and ``phase``)."""
    protocol = game.protocol
    state = protocol.start(dealer, protocol.check_upcard(upcard, seat, hand, trump))
    for k, (s, a) in enumerate(_pairs(calls, "calls")):
        protocol.apply(state, s, _int(a, f"calls[{k}]"), where=f"calls[{k}]")
    protocol.settle(state, seat, hand, phase, first_seat)
    if phase == "bid":
        if state.passed_out:
            raise ValueError("every seat passed twice: the deal is passed out, no decision is due")
        if state.playing:
            raise ValueError(f"phase 'bid' but {protocol.no_calls(state)}" if not state.calls else
                             "phase 'bid' but the bidding is over")
        if seat != state.to_act:
            raise ValueError(protocol.not_to_act(state, seat))
    elif not state.playing:
        due = "the deal is passed out" if state.passed_out else \
            f"seat {state.to_act}'s {state.decision} decision is due"
        raise ValueError(f"phase 'play' but the bidding is not over ({due})")
    return state


def public_state(game: Game, *, seat, dealer, hand, phase, trump, upcard, calls, maker, out_seat, tricks, trick,
                 score=None) -> PublicState:
    """Rebuild the engine's ``pub`` for ``seat`` from its observation (the fields of
    ``evolve.Observation``) and return the decision due; ``ValueError`` (one line) on any
    inconsistency."""
    info = game.info
    protocol = game.protocol
    seat = _seat(seat, "seat")
    dealer = _seat(dealer, "dealer")
    if phase not in PHASES:
        raise ValueError(f"phase={phase!r} is invalid; expected 'bid' or 'play'")
    trump = _int(trump, "trump")
    if not -1 <= trump < info.n_modes:
        raise ValueError(f"trump={trump} is invalid for {game.name}; expected -1 or a mode 0..{info.n_modes - 1}")
    hand_cards = [_card(game, c, "hand") for c in hand]
    if len(set(hand_cards)) != len(hand_cards):
        raise ValueError("hand: a card appears twice")
    try:
        state = _bidding(game, seat, dealer, phase, trump, upcard, calls, hand_cards, _first_seat(tricks, trick))
        protocol.check_trump(state, trump, phase)
        if _int(maker, "maker") != state.maker:
            raise ValueError(f"maker={maker} but the calls make it {state.maker}")
        if _int(out_seat, "out_seat") != state.out_seat:
            raise ValueError(f"out_seat={out_seat} but the calls make it {state.out_seat}")
        plays = _plays(game, state, phase, tricks, trick)
        again = {c for _, c in plays} & set(hand_cards)
        if again:
            raise ValueError(f"hand holds {info.card_name(min(again))}, which was already played")
        protocol.check_cards_seen(state, seat, hand_cards, plays)
    except ProtocolError as e:
        raise ValueError(str(e)) from None
    pub = state.pub
    mode = state.mode
    decision = CARD if phase == "play" else state.decision
    seats = np.array([s for s, _ in plays], np.int64)
    cards = np.array([c for _, c in plays], np.int64)
    if phase == "play":
        open_play(pub, state.leader, state.out_seat)
        bad, to_move = replay_tricks(game.rules, mode, pub, state.leader, seats, cards)
        if bad >= 0:
            raise ValueError(f"play {bad} ({info.card_name(int(cards[bad]))} by seat {int(seats[bad])}) is out of "
                             f"turn: seat {to_move} was to play" if to_move >= 0 else
                             f"play {bad}: the deal is over after {info.n_tricks} tricks")
        if to_move < 0:
            raise ValueError("the deal is over: no decision is due")
        if seat != to_move:
            raise ValueError(f"seat {seat} is not to play; seat {to_move} is")
    own = int((cards[seats == seat] if len(plays) else cards[:0]).size)
    extra, why = protocol.extra_cards(decision, state)
    expect = info.hand_size - own + extra
    if len(hand_cards) != expect:
        raise ValueError(
            f"hand has {len(hand_cards)} cards; seat {seat} should hold {expect} "
            f"({info.hand_size} dealt, {own} played" + (f", {why})" if extra else ")")
        )
    mask = mask_of(np.array(hand_cards, np.int64)) if hand_cards else np.uint64(0)
    if decision == CARD:
        legal = tuple(cards_of(legal_cards(game.rules, mode, mask, pub)))
    else:
        legal = protocol.legal(state, hand_cards)
        if decision in protocol.card_decisions:       # the cards the game hands the deciding agent
            mask = mask_of(np.array(legal, np.int64))
    sc = protocol.running_score(pub)
    if score is not None and tuple(int(x) for x in score) != sc:
        raise ValueError(f"score={list(score)} does not match the tricks, which give {list(sc)}")
    return PublicState(pub=pub, mode=int(mode), decision=decision, hand=np.uint64(mask), legal=legal,
                       args=dict(state.args), score=sc)


def _plays(game: Game, state: DealState, phase: str, tricks, trick) -> list[tuple[int, int]]:
    """The plays of a view as checked ``(seat, card)`` pairs (finished tricks complete, the
    trick in progress not, no card twice, none before the play)."""
    n_active = 3 if state.out_seat >= 0 else 4
    done = [list(t) for t in tricks]
    for k, t in enumerate(done):
        if len(t) != n_active:
            raise ValueError(f"tricks[{k}] has {len(t)} cards; a finished trick has {n_active}")
    plays = _pairs([p for t in done for p in t] + list(trick), "tricks")
    if len(trick) >= n_active:
        raise ValueError(f"trick holds {len(trick)} cards; a trick in progress has at most {n_active - 1}")
    if plays and phase != "play":
        raise ValueError("cards were played but phase is 'bid'")
    plays = [(s, _card(game, c, "tricks")) for s, c in plays]
    if len({c for _, c in plays}) != len(plays):
        raise ValueError("tricks: a card was played twice")
    return plays

