"""Bidding and trump-call decisions: the policy hooks of the games' bidding phases.

Each game module declares the decisions it asks for as policy hooks
(``evolve.games.template.policy_hook``) and ``evolve.engine`` binds them to the functions
below (``BIDDING_HOOKS``). The signatures are the contract with the games and must not
change::

    choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid) -> 0..max_bid
    choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs) -> bool (order up)
    choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call) -> suit, or EUCHRE_PASS
    choose_euchre_alone(kinds, params, seat, rules, hand, pub, rngs, trump) -> bool
    choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump) -> card of hand
    choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push) -> 0..5, or JASS_PUSH

A seat's bidder is the integer kind ``kinds[BID_KIND + seat]`` with the parameters
``params[kinds[BID_LO + seat]:kinds[BID_HI + seat]]`` (``bid_param`` reads one with a
default); only the deciding seat's hand and the public state ``pub`` may be read.

Bidder kinds: 0 random, 1 simple, 2..6 the Euchre table bidders
(``evolve.agents.euchre_bidding``), 20 the Jass trump-choice table and 30 the Spades bid
predictor (``evolve.agents.table_bidders``; with their SPEC numbers they are also the
simple bidder of Jass and Spades), 40 the search bidder (``evolve.agents.search_bidding``).

Adding a bidder kind (the extension point):

1. pick the next free number below and add it to ``evolve.agents.registry.BIDDERS`` (the
   seat option ``bidder=<name>``; its parameters come from ``bidder_from``);
2. add a branch ``if kind == BID_<NAME>: return ...`` at the top of each ``choose_*``
   function below whose game it plays (a kind a function does not handle falls through to
   the simple bidder), calling your own kernel (``@kernel``), ideally in its own module;
3. nothing to change in ``evolve.games`` or ``evolve.engine``.

Every engine compiles all the bidders of its game, so keep a heavy bidder (a network
forward pass, a search) in its own kernel rather than inlined, or give it its own hook
binding in ``evolve.engine`` like the card-play families (``evolve.agents.policy``).
"""

from __future__ import annotations

from numba import njit

from evolve.agents import euchre_bidding, search_bidding
from evolve.agents.euchre_bidding import (EUCHRE_TABLE_KINDS, random_euchre_call, simple_best_call, simple_discard,
                                          simple_hand_value, simple_order_value)
from evolve.agents.search_bidding import BID_SEARCH
from evolve.agents.table_bidders import (BID_JASS_TABLE, BID_SPADES_TABLE, JASS_RANKED, SPADES_RULE_OF_THUMB,
                                         jass_table_mode, spades_table_bid)
from evolve.games.bits import below, kernel, random_card
from evolve.games.jass import JASS_PUSH  # noqa: F401  (re-exported through evolve.agents.policy)
from evolve.games.state import DEALER, UPCARD

# Bidder kinds (``AgentSpec.bid_kind``).
BID_RANDOM = 0
BID_SIMPLE = 1

EUCHRE_PASS = -1

# the simple bidder's numbers in Spades and Jass (compile-time constants of the kernels)
_RULE_OF_THUMB = SPADES_RULE_OF_THUMB.copy()
_RANKED = JASS_RANKED.copy()

# Layout of the bidder's slots in ``seat_ints`` (see evolve.agents.policy).
BID_KIND = 4
BID_LO = 16
BID_HI = 20


@njit(cache=True, inline="always")
def bid_param(kinds, params, seat, j, default):
    """Parameter ``j`` of the seat's bidder, or ``default`` when it has fewer."""
    a = kinds[BID_LO + seat]
    if a + j < kinds[BID_HI + seat]:
        return params[a + j]
    return default


# ----------------------------------------------------------------------------- Spades


@kernel
def choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid):
    """A Spades bid 0..max_bid (0 is nil under standard bidding). The simple bidder is the
    bid predictor (``evolve.agents.table_bidders``) with the rule-of-thumb numbers."""
    kind = kinds[BID_KIND + seat]
    if kind == BID_RANDOM:
        return below(rngs, seat, max_bid + 1)
    if kind == BID_SPADES_TABLE:
        return spades_table_bid(params, kinds[BID_LO + seat], hand, allow_nil, max_bid)
    if kind == BID_SEARCH:
        return search_bidding.spades_bid(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, allow_nil, max_bid)
    return spades_table_bid(_RULE_OF_THUMB, 0, hand, allow_nil, max_bid)


# ----------------------------------------------------------------------------- Euchre

@kernel
def choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs):
    """Round 1: order up the turned card (True) or pass."""
    if kinds[BID_KIND + seat] == BID_SEARCH:
        return search_bidding.euchre_order(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.order(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs)
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    value = simple_order_value(hand, seat, pub[DEALER], pub[UPCARD])
    return value >= bid_param(kinds, params, seat, 0, 2.6)


@kernel
def choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call):
    """Round 2: name a suit other than the upcard's, or pass (-1) unless ``must_call``."""
    if kinds[BID_KIND + seat] == BID_SEARCH:
        return search_bidding.euchre_call(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, must_call)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.call(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs,
                                   must_call)
    banned = pub[UPCARD] // 6
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return random_euchre_call(rngs, seat, banned, must_call)
    best, best_v = simple_best_call(hand, banned)
    if must_call or best_v >= bid_param(kinds, params, seat, 1, 2.6):
        return best
    return EUCHRE_PASS


@kernel
def choose_euchre_alone(kinds, params, seat, rules, hand, pub, rngs, trump):
    """Whether the maker goes alone."""
    if kinds[BID_KIND + seat] == BID_SEARCH:
        return search_bidding.euchre_alone(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, trump)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.alone(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs,
                                    trump)
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    return simple_hand_value(hand, trump) >= bid_param(kinds, params, seat, 2, 4.2)


@kernel
def choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump):
    """The dealer's discard from its six cards after taking the upcard."""
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.discard(kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs,
                                      trump)
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return random_card(rngs, seat, hand)
    return simple_discard(hand, trump)


# ----------------------------------------------------------------------------- Jass

@kernel
def choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push):
    """A Jass mode 0..5, or JASS_PUSH (only when ``may_push``). The simple bidder is the
    SPEC §2 "ranked" rule: the trump-choice table (``evolve.agents.table_bidders``) with the
    ranked numbers."""
    kind = kinds[BID_KIND + seat]
    if kind == BID_RANDOM:
        return below(rngs, seat, 7 if may_push else 6)
    if kind == BID_JASS_TABLE:
        return jass_table_mode(params, kinds[BID_LO + seat], hand, may_push)
    if kind == BID_SEARCH:
        return search_bidding.jass_mode(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, may_push)
    return jass_table_mode(_RANKED, 0, hand, may_push)


# The hooks the game modules declare, bound by ``evolve.engine``.
BIDDING_HOOKS = {
    "choose_spades_bid": choose_spades_bid,
    "choose_euchre_order": choose_euchre_order,
    "choose_euchre_call": choose_euchre_call,
    "choose_euchre_alone": choose_euchre_alone,
    "choose_euchre_discard": choose_euchre_discard,
    "choose_jass_mode": choose_jass_mode,
}
