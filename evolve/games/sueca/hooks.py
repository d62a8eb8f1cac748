"""Sueca's Numba hooks (``evolve.games.hooks`` calls them for ``rules[P_GAME] == GAME_ID``):
the shown trump card stays in the dealer's hand (the study's random card has no announced
holder); its result is card points. Legality is the shared follow-suit rule."""

from __future__ import annotations

from evolve.games.bits import kernel
from evolve.games.rules import P_SETUP
from evolve.games.scoring import points_result as seat_result  # noqa: F401 (a hook)
from evolve.games.scoring import points_scale as result_scale  # noqa: F401 (a hook)
from evolve.games.state import DEALER, UP_DEALER, UP_UNKNOWN

GAME_ID = 2
SETUPS = ("standard", "study")
SETUP_STUDY = 1


@kernel
def upcard_state(rules, pub):
    """The shown card (``pub[UPCARD] >= 0``): the dealer's (2), or of no announced holder (0)
    under ``setup=study``."""
    return 0 if rules[P_SETUP] == SETUP_STUDY else 2


@kernel
def upcard_place(rules, seat, pub):
    """Where ``seat``, which has not seen it played, knows the shown card to be: in the
    dealer's hand (the study's random card: anywhere)."""
    if rules[P_SETUP] != SETUP_STUDY and seat != pub[DEALER]:
        return UP_DEALER
    return UP_UNKNOWN
