"""One seat of a game as a Gymnasium environment: ``gym_env(game, seat=0, opponents="random",
partner=None, **options)``.

The caller plays ``seat``; the other seats are registered agents (seat strings as
everywhere: ``"jass_rule_based"``, ``"ismcts:iterations=200"``, ``"champion:PATH"``), played
at a table (``evolve.runtime.session.Table``) by the engine's own Numba decisions, so they
play exactly as in ``evolve.play``. The caller takes every decision of its seat (bids,
trump calls, the Euchre discard, cards).

- ``opponents``: one seat string for the three other seats, or two (the next seat and the
  seat before the caller's), or three (the next seats in play order, the partner's across
  second); ``partner``: the seat string of the partner across (default: as ``opponents``
  says, i.e. the first opponent), or ``"self"``: the caller decides for its partner too
  (``info["seat"]`` says whose decision it is; the observation is that seat's).
- Spaces: ``Discrete(A)`` actions and ``Box(0, 1, (D,), float32)`` observations
  (``evolve.env.spaces``); ``info["action_mask"]`` (int8 [A]) marks the legal actions, and
  so does ``action_masks()`` (the method sb3-contrib's maskable algorithms call).
- Reward: the caller's side's hand score of each deal, when the deal ends (cut-throat Spades:
  the seat's own). Episodes: one deal, or with the game's ``target`` option given (> 0) a
  match to the target. The observation after the episode's end is all zero. A deal in which
  the caller has no decision at all (in Euchre its partner may order up and go alone before
  it acts) is played out by the agents and skipped: ``reset`` returns the first decision of
  the next deal.
- Deals and seeds: as ``evolve.env.aec`` (``reset(seed=s)``: the deals of ``evolve.play(...,
  seed=s)`` from deal 0; ``reset()`` goes on with the next ones; the first seed, when none is
  given, is drawn from the environment's ``np_random``).
- ``illegal``: "raise" (default; a one-line ``ValueError``, the table unchanged) or "ignore":
  an action out of range or not legal changes nothing and returns the same observation with
  reward 0 and ``info["illegal_action"] = True`` (Gymnasium's ``check_env`` steps with
  unmasked random actions, so it needs "ignore").
- ``render_mode``: "ansi" or "human", as ``evolve.env.aec``, with the caller's seats shown as "you".

Importing this module registers ``evolve/<game>-v0`` for every game in Gymnasium's registry
(``gymnasium.make("evolve/jass-v0", opponents="jass_rule_based")``).
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from evolve.core.errors import UsageError, checked_int
from evolve.env.spaces import (
    DrawnTable,
    action_mask,
    action_of,
    action_space_size,
    checked_render_mode,
    observation_size,
    observe,
    plays_a_match,
    three_opponents,
)
from evolve.games.observation import Observation
from evolve.games.registry import GAMES, Game, make_game
from evolve.runtime.decide import Agent, agent
from evolve.runtime.session import HUMAN, Player, Table

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:
    raise UsageError('evolve.env.gym needs Gymnasium: pip install "trick-evolve[env]"') from None

ILLEGAL = ("raise", "ignore")


def _new_deal(a: Agent, seed: int, i: int) -> None:
    a.new_deal(i, seed=seed)


def machine_player(seat_string: str, game: Game) -> Player:
    """A table seat played by the registered agent of ``seat_string`` (its random streams
    the engine's for each deal). Unlike ``evolve.runtime.session.agent_player`` it pickles."""
    a = agent(seat_string, game.name, **game.options)
    return Player(seat_string, a.act, functools.partial(_new_deal, a), a.rngs)


def relative_seats(opponents, partner) -> tuple[list[str], bool]:
    """The seat strings of offsets 1, 2, 3 from the caller (2: the partner across) from
    ``opponents`` (1, 2 or 3 seat strings) and ``partner`` (None, a seat string or "self"),
    and whether the caller decides for its partner."""
    opponents = three_opponents(opponents)
    if any(o.strip().lower() in (HUMAN, "me") for o in opponents):
        raise UsageError("opponents are agents; the caller's seats are seat= and partner='self'")
    if partner == "self":
        return opponents, True
    if partner is not None:
        if not isinstance(partner, str) or not partner.strip():
            raise UsageError(f"partner must be a seat string or 'self', got {partner!r}")
        opponents[1] = partner
    return opponents, False


class TrickTakingGymEnv(DrawnTable, gymnasium.Env):
    """One seat of a game as a Gymnasium environment (see the module docstring); build it
    with ``gym_env``."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, game: str | Game, seat: int = 0, opponents: str | Sequence[str] = "random",
                 partner: str | None = None, render_mode: str | None = None, illegal: str = "raise",
                 **options: Any):
        self.game = make_game(game, **options)
        self.seat = checked_int(seat, "seat", 0, 3, expect="a seat 0..3")
        if illegal not in ILLEGAL:
            raise UsageError(f"illegal={illegal!r} is invalid; expected 'raise' or 'ignore'")
        self.illegal = illegal
        self.render_mode = checked_render_mode(render_mode)
        self.match = plays_a_match(self.game, options)
        rel, self_partner = relative_seats(opponents, partner)
        self.mine = sorted({self.seat, (self.seat + 2) % 4} if self_partner else {self.seat})
        strings = {(self.seat + k + 1) % 4: s for k, s in enumerate(rel)}
        # one agent per machine seat, built once: a new episode only deals again
        self.players = [Player(HUMAN, None) if s in self.mine else machine_player(strings[s], self.game)
                        for s in range(4)]
        self.n_actions = action_space_size(self.game)
        self.obs_size = observation_size(self.game)
        self.action_space = spaces.Discrete(self.n_actions)
        self.observation_space = spaces.Box(0, 1, (self.obs_size,), np.float32)
        self.deal_seed: int | None = None
        self.table: Table | None = None
        self._terminal = None

    def _you(self) -> tuple[int, ...]:
        return tuple(self.mine)

    def __repr__(self) -> str:
        seats = ", ".join("you" if s in self.mine else p.seat_string for s, p in enumerate(self.players))
        return f"<evolve.env.gym_env {self.game.name} {self.game.options}: {seats}>"

    @property
    def seat_strings(self) -> list[str]:
        """The four seats' strings (``human`` for the caller's)."""
        return [p.seat_string for p in self.players]

    # ------------------------------------------------------------------ episodes

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode (see the module docstring) and return the caller's first
        observation and info; ``options`` is not used."""
        super().reset(seed=seed)
        if seed is not None:
            self.deal_seed, start = checked_int(seed, "seed", 0), 0
        elif self.deal_seed is None:
            self.deal_seed, start = int(self.np_random.integers(1 << 62)), 0
        else:
            start = self._next_start()
        self._terminal = None
        while True:
            self.table = Table(self.game, self.players, self.deal_seed, deals=0 if self.match else 1,
                               dealer=start % 4, start=start)
            self.table.advance()
            if not self.table.over:
                break
            start = self._next_start()      # the caller had no decision in this deal
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def _next_start(self) -> int:
        return self.table.start + self.table.deal_index + 1

    # ------------------------------------------------------------------ acting

    def action_masks(self) -> np.ndarray:
        """The int8 mask of the legal actions of the decision due (all zero at the end)."""
        t = self.table
        if t is None or t.over:
            return np.zeros(self.n_actions, np.int8)
        return action_mask(t.observation())

    def engine_observation(self) -> Observation:
        """The ``evolve.Observation`` of the caller's decision due."""
        if self.table is None or self.table.over:
            raise ValueError("no decision is due: reset the environment")
        return self.table.observation()

    def _observation(self) -> np.ndarray:
        t = self.table
        if t.over:
            return np.zeros(self.obs_size, np.float32)
        return observe(t, t.to_act)

    def _info(self, **extra) -> dict:
        t = self.table
        over = t.over
        return {"action_mask": self.action_masks(), "seat": -1 if over else int(t.to_act),
                "decision": "over" if over else t.step, **extra}

    def _legal(self, action) -> int | None:
        """The engine's action of a legal action index, or None ("ignore") / ValueError ("raise")."""
        try:
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            index = checked_int(action, "action", 0, self.n_actions - 1, error=ValueError)
            if not self.action_masks()[index]:
                obs = self.table.observation()
                raise ValueError(f"action {index} is not legal for seat {obs.seat} at its {obs.decision} decision; "
                                 f"legal: {', '.join(map(str, np.flatnonzero(action_mask(obs))))}")
        except ValueError:
            if self.illegal == "raise":
                raise
            return None
        return action_of(self.game, index)

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The caller takes ``action`` (an action index) at its decision; the agents play on
        to its next decision or the episode's end."""
        t = self.table
        if t is None or t.over:
            raise ValueError("the episode is over: reset the environment")
        a = self._legal(action)
        if a is None:
            return self._observation(), 0.0, False, False, self._info(illegal_action=True)
        done = len(t.results)
        t.act(t.to_act, a)
        t.advance()
        side = self.game.side_of(self.seat)
        reward = float(sum(r["score"][side] for r in t.results[done:]))
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, bool(t.over), False, self._info()


def gym_env(game: str | Game, seat: int = 0, opponents: str | Sequence[str] = "random",
            partner: str | None = None, render_mode: str | None = None, illegal: str = "raise",
            **options: Any) -> TrickTakingGymEnv:
    """The Gymnasium environment of ``seat`` of ``game`` against ``opponents`` (with
    ``partner``; see ``evolve.env.gym``) with game ``options``; UsageError (one line) for a
    bad game, option or seat string."""
    return TrickTakingGymEnv(game, seat=seat, opponents=opponents, partner=partner, render_mode=render_mode,
                             illegal=illegal, **options)


for _name in GAMES:
    gymnasium.register(id=f"evolve/{_name}-v0", entry_point="evolve.env.gym:gym_env", kwargs={"game": _name})
