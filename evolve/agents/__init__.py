"""Agents: registered by name, resolved to plain arrays the Numba engine dispatches on.

Importing this package registers every agent family (the rule-based baselines, the games' own
agents, the search agents) and the ``champion:PATH`` seat."""

from evolve.agents.game import register as _game  # noqa: F401  (registers the games' own agents: hearts_rules)
from evolve.agents.genomes.champion import Champion, load_champion
from evolve.agents.registry import AGENTS, AgentDef, AgentSpec, pack_seats, parse_seat, parse_seats, register
from evolve.agents.rulebased import register as _rulebased  # noqa: F401  (registers the rule-based baselines)
from evolve.agents.search import register as _search  # noqa: F401  (registers mc, dmcts, ismcts, maxvalue, perfect_*)

# isort: split
from evolve.agents.external import register as _external  # noqa: F401  (registers pyschieber)

__all__ = ["AGENTS", "AgentDef", "AgentSpec", "Champion", "load_champion", "pack_seats", "parse_seat", "parse_seats",
           "register"]
