"""What one decision of an agent costs: card-play positions from recorded deals, timed
through ``evolve.agent`` (the agent's own Numba decision on a seat's observation).

Positions are every card-play decision of seat 0 (playing the agent, the other seats
Random) with at least two legal cards, early and late tricks alike: a forced card costs
nothing. The first few decisions warm the agent up (compiles and cache loads are not
timed). ``python -m evolve.bench decisions`` and the search-level study
(``experiments/studies/search_level.toml``) report these figures.

A call through ``evolve.agent`` includes Python's overhead (about 4-5 µs, what Random
costs there), which dwarfs a network's own work. ``engine_cost`` measures an agent where
it plays in evaluation, inside the engine: deals with the agent in all four seats against
the same deals with Random in all four, the difference per card decision.
"""

from __future__ import annotations

import time

import numpy as np

WARM_UP = 5


def positions(seat: str, game: str, options: dict, n: int, seed: int) -> list:
    """Up to ``n`` card-play observations of seat 0 (playing ``seat``) with a choice of
    cards, from recorded deals."""
    from evolve.games.observation import observations
    from evolve.games.registry import make_game
    from evolve.runtime.play import play

    deals = max(1, 2 * n // make_game(game, **options).info.n_tricks + 1)
    r = play(game, [seat, "random"], deals, seed=seed, record=True, **options)
    out = []
    for i in range(deals):
        out += [o for o, _ in observations(r, i) if o.seat == 0 and o.decision == "card" and len(o.legal()) > 1]
    return out[:n]


def time_calls(fn, items) -> np.ndarray:
    """Microseconds of ``fn(x)`` for each item."""
    t = np.empty(len(items))
    for k, x in enumerate(items):
        a = time.perf_counter()
        fn(x)
        t[k] = time.perf_counter() - a
    return t * 1e6


def decision_latency(seat: str, game: str, options: dict | None = None, n: int = 200, seed: int = 0) -> dict:
    """Median and 90th percentile (microseconds) of one card-play decision of ``seat``,
    and decisions per second on one core (1e6 / median)."""
    from evolve.runtime.decide import agent as make_agent

    options = dict(options or {})
    obs = positions(seat, game, options, n, seed)
    agent = make_agent(seat, game, seed=seed, **options)
    for o in obs[:WARM_UP]:
        agent.act(o)
    t = time_calls(agent.act, obs)
    median = float(np.median(t))
    return {"decisions": len(obs), "median_us": median, "p90_us": float(np.percentile(t, 90)),
            "per_second": 1e6 / median if median > 0 else float("inf")}


def engine_cost(seat: str, game: str, options: dict | None = None, seed: int = 0, min_seconds: float = 0.5) -> dict:
    """Microseconds per card-play decision of ``seat`` inside the engine, one core: the
    agent in all four seats minus Random in all four on the same deals (doubling the deals
    until the agent's run takes ``min_seconds``), over every card played."""
    from evolve.games.registry import make_game
    from evolve.runtime.play import play

    options = dict(options or {})
    g = make_game(game, **options)
    play(g, [seat] * 4, 2, seed=seed)               # warm-up: compile or load the kernel
    play(g, ["random"] * 4, 2, seed=seed)
    n = 8
    while True:
        a = time.perf_counter()
        r = play(g, [seat] * 4, n, seed=seed)
        agent_s = time.perf_counter() - a
        if agent_s >= min_seconds or n >= 1 << 20:
            break
        n *= 2
    a = time.perf_counter()
    play(g, ["random"] * 4, n, seed=seed)
    random_s = time.perf_counter() - a
    played = ~r.passed_out
    alone = np.asarray(r.alone).reshape(len(played), -1).max(axis=1) > 0 if np.size(r.alone) else np.zeros_like(played)
    cards = int((played * np.where(alone, 3, 4)).sum()) * g.info.n_tricks
    us = max(agent_s - random_s, 0.0) * 1e6 / max(cards, 1)
    return {"deals": n, "cards": cards, "us_per_decision": us,
            "per_second": 1e6 / us if us > 0 else float("inf")}

