"""The hooks through which the shared trick engine asks a game what only that game knows,
selected by the game's id (``rules[P_GAME]``, each game's ``hooks.GAME_ID``): its legality
(when it is not the plain follow-suit rule), what a play that does not follow shows, which
cards void bits exclude, where the turned card is, its result at the end of a deal, and its
call values in the environments' encoding.

Each game writes its hooks in its own folder (``evolve/games/<game>/hooks.py``); a game that
does not define one gets the shared default named beside it here. This module is part of a
game's registration: a new game adds its branch to the hooks it defines. Numba has no
dynamic dispatch, so the choice is a chain of branches on the game id, inlined into every
kernel like the game tables it reads (as fast as the branch on a rules flag it replaces).
``tests/test_game_hooks.py`` checks that every registered game has a distinct id and that
each hook a game's folder defines is reached here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import has, kernel
from evolve.games.euchre import hooks as euchre
from evolve.games.hearts import hooks as hearts
from evolve.games.jass import hooks as jass
from evolve.games.rules import LEGAL_FOLLOW, P_GAME, P_LEGALITY, follow_legal, follow_voids, suit_voids, trump_breaks
from evolve.games.spades import hooks as spades
from evolve.games.state import MAKER, UP_UNKNOWN
from evolve.games.sueca import hooks as sueca

#: every game folder's hooks module, by game id (a new game adds itself here)
GAME_HOOKS = {m.GAME_ID: m for m in (spades, euchre, sueca, jass, hearts)}
#: the hooks a game may define, each with the shared default a game without it gets
HOOKS = {
    "legal_cards": "follow_legal", "note_voids": "follow_voids", "void_cards": "suit_voids",
    "breaks": "trump_breaks", "trick_taken": "nothing",
    "upcard_state": "no shown card", "upcard_place": "UP_UNKNOWN", "turned_up_card": "none (-1)",
    "seat_result": "(required)", "result_scale": "(required)",
    "n_calls": "0", "public_maker": "pub[MAKER]", "latest_call": "-1",
}


@njit(cache=True, inline="always")
def legal_cards(rules, mode, hand, pub):
    """The mask of cards the owner of ``hand`` may play now."""
    if rules[P_LEGALITY] != LEGAL_FOLLOW:
        game = rules[P_GAME]
        if game == jass.GAME_ID:
            return jass.legal_cards(rules, mode, hand, pub)
        if game == hearts.GAME_ID:
            return hearts.legal_cards(rules, mode, hand, pub)
    return follow_legal(rules, mode, hand, pub)


def is_legal(rules: np.ndarray, mode: int, hand_mask: int, pub, card: int) -> bool:
    """Python convenience: whether ``card`` is a legal play."""
    return bool(has(legal_cards(rules, mode, np.uint64(hand_mask), pub), card))


@njit(cache=True, inline="always")
def note_voids(rules, mode, pub, seat, card, q, led):
    """Note in ``pub[VOIDS + seat]`` what ``seat`` showed by playing ``card``, not of the led
    suit ``led``, as the ``q``-th card (q > 0) of the trick."""
    if rules[P_GAME] == jass.GAME_ID:
        jass.note_voids(rules, mode, pub, seat, card, q, led)
    else:
        follow_voids(rules, mode, pub, seat, card, q, led)


@njit(cache=True, inline="always")
def breaks(rules, mode, card):
    """Whether playing ``card`` breaks the lead restriction (``pub[BROKEN]``; by default a
    trump, which ``break_spades`` keeps from the lead until then)."""
    if rules[P_GAME] == hearts.GAME_ID:
        return hearts.breaks(rules, mode, card)
    return trump_breaks(rules, mode, card)


@njit(cache=True, inline="always")
def trick_taken(rules, mode, pub, winner, n_active):
    """A full trick (``pub[TRICK_CARDS]``, ``n_active`` cards) went to ``winner``, after its
    tricks and points were counted: what the game keeps beyond them goes into
    ``pub[GAME_STATE]`` (by default nothing; the search's playouts call it too)."""
    if rules[P_GAME] == hearts.GAME_ID:
        hearts.trick_taken(rules, mode, pub, winner, n_active)


@njit(cache=True, inline="always")
def void_cards(rules, mode, voids):
    """The cards a seat with the void bits ``voids`` (``pub[VOIDS + s]``) cannot hold."""
    if rules[P_GAME] == jass.GAME_ID:
        return jass.void_cards(rules, mode, voids)
    return suit_voids(rules, mode, voids)


@kernel
def upcard_state(rules, pub):
    """The shown card ``pub[UPCARD] >= 0``: 0 its holder unknown, 1 dead, 2 the dealer's
    (``evolve.games.knowledge.upcard_state``)."""
    game = rules[P_GAME]
    if game == sueca.GAME_ID:
        return sueca.upcard_state(rules, pub)
    if game == euchre.GAME_ID:
        return euchre.upcard_state(rules, pub)
    return 0


@kernel
def upcard_place(rules, seat, pub):
    """Where ``seat``, which holds and has seen played no such card, knows the shown card
    ``pub[UPCARD] >= 0`` to be (``UP_*`` of ``evolve.games.state``)."""
    game = rules[P_GAME]
    if game == euchre.GAME_ID:
        return euchre.upcard_place(rules, seat, pub)
    if game == sueca.GAME_ID:
        return sueca.upcard_place(rules, seat, pub)
    return UP_UNKNOWN


@njit(cache=True, inline="always")
def turned_up_card(rules, pub):
    """The card turned up to propose trump (Euchre's upcard), which every seat has seen, or
    -1. The Sueca shown trump card is not one: it is a card of the dealer's hand."""
    if rules[P_GAME] == euchre.GAME_ID:
        return euchre.turned_up_card(rules, pub)
    return -1


@njit(cache=True, inline="always")
def seat_result(rules, p, s):
    """The result of ``s``'s side at the end of the deal ``p`` (``evolve.games.scoring``)."""
    game = rules[P_GAME]
    if game == spades.GAME_ID:
        return spades.seat_result(rules, p, s)
    if game == euchre.GAME_ID:
        return euchre.seat_result(rules, p, s)
    if game == sueca.GAME_ID:
        return sueca.seat_result(rules, p, s)
    if game == jass.GAME_ID:
        return jass.seat_result(rules, p, s)
    return hearts.seat_result(rules, p, s)


@kernel
def result_scale(rules, mode):
    """The largest result of a deal (normalises UCT returns to [0, 1])."""
    game = rules[P_GAME]
    if game == spades.GAME_ID:
        return spades.result_scale(rules, mode)
    if game == euchre.GAME_ID:
        return euchre.result_scale(rules, mode)
    if game == sueca.GAME_ID:
        return sueca.result_scale(rules, mode)
    if game == jass.GAME_ID:
        return jass.result_scale(rules, mode)
    return hearts.result_scale(rules, mode)


@kernel
def n_calls(rules):
    """The number of the game's call values (the environments' actions beyond the cards)."""
    game = rules[P_GAME]
    if game == spades.GAME_ID:
        return spades.n_calls(rules)
    if game == euchre.GAME_ID:
        return euchre.n_calls(rules)
    if game == jass.GAME_ID:
        return jass.n_calls(rules)
    return 0


@kernel
def public_maker(rules, pub):
    """The seat that fixed trump as every seat knows it, or -1."""
    if rules[P_GAME] == euchre.GAME_ID:
        return euchre.public_maker(rules, pub)
    return pub[MAKER]


@kernel
def latest_call(rules, pub, s):
    """Seat ``s``'s latest public call in the game's call values, or -1."""
    game = rules[P_GAME]
    if game == spades.GAME_ID:
        return spades.latest_call(rules, pub, s)
    if game == euchre.GAME_ID:
        return euchre.latest_call(rules, pub, s)
    if game == jass.GAME_ID:
        return jass.latest_call(rules, pub, s)
    return -1
