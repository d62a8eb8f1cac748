"""Evolved fixed-topology tanh networks as card-play agents (SPEC §3). Filled in by the
neural-evolution work; kinds 1..9."""

from __future__ import annotations

from evolve.games.bits import kernel


@kernel
def network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The legal card with the highest network output."""
    if kind >= 0:
        raise ValueError("unknown network agent kind")
    return -1
