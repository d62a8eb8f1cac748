"""Agents bound to the engine: ``evolve.play`` (many deals), ``evolve.agent`` (one
decision), lockstep evaluation and the tables where agents, remote bots and people play."""
