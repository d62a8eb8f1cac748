"""Registry entries of the card-play agents each game ships (``GameInfo.agents``).

A game's own agent plays only that game; it takes the shared bidder options (in Hearts
the bidder decides the pass: ``simple`` and ``default`` pass by the game's rule,
``random`` at random). Its kind is ``GAME_KINDS[0]``, bound per game by
``evolve.agents.dispatch.game_bindings``.
"""

from __future__ import annotations

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_OPTIONS, bidder_from
from evolve.agents.kinds import GAME_KINDS
from evolve.agents.registry import AgentDef, AgentSpec, register
from evolve.games.registry import GAMES


def _maker(name: str):
    def make(opts: dict, game) -> AgentSpec:
        bid_kind, bid_params = bidder_from(opts, game)
        return AgentSpec(name, GAME_KINDS[0], np.zeros(0), bid_kind, bid_params)

    return make


for _info in GAMES.values():
    for _agent in _info.agents:
        register(AgentDef(_agent.name, _agent.describe, _maker(_agent.name), dict(BIDDER_OPTIONS), (_info.name,)))
