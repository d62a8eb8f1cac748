"""Search agents (SPEC §2): flat Monte Carlo, DMCTS and ISMCTS; kinds 30..39."""

from __future__ import annotations

from evolve.games.bits import kernel


@kernel
def search_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The card a search agent of ``kind`` plays from ``legal``."""
    if kind >= 0:
        raise ValueError("unknown search agent kind")
    return -1
