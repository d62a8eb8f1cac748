"""Agents: registered by name, resolved to plain arrays the Numba engine dispatches on."""

from evolve.agents.registry import AGENTS, AgentDef, AgentSpec, pack_seats, parse_seat, parse_seats, register

from evolve.agents import baselines as _baselines  # noqa: E402,F401  (registers the rule-based baselines)
from evolve.agents import search_registry as _search  # noqa: E402,F401  (registers mc, dmcts, ismcts)
from evolve.agents.champion import Champion, load_champion  # noqa: E402

__all__ = ["AGENTS", "AgentDef", "AgentSpec", "Champion", "load_champion", "pack_seats", "parse_seat", "parse_seats",
           "register"]
