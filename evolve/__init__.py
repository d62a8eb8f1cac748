"""trick-evolve: evolve and benchmark agents for Spades, Euchre, Sueca and Jass.

The public façade: ``evolve.play`` (many deals), ``evolve.agent`` (one decision),
``evolve.Observation``, ``evolve.make_game`` and ``evolve.GAMES``. It is lazy (PEP 562):
``import evolve`` sets up the Numba cache and nothing else, and each name loads its module
on first use, so importing the rules (``evolve.games``) never loads an agent. Where each
layer lives: ``docs/explanation/architecture.md``.
"""

from evolve.core import numba_cache as _numba_cache
from evolve.core.lazy import lazy_exports as _lazy_exports
from evolve.core.version import __version__

_numba_cache.configure()     # before any kernel is defined: every evolve module imports this package first

_EXPORTS = {
    "play": "evolve.runtime.play",
    "PlayResult": "evolve.runtime.play",
    "agent": "evolve.runtime.decide",
    "Agent": "evolve.runtime.decide",
    "Observation": "evolve.games.observation",
    "make_game": "evolve.games.registry",
    "GAMES": "evolve.games.registry",
}

__all__ = ["GAMES", "Agent", "Observation", "PlayResult", "agent", "make_game", "play", "__version__"]


__getattr__, __dir__ = _lazy_exports("evolve", _EXPORTS, globals())
