"""Every document's reproductions, registered (each seed module registers its own on import)."""

from __future__ import annotations

from evolve.reproduce import bidding, euchre, jass, spades, sueca  # noqa: F401
from evolve.reproduce.registry import DOCUMENTS, REPRODUCTIONS

__all__ = ["DOCUMENTS", "REPRODUCTIONS"]
