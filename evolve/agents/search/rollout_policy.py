"""The card-play policy of the search agents' guided playouts (``rollout=<seat string>``).

A search agent's playouts normally play uniformly random legal cards (the fast
``evolve.agents.search.card_search.rollout``). With ``rollout=X`` every seat of the playout plays as
the card-play agent ``X`` would (a rule-based baseline, an evolved network or parametric
agent, ``champion:PATH``), seeing only its own determinized hand and the playout's public
state. The policy is compiled as its own C callback (like the searches, see
``evolve.agents.callback_slot``), so the searches compile no network or rule code unless a
seat asks for guided playouts; ``rollout_card`` calls it through its slot.
"""

from __future__ import annotations

from evolve.agents.callback_slot import card_slot
from evolve.agents.kinds import NETWORK_KINDS, PLAY_RANDOM, RULE_KINDS
from evolve.agents.network.play import network_card
from evolve.agents.rulebased.play import rule_card
from evolve.core import numba_cache as _numba_cache
from evolve.games.bits import kernel, random_card

#: card-play families a playout may follow (searches inside playouts are refused)
ROLLOUT_KINDS = (PLAY_RANDOM, RULE_KINDS[1])


@kernel
def rollout_policy_impl(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The card the card-play agent ``kind`` plays (random, network or rule families)."""
    if kind == PLAY_RANDOM:
        return random_card(rngs, seat, legal)
    if kind < NETWORK_KINDS[1]:
        return network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
    if kind < RULE_KINDS[1]:
        return rule_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)
    return -1


ROLLOUT_WHAT = "the search agents' rollout policies"
_numba_cache.register_kernel(rollout_policy_impl, ROLLOUT_WHAT, 25.0)

_SLOT, rollout_card = card_slot("trick_evolve_rollout_policy_slot_v1", rollout_policy_impl, "rollout_card",
                                ROLLOUT_WHAT, 25.0)
ensure_compiled = _SLOT.ensure_compiled
