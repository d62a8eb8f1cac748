"""The Numba dispatch the engine is bound to: from a seat's agent *kinds* plus parameter
vectors to a card (``choose_card``) and to each bid or trump call (``choose_spades_bid``,
``choose_euchre_*``, ``choose_jass_mode``; ``BIDDING_HOOKS``).

An agent at the table is plain data: an integer kind for card play, an integer kind for
bids and trump calls, and a float parameter vector for each (packed for the four seats
into ``seat_ints`` and ``seat_params``; layout in ``evolve.agents.kinds``). Every family is
handed only the deciding seat's observation ``(seat, own hand, legal cards, pub)``, except
the ``perfect`` family (the perfect-information upper bounds ``perfect_mc`` and
``perfect_dmcts``), which alone receives all four hands through its own hook
``play_perfect``.

Card-play kinds form *families* (``FAMILIES``), each a range of kinds served by one
function of its own package. ``choose_card`` is a template (``evolve.games.template``):
``evolve.runtime.batch`` compiles it with only the families that a batch seats bound to
their functions, and the others to ``absent_family``, so an engine for random play never
compiles a network or a search. Every engine compiles all the bidders of its game, so a
heavy bidder (a search) sits behind a callback (``evolve.agents.callback_slot``).

The bidding hooks' signatures are the contract with the games' deal kernels::

    choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid) -> 0..max_bid
    choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs) -> bool (order up)
    choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call) -> suit, or EUCHRE_PASS
    choose_euchre_alone(kinds, params, seat, rules, hand, pub, rngs, trump) -> bool
    choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump) -> card of hand
    choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push) -> 0..5, or JASS_PUSH

Bidder kinds: 0 random, 1 simple, 2..8 the Euchre table bidders
(``evolve.agents.bidding.euchre_tables``), 20 the Jass trump-choice table and 30 the
Spades bid predictor (``evolve.agents.bidding.tables``; with their default numbers they
are also the simple bidder of Jass and Spades), 21 the Jass paper's Simple RB trump rule
(``simple_rb``, same module), 22 the learnt Jass and Euchre trump chooser (``learnt``,
``evolve.agents.bidding.learnt``; its Euchre discard is the simple rule's), 40 the search bidder
(``evolve.agents.bidding.search``). A kind a function does not handle falls through to the
simple bidder. How to add an agent or a bidder: ``docs/how-to/add-an-agent.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from evolve.agents.bidding import euchre_tables as euchre_bidding
from evolve.agents.bidding import learnt as learnt_bidding
from evolve.agents.bidding import search as search_bidding
from evolve.agents.bidding.euchre_tables import (
    EUCHRE_TABLE_KINDS,
    random_euchre_call,
    simple_best_call,
    simple_discard,
    simple_hand_value,
    simple_order_value,
)
from evolve.agents.bidding.learnt import BID_LEARNT, jass_net_mode
from evolve.agents.bidding.search import BID_SEARCH
from evolve.agents.bidding.tables import (
    BID_JASS_SURE,
    BID_JASS_TABLE,
    BID_SPADES_TABLE,
    JASS_RANKED,
    SPADES_RULE_OF_THUMB,
    jass_sure_mode,
    jass_table_mode,
    spades_table_bid,
)
from evolve.agents.kinds import (
    BID_HI,
    BID_KIND,
    BID_LO,
    BID_RANDOM,
    GAME_KINDS,
    NETWORK_KINDS,
    PERFECT_KINDS,
    PLAY_HI,
    PLAY_KIND,
    PLAY_LO,
    PLAY_RANDOM,
    RULE_KINDS,
    SEARCH_KINDS,
)
from evolve.agents.network.play import network_card
from evolve.agents.rulebased.play import rule_card
from evolve.agents.search.card_search import perfect_card, search_card
from evolve.games.bits import below, kernel, random_card
from evolve.games.state import DEALER, UPCARD
from evolve.games.template import Bound, policy_hook, template


@dataclass(frozen=True)
class Family:
    """A range ``kinds`` = [lo, hi) of card-play kinds served by ``card`` through the hook
    ``hook`` of ``choose_card``. ``seconds`` is a rough compile time (for the notice)."""

    name: str
    kinds: tuple[int, int]
    hook: str
    card: Any
    seconds: float


@template(inline="always")
def game_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """A card agent the game ships (``GameInfo.agents``), bound by ``game_bindings``."""
    return game_agent_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)


FAMILIES = (
    Family("network", NETWORK_KINDS, "play_network", network_card, 17.0),
    Family("rules", RULE_KINDS, "play_rules", rule_card, 7.0),
    Family("search", SEARCH_KINDS, "play_search", search_card, 3.0),
    Family("perfect", PERFECT_KINDS, "play_perfect", perfect_card, 3.0),
    Family("game", GAME_KINDS, "play_game", game_card, 3.0),
)

play_network = policy_hook("play_network", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)")
play_rules = policy_hook("play_rules", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)")
play_search = policy_hook("play_search", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)")
# the one hook that receives every seat's hand (``hands``): perfect-information upper bounds only
play_perfect = policy_hook("play_perfect", "(kind, params, lo, hi, seat, rules, mode, hands, legal, pub, rngs, work)")
play_game = policy_hook("play_game", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)")
# what a game ships for itself (``GameInfo.agents`` and ``GameInfo.private_rule``), bound per
# game by ``game_bindings``
game_agent_card = policy_hook("game_agent_card", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)")
game_private_rule = policy_hook("game_private_rule", "(rules, hand, pub) -> card of hand")


@kernel
def absent_family(kind, *args):
    """Bound to the hook of a family the engine was not compiled for (never reached: the
    engine is chosen from the kinds it plays)."""
    if kind >= 0:
        raise ValueError("card-play agent kind not compiled into this engine")
    return -1


@template(inline="always")
def choose_card(kinds, params, seat, rules, mode, hands, legal, pub, rngs, work):
    """The card the seat's agent plays from ``legal`` (a non-empty mask). ``work`` is
    scratch memory for agents that need it (engine kernels may not allocate).

    ``hands`` holds all four hands, but only the perfect-information family (kinds
    ``PERFECT_KINDS``, the upper bounds ``perfect_mc`` / ``perfect_dmcts``) receives it;
    every other family is handed ``hands[seat]`` alone and so cannot read a hidden card."""
    kind = kinds[PLAY_KIND + seat]
    hand = hands[seat]
    if kind == PLAY_RANDOM:
        return random_card(rngs, seat, legal)
    lo = kinds[PLAY_LO + seat]
    hi = kinds[PLAY_HI + seat]
    if kind < NETWORK_KINDS[1]:
        # mode as an int64 even where it is a constant (Spades: literal 0), so that the
        # lockstep kernel (mode from an array) shares the compiled network functions
        return play_network(kind, params, lo, hi, seat, rules, np.int64(mode), hand, legal, pub, rngs, work)
    if kind < RULE_KINDS[1]:
        return play_rules(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)
    if kind < SEARCH_KINDS[1]:
        return play_search(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
    if kind < PERFECT_KINDS[1]:
        return play_perfect(kind, params, lo, hi, seat, rules, mode, hands, legal, pub, rngs, work)
    if kind < GAME_KINDS[1]:
        return play_game(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
    raise ValueError("unknown card-play agent kind")


@kernel
def no_game_agent(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs):
    """Bound where the game ships no card agent (never reached: none can be seated)."""
    if kind >= 0:
        raise ValueError("this game ships no card-play agent")
    return -1


@kernel
def no_private_rule(rules, hand, pub):
    """Bound where the game has no private card decision (never reached)."""
    if rules[0] >= -1:
        raise ValueError("this game has no private card decision")
    return -1


def game_bindings(info) -> dict:
    """The hooks a game binds into the engine: its card agent (``GameInfo.agents``; one per
    game: the kind is ``GAME_KINDS[0]``) and its rule for private card decisions
    (``GameInfo.private_rule``)."""
    if len(info.agents) > 1:
        raise ValueError(f"{info.name}: one card agent per game can be bound (GAME_KINDS)")
    card = Bound(info.agents[0].name, info.agents[0].card) if info.agents else no_game_agent
    rule = Bound(info.name, info.private_rule) if info.private_rule is not None else no_private_rule
    return {"game_agent_card": card, "game_private_rule": rule}


@template(inline="always")
def choose_private_card(kinds, params, seat, rules, hand, pub, rngs):
    """A card of ``hand`` for a private decision of the game (Hearts' pass): a random one
    for the random bidder, the game's own rule (``GameInfo.private_rule``) for every other."""
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return random_card(rngs, seat, hand)
    return game_private_rule(rules, hand, pub)


def families_of(play_kinds) -> tuple[str, ...]:
    """The names of the families (in ``FAMILIES`` order) of the given card-play kinds."""
    kinds = np.unique(np.asarray(play_kinds, dtype=np.int64))
    return tuple(f.name for f in FAMILIES if ((kinds >= f.kinds[0]) & (kinds < f.kinds[1])).any())


def card_bindings(families, info=None) -> dict:
    """Hook bindings of ``choose_card`` with the given families compiled in (and the hooks
    of the game ``info``, a ``GameInfo``, when the ``game`` family is among them)."""
    families = set(families)
    unknown = families - {f.name for f in FAMILIES}
    if unknown:
        raise ValueError(f"unknown agent families {sorted(unknown)}")
    out: dict = {"choose_card": choose_card}
    for f in FAMILIES:
        out[f.hook] = Bound(f.name, f.card) if f.name in families else absent_family
    if "game" in families:
        if info is None:
            raise ValueError("the game family needs the game whose agents it binds")
        out.update(game_bindings(info))
    return out

EUCHRE_PASS = -1

# the simple bidder's numbers in Spades and Jass (compile-time constants of the kernels)
_RULE_OF_THUMB = SPADES_RULE_OF_THUMB.copy()
_RANKED = JASS_RANKED.copy()


@njit(cache=True, inline="always")
def bid_param(kinds, params, seat, j, default):
    """Parameter ``j`` of the seat's bidder, or ``default`` when it has fewer."""
    a = kinds[BID_LO + seat]
    if a + j < kinds[BID_HI + seat]:
        return params[a + j]
    return default


@kernel
def choose_spades_bid(kinds, params, seat, rules, hand, pub, rngs, allow_nil, max_bid):
    """A Spades bid 0..max_bid (0 is nil under standard bidding). The simple bidder is the
    bid predictor (``evolve.agents.bidding.tables``) with the rule-of-thumb numbers."""
    kind = kinds[BID_KIND + seat]
    if kind == BID_RANDOM:
        return below(rngs, seat, max_bid + 1)
    if kind == BID_SPADES_TABLE:
        return spades_table_bid(params, kinds[BID_LO + seat], hand, allow_nil, max_bid)
    if kind == BID_SEARCH:
        return search_bidding.spades_bid(
            params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, allow_nil, max_bid
        )
    return spades_table_bid(_RULE_OF_THUMB, 0, hand, allow_nil, max_bid)

@kernel
def choose_euchre_order(kinds, params, seat, rules, hand, pub, rngs):
    """Round 1: order up the turned card (True) or pass."""
    if kinds[BID_KIND + seat] == BID_SEARCH:
        return search_bidding.euchre_order(
            params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs
        )
    if kinds[BID_KIND + seat] == BID_LEARNT:
        return learnt_bidding.euchre_order(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.order(
            kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs
        )
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    value = simple_order_value(hand, seat, pub[DEALER], pub[UPCARD])
    return value >= bid_param(kinds, params, seat, 0, 2.6)


@kernel
def choose_euchre_call(kinds, params, seat, rules, hand, pub, rngs, must_call):
    """Round 2: name a suit other than the upcard's, or pass (-1) unless ``must_call``."""
    if kinds[BID_KIND + seat] == BID_SEARCH:
        return search_bidding.euchre_call(
            params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, must_call
        )
    if kinds[BID_KIND + seat] == BID_LEARNT:
        return learnt_bidding.euchre_call(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub,
                                          must_call)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.call(
            kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, must_call
        )
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
        return search_bidding.euchre_alone(
            params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, trump
        )
    if kinds[BID_KIND + seat] == BID_LEARNT:
        return learnt_bidding.euchre_alone(params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub,
                                           trump)
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.alone(
            kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, trump
        )
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return below(rngs, seat, 2) == 1
    return simple_hand_value(hand, trump) >= bid_param(kinds, params, seat, 2, 4.2)


@kernel
def choose_euchre_discard(kinds, params, seat, rules, hand, pub, rngs, trump):
    """The dealer's discard from its six cards after taking the upcard."""
    if EUCHRE_TABLE_KINDS[0] <= kinds[BID_KIND + seat] < EUCHRE_TABLE_KINDS[1]:
        return euchre_bidding.discard(
            kinds[BID_KIND + seat], params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, hand, pub, rngs, trump
        )
    if kinds[BID_KIND + seat] == BID_RANDOM:
        return random_card(rngs, seat, hand)
    return simple_discard(hand, trump)

@kernel
def choose_jass_mode(kinds, params, seat, rules, hand, pub, rngs, may_push):
    """A Jass mode 0..5, or JASS_PUSH (only when ``may_push``). The simple bidder is the
    "ranked" rule (``docs/explanation/search-and-learnt-agents.md``): the trump-choice table
    (``evolve.agents.bidding.tables``) with the ranked numbers."""
    kind = kinds[BID_KIND + seat]
    if kind == BID_RANDOM:
        return below(rngs, seat, 7 if may_push else 6)
    if kind == BID_JASS_TABLE:
        return jass_table_mode(params, kinds[BID_LO + seat], hand, may_push)
    if kind == BID_SEARCH:
        return search_bidding.jass_mode(
            params, kinds[BID_LO + seat], kinds[BID_HI + seat], seat, rules, hand, pub, rngs, may_push
        )
    if kind == BID_JASS_SURE:
        return jass_sure_mode(params, kinds[BID_LO + seat], kinds[BID_HI + seat], hand, may_push)
    if kind == BID_LEARNT:
        return jass_net_mode(params, kinds[BID_LO + seat], kinds[BID_HI + seat], hand, may_push)
    return jass_table_mode(_RANKED, 0, hand, may_push)


# The hooks the game modules declare, bound by ``evolve.runtime.batch``.
BIDDING_HOOKS = {
    "choose_spades_bid": choose_spades_bid,
    "choose_euchre_order": choose_euchre_order,
    "choose_euchre_call": choose_euchre_call,
    "choose_euchre_alone": choose_euchre_alone,
    "choose_euchre_discard": choose_euchre_discard,
    "choose_jass_mode": choose_jass_mode,
    "choose_private_card": choose_private_card,
}
