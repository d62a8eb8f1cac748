"""The Spades thesis (van Hus 2020): evolved networks for cut-throat Spades."""

from __future__ import annotations

from evolve.reproduce.registry import Document, document

DOC = document(Document("spades", "van Hus 2020", "Artificial Neural Networks for playing Spades",
                        "004_e45664b0e106f215.txt"))
