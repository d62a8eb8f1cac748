"""Card-play kind ranges of the agent families (``evolve.agents.policy`` dispatches on
them). Kept apart so that agent modules which call other families' functions (the search
agents' policy-guided rollouts) need not import the dispatcher."""

PLAY_RANDOM = 0
NETWORK_KINDS = (1, 10)     # evolve.agents.network: evolved tanh networks
RULE_KINDS = (10, 30)       # evolve.agents.rulebased: High/Low/.../rule-based Jass
SEARCH_KINDS = (30, 40)     # evolve.agents.search: MC, DMCTS, ISMCTS
# evolve.agents.search: the perfect-information upper bounds (perfect_mc, perfect_dmcts),
# the only family the engine hands every seat's hidden hand (``play_perfect``)
PERFECT_KINDS = (40, 50)
