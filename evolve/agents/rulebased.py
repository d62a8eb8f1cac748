"""Rule-based card-play baselines (SPEC §2); kinds 10..29."""

from __future__ import annotations

from evolve.games.bits import kernel


@kernel
def rule_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs):
    """The card a rule-based agent of ``kind`` plays from ``legal``."""
    if kind >= 0:
        raise ValueError("unknown rule-based agent kind")
    return -1
