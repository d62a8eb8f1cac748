"""Speed of one generation's tournament on 1 and 2 workers (``python -m evolve.bench
evolution``). Workers are started and warmed first; the repeats of the worker counts
alternate, and each figure is the best repeat (the median is reported too)."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import numpy as np


def bench_generation(config: str | Path, workers: tuple[int, ...] = (1, 2), repeats: int = 3,
                     generations: int = 3, games: int | None = None, rounds: int | None = None,
                     backend: str | None = None, evaluation: str | None = None, sets=()) -> dict:
    """Rounds/s of evaluating ``generations`` generations for each worker count
    (``games`` / ``rounds`` override the config's tournament size, ``backend`` its
    parallel backend, ``evaluation`` its ``[evolution] evaluation``; ``sets`` its ``--set``
    overrides). When ``games`` tables seat fewer members than the
    population, the
    population shrinks to the members they seat (a run must seat every member; the
    thesis's tournament seats them all at every game)."""
    from evolve.evolution.config import SCHEMA, load_config
    from evolve.evolution.parallel import make_runner
    from evolve.evolution.runner import Evolution

    cfg = load_config(config, sets)
    over = {
        k: v for k, v in (("games_per_generation", games), ("rounds_per_game", rounds), ("evaluation", evaluation)) if v
    }
    if games and cfg.evolution["tournament"] != "thesis":      # the thesis's seats every member at every game
        from evolve.evolution.tournament import member_seats

        seats = member_seats(games, len(cfg.evolution["opponents"]), cfg.evolution["opponent_share"])
        if seats < cfg.evolution["population"]:
            over["population"] = max(4, seats)
    if cfg.evolution["champion"] == "founder_unless_better":
        over["champion"] = "validated"      # random members have no founder; the timing never picks a champion
    no_warm_start = {k: key.default for k, key in SCHEMA["imitation"].items()}   # random members
    cfg = cfg.with_overrides(evolution=over, imitation=no_warm_start,
                             parallel={"backend": backend} if backend else {})
    evo = Evolution(cfg, progress=False)
    state = evo.initial_state()
    specs = evo.member_specs(state.population)
    tables = evo.tournament.plan(len(specs), 0, 0)[0].n_tables   # with common random numbers: member x opponent
    out = {"config": str(config), "backend": cfg.parallel["backend"], "evaluation": cfg.evolution["evaluation"],
           "population": len(specs),
           "rounds_per_generation": tables * cfg.evolution["rounds_per_game"]}
    with ExitStack() as stack:
        runners = {w: stack.enter_context(make_runner(cfg.parallel["backend"], w, cfg.parallel["scheduler"]))
                   for w in workers}
        for w, runner in runners.items():
            for g in range(3):    # warm-up: compile / load caches in every worker, time the hand-off
                evo.tournament.evaluate(specs, 0, g, runner, w)
        # repeats alternate between the worker counts, so a noisy spell of the machine
        # falls on all of them alike
        seconds = {w: [] for w in workers}
        for _ in range(repeats):
            for w, runner in runners.items():
                t = time.perf_counter()
                for g in range(generations):
                    evo.tournament.evaluate(specs, 0, g + 1, runner, w)
                seconds[w].append((time.perf_counter() - t) / generations)
    for w in workers:
        out[f"workers_{w}"] = {"seconds_per_generation": min(seconds[w]),
                               "median_seconds_per_generation": float(np.median(seconds[w])),
                               "rounds_per_second": out["rounds_per_generation"] / min(seconds[w])}
    if 1 in workers and 2 in workers:
        out["speedup_2_vs_1"] = out["workers_2"]["rounds_per_second"] / out["workers_1"]["rounds_per_second"]
        out["median_speedup_2_vs_1"] = (out["workers_1"]["median_seconds_per_generation"]
                                        / out["workers_2"]["median_seconds_per_generation"])
    return out
