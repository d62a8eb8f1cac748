"""Speed of one generation's tournament on 1 and 2 workers (``python -m evolve.bench
evolution``). Workers are started and warmed first; each timing is the best of repeats."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np


def bench_generation(config: str | Path, workers: tuple[int, ...] = (1, 2), repeats: int = 3,
                     generations: int = 3, games: int | None = None, rounds: int | None = None) -> dict:
    """Rounds/s of evaluating ``generations`` generations for each worker count
    (``games`` / ``rounds`` override the config's tournament size)."""
    from evolve.evolution.config import load_config
    from evolve.evolution.parallel import make_runner
    from evolve.evolution.runner import Evolution

    cfg = load_config(config)
    over = {k: v for k, v in (("games_per_generation", games), ("rounds_per_game", rounds)) if v}
    cfg = cfg.with_overrides(evolution=over, imitation={"teacher": ""})   # random members: no warm start
    evo = Evolution(cfg, progress=False)
    state = evo.initial_state()
    specs = evo.member_specs(state.population)
    out = {"config": str(config), "population": len(specs),
           "rounds_per_generation": cfg.evolution["games_per_generation"] * cfg.evolution["rounds_per_game"]}
    for w in workers:
        with make_runner(cfg.parallel["backend"], w, cfg.parallel["scheduler"]) as runner:
            evo.tournament.evaluate(specs, 0, 0, runner, w)  # warm-up: compile / load caches in every worker
            best = float("inf")
            for _ in range(repeats):
                t = time.perf_counter()
                for g in range(generations):
                    evo.tournament.evaluate(specs, 0, g + 1, runner, w)
                best = min(best, time.perf_counter() - t)
        out[f"workers_{w}"] = {"seconds_per_generation": best / generations,
                               "rounds_per_second": out["rounds_per_generation"] * generations / best}
    if 1 in workers and 2 in workers:
        out["speedup_2_vs_1"] = out["workers_2"]["rounds_per_second"] / out["workers_1"]["rounds_per_second"]
    return out
