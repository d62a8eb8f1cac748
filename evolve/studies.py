"""``python -m evolve.studies experiments/studies/<file>.toml [--quick]``: rerun a study's
setup and print its table in the study's layout.

A study config has a ``[study]`` table and an optional ``[options]`` table (game
options). Keys of ``[study]``:

- ``name`` (str), ``description`` (str, optional), ``layout``: ``euchre`` | ``sueca`` |
  ``jass`` | ``spades``; ``game`` (str); ``agents`` (list of seat strings); ``seed`` (int)
- ``games`` (int, games to the target per pairing) or ``deals`` (int, deals per pairing)
- ``quick`` (int, default 100): ``--quick`` divides ``games``/``deals`` by it
- ``rule`` (``correct`` | ``study``, optional): appended as ``rule=...`` to every agent that
  has a ``rule`` option (the Euchre study decided "can win" by fixed strength scores)
- ``blocks`` (int, optional): also report the percentage of points per block of deals
- ``opponent`` (str, spades layout): the three opposing seats
- ``champions`` (list of paths, optional): extra ``champion:PATH`` agents
- ``solo`` (str, sueca layout, optional): also play each agent alone in seat 0 with this
  agent in the other three seats, against this agent alone in seat 0 on the same deals
  (the Sueca study's one-player figures)

Unknown keys or wrong types are rejected with a one-line error (exit 2).
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import numpy as np

from evolve.agents.registry import AGENTS, PERFECT_NOTE, parse_seat, sees_hidden_hands
from evolve.api import options_text, play, played_options
from evolve.cli import Parser, run
from evolve.errors import UsageError
from evolve.games.registry import make_game
from evolve.stats import (SPADES_FAIR_ATPR, format_ci, format_comparison, format_p, mean_ci, paired_difference, shifted,
                          signed_ci, verdict)
from evolve.stats.matrix import (PLAY_CHUNK, _jsonable, head_to_head, heatmap, make_decks, markdown_tables,
                                 strategy_matrix)

LAYOUTS = ("euchre", "sueca", "jass", "spades")
RULES = ("correct", "study")

# key: (python types, expectation text, required)
STUDY_KEYS: dict[str, tuple[tuple[type, ...], str, bool]] = {
    "name": ((str,), "a string", True),
    "description": ((str,), "a string", False),
    "layout": ((str,), "one of " + ", ".join(LAYOUTS), True),
    "game": ((str,), "a game name", True),
    "agents": ((list,), "a non-empty list of agent strings", True),
    "seed": ((int,), "a non-negative integer", False),
    "games": ((int,), "a positive integer (games to the target per pairing)", False),
    "deals": ((int,), "a positive integer (deals per pairing)", False),
    "quick": ((int,), "a positive integer (divisor of games/deals under --quick)", False),
    "rule": ((str,), "one of " + ", ".join(RULES), False),
    "blocks": ((int,), "a positive integer", False),
    "opponent": ((str,), "an agent string", False),
    "champions": ((list,), "a list of champion.npz paths", False),
    "solo": ((str,), "an agent string (the three other seats of the one-seat rows)", False),
}
TOP_KEYS = ("study", "options")


def _bad(path, key, expect, got=None) -> UsageError:
    extra = f", got {got!r}" if got is not None else ""
    return UsageError(f"{path}: key {key!r}: expected {expect}{extra}")


def load_study(path: str | Path) -> dict:
    """Read and strictly validate a study config; returns the ``[study]`` table with
    ``options`` (dict) added."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no such study config") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: invalid TOML: {e}") from None
    for key in raw:
        if key not in TOP_KEYS:
            raise UsageError(f"{path}: unknown key {key!r}; valid top-level keys: {', '.join(TOP_KEYS)}")
    study = raw.get("study")
    if not isinstance(study, dict):
        raise _bad(path, "study", "a [study] table")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise _bad(path, "options", "an [options] table of game options")
    for key, value in study.items():
        if key not in STUDY_KEYS:
            raise UsageError(f"{path}: unknown key 'study.{key}'; valid keys: {', '.join(STUDY_KEYS)}")
        types, expect, _ = STUDY_KEYS[key]
        if not isinstance(value, types) or isinstance(value, bool):
            raise _bad(path, f"study.{key}", expect, value)
    for key, (_, expect, required) in STUDY_KEYS.items():
        if required and key not in study:
            raise UsageError(f"{path}: missing key 'study.{key}'; expected {expect}")
    if study["layout"] not in LAYOUTS:
        raise _bad(path, "study.layout", "one of " + ", ".join(LAYOUTS), study["layout"])
    if "rule" in study and study["rule"] not in RULES:
        raise _bad(path, "study.rule", "one of " + ", ".join(RULES), study["rule"])
    if ("games" in study) == ("deals" in study):
        raise UsageError(f"{path}: key 'study.games'/'study.deals': expected exactly one of them")
    for key in ("games", "deals", "quick", "blocks"):
        if key in study and study[key] <= 0:
            raise _bad(path, f"study.{key}", STUDY_KEYS[key][1], study[key])
    if study.get("seed", 0) < 0:
        raise _bad(path, "study.seed", STUDY_KEYS["seed"][1], study["seed"])
    for key in ("agents", "champions"):
        items = study.get(key, [])
        if (key == "agents" and not items) or not all(isinstance(a, str) and a.strip() for a in items):
            raise _bad(path, f"study.{key}", STUDY_KEYS[key][1], items)
    if "solo" in study and study["layout"] != "sueca":
        raise UsageError(f"{path}: key 'study.solo': only the sueca layout has one-seat rows")
    if study["layout"] == "spades" and "opponent" not in study:
        raise UsageError(f"{path}: missing key 'study.opponent'; the spades layout needs the opposing agent")
    try:
        game = make_game(study["game"], **{k: (str(v).lower() if isinstance(v, bool) else v) for k, v in options.items()})
    except UsageError as e:
        raise UsageError(f"{path}: {e}") from None
    if "games" in study and game.target <= 0:
        raise UsageError(f"{path}: key 'study.games': {game.name} has no game target with these options; use 'deals'")
    return {**study, "options": options, "_game": game, "_path": str(path)}


def _with_rule(agent: str, rule: str | None) -> str:
    if not rule:
        return agent
    name, _, rest = agent.partition(":")
    spec = AGENTS.get(name)
    if spec is None or "rule" not in spec.options or "rule=" in rest:
        return agent
    return f"{agent},rule={rule}" if rest else f"{name}:rule={rule}"


def study_agents(study: dict, champions=()) -> tuple[list[str], list[str]]:
    """(seat strings, labels) of a study's agents."""
    labels = list(study["agents"]) + [f"champion:{p}" for p in list(study.get("champions", [])) + list(champions)]
    seats = [_with_rule(a, study.get("rule")) for a in labels]
    return seats, labels


def _count(study: dict, quick: bool) -> tuple[str, int]:
    unit = "games" if "games" in study else "deals"
    n = study[unit]
    if quick:
        n = max(10, n // study.get("quick", 100))
    return unit, n


def _pct(rate, lo, hi) -> str:
    return f"{100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def run_study(study: dict, *, quick: bool = False, workers: int = 1, seed: int | None = None,
              champions=(), progress: bool = True) -> dict:
    """Play a study; returns ``{"study", "unit", "count", "result", "table"}``."""
    g = study["_game"]
    seed = study.get("seed", 0) if seed is None else seed
    unit, n = _count(study, quick)
    seats, labels = study_agents(study, champions)
    layout = study["layout"]
    if layout in ("euchre", "sueca"):
        result = strategy_matrix(g, seats, n, seed, labels=labels, unit=unit, blocks=study.get("blocks", 0),
                                 workers=workers, progress=progress)
        table = _table_euchre(result) if layout == "euchre" else _table_sueca(result)
        if layout == "sueca" and study.get("solo"):
            result["solo"] = _solo(g, seats, labels, study["solo"], n, seed, workers, progress)
            table += "\n\n" + _table_solo(result["solo"])
    elif layout == "jass":
        result = _pairs(g, seats, labels, unit, n, seed, study.get("blocks", 0), workers, progress)
        table = _table_jass(result)
    else:
        result = _versus(g, seats, labels, study["opponent"], unit, n, seed, workers, progress)
        table = _table_spades(result)
    if any(sees_hidden_hands(parse_seat(s, g)) for s in seats):
        table += "\n\n" + PERFECT_NOTE
    head = f"# {study['name']}\n\n{g.name} ({options_text(played_options(g))}), " \
           f"{n} {unit} per pairing{' (--quick)' if quick else ''}, seed {seed}"
    if study.get("rule"):
        head += f"; rule={study['rule']} for agents with a 'can win' rule"
    return {"study": study["name"], "layout": layout, "unit": unit, "count": n, "seed": seed,
            "result": result, "table": head + "\n\n" + table}


def _bar(total, desc, progress):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="pairing", file=sys.stderr)


def _pairs(g, seats, labels, unit, n, seed, blocks, workers, progress) -> dict:
    pairs = [(i, j) for i in range(len(seats)) for j in range(i + 1, len(seats))]
    bar = _bar(len(pairs), f"{g.name} pairs", progress)
    cells = []
    for i, j in pairs:
        kw = {"n_games": n} if unit == "games" else {"n_deals": n}
        c = head_to_head(g, seats[i], seats[j], seed=seed, blocks=blocks, workers=workers, **kw)
        c["row"], c["col"] = labels[i], labels[j]
        cells.append(c)
        if bar:
            bar.update(1)
    if bar:
        bar.close()
    return {"game": g.name, "cells": cells}


def _versus(g, seats, labels, opponent, unit, n, seed, workers, progress) -> dict:
    bar = _bar(len(seats), f"{g.name} vs {opponent}", progress)
    cells = []
    for s, label in zip(seats, labels):
        kw = {"n_games": n} if unit == "games" else {"n_deals": n}
        c = head_to_head(g, s, opponent, seed=seed, workers=workers, **kw)
        c["row"], c["col"] = label, opponent
        cells.append(c)
        if bar:
            bar.update(1)
    if bar:
        bar.close()
    return {"game": g.name, "opponent": opponent, "cells": cells}


def _solo(g, seats, labels, solo, n, seed, workers, progress) -> dict:
    """Each agent alone in seat 0 (``solo`` in seats 1-3) and, on the same decks and
    dealers, ``solo`` in all four seats: seat 0's side points per deal and the paired
    difference (the agent's gain over ``solo`` in its seat)."""
    parse_seat(solo, g)
    bar = _bar(len(seats), f"{g.name} one seat vs {solo}", progress)
    base = None
    rows = []
    for seat, label in zip(seats, labels):
        mine, theirs = [], []
        for start in range(0, n, PLAY_CHUNK):
            k = min(PLAY_CHUNK, n - start)
            decks = make_decks(g, k, seed, start)
            dealers = (start + np.arange(k)) % 4
            kw = dict(seed=seed, decks=decks, dealer=dealers, start=start, workers=workers)
            mine.append(play(g, [seat, solo, solo, solo], **kw).points[:, 0].astype(np.float64))
            if base is None:
                theirs.append(play(g, [solo] * 4, **kw).points[:, 0].astype(np.float64))
        mine = np.concatenate(mine)
        if base is None:
            base = np.concatenate(theirs)
        ci, test = paired_difference(mine, base)
        rows.append({"agent": label, "points": mean_ci(mine).as_dict(), "solo_points": mean_ci(base).as_dict(),
                     "diff_points": {**ci.as_dict(), "t": test.statistic, "p": test.p_value}})
        if bar:
            bar.update(1)
    if bar:
        bar.close()
    return {"solo": solo, "deals": n, "rows": rows}


def _table_solo(result) -> str:
    solo = result["solo"]
    lines = [f"One seat: the agent in seat 0, {solo} in seats 1-3 ({result['deals']} deals)", "",
             f"| seat 0 | its side's points/deal (sd) | 95% CI | paired vs {solo} in seat 0 (95% CI) |",
             "|---|---|---|---|"]
    for r in result["rows"]:
        a = r["points"]
        lines.append(f"| {r['agent']} | {a['mean']:.2f} ({a['sd']:.2f}) | [{a['low']:.2f}, {a['high']:.2f}] | "
                     f"{format_comparison(r['diff_points'], r['diff_points']['p'], 2)} |")
    return "\n".join(lines)


def _upper(matrix):
    cells = matrix["cells"]
    return [cells[i][j] for i in range(len(cells)) for j in range(i, len(cells))]


def _paired(difference: dict, digits: int = 3) -> str:
    """A paired difference A - B with its 95% CI and whether A is better (alpha 0.05)."""
    return f"{signed_ci(difference, digits)} {verdict(difference)}"


def _table_euchre(matrix) -> str:
    lines = ["| team A | team B | games won A-B | A games % (Wilson 95%) | tricks won A-B | total score A-B | "
             "paired diff points/deal (95% CI) |",
             "|---|---|---|---|---|---|---|"]
    for c in _upper(matrix):
        gm = c.get("games", {})
        games = f"{gm['a_wins']}-{gm['b_wins']}" if gm else "-"
        rate = _pct(gm["rate"], gm["low"], gm["high"]) if gm else "-"
        d = c["diff_points"]
        lines.append(f"| {c['row']} | {c['col']} | {games} | {rate} | {c['a_tricks_total']:.0f}-{c['b_tricks_total']:.0f} | "
                     f"{c['a_score_total']:.0f}-{c['b_score_total']:.0f} | {_paired(d, 3)} |")
    return "\n".join(lines) + "\n\n" + markdown_tables(matrix)


def _table_sueca(matrix) -> str:
    lines = ["| team A | team B | A points/deal (sd) | B points/deal (sd) | paired A-B (95% CI) | rubbers A-B (A %) |",
             "|---|---|---|---|---|---|"]
    for c in _upper(matrix):
        a, b, d = c["a_points_rounds"], c["b_points_rounds"], c["diff_points"]
        gm = c.get("games")
        rub = f"{gm['a_wins']}-{gm['b_wins']} ({_pct(gm['rate'], gm['low'], gm['high'])})" if gm else "-"
        lines.append(f"| {c['row']} | {c['col']} | {a['mean']:.2f} ({a['sd']:.2f}) | {b['mean']:.2f} ({b['sd']:.2f}) | "
                     f"{_paired(d, 2)} | {rub} |")
    return "\n".join(lines)


def _table_jass(result) -> str:
    lines = ["| A | B | double rounds | A % of points | per block mean (sd) | paired A-B points/round (95% CI) |",
             "|---|---|---|---|---|---|"]
    for c in result["cells"]:
        pp, d = c["percent_points"], c["diff_points"]
        blk = pp.get("block_mean_ci")
        blk_s = f"{blk['mean']:.2f} ({blk['sd']:.2f}) over {blk['n']}" if blk else "-"
        lines.append(f"| {c['row']} | {c['col']} | {c['deals']} | {pp['overall']:.2f} | {blk_s} | "
                     f"{_paired(d, 2)} |")
    return "\n".join(lines)


def _table_spades(result) -> str:
    lines = [f"| agent (vs 3 x {result['opponent']}) | ATpR (95% CI) | sd | rounds | ATpR - 3.25 (95% CI), t test | "
             "study normal p | paired A-B tricks (95% CI) |",
             "|---|---|---|---|---|---|---|"]
    for c in result["cells"]:
        a, d, r = c["a_atpr"], c["diff_points"], c["a_points_rounds"]
        lines.append(f"| {c['row']} | {format_ci(a, 4)} | {r['sd']:.3f} | {c['rounds']} | "
                     f"{format_comparison(shifted(a, SPADES_FAIR_ATPR), a['p_vs_3.25'])} | {format_p(a['study_normal_p'])} | "
                     f"{_paired(d)} |")
    lines.append("")
    lines.append("ATpR CI and t test over deals (each deal played with the agent in all four seats); better / no different / "
                 "worse at alpha 0.05. The study's normal figure is 1 - Phi((ATpR - 3.25) / 1.5612), shown for comparison only.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.studies``."""
    p = Parser(prog="python -m evolve.studies", description="Rerun a study setup and print its table.")
    p.add_argument("config", help="experiments/studies/<file>.toml")
    p.add_argument("--quick", action="store_true", help="scale the games/deals down (by the config's 'quick', default 100)")
    p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--champion", action="append", default=[], metavar="PATH", help="add champion:PATH (repeatable)")
    p.add_argument("--out", default=None, help="also write table.md and result.json (and a heatmap) here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if args.workers <= 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a positive integer")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    study = load_study(args.config)
    out = run_study(study, quick=args.quick, workers=args.workers, seed=args.seed, champions=args.champion)
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "table.md").write_text(out["table"] + "\n")
        (d / "result.json").write_text(json.dumps(_jsonable(out), indent=1))
        if "labels" in out["result"]:
            heatmap(out["result"], d / "heatmap.png")
    print(json.dumps(_jsonable(out)) if args.json else out["table"])
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.studies"))
