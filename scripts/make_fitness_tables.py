"""Generate ``evolve/evolution/data/advanced_fitness.npz``: per game, trump mode, card and
role (led / followed), the score round(100 x (1 - p)) where p is the probability that the
card wins the trick, estimated from random play with the project's engine.

    python scripts/make_fitness_tables.py [--deals 2000000] [--seed 7]

Method: random legal play by four `random` seats (random bids and calls), every card play
recorded; p(mode, card, role) = wins / plays over all tricks of that mode. Cards that never
occur in a role (e.g. Euchre cards in a mode where they cannot be led) get p = 0.5. Spades
is not generated: it uses the Spades thesis's closed form (evolve.evolution.fitness.spades_table).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import evolve
from evolve.evolution.fitness import DATA, _record_arrays, win_counts


def measure(game: str, deals: int, seed: int, **options) -> np.ndarray:
    info = evolve.make_game(game, **options).info
    played = np.zeros((info.n_modes, info.n_cards, 2), np.int64)
    won = np.zeros_like(played)
    chunk = 200_000
    for start in range(0, deals, chunk):
        r = evolve.play(game, "random", min(chunk, deals - start), seed, start=start, record=True, **options)
        p, w = win_counts(*_record_arrays(r), info.n_modes, info.n_cards)
        played += p
        won += w
    prob = np.where(played > 0, won / np.maximum(played, 1), 0.5)
    return np.rint(100 * (1 - prob)).astype(np.int64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    tables = {
        "euchre": measure("euchre", args.deals, args.seed, stick_the_dealer=True),
        "sueca": measure("sueca", args.deals, args.seed),
        "jass": measure("jass", args.deals, args.seed),
    }
    Path(DATA).parent.mkdir(parents=True, exist_ok=True)
    np.savez(DATA, **tables)
    print(f"wrote {DATA}: " + ", ".join(f"{k} {v.shape}" for k, v in tables.items()))


if __name__ == "__main__":
    main()
