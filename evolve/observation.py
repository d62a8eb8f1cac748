"""``Observation``: what one seat sees when it has to decide, as plain data.

An observation holds the seat's own hand and the public record of the deal, nothing
else: the dealer, the calls in order, the turned card, the trump mode, the finished
tricks with who played what, the trick in progress, the scores. It is what
``evolve.agent(...).play(obs)`` / ``.bid(obs)`` decide on, what ``evolve.serve`` sends a
remote bot, and it converts to and from plain JSON types (``to_dict`` / ``from_dict``).

Card ids and trump modes are each game's own (``evolve.games.<game>`` docstrings;
``card_name`` prints one). Calls are ``(seat, action)`` pairs, actions as in
``evolve.games.public``: Spades bids; Euchre 5 order up / 4 pass (round 1), a suit 0..3
or 4 pass (round 2), then the maker's 6 alone / 7 with the partner; Jass a mode 0..5 or 6
push. Which decision is due (``decision``), its legal actions (``legal()``) and the
engine's public-state array are computed by the rules layer
(``evolve.games.public.public_state``), which also rejects any inconsistent observation
with a one-line ``ValueError``.

``observations(result, i)`` turns deal ``i`` of a recorded ``evolve.play(...,
record=True)`` into the observation of every decision in the engine's order, each with
the action the engine's agent took.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any, Iterator

import numpy as np

from evolve.errors import UsageError
from evolve.games.public import CALL_ALONE, CALL_PARTNER, PublicState, action_name, public_state
from evolve.games.registry import Game, make_game
from evolve.games.rules import winning_index

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
        """The engine's public state and the decision due (``evolve.games.public``)."""
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
        return action_name(self.game_obj, self.decision, action)

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
            raise ValueError(f"unknown observation key(s) {', '.join(map(repr, unknown))}; valid keys: {', '.join(_FIELDS)}")
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
    Bids and calls come from the result's ``bids``/``calls``/``alone``/``discard``, the
    cards from ``plays``."""
    g = result.game
    name = g.name
    i = int(i)
    opts = dict(g.options)
    dealer = int(result.dealer[i])
    fh = (dealer + 1) % 4
    hands = [sorted(int(c) for c in result.hands[i, s]) for s in range(4)]
    up = int(result.rest[i, 0]) if name == "euchre" else -1
    if name == "sueca":
        up = _sueca_shown(result, i)
    trump = int(result.trump[i])
    gid = int(result.game_id[i])
    game_score = tuple(int(x) for x in result.game_score[i - 1]) if i > 0 and int(result.game_id[i - 1]) == gid \
        else (0,) * result.game_score.shape[1]
    base = dict(game=name, options=opts, dealer=dealer, game_score=game_score, upcard=up)
    calls: list[tuple[int, int]] = []

    def bid_obs(seat, hand, **kw):
        return Observation(seat=seat, hand=tuple(hand), phase="bid", calls=tuple(calls), **{**base, **kw})

    maker = -1
    if name == "spades" and g.options["bidding"] != "none":
        for k in range(4):
            s = (fh + k) % 4
            b = int(result.bids[i, s])
            yield bid_obs(s, hands[s]), b
            calls.append((s, b))
    elif name == "jass":
        a = int(result.calls[i, 0])
        yield bid_obs(fh, hands[fh]), a
        calls.append((fh, a))
        if int(result.calls[i, 1]) >= 0:
            s = (fh + 2) % 4
            a = int(result.calls[i, 1])
            yield bid_obs(s, hands[s]), a
            calls.append((s, a))
        maker = int(result.maker[i])
    elif name == "euchre" and g.options["setup"] == "standard":
        for k in range(8):
            a = int(result.calls[i, k])
            if a < 0:
                continue
            s = (fh + k % 4) % 4
            yield bid_obs(s, hands[s]), a
            calls.append((s, a))
        if trump < 0:
            return
        maker = int(result.maker[i])
        if int(result.discard[i]) >= 0:
            six = sorted(hands[dealer] + [up])
            yield bid_obs(dealer, six, trump=trump, maker=maker), int(result.discard[i])
            hands[dealer] = sorted(c for c in six if c != int(result.discard[i]))
        a = CALL_ALONE if result.alone[i] else CALL_PARTNER
        yield bid_obs(maker, hands[maker], trump=trump, maker=maker), a
        calls.append((maker, a))
    elif name == "euchre":
        maker = dealer
    out = (maker + 2) % 4 if name == "euchre" and result.alone[i] else -1
    n_active = 3 if out >= 0 else 4
    plays = [int(c) for c in result.plays[i] if c >= 0]
    tricks: list[tuple] = []
    trick: list[tuple[int, int]] = []
    seat = int(result.first_leader[i])
    for c in plays:
        obs = Observation(seat=seat, hand=tuple(hands[seat]), phase="play", trump=trump, calls=tuple(calls),
                          maker=maker, out_seat=out, tricks=tuple(tricks), trick=tuple(trick), **base)
        yield obs, c
        hands[seat].remove(c)
        trick.append((seat, c))
        if len(trick) == n_active:
            tricks.append(tuple(trick))
            trick = []
            seat = int(result.winners[i, len(tricks) - 1])
        else:
            seat = (seat + 1) % 4
            if seat == out:
                seat = (seat + 1) % 4


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
            seat = (seat + 1) % 4
            if seat == out_seat:
                seat = (seat + 1) % 4
    return tuple(tricks), tuple(trick)


def _sueca_shown(result, i: int) -> int:
    """The Sueca trump card shown in deal ``i``: the dealer's first or last card as dealt
    (the study setup draws it from the deal stream and does not record it)."""
    g = result.game
    if g.options["setup"] == "study":
        raise ValueError("sueca setup=study: the shown trump card is drawn by the engine and not recorded")
    dealer = int(result.dealer[i])
    return int(result.hands[i, dealer, 9 if g.options["trump_card"] == "last" else 0])
