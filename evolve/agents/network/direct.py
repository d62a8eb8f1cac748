"""Direct per-card feature connections of a network (``network.direct``): six features of
what the seat sees, each times an evolved weight, added to each legal card's output.

The features of a card: it would win the trick as it stands; it wins for certain (no
opponent still to play may hold better, judged by the voids shown); its strength; its
strength while the partner is winning; its points; its strength if it would win. They are
hand-made features of the project, not learnt ones."""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.agents.network.simd import _F
from evolve.games.bits import ZERO
from evolve.games.knowledge import (
    may_beat,
    may_hold,
    partner_of,
    partner_winning,
    trick_winner_pos,
)
from evolve.games.rules import P_N_CARDS, card_key, points_of, strength_of, suit_of
from evolve.games.state import (
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    TRICK_CARDS,
)
from evolve.games.trick import next_active

# Direct connections (``Architecture.direct``): per-card features of what the seat sees,
# each times a weight D[k] in [-1, 1] times DIRECT_SCALE, added to the card's output (see
# ``_direct_features``). The hidden layers' output of a card lies within about ±n_h2.
DIRECT_FEATURES = 6
DIRECT_SCALE = 8.0


@njit(cache=True, inline="always")
def _direct_context(rules, mode, seat, hand, pub):
    """What the direct features of every card of one decision share, computed once per
    decision: the mode's highest strength, whether the partner is winning the trick, the
    cards played so far in the trick, the led suit and the winning card's trick key (when
    the trick is not empty), and the cards that the opponents still to play may hold."""
    top = 1
    for c in range(rules[P_N_CARDS]):
        top = max(top, strength_of(rules, mode, c))
    nplayed = pub[NPLAYED]
    led = -1
    win_key = 0
    if nplayed > 0:
        led = suit_of(rules, mode, pub[TRICK_CARDS])
        win_key = card_key(rules, mode, pub[TRICK_CARDS + trick_winner_pos(rules, mode, pub)], led)
    partner = partner_of(rules, seat, pub)
    threat = ZERO
    s = seat
    for _ in range(pub[N_ACTIVE] - nplayed - 1):
        s = next_active(s, pub[OUT_SEAT])
        if s != partner:
            threat |= may_hold(rules, mode, seat, hand, pub, s)
    return float(top), partner_winning(rules, mode, seat, pub), nplayed, led, win_key, threat


@njit(cache=True, inline="always")
def _direct_features(rules, mode, card, ctx):
    """The DIRECT_FEATURES direct features of ``card`` (a tuple), from what the seat sees
    (``ctx``: its ``_direct_context``): 0 the card would win the trick as it stands (or
    leads it); 1 it wins the trick for certain (no opponent still to play may beat it, by
    the voids shown); 2 its strength in [0, 1] of the mode's highest strength; 3 its
    strength while the partner is winning the trick, else 0; 4 its card points / 20; 5 its
    strength if it would win as it stands, else 0."""
    top, partner_wins, nplayed, led_now, win_key, threat = ctx
    led = suit_of(rules, mode, card) if nplayed == 0 else led_now
    key = card_key(rules, mode, card, led)
    wins = nplayed == 0 or key > win_key
    # "some opponent may beat it" for each opponent is "the cards any of them may hold
    # include a better one"
    sure = wins and not may_beat(rules, mode, threat, led, key)
    strength = strength_of(rules, mode, card) / top
    return (1.0 if wins else 0.0, 1.0 if sure else 0.0, strength, strength if partner_wins else 0.0,
            points_of(rules, mode, card) / 20.0, strength if wins else 0.0)


@njit(cache=True, inline="always")
def _direct_term(params, d_ofs, rules, mode, card, ctx):
    """DIRECT_SCALE x the dot product of the card's direct features and the weights D."""
    f = _direct_features(rules, mode, card, ctx)
    w32 = params.view(np.float32)
    total = (w32[d_ofs] * f[0] + w32[d_ofs + 1] * f[1] + w32[d_ofs + 2] * f[2] + w32[d_ofs + 3] * f[3]
             + w32[d_ofs + 4] * f[4] + w32[d_ofs + 5] * f[5])
    return _F(DIRECT_SCALE * total)
