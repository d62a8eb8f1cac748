"""Registry entries of the agents of other packages (``pyschieber``).

Seat strings::

    pyschieber                              # ChallengePlayer's cards, trump by bidder=default (ranked)
    pyschieber:player=challenge,trump=own   # ChallengePlayer's cards and its own trump rule
    pyschieber:player=greedy,bidder=graf
"""

from __future__ import annotations

from functools import partial

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_OPTIONS, bidder_from
from evolve.agents.external.pyschieber import PLAYERS, PyschieberSeat, pyschieber_tables
from evolve.agents.kinds import PYTHON_KINDS
from evolve.agents.registry import AGENTS, AgentDef, AgentSpec, register
from evolve.games.options import Option

KIND_PYSCHIEBER = PYTHON_KINDS[0]

PYSCHIEBER_OPTIONS = {
    "player": Option("challenge", "challenge: ChallengePlayer, the Zühlke Jass Challenge 2017 winner (the Jass "
                     "paper's RB bot) | greedy: GreedyPlayer", PLAYERS),
    "trump": Option("bidder", "bidder: the seat's bidder= option calls trump | own: the pyschieber player's own "
                    "trump rule", ("bidder", "own")),
    **BIDDER_OPTIONS,
}


def _make_pyschieber(opts: dict, game) -> AgentSpec:
    pyschieber_tables()         # one line and exit 2 here when pyschieber is missing
    player, own = opts["player"], opts["trump"] == "own"
    bid_kind, bid_params = bidder_from(opts, game)
    return AgentSpec("pyschieber", KIND_PYSCHIEBER, np.zeros(0), bid_kind, bid_params,
                     bidder=f"pyschieber {player}'s own" if own else "",
                     python=partial(PyschieberSeat, player, own))     # picklable: worker processes rebuild it


if "pyschieber" not in AGENTS:
    register(AgentDef("pyschieber", "pyschieber's ChallengePlayer (the Jass paper's rule-based bot) or GreedyPlayer, "
                      "decided in Python on tables (Jass only; slower than the engine's agents)", _make_pyschieber,
                      PYSCHIEBER_OPTIONS, games=("jass",)))
