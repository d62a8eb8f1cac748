"""A game as a PettingZoo AEC environment: ``aec_env(game, render_mode=None, **options)``.

Four agents, ``player_0`` .. ``player_3`` (seat 0..3), take turns as the deal asks them:
every decision of the deal is an action of the seat to take it (the bids, the trump calls,
the Euchre dealer's discard and the cards; ``evolve.env.spaces`` gives the action space and
the observation). Underneath is a table (``evolve.runtime.session.Table``) of four "human"
seats, so the rules, the deals and the scores are the engine's.

- ``observe(agent)``: ``{"observation": float32[D], "action_mask": int8[A]}``, the agent's
  own view (its hand and the public record; ``evolve.env.spaces.observe``) and its legal
  actions; the mask is all zero for an agent that is not to act, and both are zero once
  the episode is over.
- Rewards: when a deal ends every agent gets its side's hand score of the deal (the game's
  own score; in cut-throat Spades the seat's own), 0 otherwise.
- Episodes: one deal; with the game's ``target`` option given (> 0), a match: deals until a
  side reaches the target (``terminations`` all True at its end; nothing truncates).
- Deals: ``reset(seed=s)`` plays deal ``i`` of the episode as ``evolve.play(game, ...,
  seed=s)`` deals its deal ``i`` (the dealer rotating from seat 0), so the engine's agents
  acting here reproduce ``evolve.play``'s scores; ``reset()`` without a seed goes on with
  the next deals of the same seed (the first seed, when none is ever given, is drawn from
  the operating system's entropy; ``deal_seed`` holds it).
- Bad actions raise a one-line ``ValueError``, the table unchanged: an index outside the
  action space, or an action that is not legal for the agent to act (PettingZoo's
  ``pettingzoo.test`` samples from the action mask, which never gives one).
- ``render_mode``: "ansi" (``render()`` returns the table as the terminal of
  ``python -m evolve.human`` draws it, for an onlooker: the news since the last render, the
  view of the seat to act and its legal actions) or "human" (printed after each reset and
  step, and by ``render()``).
- ``infos[agent]``: ``{"decision": name}`` for the agent to act (an
  ``evolve.env.spaces.DECISIONS`` name), ``{}`` for the others; ``engine_observation()``
  is the ``evolve.Observation`` of the agent to act, which ``evolve.agent(...).act`` decides on.
- The environment pickles (mid-deal too) and has no ``max_cycles``: a deal ends by itself.

Importing this module registers ``evolve/<game>-v0`` for every game in PettingZoo's registry
(``pettingzoo.make("aec", "evolve/jass-v0", target=2500)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evolve.core.errors import UsageError, checked_int, is_int
from evolve.env.spaces import (
    RENDER_MODES,
    DrawnTable,
    action_mask,
    action_of,
    action_space_size,
    checked_render_mode,
    observation_size,
    observe,
    plays_a_match,
)
from evolve.games.observation import Observation
from evolve.games.registry import GAMES, Game, make_game
from evolve.runtime.session import Player, Table

try:
    import pettingzoo
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:
    raise UsageError('evolve.env.aec needs PettingZoo and Gymnasium: pip install "trick-evolve[env]"') from None


def agent_name(seat: int) -> str:
    """The PettingZoo agent of ``seat``: ``player_<seat>``."""
    return f"player_{seat}"


def entropy_seed() -> int:
    """A seed for the deals from the operating system's entropy (a reset without any seed)."""
    return int(np.random.SeedSequence().entropy % (1 << 63))


class TrickTakingAECEnv(DrawnTable, AECEnv):
    """The PettingZoo AEC environment of a game (see the module docstring); build it with
    ``aec_env``."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "evolve_v0", "is_parallelizable": False}

    def __init__(self, game: str | Game, render_mode: str | None = None, **options: Any):
        super().__init__()
        self.game = make_game(game, **options)
        self.render_mode = checked_render_mode(render_mode)
        self.metadata = {**type(self).metadata, "name": f"evolve_{self.game.name}_v0"}
        self.match = plays_a_match(self.game, options)
        self.possible_agents = [agent_name(s) for s in range(4)]
        self.n_actions = action_space_size(self.game)
        self.obs_size = observation_size(self.game)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, (self.obs_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self.deal_seed: int | None = None
        self.table: Table | None = None
        self._terminal = None
        self.agents = []
        self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos = {}, {}, {}, {}, {}
        self.agent_selection = self.possible_agents[0]

    def __repr__(self) -> str:
        return f"<evolve.env.aec_env {self.game.name} {self.game.options}>"

    def observation_space(self, agent: str):
        """The agent's observation space: a Dict of "observation" (Box 0..1, float32 [D])
        and "action_mask" (Box 0..1, int8 [A])."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        """The agent's action space, ``Discrete(A)`` (``evolve.env.spaces``)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episodes

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode: with ``seed``, the deals of ``evolve.play(..., seed=seed)`` from
        its deal 0; without, the deals after the previous episode's. ``options`` is not
        used (PettingZoo passes it)."""
        if seed is not None:
            self.deal_seed = checked_int(seed, "seed", 0)
            start = 0
        elif self.deal_seed is None:
            self.deal_seed, start = entropy_seed(), 0
        else:
            start = 0 if self.table is None else self.table.start + self.table.deal_index + 1
        self.table = self._new_table(start)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._terminal = None
        self._skip_agent_selection = None
        self._moved_on()
        if self.render_mode == "human":
            self.render()

    def _new_table(self, start: int) -> Table:
        seats = [Player(agent_name(s), None) for s in range(4)]
        return Table(self.game, seats, self.deal_seed, deals=0 if self.match else 1, dealer=start % 4, start=start)

    def _moved_on(self) -> None:
        """Select the agent to act and set the infos after the table moved on."""
        t = self.table
        self.infos = {a: {} for a in self.agents}
        if t.over:
            return
        self.agent_selection = agent_name(t.to_act)
        self.infos[self.agent_selection] = {"decision": t.step}

    # ------------------------------------------------------------------ acting

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``player_2`` -> 2)."""
        if agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}; expected one of {', '.join(self.possible_agents)}")
        return self.possible_agents.index(agent)

    def engine_observation(self, agent: str | None = None) -> Observation:
        """The ``evolve.Observation`` of the agent to act (``agent``, if given, must be it):
        what ``evolve.agent(...).act`` decides on."""
        if self.table is None or self.table.over:
            raise ValueError("no decision is due: reset the environment")
        seat = None if agent is None else self.seat_of(agent)
        return self.table.observation(seat)

    def engine_action(self, action) -> int:
        """The engine's action (card id or call value) of an action index for the agent to
        act; ``ValueError`` (one line) for an index out of range or an action that is not legal."""
        if not is_int(action):
            raise ValueError(f"action {action!r} is not an action index; expected an integer 0..{self.n_actions - 1}")
        index = int(action)
        if not 0 <= index < self.n_actions:
            raise ValueError(f"action {index} is out of range for {self.game.name}: expected 0..{self.n_actions - 1}")
        obs = self.table.observation()
        mask = action_mask(obs)
        if not mask[index]:
            n_cards = self.game.info.n_cards
            calls = obs.decision not in self.game.protocol.card_decisions

            def name(i):
                return obs.card_name(i) if i < n_cards else (obs.action_name(i - n_cards) if calls else
                                                            f"call {i - n_cards}")

            legal = ", ".join(f"{i} ({name(i)})" for i in np.flatnonzero(mask))
            what = obs.card_name(index) if index < n_cards else f"call {index - n_cards}"
            raise ValueError(f"action {index} ({what}) is not legal for {agent_name(obs.seat)} at its {obs.decision} "
                             f"decision; legal: {legal}")
        return action_of(self.game, index)

    def step(self, action) -> None:
        """The agent to act takes ``action`` (an index of its action space; None for an agent
        whose episode is over, as PettingZoo steps them out)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        if self.table is None or not self.agents:
            raise ValueError("the episode is over: reset the environment")
        a = self.engine_action(action)
        t = self.table
        done = len(t.results)
        t.act(self.seat_of(agent), a)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {x: 0.0 for x in self.agents}
        for r in t.results[done:]:
            for s in range(4):
                self.rewards[agent_name(s)] += float(r["score"][self.game.side_of(s)])
        self._moved_on()
        if t.over:
            self.terminations = {x: True for x in self.agents}
            self._deads_step_first()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32[D], "action_mask": int8[A]}`` of ``agent`` (see the
        module docstring)."""
        seat = self.seat_of(agent)
        mask = np.zeros(self.n_actions, np.int8)
        t = self.table
        if t is None or t.over:
            return {"observation": np.zeros(self.obs_size, np.float32), "action_mask": mask}
        if seat == t.to_act:
            mask = action_mask(t.observation())
        return {"observation": observe(t, seat), "action_mask": mask}


def aec_env(game: str | Game, render_mode: str | None = None, **options: Any) -> TrickTakingAECEnv:
    """The PettingZoo AEC environment of ``game`` with game ``options`` (``target=N``: a
    match to N; see ``evolve.env.aec``); UsageError (one line) for a bad game or option."""
    return TrickTakingAECEnv(game, render_mode=render_mode, **options)


if hasattr(pettingzoo, "register"):       # the PettingZoo versions that keep a registry
    for _name in GAMES:
        pettingzoo.register("aec", f"evolve/{_name}-v0", entry_point="evolve.env.aec:aec_env", kwargs={"game": _name})
