"""One decision from Python: ``evolve.agent(seat_string, game, **options)``.

``Agent.play(obs)`` and ``Agent.bid(obs)`` run the very Numba functions the batch engine
calls inside ``evolve.play``: ``evolve.agents.dispatch.choose_card`` specialised with the
agent's family (the same specialisation, hence the same compiled code, as the engine's)
and the bidding hooks of ``evolve.agents.dispatch``. They receive what the engine hands
an agent, rebuilt from the observation by the rules layer
(``evolve.games.observation.public_state``): the seat, its hand mask, the public-state array
``pub``, the seat's random stream and scratch memory. Any registered agent works, with
its options in the seat string (``"ismcts:iterations=100,bidder=search"``), and so does
``champion:PATH``.

Random stream. An agent's random choices (random play, search agents' samples, random
bids) draw from ``rngs[seat]``, exactly as in the engine. ``evolve.agent(..., seed=s)``
starts every seat's stream where the engine starts it for deal 0 of ``evolve.play(...,
seed=s)``; ``agent.new_deal(i)`` moves to deal ``i``'s streams (the engine's deal
``start + i``). A seat's decisions of one deal, asked in the order the deal makes them
after ``new_deal(i)``, then reproduce the engine bit for bit (``tests/test_decide.py``
replays recorded deals this way). Without ``new_deal`` the streams simply run on, so a
sequence of decisions is still reproducible from the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evolve.agents.dispatch import (
    EUCHRE_PASS,
    card_bindings,
    choose_card,
    choose_euchre_alone,
    choose_euchre_call,
    choose_euchre_discard,
    choose_euchre_order,
    choose_jass_mode,
    choose_private_card,
    choose_spades_bid,
    families_of,
    game_bindings,
)
from evolve.agents.registry import pack_seats, parse_seat, sees_hidden_hands
from evolve.core.errors import UsageError, checked_int
from evolve.games.bits import N_STREAMS, seed_key, seed_streams
from evolve.games.euchre.hooks import CALL_ALONE, CALL_ORDER, CALL_PARTNER, CALL_PASS
from evolve.games.observation import Observation
from evolve.games.registry import make_game
from evolve.games.template import specialise


def card_decider(families, info=None):
    """The card-play decision ``choose_card`` compiled with the given agent families (the
    engine's own specialisation of it; memoised and cached on disk); ``info``: the game
    whose own agents the ``game`` family binds."""
    return specialise(choose_card, card_bindings(families, info))


def private_decider(info):
    """The game's private card decision (Hearts' pass), ``choose_private_card`` compiled
    with the game's rule (as the engine binds it)."""
    return specialise(choose_private_card, game_bindings(info))


class Agent:
    """A registered agent (or ``champion:PATH``) deciding one position at a time.

    ``play(obs)`` returns a card id, ``bid(obs)`` the action of a bidding decision
    (``Observation.decision``), ``act(obs)`` whichever is due. ``obs`` is an
    ``evolve.Observation`` (or its ``to_dict()``) of this agent's game and options."""

    def __init__(self, seat: str, game: str, seed: int = 0, **options: Any):
        self.game = make_game(game, **options)
        self.spec = parse_seat(seat, self.game)
        self.name = self.spec.name
        if sees_hidden_hands(self.spec):
            raise UsageError(f"agent {self.name!r} is a perfect-information upper bound: it needs every hand, which "
                             "an observation does not hold; play it in evolve.play or the arena")
        self.kinds, self.params = pack_seats([self.spec] * 4)
        self.work = np.zeros(max(self.spec.work_size, 1), np.float64)
        self.rngs = np.zeros(N_STREAMS, np.uint64)
        self._decide_card = card_decider(families_of([self.spec.play_kind]), self.game.info)
        # an agent of another package decides in Python (evolve.agents.external)
        self.python = self.spec.python() if self.spec.python is not None else None
        self.seed = checked_int(seed, "seed", 0)
        self._key = seed_key(self.seed)
        self.new_deal(0)

    def __repr__(self):
        return f"<evolve.Agent {self.name!r} for {self.game.name}>"

    def new_deal(self, deal: int, seed: int | None = None) -> "Agent":
        """Set every seat's random stream to the engine's for deal ``deal`` of
        ``evolve.play(..., seed)`` (``seed`` defaults to the agent's)."""
        if seed is not None:
            self.seed = int(seed)
            self._key = seed_key(self.seed)
        seed_streams(self._key, np.int64(deal), self.rngs)
        if getattr(self, "python", None) is not None:
            self.python.new_deal()
        return self

    def _obs(self, obs) -> Observation:
        if isinstance(obs, dict):
            obs = Observation.from_dict(obs)
        if not isinstance(obs, Observation):
            raise ValueError(f"expected an evolve.Observation or its to_dict(); got {type(obs).__name__}")
        g = obs.game_obj
        if g.name != self.game.name or g.options != self.game.options:
            raise ValueError(f"the observation is of {g.name} {g.options}, but this agent plays {self.game.name} "
                             f"{self.game.options}")
        return obs

    def play(self, obs) -> int:
        """The card this agent plays at ``obs`` (a play-phase observation)."""
        obs = self._obs(obs)
        st = obs.state
        if st.decision != "card":
            raise ValueError(f"play() needs a play-phase observation; this one asks for a {st.decision} decision "
                             "(use bid())")
        if self.python is not None:
            return int(self.python.play(obs, self.rngs))
        legal = np.uint64(sum(1 << c for c in st.legal))
        hands = np.zeros(4, np.uint64)      # what the engine hands an honest agent: its own hand only
        hands[obs.seat] = st.hand
        return int(self._decide_card(self.kinds, self.params, np.int64(obs.seat), self.game.rules,
                                     np.int64(st.mode), hands, legal, st.pub, self.rngs, self.work))

    def bid(self, obs) -> int:
        """The action this agent takes at a bidding decision: a Spades bid, a Euchre order
        (5) / pass (4), a round-2 suit or pass (4), 6 alone / 7 with the partner, the card
        the Euchre dealer discards, a Jass mode 0..5 or 6 push, a card of a Hearts pass."""
        obs = self._obs(obs)
        st = obs.state
        d = st.decision
        k, p, seat, rules, hand, pub, rngs = self.kinds, self.params, np.int64(obs.seat), self.game.rules, st.hand, \
            st.pub, self.rngs
        if d == "bid":
            return int(choose_spades_bid(k, p, seat, rules, hand, pub, rngs, st.args["allow_nil"],
                                         np.int64(st.args["max_bid"])))
        if d == "order":
            return CALL_ORDER if choose_euchre_order(k, p, seat, rules, hand, pub, rngs) else CALL_PASS
        if d == "call":
            c = int(choose_euchre_call(k, p, seat, rules, hand, pub, rngs, st.args["must_call"]))
            return CALL_PASS if c == EUCHRE_PASS else c
        if d == "alone":
            alone = choose_euchre_alone(k, p, seat, rules, hand, pub, rngs, np.int64(st.args["trump"]))
            return CALL_ALONE if alone else CALL_PARTNER
        if d == "discard":
            return int(choose_euchre_discard(k, p, seat, rules, hand, pub, rngs, np.int64(st.args["trump"])))
        if d == "pass":
            return int(private_decider(self.game.info)(k, p, seat, rules, hand, pub, rngs))
        if d == "trump" and self.python is not None and self.python.bids:
            return int(self.python.bid(obs, self.rngs))
        if d == "trump":
            return int(choose_jass_mode(k, p, seat, rules, hand, pub, rngs, st.args["may_push"]))
        raise ValueError("bid() needs a bidding-phase observation (phase 'bid'); this one asks for a card (use play())")

    def act(self, obs) -> int:
        """``play(obs)`` or ``bid(obs)``, whichever decision is due."""
        obs = self._obs(obs)
        return self.play(obs) if obs.decision == "card" else self.bid(obs)


def agent(seat: str, game: str, seed: int = 0, **options: Any) -> Agent:
    """The agent of seat string ``seat`` (any registered agent with its options, or
    ``champion:PATH``) for ``game`` with game ``options``; ``seed`` fixes its random
    stream (see the module docstring)."""
    return Agent(seat, game, seed=seed, **options)
