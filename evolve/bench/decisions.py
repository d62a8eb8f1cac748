"""``python -m evolve.bench decisions``: latency of one decision through ``evolve.agent``.

Positions come from recorded deals of the game: every card-play decision of the seat
that plays the agent with at least two legal cards (a forced card costs nothing), early
and late tricks alike. For each agent two latencies per
decision are timed, after a warm-up (compiles and cache loads are not timed):

- ``act``: ``agent.act(obs)`` on a ready ``Observation`` (the rules layer has already
  rebuilt the engine's state), i.e. the agent's own cost plus the call overhead;
- ``from JSON``: ``Observation.from_dict(d)`` then ``act`` (what a server or bot does
  with an observation it receives: validation, the public-state rebuild, the decision).

Figures are the median and the 90th percentile over the positions, in microseconds.
"""

from __future__ import annotations

import numpy as np

from evolve.evaluate.latency import WARM_UP, positions, time_calls

# (label, seat string, game, game options)
AGENTS = (
    ("network (evolved champion)", "champion:populations/spades_cardbased_strong", "spades", {}),
    ("rule-based (jass_rule_based)", "jass_rule_based", "jass", {}),
    ("ISMCTS-100", "ismcts:iterations=100", "jass", {}),
    ("random (API overhead)", "random", "jass", {}),
)


def bench_decisions(n: int = 300, seed: int = 0, agents=AGENTS) -> dict:
    """Latency per decision (microseconds) of each agent of ``agents``."""
    from evolve.games.observation import Observation
    from evolve.runtime.decide import agent as make_agent

    res = {}
    for label, seat, game, options in agents:
        obs = positions(seat, game, options, n, seed)
        dicts = [o.to_dict() for o in obs]
        agent = make_agent(seat, game, seed=seed, **options)
        for o in obs[:WARM_UP]:
            agent.act(o)                    # warm-up: compile or load the agent's kernels
        act = time_calls(agent.act, obs)
        full = time_calls(lambda d: agent.act(Observation.from_dict(d)), dicts)
        res[label] = {"seat": seat, "game": game, "decisions": len(obs),
                      "act_us": {"median": float(np.median(act)), "p90": float(np.percentile(act, 90))},
                      "from_json_us": {"median": float(np.median(full)), "p90": float(np.percentile(full, 90))}}
    return res


def format_decisions(res: dict) -> str:
    """The table printed by ``python -m evolve.bench decisions``."""
    lines = ["evolve.bench decisions  (one card-play decision through evolve.agent, one core; microseconds)",
             f"  {'agent':30s} {'game':7s} {'n':>5s}  {'act median':>11s} {'p90':>9s}  {'from JSON median':>17s} "
             f"{'p90':>9s}"]
    for label, r in res.items():
        a, f = r["act_us"], r["from_json_us"]
        lines.append(f"  {label:30s} {r['game']:7s} {r['decisions']:5d}  {a['median']:11.1f} {a['p90']:9.1f}  "
                     f"{f['median']:17.1f} {f['p90']:9.1f}")
    return "\n".join(lines)
