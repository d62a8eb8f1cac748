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

``--champions [STUDY]`` times instead what the champions' cost is compared with: each level
of the search-level study (``experiments/studies/search_level.toml`` by default) gives a
game, its champions (the level's agents) and the search agents they were measured
against (the level's opponents of the search family); each is timed in the engine and
through ``evolve.agent`` (``evolve.evaluate.levels.decision_costs``), with how many times
faster than each search the champions decide. The ratios depend on the machine (its
caches above all: a network streams its weights at every decision), so the machine is
named with them.
"""

from __future__ import annotations

import numpy as np

from evolve.evaluate.latency import WARM_UP, positions, time_calls

CHAMPIONS_STUDY = "experiments/studies/search_level.toml"

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


def machine() -> str:
    """The CPU's model name and the number of cores this process may use."""
    import os
    import platform

    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{name}, {cores} cores"


def bench_champions(study: str = CHAMPIONS_STUDY, games=None, seed: int = 0, n: int = 300) -> dict:
    """Per level of the levels study ``study`` (only ``games``, when given): the cost of a
    decision of its agents and of its search opponents (``decision_costs``; ``n``
    positions through ``evolve.agent``)."""
    from evolve.agents.kinds import SEARCH_KINDS
    from evolve.agents.registry import parse_seat
    from evolve.core.errors import UsageError
    from evolve.evaluate.levels import decision_costs, select_levels
    from evolve.evaluate.studies import load_study
    from evolve.runtime.play import played_options, shared_engine
    from evolve.runtime.precompile import prepare_seats

    loaded = load_study(study)
    if "levels" not in loaded:
        raise UsageError(f"{study}: --champions needs a study with layout = \"levels\" (its [[level]] tables name "
                         "the champions and the searches)")
    levels = select_levels(study, loaded["levels"], games)
    out = {"machine": machine(), "study": str(study), "levels": []}
    for level in levels:
        g = level["_game"]
        searches = [o for o in level["opponents"] if SEARCH_KINDS[0] <= parse_seat(o, g).play_kind < SEARCH_KINDS[1]]
        seats = list(dict.fromkeys(level["agents"] + searches))
        with shared_engine(prepare_seats(g, seats)):
            out["levels"].append({"game": g.name, "options": played_options(g), "agents": level["agents"],
                                  "searches": searches, "cost": decision_costs(g, seats, seed, n)})
    return out


def format_champions(res: dict) -> str:
    """The tables printed by ``python -m evolve.bench decisions --champions``."""
    from evolve.evaluate.levels import cost_table
    from evolve.runtime.play import options_text

    lines = [f"evolve.bench decisions --champions  ({res['study']}; machine: {res['machine']})"]
    for r in res["levels"]:
        lines += ["", f"## {r['game']} ({options_text(r['options'])})", "",
                  *cost_table(r["cost"], r["searches"])]
    return "\n".join(lines)
