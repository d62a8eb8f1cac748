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

With ``--out``, a level of the folder's earlier ``result.json`` is kept instead of played
when it is the level the study names now: the same rows, deals, seed and options, every
column the study names (a level that played more columns is kept with the named ones
only, its cost table with the named seats) and the same parameters of every named seat.
Every pairing is played with the study's seed alone, so a kept level is what playing it
again would give, bar the timings. ``--games`` plays the levels of some games again and
requires every other level to be kept; without it, every level not kept is played.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from evolve.agents.callback_slot import compiles_deferred
from evolve.agents.kinds import NETWORK_KINDS
from evolve.agents.network.architecture import without_base
from evolve.agents.registry import parse_seat
from evolve.core.errors import UsageError
from evolve.core.progress import Progress
from evolve.core.schema import Key, check_table
from evolve.core.stats import format_ci, signed_ci, verdict
from evolve.evaluate.figures import bidders, bidders_line
from evolve.evaluate.latency import decision_latency, engine_cost
from evolve.evaluate.matrix import head_to_head
from evolve.games.registry import make_game
from evolve.runtime.play import options_text, played_options, shared_engine
from evolve.runtime.precompile import prepare_seats


def _positive(x) -> bool:
    return x > 0


def _seats(v) -> bool:
    return bool(v) and all(isinstance(a, str) and a.strip() for a in v)


# the keys of a ``[[level]]`` table (evolve.core.schema.Key; ``options`` may be left out)
LEVEL_KEYS: dict[str, Key] = {
    "game": Key((str,), None, "a game name", doc="The game of the level."),
    "agents": Key((list,), None, "a non-empty list of agent strings (the rows)", _seats,
                  doc="The seat strings measured (the rows: the champions, the strongest rule-based agent)."),
    "opponents": Key((list,), None, "a non-empty list of agent strings (the columns)", _seats,
                     doc="The seat strings each agent plays against (the columns: the search agents and "
                         "baselines)."),
    "deals": Key((int,), None, "a positive integer (paired deals per pairing)", _positive,
                 doc="Paired deals per pairing, each played with the seats exchanged."),
    "options": Key((dict,), None, "a table of game options",
                   doc="The level's game options (see the game options reference)."),
}
LATENCY_POSITIONS = 200
ENGINE_SECONDS = 0.5


def check_levels(path, levels) -> list[dict]:
    """The validated ``[[level]]`` tables, each with its game (``_game``)."""
    if not isinstance(levels, list) or not levels or not all(isinstance(x, dict) for x in levels):
        raise UsageError(f"{path}: level: expected one or more [[level]] tables (game, agents, opponents, deals)")
    out = []
    for k, level in enumerate(levels):
        where = f"level[{k}]"

        def fail(key: str, msg: str):
            raise UsageError(f"{path}: {key}: {msg}")

        level = {key: value for key, value in check_table(where, LEVEL_KEYS, level, fail, optional=("options",)).items()
                 if value is not None}
        options = level.get("options", {})
        try:
            game = make_game(level["game"], **{k: (str(v).lower() if isinstance(v, bool) else v)
                                               for k, v in options.items()})
        except UsageError as e:
            raise UsageError(f"{path}: {where}.game: {e}") from None
        with compiles_deferred():       # a one-line error on a bad seat, before anything is played
            for key in ("agents", "opponents"):
                for seat in level[key]:
                    try:
                        parse_seat(seat, game)
                    except UsageError as e:
                        raise UsageError(f"{path}: {where}.{key}: {e}") from None
        out.append({**level, "options": options, "_game": game})
    return out


def select_levels(path, levels: list[dict], games=None) -> list[dict]:
    """The levels of ``games`` (every level when None); a UsageError naming the study when
    one of ``games`` has no level in it."""
    if games is None:
        return list(levels)
    have = list(dict.fromkeys(lv["_game"].name for lv in levels))
    missing = [name for name in games if name not in have]
    if missing:
        raise UsageError(f"{path}: no level of game {', '.join(missing)}; its games: {', '.join(have)}")
    return [lv for lv in levels if lv["_game"].name in games]


def seat_fingerprints(g, seats: list[str]) -> dict[str, str | None]:
    """A digest per seat string of what the engine plays for it in ``g`` (its kinds and
    parameters, so a champion file rewritten under the same path shows; a network's
    parameters without the base sum the engine derives from its first layer,
    ``without_base``); None for a seat decided in Python, whose code no digest covers."""
    out: dict[str, str | None] = {}
    for seat in seats:
        with compiles_deferred():       # the digest needs the parameters, not the compiled code
            spec = parse_seat(seat, g)
        if spec.python is not None:
            out[seat] = None
            continue
        network = NETWORK_KINDS[0] <= spec.play_kind < NETWORK_KINDS[1]
        play = without_base(spec.play_params) if network else spec.play_params
        h = hashlib.sha256(np.array([spec.play_kind, spec.bid_kind], np.int64).tobytes())
        for values in (play, spec.bid_params):
            v = np.ascontiguousarray(values, np.float64)
            h.update(np.int64(v.size).tobytes())
            h.update(v.tobytes())
        out[seat] = h.hexdigest()[:20]
    return out


def _kept(previous: list, g, level: dict, n: int, seed: int) -> dict | None:
    """The entry of ``previous`` (an earlier result's levels) that is this level as played
    now, cut to the columns the study names; None when there is none. An entry is this
    level when its game, options, deals, seed and rows are the same, it played every
    column the study names (it may have played more), and every named seat's parameters
    are the same (``seat_fingerprints``). Each pairing and each seat's cost is measured
    on its own, from the seed alone, so the cut entry is what playing the level as named
    now would give, bar the timings: its cells, costs, bidders and digests are those of
    the named seats, in the study's order."""
    agents, opponents = list(level["agents"]), list(level["opponents"])
    seats = list(dict.fromkeys(agents + opponents))
    prints = None
    for entry in previous:
        if not (isinstance(entry, dict) and entry.get("game") == g.name and entry.get("deals") == n
                and entry.get("seed") == seed and entry.get("options") == played_options(g)
                and isinstance(entry.get("cells"), list) and all(isinstance(c, dict) for c in entry["cells"])
                and isinstance(entry.get("cost"), dict) and isinstance(entry.get("fingerprints"), dict)):
            continue
        cells = {(c.get("row"), c.get("col")): c for c in entry["cells"]}
        rows = list(dict.fromkeys(c.get("row") for c in entry["cells"]))
        if set(rows) != set(agents) or any((a, b) not in cells for a in agents for b in opponents) \
                or any(s not in entry["cost"] or s not in entry["fingerprints"] for s in seats):
            continue
        prints = seat_fingerprints(g, seats) if prints is None else prints
        if None in prints.values() or any(entry["fingerprints"][s] != prints[s] for s in seats):
            continue
        bidders = entry.get("bidders") if isinstance(entry.get("bidders"), dict) else {}
        return {**entry, "cells": [cells[a, b] for a in agents for b in opponents],
                "cost": {s: entry["cost"][s] for s in seats},
                "bidders": {s: bidders[s] for s in seats if s in bidders},
                "fingerprints": {s: entry["fingerprints"][s] for s in seats}}
    return None


def run_levels(study: dict, quick: bool, workers: int, seed: int, progress: bool, games=None,
               previous: list | None = None) -> tuple[dict, str]:
    """Play the levels' pairings and time their agents; returns (result, markdown).
    ``previous`` (the levels of an earlier result of the study) keeps each level that is
    in it as the study names it now (``_kept``, perhaps cut to fewer columns) instead of
    playing it. With ``games``, the levels of those games are played whatever
    ``previous`` holds, and every other level must be kept (else a UsageError says which
    to play again); without ``games``, every level that is not kept is played."""
    divisor = study.get("quick", 100) if quick else 1
    path = study.get("_path", "study")
    chosen = {id(lv) for lv in select_levels(path, study["levels"], games)} if games is not None else set()
    if previous is not None and games is not None and not any(isinstance(e, dict) and "fingerprints" in e
                                                               for e in previous):
        raise UsageError(f"{path}: the earlier result has no digests of its seats' parameters (it was written "
                         "before --games could keep levels); run the whole study once without --games")
    kept: dict[int, dict] = {}          # every kept level checked before anything is played
    for k, level in enumerate(study["levels"]):
        g = level["_game"]
        if id(level) in chosen or previous is None:
            continue
        entry = _kept(previous, g, level, max(10, level["deals"] // divisor), seed)
        if entry is not None:
            kept[k] = entry
        elif games is not None:
            raise UsageError(f"{path}: the {g.name} level is not in the earlier result as the study names it now "
                             f"(agents, opponents, their parameters, deals, seed); play it again: --games "
                             f"{','.join(dict.fromkeys([*games, g.name]))}")
    levels, texts = [], []
    for k, level in enumerate(study["levels"]):
        g = level["_game"]
        n = max(10, level["deals"] // divisor)
        agents, opponents = list(level["agents"]), list(level["opponents"])
        seats = list(dict.fromkeys(agents + opponents))
        if k in kept:
            levels.append(kept[k])
            texts.append(level_table(g, kept[k], agents, opponents, kept=True))
            continue
        if games is not None and id(level) not in chosen:
            continue
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
            cost = decision_costs(g, seats, seed)
        entry = {"game": g.name, "options": played_options(g), "deals": n, "seed": seed, "cells": cells, "cost": cost,
                 "bidders": bidders(g, seats, [parse_seat(s, g) for s in seats]),
                 "fingerprints": seat_fingerprints(g, seats)}
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


def _resolved(cost: dict) -> bool:
    """Whether a decision's cost was above what the timing resolves (an agent as cheap as
    Random times at 0 after Random's time is taken off; result.json keeps its infinite rate
    as null)."""
    return cost["us_per_decision"] > 0 and cost.get("per_second") is not None and math.isfinite(cost["per_second"])


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
        us = c["us_per_decision"]
        resolved = _resolved(c)
        ratios = [f"{cost[o]['us_per_decision'] / us:,.1f}" if resolved and _resolved(cost[o]) else "-"
                  for o in opponents]
        api = c["api"]
        us_text, rate_text = (f"{us:.2f}", f"{c['per_second']:,.0f}") if resolved else ("< 0.01", "-")
        lines.append(f"| {s} | {us_text} | {rate_text} | " + " | ".join(ratios)
                     + f" | {api['median_us']:.1f} ({api['p90_us']:.1f}) |")
    return lines


def level_table(g, entry: dict, agents: list[str], opponents: list[str], kept: bool = False) -> str:
    """One game's markdown: the pairings, then the cost of a decision (``kept``: a level
    taken from an earlier run, said under its heading)."""
    head = f"## {g.name} ({options_text(entry['options'])}), {entry['deals']} paired deals per pairing " \
           "(each played in every seating of the pairing)"
    if kept:
        head += ("\n\nKept from an earlier run of this study (the `result.json` of its `--out` folder): the same "
                 "seats and parameters, deals and seed; its costs were timed then.")
    if entry["bidders"]:
        head += "\n\n" + bidders_line(entry["bidders"], g)
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
