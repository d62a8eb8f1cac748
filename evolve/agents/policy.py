"""Numba dispatch from an agent *kind* plus a parameter vector to a card.

An agent at the table is plain data: an integer kind for card play, an integer kind for
bids and trump calls, and a float parameter vector for each (packed for the four seats
into ``seat_ints`` and ``seat_params``). The engine calls ``choose_card`` inside its Numba
loop; every family is handed only the deciding seat's observation ``(seat, own hand,
legal cards, pub)``, except the ``perfect`` family (the perfect-information upper bounds
``perfect_mc`` and ``perfect_dmcts``), which alone receives all four hands through its
own hook ``play_perfect``. Bids and trump calls are in ``evolve.agents.bidding``.

Card-play kinds form *families* (``FAMILIES``), each a range of kinds served by one
function of its own module. ``choose_card`` is a template (``evolve.games.template``):
``evolve.engine`` compiles it with only the families that a batch seats bound to their
functions, and the others to ``absent_family``, so an engine for random play never
compiles a network or a search.

Adding a card-play agent:

- a new kind of an existing family: handle it in the family's function (``network_card``,
  ``rule_card``, ``search_card``) and register it in ``evolve.agents.registry``;
- a new family: give it a range of kinds in ``evolve.agents.kinds``, a hook ``play_<family>`` called by a new
  branch of ``choose_card`` with its function's signature, and a ``Family`` entry in
  ``FAMILIES``. Nothing changes in ``evolve.games`` or ``evolve.engine``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evolve.agents.bidding import (  # noqa: F401  (re-exported: bidder kinds and hooks)
    BID_HI,
    BID_KIND,
    BID_LO,
    BID_RANDOM,
    BID_SIMPLE,
    BIDDING_HOOKS,
    EUCHRE_PASS,
    JASS_PUSH,
    bid_param,
    choose_euchre_alone,
    choose_euchre_call,
    choose_euchre_discard,
    choose_euchre_order,
    choose_jass_mode,
    choose_spades_bid,
)
from evolve.agents.kinds import NETWORK_KINDS, PERFECT_KINDS, PLAY_RANDOM, RULE_KINDS, SEARCH_KINDS  # noqa: F401
from evolve.agents.network import network_card
from evolve.agents.rulebased import rule_card
from evolve.agents.search import perfect_card, search_card
from evolve.games.bits import kernel, random_card
from evolve.games.template import Bound, policy_hook, template

# Card-play kinds: ranges in ``evolve.agents.kinds`` (re-exported here). Families live in
# their own modules and are dispatched by range.


# Layout of ``seat_ints`` (the four agents' kinds and parameter ranges): seat s plays with
# kind seat_ints[PLAY_KIND + s] and parameters
# seat_params[seat_ints[PLAY_LO + s]:seat_ints[PLAY_HI + s]]; likewise BID_*.
PLAY_KIND = 0
PLAY_LO = 8
PLAY_HI = 12
SEAT_INTS = 24
assert (BID_KIND, BID_LO, BID_HI) == (4, 16, 20)


@dataclass(frozen=True)
class Family:
    """A range ``kinds`` = [lo, hi) of card-play kinds served by ``card`` through the hook
    ``hook`` of ``choose_card``. ``seconds`` is a rough compile time (for the notice)."""

    name: str
    kinds: tuple[int, int]
    hook: str
    card: Any
    seconds: float


FAMILIES = (
    Family("network", NETWORK_KINDS, "play_network", network_card, 20.0),
    Family("rules", RULE_KINDS, "play_rules", rule_card, 8.0),
    Family("search", SEARCH_KINDS, "play_search", search_card, 3.0),
    Family("perfect", PERFECT_KINDS, "play_perfect", perfect_card, 3.0),
)

play_network = policy_hook("play_network", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)")
play_rules = policy_hook("play_rules", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs)")
play_search = policy_hook("play_search", "(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)")
# the one hook that receives every seat's hand (``hands``): perfect-information upper bounds only
play_perfect = policy_hook("play_perfect", "(kind, params, lo, hi, seat, rules, mode, hands, legal, pub, rngs, work)")


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
    raise ValueError("unknown card-play agent kind")


def families_of(play_kinds) -> tuple[str, ...]:
    """The names of the families (in ``FAMILIES`` order) of the given card-play kinds."""
    kinds = np.unique(np.asarray(play_kinds, dtype=np.int64))
    return tuple(f.name for f in FAMILIES if ((kinds >= f.kinds[0]) & (kinds < f.kinds[1])).any())


def card_bindings(families) -> dict:
    """Hook bindings of ``choose_card`` with the given families compiled in."""
    families = set(families)
    unknown = families - {f.name for f in FAMILIES}
    if unknown:
        raise ValueError(f"unknown agent families {sorted(unknown)}")
    out: dict = {"choose_card": choose_card}
    for f in FAMILIES:
        out[f.hook] = Bound(f.name, f.card) if f.name in families else absent_family
    return out
