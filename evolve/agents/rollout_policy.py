"""The card-play policy of the search agents' guided playouts (``rollout=<seat string>``).

A search agent's playouts normally play uniformly random legal cards (the fast
``evolve.agents.search.rollout``). With ``rollout=X`` every seat of the playout plays as
the card-play agent ``X`` would (a rule-based baseline, an evolved network or parametric
agent, ``champion:PATH``), seeing only its own determinized hand and the playout's public
state. The policy is compiled as its own C callback (like the searches, see
``evolve.agents.callback_slot``), so the searches compile no network or rule code unless a
seat asks for guided playouts; ``rollout_card`` calls it through its slot.
"""

from __future__ import annotations

import numpy as np
from numba import carray, cfunc

from evolve import _numba_cache
from evolve.agents.callback_slot import CARD_C_SIG, CARD_CTYPES_SIG, CallbackSlot, card_caller
from evolve.agents.kinds import NETWORK_KINDS, PLAY_RANDOM, RULE_KINDS
from evolve.agents.network import network_card
from evolve.agents.rulebased import rule_card
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


_numba_cache.register_kernel(rollout_policy_impl, "the search agents' rollout policies", 25.0)

_SLOT_SYMBOL = "trick_evolve_rollout_policy_slot_v1"


def _make_callback():
    @cfunc(CARD_C_SIG, cache=True, nopython=True)
    def rollout_policy_c(kind, params_p, n_params, lo, hi, seat, rules_p, n_rules, mode, hand, legal,
                         pub_p, n_pub, rngs_p, n_rngs, work_p, n_work):
        params = carray(params_p, (n_params,), np.float64)
        rules = carray(rules_p, (n_rules,), np.int64)
        pub = carray(pub_p, (n_pub,), np.int64)
        rngs = carray(rngs_p, (n_rngs,), np.uint64)
        work = carray(work_p, (n_work,), np.float64)
        return rollout_policy_impl(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)

    return rollout_policy_c


_SLOT = CallbackSlot(_SLOT_SYMBOL, CARD_CTYPES_SIG, _make_callback)
ensure_compiled = _SLOT.ensure_compiled

rollout_card = card_caller(_SLOT_SYMBOL, "rollout_card")
