"""Games (matches) built from consecutive deals: a game ends when a side reaches the target
with a strictly highest score; standard Spades charges 100 points per ten bags."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def accumulate_games(score, bags, n_sides, target, bag_limit, losing_target=False):
    """Group consecutive deals into games to ``target`` (0: no target, one running total
    over the whole run, game index 0 throughout).

    Returns per deal: game index, cumulative game score per side after the deal (with the
    Spades bag penalty of -100 per ``bag_limit`` accumulated bags, if ``bag_limit`` > 0),
    and the winning side of a game that ends on this deal (-1 otherwise). A game ends when
    a side reaches the target with a strictly highest score; with ``losing_target`` (Hearts,
    whose hand score is minus the points taken) when a side's total falls to minus the
    target and one side has the strictly highest total, which wins."""
    n = score.shape[0]
    game_id = np.zeros(n, np.int64)
    game_score = np.zeros((n, n_sides), np.int64)
    winner = np.full(n, -1, np.int64)
    current = np.zeros(n_sides, np.int64)
    bag_count = np.zeros(n_sides, np.int64)
    g = 0
    for i in range(n):
        for s in range(n_sides):
            current[s] += score[i, s]
            if bag_limit > 0:
                bag_count[s] += bags[i, s]
                while bag_count[s] >= bag_limit:
                    bag_count[s] -= bag_limit
                    current[s] -= 100
            game_score[i, s] = current[s]
        game_id[i] = g
        if target > 0:
            best = 0
            for s in range(1, n_sides):
                if current[s] > current[best]:
                    best = s
            unique = True
            for s in range(n_sides):
                if s != best and current[s] == current[best]:
                    unique = False
            reached = current[best] >= target
            if losing_target:
                worst = current[0]
                for s in range(1, n_sides):
                    worst = min(worst, current[s])
                reached = worst <= -target
            if reached and unique:
                winner[i] = best
                g += 1
                current[:] = 0
                bag_count[:] = 0
    return game_id, game_score, winner
