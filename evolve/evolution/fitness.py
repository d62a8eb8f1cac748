"""Fitness kinds (the Spades thesis's simple and advanced fitness, and side figures), computed per seat from a batch of
recorded deals.

- ``simple``: tricks taken.
- ``advanced``: for every trick taken, a score of the card that won it,
  round(100 x (1 - p)) with p the probability that this card wins a trick when it was
  led / when it followed. Spades uses the thesis's closed form (its Appendix B); the other games use tables
  measured by ``scripts/make_fitness_tables.py`` and shipped in
  ``evolve/evolution/data/advanced_fitness.npz`` (indexed [mode, card, role], role 0 =
  led, 1 = followed).
- ``side_points``: the card points (tricks in Spades/Euchre) of the seat's side.
- ``side_score``: the hand score of the seat's side.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from evolve.games.trick import next_active

DATA = Path(__file__).resolve().parent / "data" / "advanced_fitness.npz"
KINDS = ("simple", "advanced", "side_points", "side_score")


def spades_table() -> np.ndarray:
    """The Spades thesis's card scores [1, 52, 2] (role 0 led, 1 followed)."""
    table = np.zeros((1, 52, 2), np.int64)
    for card in range(52):
        suit, r = divmod(card, 13)
        r += 2
        if suit == 3:
            p_led = p_follow = (r - 2 + 39) / 51
        else:
            p_led = (2 * (r - 2) + 14) / 51
            p_follow = (r - 2) / 51
        table[0, card] = (round(100 * (1 - p_led)), round(100 * (1 - p_follow)))
    return table


# games whose card scores have a closed form (the Spades thesis); the others' are measured
CLOSED_FORM = {"spades": spades_table}


@lru_cache(maxsize=None)
def advanced_table(game: str) -> np.ndarray:
    """Card scores [modes, cards, 2] of a game."""
    if game in CLOSED_FORM:
        return CLOSED_FORM[game]()
    with np.load(DATA, allow_pickle=False) as data:
        return np.asarray(data[game], np.int64)


@njit(cache=True, inline="always")
def _seat_at(leader, q, out_seat):
    """Seat of the q-th card of a trick led by ``leader`` (skipping ``out_seat``)."""
    seat = leader
    for _ in range(q):
        seat = next_active(seat, out_seat)
    return seat


@njit(cache=True)
def advanced_scores(plays, leaders, winners, mode, maker, alone, table):
    """Per deal and seat, the sum of the card scores of the tricks the seat won."""
    n, n_tricks = winners.shape
    out = np.zeros((n, 4), np.int64)
    for i in range(n):
        out_seat = (maker[i] + 2) % 4 if alone[i] != 0 else -1
        n_active = 3 if out_seat >= 0 else 4
        m = max(mode[i], 0)
        for t in range(n_tricks):
            w = winners[i, t]
            if w < 0:
                continue
            for q in range(n_active):
                if _seat_at(leaders[i, t], q, out_seat) == w:
                    out[i, w] += table[m, plays[i, t * n_active + q], 0 if q == 0 else 1]
                    break
    return out


@njit(cache=True)
def win_counts(plays, leaders, winners, mode, maker, alone, n_modes, n_cards):
    """Plays and wins per [mode, card, role] over recorded deals (for the score tables)."""
    n, n_tricks = winners.shape
    played = np.zeros((n_modes, n_cards, 2), np.int64)
    won = np.zeros((n_modes, n_cards, 2), np.int64)
    for i in range(n):
        if mode[i] < 0:
            continue
        out_seat = (maker[i] + 2) % 4 if alone[i] != 0 else -1
        n_active = 3 if out_seat >= 0 else 4
        for t in range(n_tricks):
            for q in range(n_active):
                c = plays[i, t * n_active + q]
                role = 0 if q == 0 else 1
                played[mode[i], c, role] += 1
                if _seat_at(leaders[i, t], q, out_seat) == winners[i, t]:
                    won[mode[i], c, role] += 1
    return played, won


def _record_arrays(result):
    return (result.plays.astype(np.int64), result.leaders.astype(np.int64), result.winners.astype(np.int64),
            result.trump.astype(np.int64), result.maker.astype(np.int64), result.alone.astype(np.int64))


def seat_fitness(result, kind: str) -> np.ndarray:
    """Fitness of every seat in every deal of a ``PlayResult`` (record=True for advanced)."""
    g = result.game
    if kind == "simple":
        return result.tricks.astype(np.float64)
    if kind == "advanced":
        table = advanced_table(g.name)
        return advanced_scores(*_record_arrays(result), table).astype(np.float64)
    sides = np.array([g.side_of(s) for s in range(4)])
    if kind == "side_points":
        return result.side_points()[:, sides].astype(np.float64)
    if kind == "side_score":
        return result.score[:, sides].astype(np.float64)
    raise ValueError(f"unknown fitness {kind!r}; valid: {', '.join(KINDS)}")
