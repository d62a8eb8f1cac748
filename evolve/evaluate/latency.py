"""What one decision of an agent costs: card-play positions from recorded deals, timed
through ``evolve.agent`` (the agent's own Numba decision on a seat's observation).

Positions are every card-play decision of seat 0 (playing the agent, the other seats
Random) with at least two legal cards, early and late tricks alike: a forced card costs
nothing. The first few decisions warm the agent up (compiles and cache loads are not
timed). ``python -m evolve.bench decisions`` and the search-level study
(``experiments/studies/search_level.toml``) report these figures.
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
