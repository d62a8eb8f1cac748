"""The Euchre bidding article (Rollason 2015): four bidding systems."""

from __future__ import annotations

from evolve.reproduce.registry import Document, document

DOC = document(Document("bidding", "Rollason 2015", "Euchre bidding", "003_d01d79b9616465ed.txt"))
