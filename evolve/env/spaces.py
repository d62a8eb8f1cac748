"""The action space and the observation of the games as standard environments.

Actions. One ``Discrete(A)`` space per game and options, ``A = n_cards + n_calls``
(``action_space_size``): index ``a < n_cards`` is the card with that id (a card to play, or
the card the Euchre dealer discards); index ``a >= n_cards`` is the call ``a - n_cards`` in
the engine's own call values (those of ``evolve.Observation`` and ``Table.act``):

- Spades with ``bidding`` exact or standard: the bid 0..13 (0 is nil under standard), 14
  calls; ``bidding = "none"``: no calls;
- Euchre: 0..3 a suit named in round 2, 4 pass, 5 order up (round 1), 6 alone, 7 with the
  partner, 8 calls; ``setup = "fixed_spades"`` has no bidding: no calls;
- Jass: the modes 0..5, 6 push, 7 calls;
- Sueca: no calls.

``action_index`` and ``action_of`` convert between an index and the engine's action; the
mask of legal actions (``action_mask``) is 1 exactly at the legal indices of the seat to act.

Observations. One 0/1 vector of ``observation_size`` entries per decision, built from what
the deciding seat knows and nothing else, by one Numba function that every environment
calls (``encode_observation``). Its segments, in order, are relative to the seat (offset 1
is the next seat to play after it, 2 the partner across, 3 the seat before it):

1. ``seat``: the network agents' seat encoding (``evolve.agents.network.play``), 8 inputs per
   card of the deck at ``8 * card + k``: k = 0 in my hand; 1, 2, 3 in this trick, played
   by offset 1, 2, 3; 4 played in an earlier trick or otherwise seen (the Euchre turned
   card; for a seat that is not to act, also its own card in this trick); 5, 6, 7 may
   still be held by offset 1, 2, 3 (``evolve.games.knowledge.may_hold``);
2. ``trump``: one-hot of the trump mode, all zero while it is open (Spades: always spades);
3. ``decision``: one-hot over ``DECISIONS`` (all zero for a seat that is not to act; the
   Hearts pass takes the discard's slot, ``SHARED_SLOTS``);
4. ``dealer``: one-hot of the dealer's offset;
5. ``maker``: one-hot of the maker's offset (the Euchre maker, the Jass declarer), zero
   before there is one; ``alone``: 1 when the Euchre maker plays alone;
6. ``calls``: per offset 0..3, a one-hot over the ``n_calls`` call values of that seat's
   latest call (its bid, its round-1 or round-2 call, the maker's alone / partner call, its
   Jass push or mode); absent when the game has no calls;
7. ``tricks``: per offset, a thermometer of the tricks it has taken (entry j: at least j + 1);
8. ``game_score``: for the seat's side and the other side, 10 bins (entry k: at least
   (k + 1) / 10 of the game target); all zero without a target.

``observation_layout`` lists the segments with their start and size; ``observe`` encodes
an ``evolve.Observation`` or the seat of a table (``evolve.runtime.session.Table``). The
last section holds what the environments share without PettingZoo or Gymnasium (episodes,
render modes, the drawing of a table).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from evolve.agents.network.play import SEAT_INPUTS, _seat_masks
from evolve.agents.registry import split_seats
from evolve.core.errors import UsageError
from evolve.games.bits import ONE, ZERO, bit, kernel, lowest, mask_of
from evolve.games.hooks import latest_call, public_maker
from evolve.games.hooks import n_calls as n_calls_of  # the number of call values (A - n_cards)
from evolve.games.observation import Observation
from evolve.games.registry import Game, make_game
from evolve.games.rules import P_HAND, P_N_CARDS, P_N_MODES
from evolve.games.state import (
    ALONE,
    DEALER,
    MODE,
    NPLAYED,
    TRICK_CARDS,
    TRICK_SEATS,
    TRICKS_WON,
)
from evolve.runtime.terminal import Terminal

#: the decisions of the ``decision`` segment, in its order (``Observation.decision`` names)
DECISIONS = ("card", "bid", "order", "call", "alone", "discard", "trump")
#: decisions that share another's slot of the segment: the Hearts pass is, like the Euchre
#: discard, a private choice of a card of the hand (a game has one or the other)
SHARED_SLOTS = {"pass": "discard"}
#: the observation's segments, in order (``observation_layout``)
SEGMENTS = ("seat", "trump", "decision", "dealer", "maker", "alone", "calls", "tricks", "game_score")
N_DECISIONS = len(DECISIONS)
SCORE_BINS = 10         # bins of the game score per side


# ----------------------------------------------------------------------------- Numba


@kernel
def segment_sizes(rules):
    """The sizes of the observation's segments, in the order of ``SEGMENTS``."""
    return (SEAT_INPUTS * rules[P_N_CARDS], rules[P_N_MODES], N_DECISIONS, 4, 4, 1, 4 * n_calls_of(rules),
            4 * rules[P_HAND], 2 * SCORE_BINS)


@kernel
def _latest_call(rules, pub, s):
    """Seat ``s``'s latest public call in the engine's call values, or -1 (the game's
    ``latest_call`` hook)."""
    if n_calls_of(rules) == 0:
        return -1
    return latest_call(rules, pub, s)


@kernel
def encode_observation(rules, seat, decision, hand, pub, game_score, target, out):
    """Write the observation of ``seat`` into ``out`` (a uint8 or float32 row of
    ``observation_size`` entries; every entry is set, to 0 or 1).

    ``rules``: the game's rules array (``Game.rules``); ``decision``: the index of the
    decision due in ``DECISIONS`` (-1: the seat is not to act); ``hand``: the seat's cards
    as a uint64 mask (the Euchre dealer's six at its discard); ``pub``: the engine's public
    state (``evolve.games.state``); ``game_score``: int64[2], the seat's side's and the other
    side's game score before the deal (zeros outside a match); ``target``: the game target
    (0: none). Only ``hand`` and ``pub`` are read about the deal, so no hidden card can
    reach the vector. Allocates nothing: it runs inside other Numba kernels."""
    n_cards = rules[P_N_CARDS]
    n_modes = rules[P_N_MODES]
    hand_size = rules[P_HAND]
    n_calls = n_calls_of(rules)
    for i in range(out.shape[0]):
        out[i] = 0
    mode = pub[MODE] if n_modes > 1 else 0      # Spades: spades are trump from the start
    h = np.uint64(hand)
    # the seat encoding (mode: the trump mode once fixed; before it no void is known, so
    # may_hold reads no suit table)
    t1, t2, t3, seen, m1, m2, m3 = _seat_masks(rules, seat, mode if mode >= 0 else 0, h, pub)
    # a seat that is not to act may have played to the trick in progress: the seat encoding
    # has no place for its own card there (it files it under offset 3), so it is played
    for q in range(pub[NPLAYED]):
        if pub[TRICK_SEATS + q] == seat:
            b = bit(pub[TRICK_CARDS + q])
            t3 &= ~b
            seen |= b
    masks = (h, t1, t2, t3, seen, m1, m2, m3)
    for k in range(SEAT_INPUTS):
        m = masks[k]
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            out[SEAT_INPUTS * c + k] = 1
    at = SEAT_INPUTS * n_cards
    if mode >= 0:
        out[at + mode] = 1
    at += n_modes
    if 0 <= decision < N_DECISIONS:
        out[at + decision] = 1
    at += N_DECISIONS
    out[at + ((pub[DEALER] - seat) & 3)] = 1
    at += 4
    maker = public_maker(rules, pub)
    if maker >= 0:
        out[at + ((maker - seat) & 3)] = 1
    at += 4
    if pub[ALONE] == 1:
        out[at] = 1
    at += 1
    for s in range(4):
        v = _latest_call(rules, pub, s)
        if 0 <= v < n_calls:
            out[at + ((s - seat) & 3) * n_calls + v] = 1
    at += 4 * n_calls
    for s in range(4):
        base = at + ((s - seat) & 3) * hand_size
        for j in range(min(pub[TRICKS_WON + s], hand_size)):
            out[base + j] = 1
    at += 4 * hand_size
    if target > 0:
        for side in range(2):
            for k in range(SCORE_BINS):
                if game_score[side] * SCORE_BINS >= (k + 1) * target:
                    out[at + side * SCORE_BINS + k] = 1


# ----------------------------------------------------------------------------- Python


def _game(game: str | Game, options: dict[str, Any]) -> Game:
    return make_game(game, **options)


def action_space_size(game: str | Game, **options: Any) -> int:
    """``A = n_cards + n_calls`` for ``game`` (a name or an ``evolve.games.registry.Game``)
    with game ``options``: the size of the ``Discrete`` action space."""
    g = _game(game, options)
    return int(g.info.n_cards + n_calls_of(g.rules))


def n_calls(game: str | Game, **options: Any) -> int:
    """The number of call values of ``game`` with ``options`` (0: a game without calls)."""
    return int(n_calls_of(_game(game, options).rules))


def decision_slot(decision: str) -> int:
    """The position of ``decision`` in the ``decision`` segment (``DECISIONS``, with
    ``SHARED_SLOTS``); ``ValueError`` (one line) for an unknown decision."""
    name = SHARED_SLOTS.get(decision, decision)
    if name not in DECISIONS:
        raise ValueError(f"decision={decision!r} is invalid; expected one of "
                         f"{', '.join(DECISIONS + tuple(SHARED_SLOTS))}")
    return DECISIONS.index(name)


def action_index(game: str | Game, decision: str, action: int, **options: Any) -> int:
    """The index in the action space of the engine's ``action`` at ``decision`` (a card id
    at the card decisions, ``Protocol.card_decisions``: "card" and the Euchre "discard"; a
    call value at the bidding decisions); ``ValueError`` (one
    line) if ``decision`` is not one of ``DECISIONS`` or ``action`` has no index."""
    g = _game(game, options)
    decision_slot(decision)
    n_cards, calls = g.info.n_cards, int(n_calls_of(g.rules))
    a = int(action)
    if decision in g.protocol.card_decisions:
        if not 0 <= a < n_cards:
            raise ValueError(f"card {a} is not a card of {g.name}; expected a card id 0..{n_cards - 1}")
        return a
    if not 0 <= a < calls:
        raise ValueError(f"call {a} is not a call of {g.name} {g.options}" +
                         (f"; expected 0..{calls - 1}" if calls else ": it has no calls"))
    return n_cards + a


def action_of(game: str | Game, index: int, **options: Any) -> int:
    """The engine's action of action-space ``index``: the card id for ``index < n_cards``,
    else the call value ``index - n_cards``; ``ValueError`` (one line) out of range."""
    g = _game(game, options)
    n_cards = g.info.n_cards
    size = n_cards + int(n_calls_of(g.rules))
    i = int(index)
    if not 0 <= i < size:
        raise ValueError(f"action {i} is out of range for {g.name}; expected 0..{size - 1}")
    return i if i < n_cards else i - n_cards


def action_mask(obs: Observation) -> np.ndarray:
    """The int8 mask of the legal actions at ``obs`` (an ``evolve.Observation``): 1 at the
    index of each legal action of its decision, 0 elsewhere."""
    g = obs.game_obj
    n_cards = g.info.n_cards
    mask = np.zeros(n_cards + int(n_calls_of(g.rules)), np.int8)
    legal = np.array(obs.legal(), np.int64)
    mask[legal if obs.decision in g.protocol.card_decisions else n_cards + legal] = 1
    return mask


def observation_size(game: str | Game, **options: Any) -> int:
    """``D``, the length of the observation vector of ``game`` with ``options``."""
    return int(sum(segment_sizes(_game(game, options).rules)))


def observation_layout(game: str | Game, **options: Any) -> list[tuple[str, int, int]]:
    """The observation's segments of ``game`` with ``options`` as ``(name, start, size)``,
    in order (names in ``SEGMENTS``; see the module docstring for what each holds)."""
    out, start = [], 0
    for name, size in zip(SEGMENTS, segment_sizes(_game(game, options).rules)):
        out.append((name, start, int(size)))
        start += int(size)
    return out


def two_sides(game: Game, seat: int, game_score) -> np.ndarray:
    """The ``game_score`` argument of ``encode_observation`` from a game score per side (per
    seat in cut-throat Spades): the seat's side's and the other side's (in cut-throat Spades
    the seat's and the best of the other seats')."""
    gs = [int(x) for x in game_score]
    if not gs or not any(gs):
        return np.zeros(2, np.int64)
    own = game.side_of(seat)
    if len(gs) != game.n_sides:
        raise ValueError(f"game_score={gs} is invalid; expected {game.n_sides} values (one per side)")
    if game.partnership:
        return np.array([gs[own], gs[1 - own]], np.int64)
    return np.array([gs[own], max(gs[s] for s in range(len(gs)) if s != own)], np.int64)


def encode(game: Game, seat: int, decision: str | None, hand, pub: np.ndarray, game_score=(0, 0),
           out: np.ndarray | None = None, dtype=np.float32) -> np.ndarray:
    """``encode_observation`` from Python: ``decision`` by name (None: the seat is not to
    act), ``hand`` a mask or card ids, ``game_score`` per side (``two_sides``). Returns
    ``out`` (a new ``dtype`` vector when not given)."""
    if out is None:
        out = np.empty(observation_size(game), dtype)
    mask = np.uint64(hand) if isinstance(hand, (int, np.integer)) else mask_of(np.asarray(list(hand), np.int64))
    d = -1 if decision is None else decision_slot(decision)
    encode_observation(game.rules, np.int64(seat), np.int64(d), np.uint64(mask), pub, two_sides(game, seat, game_score),
                       np.int64(max(game.target, 0)), out)
    return out


def observe(source, seat: int | None = None, out: np.ndarray | None = None, dtype=np.float32) -> np.ndarray:
    """The observation vector of ``seat`` from ``source``: an ``evolve.Observation`` (of
    that seat; ``seat`` may be left out) or a table (``evolve.runtime.session.Table``; any
    seat, by default the one to act, whose decision segment is then set). The public state
    is the one the agents see (``Observation.state.pub``, rebuilt by the rules layer),
    the hand the seat's own. A finished table gives zeros."""
    if isinstance(source, dict):
        source = Observation.from_dict(source)
    if isinstance(source, Observation):
        if seat is not None and int(seat) != source.seat:
            raise ValueError(f"the observation is seat {source.seat}'s, not seat {seat}'s")
        return encode(source.game_obj, source.seat, source.decision, source.hand, source.state.pub,
                      source.game_score, out, dtype)
    if not (hasattr(source, "observation") and hasattr(source, "view")):
        raise ValueError(f"observe() takes an evolve.Observation or a table; got {type(source).__name__}")
    table = source
    game = table.game
    if out is None:
        out = np.empty(observation_size(game), dtype)
    if table.over:
        out[:] = 0
        return out
    to_act = int(table.to_act)
    seat = to_act if seat is None else int(seat)
    if not 0 <= seat <= 3:
        raise ValueError(f"seat={seat} is invalid; expected a seat 0..3")
    obs = table.observation()       # the public state is every seat's: the seat to act's rebuild of it
    if seat == to_act:
        hand = obs.hand
    elif table.state is not None:
        hand = int(table.state.hands[seat])
    else:
        hand = table.protocol.decision_hand(table.deal, seat)
    return encode(game, seat, obs.decision if seat == to_act else None, hand, obs.state.pub, table.game_score(),
                  out, dtype)


# ----------------------------------------------------------------------------- shared by the environments

RENDER_MODES = ("ansi", "human")


def plays_a_match(game: Game, options: dict[str, Any]) -> bool:
    """An episode is a match when the game's ``target`` option is given (in ``options``) and
    its value is > 0."""
    return "target" in options and int(game.options.get("target", 0)) > 0


def checked_render_mode(mode) -> str | None:
    """``mode`` if it is None, "ansi" or "human"; else a one-line UsageError."""
    if mode is not None and mode not in RENDER_MODES:
        raise UsageError(f"render_mode={mode!r} is invalid; expected None, 'ansi' or 'human'")
    return mode


def render_table(term: Terminal, out: io.StringIO) -> str:
    """The text of ``term``'s table as ``python -m evolve.human`` draws it: the news since
    the last drawing (calls, tricks, finished deals), then the view of the seat to act with
    its legal actions as action indices (``term`` keeps what it has already shown and which
    seats are "you")."""
    term.out = out
    t = term.t
    term.news()
    if t.over:
        term.say("The table is over." + (f" Side {t.winner} won the game." if t.winner >= 0 else ""))
    else:
        obs = t.observation()
        term.show(t.to_act)
        legal = obs.legal()
        n_cards = t.info.n_cards
        calls = obs.decision not in t.game.protocol.card_decisions
        names = ", ".join(f"{a + n_cards if calls else a}: {obs.action_name(a)}" for a in legal)
        term.say(f"{term.who(t.to_act)} to act ({obs.decision}); legal actions: {names}")
    return out.getvalue()


def three_opponents(opponents, kinds: tuple[type, ...] = (str,)) -> list:
    """The seats of offsets 1, 2, 3 from the caller (2: the partner across) from
    ``opponents``: one seat for all three, two (the next seat and the seat before the
    caller's; the partner plays as the first) or three, each a seat string or another of
    ``kinds``; a string may hold several, comma-separated. A one-line UsageError otherwise."""
    if isinstance(opponents, str):
        opponents = split_seats(opponents)
    elif isinstance(opponents, kinds):
        opponents = [opponents]
    opponents = list(opponents)
    if not opponents or any(not isinstance(o, kinds) or (isinstance(o, str) and not o.strip()) for o in opponents):
        raise UsageError(f"opponents must be seat strings (e.g. 'random' or 'jass_rule_based'), got {opponents!r}")
    if len(opponents) == 1:
        return opponents * 3
    if len(opponents) == 2:
        return [opponents[0], opponents[0], opponents[1]]
    if len(opponents) != 3:
        raise UsageError(f"opponents: expected 1, 2 or 3 seat strings, got {len(opponents)}")
    return opponents


class DrawnTable:
    """What the PettingZoo and Gymnasium environments share about drawing their table
    (``self.table``, ``self.render_mode``): ``render``, ``close``, and pickling without the
    terminal that draws (a new one draws on from the table). ``_you()``: the seats drawn as
    "you"."""

    table = None
    render_mode: str | None = None
    _terminal: Terminal | None = None

    def _you(self) -> tuple[int, ...]:
        return ()

    def render(self) -> str | None:
        """The table as text ("ansi": returned; "human": printed); None without a render mode."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: give render_mode='ansi' or 'human'")
            return None
        if self.table is None:
            text = "(reset the environment to deal)\n"
        else:
            if self._terminal is None:
                self._terminal = Terminal(self.table, me=self._you())
            text = render_table(self._terminal, io.StringIO())
        if self.render_mode == "human":
            print(text, end="", flush=True)
            return None
        return text

    def close(self) -> None:
        """Nothing to release but the drawing terminal."""
        self._terminal = None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_terminal"] = None       # it writes to a stream; a new one draws on from the table
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
