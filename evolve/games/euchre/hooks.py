"""Euchre's Numba hooks (``evolve.games.hooks`` calls them for ``rules[P_GAME] == GAME_ID``):
what the turned card's fate tells each seat, its call values in the environments' encoding,
and its result (tricks). Legality is the shared follow-suit rule on the effective suits
(the left bower is a trump)."""

from __future__ import annotations

from evolve.games.bits import kernel
from evolve.games.rules import P_DISCARD_UPCARD, P_SETUP
from evolve.games.scoring import tricks_result as seat_result  # noqa: F401 (a hook)
from evolve.games.scoring import tricks_scale as result_scale  # noqa: F401 (a hook)
from evolve.games.state import (
    ALONE,
    CALLS,
    DEALER,
    MAKER,
    OUT_SEAT,
    PHASE,
    UP_DEALER,
    UP_DEALER_OR_DISCARD,
    UP_OUT_OF_PLAY,
    UPCARD,
)

GAME_ID = 1
SETUPS = ("standard", "fixed_spades")
SETUP_FIXED_SPADES = 1
# the bidding log's values (``calls[0:4]`` round 1, ``calls[4:8]`` round 2, 0..3 a suit named)
CALL_PASS = 4
CALL_ORDER = 5
CALL_ALONE = 6       # the maker plays alone
CALL_PARTNER = 7     # the maker plays with its partner
_PLAYING = 2         # pub[PHASE] once the card play has started


@kernel
def ordered_up(pub):
    """Round 1 ended with the turned card ordered up."""
    for k in range(4):
        if pub[CALLS + k] == CALL_ORDER:
            return True
    return False


@kernel
def upcard_state(rules, pub):
    """The turned card (shown, ``pub[UPCARD] >= 0``): dead (1) until it is ordered up, then the
    dealer's (2), which the dealer holds or discarded."""
    return 2 if ordered_up(pub) else 1


@kernel
def upcard_place(rules, seat, pub):
    """Where ``seat``, which has not seen it in its hand or played, knows the turned card to
    be: out of play when turned down (and for the dealer, who took it: in its hand or its
    own discard, and when the dealer sits out); ordered up, the dealer holds it
    (``discard_upcard=false``) or holds it or discarded it."""
    dealer = pub[DEALER]
    if not ordered_up(pub) or seat == dealer or dealer == pub[OUT_SEAT]:
        return UP_OUT_OF_PLAY
    return UP_DEALER if rules[P_DISCARD_UPCARD] == 0 else UP_DEALER_OR_DISCARD


@kernel
def turned_up_card(rules, pub):
    """The turned card, which every seat has seen, or -1."""
    return pub[UPCARD]


@kernel
def n_calls(rules):
    """The number of call values: suits 0..3, pass, order, alone, partner (none under
    ``setup=fixed_spades``)."""
    return 0 if rules[P_SETUP] == SETUP_FIXED_SPADES else CALL_PARTNER + 1


@kernel
def public_maker(rules, pub):
    """The seat that fixed trump, or -1: the maker who ordered the turned card up is public
    from its call on; the engine writes ``pub[MAKER]`` only after the dealer's discard."""
    maker = pub[MAKER]
    if maker < 0:
        for k in range(4):
            if pub[CALLS + k] == CALL_ORDER:
                return (pub[DEALER] + 1 + k) & 3
    return maker


@kernel
def latest_call(rules, pub, s):
    """Seat ``s``'s latest call, or -1: the maker's alone / partner call is the last one
    before the play, which it starts."""
    k = (s - pub[DEALER] - 1) & 3           # the seat's place in the bidding order, from the forehand
    if pub[PHASE] == _PLAYING and pub[MAKER] == s:
        return CALL_ALONE if pub[ALONE] != 0 else CALL_PARTNER
    if pub[CALLS + 4 + k] >= 0:
        return pub[CALLS + 4 + k]
    return pub[CALLS + k]
