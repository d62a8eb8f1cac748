"""Every paper's reproductions, registered (each paper's module registers its own on import),
in the order the docs present them (``list``, ``all`` and the summaries follow it)."""

from __future__ import annotations

from evolve.reproduce import bidding, euchre, jass, spades, sueca  # noqa: F401
from evolve.reproduce.registry import DOCUMENTS, REPRODUCTIONS

ORDER = ("spades", "euchre", "sueca", "jass", "bidding")
for _name in sorted(DOCUMENTS, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER)):
    DOCUMENTS[_name] = DOCUMENTS.pop(_name)        # re-inserted in ORDER

__all__ = ["DOCUMENTS", "ORDER", "REPRODUCTIONS"]
