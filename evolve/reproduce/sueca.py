"""The Sueca thesis (Lopes Carreiro 2016): Random, Obligated Trump, Always High, Monte Carlo."""

from __future__ import annotations

from evolve.reproduce.registry import Document, document

DOC = document(Document("sueca", "Lopes Carreiro 2016", "Examining different strategies for the card game Sueca",
                        "000_a350b72122b41af2.txt"))
