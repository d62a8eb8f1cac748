"""Network-agent benchmark: rounds (deals) per second with four evolved-network seats.

``bench_networks(seconds=1.5)`` plays, on one core, every game with four *different*
random networks of the SPEC §3 architecture (the realistic case: four sets of weights
compete for the cache) through the real engine, ``evolve.play(game, specs, n, seed)``, for
both encodings, and returns the best of ``repeats`` timings per game and encoding. The
issue target is Spades, card-based (156-156-156-52): >= 15,000 rounds/s per core.

Each entry also gives the CPU-time rate (``cpu_rounds_per_s``, less sensitive to other
processes on a busy machine), the network card decisions per second, and the share of
deals that reached card play (Euchre deals that everybody passes are redealt without play,
so its rounds/s mostly measures bidding).

Run: ``python -m evolve.bench networks [--seconds S] [--json]``.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

GAMES = ("spades", "euchre", "sueca", "jass")
ENCODINGS = ("card", "hand")
TARGET_GAME = ("spades", "card")
TARGET_RATE = 15_000


def _specs(game, encoding: str, seed: int):
    from evolve.agents.champion import Champion
    from evolve.agents.network import Architecture

    arch = Architecture.for_game(game, encoding)
    rng = np.random.default_rng(seed)
    return arch, [Champion(arch, arch.random_genome(rng)).spec(f"net{s}") for s in range(4)]


def _timed(game, specs, n: int, seed: int) -> tuple[float, float, Any]:
    import evolve

    w, c = time.perf_counter(), time.process_time()
    r = evolve.play(game, specs, n, seed)
    return time.perf_counter() - w, time.process_time() - c, r


def bench_one(game_name: str, encoding: str, seconds: float = 1.5, repeats: int = 3, seed: int = 0) -> dict:
    """4-network rounds/s of one game and encoding on one core (best of ``repeats``)."""
    from evolve.games.registry import make_game

    game = make_game(game_name)
    arch, specs = _specs(game, encoding, seed)
    _timed(game, specs, 20, seed)  # compile or load the Numba cache
    n = 50
    while True:  # calibrate: one timing lasts about ``seconds``
        wall, _, _ = _timed(game, specs, n, seed)
        if wall >= 0.1 or n >= 10_000_000:
            break
        n *= 4
    n = max(50, int(n * seconds / max(wall, 1e-9)))
    walls, cpus = [], []
    for k in range(repeats):
        wall, cpu, r = _timed(game, specs, n, seed + 1 + k)
        walls.append(wall)
        cpus.append(cpu)
    played = r.trump >= 0
    cards = int((r.tricks.sum(axis=1) * np.where(r.alone > 0, 3, 4)).sum())
    best = min(walls)
    return {
        "architecture": arch.to_json(),
        "deals": n,
        "rounds_per_s": n / best,
        "cpu_rounds_per_s": n / min(cpus),
        "decisions_per_s": cards / best,
        "played_share": float(played.mean()),
        "seconds": best,
        "times": walls,
    }


def bench_networks(seconds: float = 1.5, games: Sequence[str] = GAMES, encodings: Sequence[str] = ENCODINGS,
                   repeats: int = 3, seed: int = 0) -> dict:
    """``{game: {encoding: {...}}, "target": {...}}``: 4-network rounds/s per game and
    encoding on one core (best of ``repeats``; see ``bench_one``), and the issue target
    (Spades card-based >= 15,000 rounds/s)."""
    out: dict[str, Any] = {}
    for g in games:
        out[g] = {e: bench_one(g, e, seconds, repeats, seed) for e in encodings}
    value = out.get(TARGET_GAME[0], {}).get(TARGET_GAME[1], {}).get("rounds_per_s")
    out["target"] = {"name": "spades card-based 4-network rounds/s (1 core)", "value": value,
                     "threshold": TARGET_RATE, "pass": None if value is None else bool(value >= TARGET_RATE)}
    return out


def format_networks(res: dict) -> str:
    """The table ``python -m evolve.bench networks`` prints."""
    lines = []
    for g, row in res.items():
        if g == "target":
            continue
        for e, r in row.items():
            arch = r["architecture"]
            lines.append(f"{g:7s} {e:5s} {arch['n_in']:4d}-{arch['n_h1']}-{arch['n_h2']}-{arch['n_out']:<3d} "
                         f"{r['rounds_per_s']:>11,.0f} rounds/s  (cpu {r['cpu_rounds_per_s']:>11,.0f}; "
                         f"{r['decisions_per_s']:>11,.0f} decisions/s; played {r['played_share']:.0%})")
    t = res["target"]
    if t["value"] is not None:
        lines.append(f"target: {t['name']} >= {t['threshold']:,}: {t['value']:,.0f} -> {'PASS' if t['pass'] else 'MISS'}")
    return "\n".join(lines)


if __name__ == "__main__":
    from evolve.bench import main

    raise SystemExit(main(["networks", *__import__("sys").argv[1:]]))
