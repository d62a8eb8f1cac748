"""Markov card values (the Euchre paper's Markov agent): how many ordered 4-card tricks drawn from the deck a card
wins under each trump mode, counted exactly from a game's rules tables.

For a card ``c`` under mode ``m`` (``key`` = the trick key of ``evolve.games.rules.card_key``:
trumps above the led suit, every other suit loses):

- ``c`` leads (led suit = its own effective suit): the other three cards are any ordered
  triple of the ``n0`` cards whose key is below ``c``'s: ``n0 (n0-1) (n0-2)`` tricks;
- ``c`` in position 2, 3 or 4 (3 positions), led by a card ``L`` of suit ``s`` that ``c``
  beats: the remaining two cards come from the cards below ``c`` for a lead in ``s``
  other than ``L``: ``3 * sum_s a_s * (n_s-1) (n_s-2)`` with ``a_s`` the cards of suit
  ``s`` below ``c`` and ``n_s`` all cards below ``c`` for that lead.

Every trick has exactly one winner, so the values of a mode sum to ``n (n-1) (n-2) (n-3)``.
Euchre, spades trump (a check of the counts): of 255,024 ordered tricks the right bower wins 42,504,
the left bower 36,960 and the ace of trumps 31,920.

The values are plain numbers, so the evolution harness may replace them (``docs/how-to/evolve-parametric-agents.md``);
agents
carry them in their parameter vector (``markov_values`` fills it).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from evolve.games.rules import (
    LED_KEY,
    P_N_CARDS,
    P_N_MODES,
    RANK,
    SUIT,
    TRUMP,
    TRUMP_KEY,
    table,
)


def _falling(n: np.ndarray | int, k: int):
    """n (n-1) ... (n-k+1), zero when n < k."""
    n = np.asarray(n, dtype=np.int64)
    out = np.ones_like(n)
    for i in range(k):
        out = out * np.maximum(n - i, 0)
    return out


def _keys(suit: np.ndarray, rank: np.ndarray, trump: int) -> np.ndarray:
    """key[led, card] for one mode: trump 1000+rank, led suit 500+rank, otherwise -1."""
    n = suit.shape[0]
    key = np.full((4, n), -1, np.int64)
    for led in range(4):
        key[led] = np.where(suit == led, LED_KEY + rank, -1)
        if trump >= 0:
            key[led] = np.where(suit == trump, TRUMP_KEY + rank, key[led])
    return key


def count_values(rules: np.ndarray) -> np.ndarray:
    """Exact Markov values ``[mode, card]`` (int64) of the game described by ``rules``."""
    n_modes, n_cards = int(rules[P_N_MODES]), int(rules[P_N_CARDS])
    suits, ranks = table(rules, SUIT), table(rules, RANK)
    out = np.zeros((n_modes, n_cards), np.int64)
    for m in range(n_modes):
        suit = suits[m]
        key = _keys(suit, ranks[m], int(rules[TRUMP + m]))
        for c in range(n_cards):
            own = suit[c]
            n0 = int((key[own] < key[own, c]).sum())
            total = int(_falling(n0, 3))
            for s in range(4):
                below = key[s] < key[s, c]       # c itself is never below itself
                a = int((below & (suit == s)).sum())
                if a:
                    total += 3 * a * int(_falling(int(below.sum()) - 1, 2))
            out[m, c] = total
    return out


@lru_cache(maxsize=None)
def _cached(rules_bytes: bytes) -> np.ndarray:
    v = count_values(np.frombuffer(rules_bytes, dtype=np.int64))
    v.setflags(write=False)
    return v


def markov_values(rules: np.ndarray, kind: str = "count") -> np.ndarray:
    """Card values ``[mode, card]`` for the Markov agents.

    - ``count``: the exact number of ordered 4-card tricks the card wins (the Euchre paper);
    - ``strength``: the game's strength score of the card (``strength_of``), a cruder
      value kept for comparison.
    """
    rules = np.ascontiguousarray(rules, dtype=np.int64)
    if kind == "count":
        return _cached(rules.tobytes())
    if kind == "strength":
        from evolve.games.rules import STRENGTH

        return np.array(table(rules, STRENGTH), dtype=np.int64)
    raise ValueError(f"unknown Markov values {kind!r}; valid: count, strength")
