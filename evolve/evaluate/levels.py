"""The search-level study (``layout = "levels"``): agents against the search agents,
game by game, with what one decision of each costs.

A levels study has no single game. Each ``[[level]]`` table names a ``game`` (with
optional ``options``), the ``agents`` measured (rows: the champions, the previous
champions, the strongest rule-based agent), the ``opponents`` (columns: ISMCTS, DMCTS,
HighLow ...) and ``deals`` per pairing. Every pairing is a head-to-head on paired deals
with the seats exchanged (``evolve.evaluate.matrix.head_to_head``): in partnership games
the agent's side's share of the card points (of the tricks in Euchre), the paired
difference of those and of the hand score per deal and, where the game has a target, the
share of games won; in cut-throat Spades the
agent's tricks per round with the three opponent seats (ATpR) and the paired difference
to their mean. Then each agent's cost per card-play decision on one core, in the engine
and through ``evolve.agent`` (``evolve.evaluate.latency``), and how many times faster
than each opponent it decides in the engine.
"""

from __future__ import annotations

from evolve.agents.callback_slot import compiles_deferred
from evolve.agents.registry import parse_seat
from evolve.core.errors import UsageError
from evolve.core.progress import Progress
from evolve.core.stats import format_ci, signed_ci, verdict
from evolve.evaluate.figures import bidders, bidders_line
from evolve.evaluate.latency import decision_latency, engine_cost
from evolve.evaluate.matrix import head_to_head
from evolve.games.registry import make_game
from evolve.runtime.play import options_text, played_options, shared_engine
from evolve.runtime.precompile import prepare_seats

# key: (python types, expectation text, required)
LEVEL_KEYS = {
    "game": ((str,), "a game name", True),
    "agents": ((list,), "a non-empty list of agent strings (the rows)", True),
    "opponents": ((list,), "a non-empty list of agent strings (the columns)", True),
    "deals": ((int,), "a positive integer (paired deals per pairing)", True),
    "options": ((dict,), "a table of game options", False),
}
LATENCY_POSITIONS = 200
ENGINE_SECONDS = 0.5


def check_levels(path, levels) -> list[dict]:
    """The validated ``[[level]]`` tables, each with its game (``_game``)."""
    if not isinstance(levels, list) or not levels or not all(isinstance(x, dict) for x in levels):
        raise UsageError(f"{path}: key 'level': expected one or more [[level]] tables (game, agents, opponents, "
                         "deals)")
    out = []
    for k, level in enumerate(levels):
        where = f"{path}: key 'level[{k}]"
        for key, value in level.items():
            if key not in LEVEL_KEYS:
                raise UsageError(f"{where}.{key}': unknown key; valid keys: {', '.join(LEVEL_KEYS)}")
            types, expect, _ = LEVEL_KEYS[key]
            if not isinstance(value, types) or isinstance(value, bool):
                raise UsageError(f"{where}.{key}': expected {expect}, got {value!r}")
        for key, (_, expect, required) in LEVEL_KEYS.items():
            if required and key not in level:
                raise UsageError(f"{where}.{key}': missing; expected {expect}")
        for key in ("agents", "opponents"):
            if not level[key] or not all(isinstance(a, str) and a.strip() for a in level[key]):
                raise UsageError(f"{where}.{key}': expected {LEVEL_KEYS[key][1]}, got {level[key]!r}")
        if level["deals"] <= 0:
            raise UsageError(f"{where}.deals': expected {LEVEL_KEYS['deals'][1]}, got {level['deals']!r}")
        options = level.get("options", {})
        try:
            game = make_game(level["game"], **{k: (str(v).lower() if isinstance(v, bool) else v)
                                               for k, v in options.items()})
        except UsageError as e:
            raise UsageError(f"{where}.game': {e}") from None
        with compiles_deferred():       # a one-line error on a bad seat, before anything is played
            for key in ("agents", "opponents"):
                for seat in level[key]:
                    try:
                        parse_seat(seat, game)
                    except UsageError as e:
                        raise UsageError(f"{where}.{key}': {e}") from None
        out.append({**level, "options": options, "_game": game})
    return out


def run_levels(study: dict, quick: bool, workers: int, seed: int, progress: bool) -> tuple[dict, str]:
    """Play every level's pairings and time its agents; returns (result, markdown)."""
    divisor = study.get("quick", 100) if quick else 1
    levels, texts = [], []
    for level in study["levels"]:
        g = level["_game"]
        n = max(10, level["deals"] // divisor)
        agents, opponents = list(level["agents"]), list(level["opponents"])
        cells = []
        bar = Progress(len(agents) * len(opponents), f"{g.name} levels", "pairing", enabled=progress)
        with shared_engine(prepare_seats(g, agents + opponents)):
            for a in agents:
                for b in opponents:
                    c = head_to_head(g, a, b, n_deals=n, seed=seed, workers=workers)
                    c["row"], c["col"] = a, b
                    cells.append(c)
                    bar.update(1)
            bar.close()
            seats = list(dict.fromkeys(agents + opponents))
            cost = decision_costs(g, seats, seed)
        entry = {"game": g.name, "options": played_options(g), "deals": n, "cells": cells, "cost": cost,
                 "bidders": bidders(g, seats, [parse_seat(s, g) for s in seats])}
        levels.append(entry)
        texts.append(level_table(g, entry, agents, opponents))
    return {"levels": levels}, "\n\n".join(texts)


def decision_costs(g, seats: list[str], seed: int, positions: int = LATENCY_POSITIONS) -> dict:
    """What one card-play decision of each of ``seats`` costs in game ``g``, one core: in
    the engine (``engine_cost``) and, under ``"api"``, through ``evolve.agent``
    (``decision_latency`` over ``positions`` positions)."""
    return {s: {**engine_cost(s, g.name, dict(g.options), seed, ENGINE_SECONDS),
                "api": decision_latency(s, g.name, dict(g.options), positions, seed)}
            for s in seats}


def cost_table(cost: dict, opponents: list[str]) -> list[str]:
    """Markdown lines: each agent of ``cost`` (``decision_costs``) with its cost per
    decision and how many times faster than each of ``opponents`` it decides in the engine."""
    lines = ["What one card-play decision costs, one core: in the engine (the agent in all four seats minus "
             "Random in all four, per card) and through `evolve.agent` (median and 90th percentile; about 4-5 µs "
             "of it is Python's call overhead).", "",
             "| agent | in the engine, µs per decision | decisions/s | "
             + " | ".join(f"× faster than {o}" for o in opponents) + " | through evolve.agent, µs (p90) |",
             "|---|---|---|" + "---|" * len(opponents) + "---|"]
    for s, c in cost.items():
        ratios = [cost[o]["us_per_decision"] / c["us_per_decision"] if c["us_per_decision"] > 0 else float("inf")
                  for o in opponents]
        api = c["api"]
        lines.append(f"| {s} | {c['us_per_decision']:.2f} | {c['per_second']:,.0f} | "
                     + " | ".join(f"{r:,.1f}" for r in ratios)
                     + f" | {api['median_us']:.1f} ({api['p90_us']:.1f}) |")
    return lines


def level_table(g, entry: dict, agents: list[str], opponents: list[str]) -> str:
    """One game's markdown: the pairings, then the cost of a decision."""
    head = f"## {g.name} ({options_text(entry['options'])}), {entry['deals']} paired deals per pairing " \
           "(each played in every seating of the pairing)"
    if entry["bidders"]:
        head += "\n\n" + bidders_line(entry["bidders"])
    what = "points" if g.protocol.counts == "card points" else "tricks"      # Euchre's sides count tricks
    if g.partnership:
        lines = [f"| agent | opponent | agent's % of {what} (95% CI) | paired {what}/deal, agent - opponent (95% CI) | "
                 "paired hand score/deal (95% CI) | games won % (Wilson 95%) |", "|---|---|---|---|---|---|"]
    else:
        lines = ["| agent (1 seat) | opponent (3 seats) | agent's tricks/round, ATpR (95% CI) | "
                 "paired ATpR - opponents' mean (95% CI) | games won % (Wilson 95%) |", "|---|---|---|---|---|"]
    for c in entry["cells"]:
        d = c["diff_points"]
        if g.partnership:
            sh = c["points_share"]
            first = f"{100 * sh['mean']:.2f} [{100 * sh['low']:.2f}, {100 * sh['high']:.2f}]"
        else:
            first = format_ci(c["a_atpr"], 3)
        gm = c.get("games")
        games = f"{100 * gm['rate']:.1f} [{100 * gm['low']:.1f}, {100 * gm['high']:.1f}] of {gm['completed']}" \
            if gm and gm["completed"] else "-"
        score = f" {signed_ci(c['diff_score'], 3)} {verdict(c['diff_score'])} |" if g.partnership else ""
        lines.append(f"| {c['row']} | {c['col']} | {first} | {signed_ci(d, 3)} {verdict(d)} |{score} {games} |")
    lines += ["", *cost_table(entry["cost"], opponents)]
    return head + "\n\n" + "\n".join(lines)
