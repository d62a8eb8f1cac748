"""Network-agent benchmark: rounds (deals) per second with four evolved-network seats.

``bench_networks(seconds=1.5)`` plays, on one core, every game with four *different*
random networks of the Spades thesis's architecture (the realistic case: four sets of weights
compete for the cache) through the real engine, ``evolve.play(game, specs, n, seed)``, for
every encoding (card, hand, seat), and returns the best of ``repeats`` timings per game and
encoding. The target is Spades, card-based (156-156-156-52): >= 15,000 rounds/s per core.
``hidden`` (``--hidden H1,H2``) gives every encoding the same hidden sizes, to compare the
encodings' first layers alone (the thesis's rule sizes the seat encoding's 416 inputs to
329 hidden units, the card encoding's 156 to 156). ``layer2`` (``--layer2 int16``) times
networks whose second layer is int16 fixed point (``network.layer2``), ``suits``
(``--suits trump_first``) networks that renumber the suits with trump first
(``network.suits``).

Each entry also gives the CPU-time rate (``cpu_rounds_per_s``, less sensitive to other
processes on a busy machine), the network card decisions per second, and the share of
deals that reached card play (Euchre deals that everybody passes are redealt without play,
so its rounds/s mostly measures bidding).

Each game and encoding is also timed with ``evolve.play(..., lockstep=True)`` (the lockstep
kernel, ``evolve.runtime.lockstep``: same results, network decisions batched over many deals), next
to the batch kernel's figure as a ratio; its target is >= 30,000 rounds/s for Spades
card-based.

Run: ``python -m evolve.bench networks [--seconds S] [--json]``.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from evolve.games.registry import GAMES

ENCODINGS = ("card", "hand", "seat")
TARGET_GAME = ("spades", "card")
TARGET_RATE = 15_000
LOCKSTEP_TARGET = 30_000


def _specs(game, encoding: str, seed: int, hidden: tuple[int, int] | None = None, layer2: str = "float32",
           suits: str = "as_dealt"):
    from evolve.agents.genomes.champion import Champion
    from evolve.agents.network.architecture import Architecture

    arch = Architecture.for_game(game, encoding, hidden, layer2=layer2, suits=suits)
    rng = np.random.default_rng(seed)
    return arch, [Champion(arch, arch.random_genome(rng)).spec(f"net{s}") for s in range(4)]


def _timed(game, specs, n: int, seed: int, lockstep: bool = False) -> tuple[float, float, Any]:
    from evolve.runtime.play import play

    w, c = time.perf_counter(), time.process_time()
    r = play(game, specs, n, seed, lockstep=lockstep)
    return time.perf_counter() - w, time.process_time() - c, r


def bench_one(game_name: str, encoding: str, seconds: float = 1.5, repeats: int = 3, seed: int = 0,
              hidden: tuple[int, int] | None = None, layer2: str = "float32", suits: str = "as_dealt") -> dict:
    """4-network rounds/s of one game and encoding on one core (best of ``repeats``), by
    the batch kernel and by the lockstep kernel (``evolve.runtime.lockstep``; its figures under
    ``"lockstep"``, with ``"ratio"`` = lockstep / batch rounds/s). The repeats of the two
    alternate, so a busy spell of the machine falls on both alike."""
    from evolve.games.registry import make_game

    game = make_game(game_name)
    arch, specs = _specs(game, encoding, seed, hidden, layer2, suits)
    for lockstep in (False, True):
        _timed(game, specs, 20, seed, lockstep)  # compile or load the Numba cache
    n = 50
    while True:  # calibrate: one timing lasts about ``seconds``
        wall, _, _ = _timed(game, specs, n, seed)
        if wall >= 0.1 or n >= 10_000_000:
            break
        n *= 4
    n = max(50, int(n * seconds / max(wall, 1e-9)))
    walls: dict[bool, list[float]] = {False: [], True: []}
    cpus: dict[bool, list[float]] = {False: [], True: []}
    for k in range(repeats):
        for lockstep in (False, True):
            wall, cpu, r = _timed(game, specs, n, seed + 1 + k, lockstep)
            walls[lockstep].append(wall)
            cpus[lockstep].append(cpu)
    played = r.trump >= 0
    cards = int((r.tricks.sum(axis=1) * np.where(r.alone > 0, 3, 4)).sum())

    def figures(lockstep: bool) -> dict:
        best = min(walls[lockstep])
        return {"rounds_per_s": n / best, "cpu_rounds_per_s": n / min(cpus[lockstep]),
                "decisions_per_s": cards / best, "seconds": best, "times": walls[lockstep]}

    out = {"architecture": arch.to_json(), "deals": n, "played_share": float(played.mean()), **figures(False)}
    out["lockstep"] = figures(True)
    out["ratio"] = out["lockstep"]["rounds_per_s"] / out["rounds_per_s"]
    out["cpu_ratio"] = out["lockstep"]["cpu_rounds_per_s"] / out["cpu_rounds_per_s"]
    return out


def bench_networks(seconds: float = 1.5, games: Sequence[str] = GAMES, encodings: Sequence[str] = ENCODINGS,
                   repeats: int = 3, seed: int = 0, hidden: tuple[int, int] | None = None,
                   layer2: str = "float32", suits: str = "as_dealt") -> dict:
    """``{game: {encoding: {...}}, "target": {...}}``: 4-network rounds/s per game and
    encoding on one core (best of ``repeats``; see ``bench_one``), and the target
    (Spades card-based >= 15,000 rounds/s; with ``hidden``, every network has those
    hidden sizes; ``layer2``: their second layer's number format; ``suits``: how they
    number the suits)."""
    out: dict[str, Any] = {}
    for g in games:
        out[g] = {e: bench_one(g, e, seconds, repeats, seed, hidden, layer2, suits) for e in encodings}
    # the targets are for the default architecture
    default = not hidden and layer2 == "float32" and suits == "as_dealt"
    row = out.get(TARGET_GAME[0], {}).get(TARGET_GAME[1], {}) if default else {}
    value = row.get("rounds_per_s")
    out["target"] = {"name": "spades card-based 4-network rounds/s (1 core)", "value": value,
                     "threshold": TARGET_RATE, "pass": None if value is None else bool(value >= TARGET_RATE)}
    value = row.get("lockstep", {}).get("rounds_per_s")
    out["lockstep_target"] = {"name": "spades card-based 4-network rounds/s (1 core), lockstep", "value": value,
                              "threshold": LOCKSTEP_TARGET,
                              "pass": None if value is None else bool(value >= LOCKSTEP_TARGET)}
    return out


def format_networks(res: dict) -> str:
    """The table ``python -m evolve.bench networks`` prints."""
    lines = []
    for g, row in res.items():
        if g.endswith("target"):
            continue
        for e, r in row.items():
            arch = r["architecture"]
            ls = r["lockstep"]
            fmt = "".join(f" {arch[k]}" for k in ("layer2", "suits") if k in arch)
            lines.append(f"{g:7s} {e:5s} {arch['n_in']:4d}-{arch['n_h1']}-{arch['n_h2']}-{arch['n_out']:<3d}{fmt} "
                         f"{r['rounds_per_s']:>11,.0f} rounds/s  (cpu {r['cpu_rounds_per_s']:>11,.0f}; "
                         f"{r['decisions_per_s']:>11,.0f} decisions/s; played {r['played_share']:.0%})")
            lines.append(f"{'':13s} {'lockstep':>18s} {ls['rounds_per_s']:>11,.0f} rounds/s  "
                         f"(cpu {ls['cpu_rounds_per_s']:>11,.0f}; x{r['ratio']:.2f}, cpu x{r['cpu_ratio']:.2f})")
    for name in ("target", "lockstep_target"):
        t = res[name]
        if t["value"] is not None:
            lines.append(f"target: {t['name']} >= {t['threshold']:,}: {t['value']:,.0f} -> "
                         f"{'PASS' if t['pass'] else 'MISS'}")
    return "\n".join(lines)

