"""Agents: registered by name, resolved to plain arrays the Numba engine dispatches on."""

from evolve.agents.registry import AGENTS, AgentDef, AgentSpec, pack_seats, parse_seat, parse_seats, register

__all__ = ["AGENTS", "AgentDef", "AgentSpec", "pack_seats", "parse_seat", "parse_seats", "register"]
