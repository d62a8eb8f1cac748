"""trick-evolve: evolve and benchmark agents for Spades, Euchre, Sueca and Jass."""

__version__ = "0.1.0"

from evolve import _numba_cache  # noqa: E402

_numba_cache.configure()

from evolve.api import PlayResult, play  # noqa: E402
from evolve.games.registry import GAMES, make_game  # noqa: E402
from evolve.observation import Observation  # noqa: E402
from evolve.decide import Agent, agent  # noqa: E402

__all__ = ["GAMES", "Agent", "Observation", "PlayResult", "agent", "make_game", "play", "__version__"]
