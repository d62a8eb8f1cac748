"""The Jass paper (Niklaus et al. 2020): MCTS and deep learning for Schieber Jass."""

from __future__ import annotations

from evolve.reproduce.registry import Document, document

DOC = document(Document("jass", "Niklaus et al. 2020", "Challenging Human Supremacy: Evaluating Monte Carlo Tree "
                        "Search and Deep Learning for the Trick Taking Card Game Jass", "002_8055e80f3a2e3a62.txt"))
