"""Card-play kind ranges of the agent families (``evolve.agents.dispatch`` dispatches on
them). Kept apart so that agent modules which call other families' functions (the search
agents' policy-guided rollouts) need not import the dispatcher."""

from __future__ import annotations

PLAY_RANDOM = 0
NETWORK_KINDS = (1, 10)     # evolve.agents.network: evolved tanh networks
RULE_KINDS = (10, 30)       # evolve.agents.rulebased: High/Low/.../rule-based Jass
SEARCH_KINDS = (30, 40)     # evolve.agents.search: MC, DMCTS, ISMCTS
# evolve.agents.search: the perfect-information upper bounds (perfect_mc, perfect_dmcts),
# the only family the engine hands every seat's hidden hand (``play_perfect``)
PERFECT_KINDS = (40, 50)
# the card-play agents a game ships for itself (``GameInfo.agents``: Hearts' hearts_rules),
# kind GAME_KINDS[0] + its index there; bound per game (``evolve.agents.dispatch.game_bindings``)
GAME_KINDS = (50, 60)
# evolve.agents.external: agents of other packages decided in Python; never in the Numba
# engine (``evolve.play`` seats them on tables, evolve.runtime.session)
PYTHON_KINDS = (90, 100)


# Layout of ``seat_ints`` (the four agents' kinds and parameter ranges): seat s plays with
# kind seat_ints[PLAY_KIND + s] and parameters
# seat_params[seat_ints[PLAY_LO + s]:seat_ints[PLAY_HI + s]]; likewise BID_*.
PLAY_KIND = 0
PLAY_LO = 8
PLAY_HI = 12
SEAT_INTS = 24

# Bidder kinds (``AgentSpec.bid_kind``).
BID_RANDOM = 0
BID_SIMPLE = 1

# Layout of the bidder's slots in ``seat_ints`` (see evolve.agents.dispatch).
BID_KIND = 4
BID_LO = 16
BID_HI = 20
