"""``python -m evolve.studies experiments/studies/<file>.toml [--quick]``: rerun a study's
setup and print its table in the study's layout.

A study config has a ``[study]`` table and an optional ``[options]`` table (game
options). Keys of ``[study]``:

- ``name`` (str), ``description`` (str, optional), ``layout``: ``matrix`` |
  ``points_matrix`` | ``pairs`` | ``versus``; ``game`` (str); ``agents`` (list of seat
  strings); ``seed`` (int)
- ``games`` (int, games to the target per pairing) or ``deals`` (int, deals per pairing)
- ``quick`` (int, default 100): ``--quick`` divides ``games``/``deals`` by it
- ``rule`` (``correct`` | ``study``, optional): appended as ``rule=...`` to every agent that
  has a ``rule`` option (the Euchre study decided "can win" by fixed strength scores)
- ``blocks`` (int, optional): also report the percentage of points per block of deals
- ``opponent`` (str, versus layout): the three opposing seats
- ``champions`` (list of paths, optional): extra ``champion:PATH`` agents
- ``solo`` (str, points_matrix layout, optional): also play each agent alone in seat 0 with this
  agent in the other three seats, against this agent alone in seat 0 on the same deals
  (the Sueca study's one-player figures)

``layout = "levels"`` (the search-level study, ``evolve.evaluate.levels``) has no single
game: ``[study]`` holds ``name``, ``seed``, ``quick`` (and ``description``), and each
``[[level]]`` table a game, its agents, their opponents and the deals per pairing.

Unknown keys or wrong types are rejected with a one-line error (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from evolve.agents.registry import AGENTS, PERFECT_NOTE, parse_seat, sees_hidden_hands
from evolve.core.errors import UsageError
from evolve.core.progress import Progress
from evolve.core.schema import Key, apply_sets, check_table, read_toml
from evolve.core.stats import (
    format_ci,
    format_comparison,
    format_p,
    mean_ci,
    paired_difference,
    shifted,
    signed_ci,
    verdict,
)
from evolve.evaluate.figures import bidders, bidders_line, fair_share_label
from evolve.evaluate.matrix import head_to_head, markdown_tables, strategy_matrix
from evolve.evaluate.paired import PLAY_CHUNK, play_paired
from evolve.games.registry import make_game
from evolve.runtime.play import options_text, played_options, shared_engine
from evolve.runtime.precompile import prepare_seats

RULES = ("correct", "study")

def _positive(x) -> bool:
    return x > 0


# the keys of ``[study]`` (evolve.core.schema.Key: default None and not in OPTIONAL is required)
STUDY_KEYS: dict[str, Key] = {
    "name": Key((str,), None, "a string", doc="The study's title: the heading of its table."),
    "description": Key((str,), None, "a string", doc="Free text about the study."),
    "layout": Key((str,), None, "one of matrix, points_matrix, pairs, versus, levels",
                  doc="How the study is played and laid out: `matrix` (a strategy matrix of every pairing: games "
                      "won, tricks and scores, the Euchre paper's table), `points_matrix` (a strategy matrix of "
                      "points per deal and rubbers, the Sueca thesis's), `pairs` (every pairing head to head, as "
                      "percentages of the points, the Jass paper's), `versus` (each agent against `opponent`, the "
                      "Spades thesis's) or `levels` (the search-level study: several games, each in a `[[level]]` "
                      "table). The layouts' earlier names, after the paper's game (`euchre`, `sueca`, `jass`, "
                      "`spades`), are still read."),
    "game": Key((str,), None, "a game name", doc="The game every pairing plays; its options go in `[options]`."),
    "agents": Key((list,), None, "a non-empty list of agent strings",
                  doc="The seat strings of the agents the study compares (the rows and columns of its table)."),
    "seed": Key((int,), 0, "a non-negative integer", lambda x: x >= 0,
                doc="The seed of the study's deals; `--seed` overrides it."),
    "games": Key((int,), None, "a positive integer (games to the target per pairing)", _positive,
                 doc="Games to the game's target per pairing (the game needs a target). A study gives `games` or "
                     "`deals`, not both."),
    "deals": Key((int,), None, "a positive integer (deals per pairing)", _positive,
                 doc="Deals per pairing. A study gives `games` or `deals`, not both."),
    "quick": Key((int,), 100, "a positive integer (divisor of games/deals under --quick)", _positive,
                 doc="`--quick` divides `games` or `deals` by it, to no fewer than 10; in a levels study, each "
                     "level's deals."),
    "rule": Key((str,), None, "one of " + ", ".join(RULES), lambda s: s in RULES,
                doc="Appended as `rule=...` to every agent that has a `rule` option: `correct` (the 'can win' test "
                    "by trick keys) or `study` (the Euchre study's fixed strength scores)."),
    "blocks": Key((int,), None, "a positive integer", _positive,
                  doc="Also report the percentage of points in each of this many blocks of consecutive deals (the "
                      "`matrix`, `points_matrix` and `pairs` layouts)."),
    "opponent": Key((str,), None, "an agent string",
                    doc="The seat string of the three opposing seats of every row (the `versus` layout, which needs "
                        "it)."),
    "champions": Key((list,), None, "a list of champion.npz paths",
                     doc="Paths of champions (`champion.npz` or their folders) added as `champion:PATH` agents; "
                         "`--champion` adds more."),
    "solo": Key((str,), None, "an agent string (the three other seats of the one-seat rows)",
                doc="The `points_matrix` layout's one-seat rows: each agent alone in seat 0 with this agent in the "
                    "other three seats, against this agent alone in seat 0 on the same deals."),
}
#: the keys of ``[study]`` that may be left out
OPTIONAL = ("description", "games", "deals", "rule", "blocks", "opponent", "champions", "solo")
TOP_KEYS = ("study", "options", "level")
LEVELS_KEYS = ("name", "description", "layout", "seed", "quick")


def _fail(path):
    def fail(key: str, msg: str):
        raise UsageError(f"{path}: {key}: {msg}")
    return fail


def _checked(path, study, names=None) -> dict:
    """``[study]`` with every key known and of its type (only ``names`` for a levels study),
    the required ones present; the keys left out stay out, but for those with a default."""
    keys = STUDY_KEYS if names is None else {k: STUDY_KEYS[k] for k in names}
    optional = OPTIONAL + (() if names is None else ("game", "agents"))
    values = check_table("study", keys, study, _fail(path), optional=optional)
    return {k: v for k, v in values.items() if k in study or keys[k].default is not None}


def _check_values(path, study: dict) -> None:
    """The size (games or deals), the counts and the agent lists."""
    if ("games" in study) == ("deals" in study):
        raise UsageError(f"{path}: study.games/study.deals: expected exactly one of them")
    for key in ("agents", "champions"):
        items = study.get(key, [])
        if (key == "agents" and not items) or not all(isinstance(a, str) and a.strip() for a in items):
            raise UsageError(f"{path}: study.{key}: got {items!r}; expected {STUDY_KEYS[key].expect}")


def load_study(path: str | Path, sets: list[str] | tuple[str, ...] = ()) -> dict:
    """Read and strictly validate a study config (its ``extends`` chain resolved, the
    ``--set section.key=value`` overrides ``sets`` applied); returns the ``[study]`` table
    with ``options`` (dict) added."""
    path = Path(path)
    raw = apply_sets(read_toml(path), sets)
    for key in raw:
        if key not in TOP_KEYS:
            raise UsageError(f"{path}: {key}: unknown key; valid top-level keys: {', '.join(TOP_KEYS)}")
    study = raw.get("study")
    if not isinstance(study, dict):
        raise UsageError(f"{path}: study: expected a [study] table")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise UsageError(f"{path}: options: expected an [options] table of game options")
    if isinstance(study.get("layout"), str) and study["layout"] in EARLIER_NAMES:
        study = {**study, "layout": EARLIER_NAMES[study["layout"]]}
    if study.get("layout") == "levels":
        return _load_levels(path, study, raw)
    if "level" in raw:
        raise UsageError(f"{path}: level: only a study with layout = \"levels\" takes [[level]] tables")
    study = _checked(path, study)
    if study["layout"] not in LAYOUTS:
        raise UsageError(f"{path}: study.layout: got {study['layout']!r}; expected one of {', '.join(LAYOUTS)}")
    _check_values(path, study)
    layout = LAYOUTS[study["layout"]]
    for key in ("solo", "opponent"):
        if key in study and key not in layout.needs + layout.takes:
            raise UsageError(f"{path}: study.{key}: the {study['layout']} layout does not take it")
    for key in layout.needs:
        if key not in study:
            raise UsageError(f"{path}: study.{key}: missing; the {study['layout']} layout needs it "
                             f"({STUDY_KEYS[key].expect})")
    try:
        game = make_game(
            study["game"], **{k: (str(v).lower() if isinstance(v, bool) else v) for k, v in options.items()}
        )
    except UsageError as e:
        raise UsageError(f"{path}: {e}") from None
    if "games" in study and game.target <= 0:
        raise UsageError(f"{path}: study.games: {game.name} has no game target with these options; use 'deals'")
    return {**study, "options": options, "_game": game, "_path": str(path)}


def _load_levels(path: Path, study: dict, raw: dict) -> dict:
    """A levels study: ``[study]`` with its few keys, the ``[[level]]`` tables validated."""
    from evolve.evaluate.levels import check_levels

    unknown = [key for key in study if key not in LEVELS_KEYS]
    if unknown:
        raise UsageError(f"{path}: study.{unknown[0]}: the levels layout does not take it; valid keys: "
                         f"{', '.join(LEVELS_KEYS)} (games, agents and deals go in [[level]] tables)")
    study = _checked(path, study, LEVELS_KEYS)
    if "options" in raw:
        raise UsageError(f"{path}: options: a levels study takes game options in each [[level]] table")
    return {**study, "levels": check_levels(path, raw.get("level")), "options": {}, "_path": str(path)}


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
              champions=(), progress: bool = True, games=None, previous: list | None = None) -> dict:
    """Play a study; returns ``{"study", "unit", "count", "result", "table"}``. A levels
    study takes ``games`` and ``previous`` (``evolve.evaluate.levels.run_levels``)."""
    seed = study.get("seed", 0) if seed is None else seed
    if study["layout"] == "levels":
        return _run_levels(study, quick, workers, seed, progress, games, previous)
    if games is not None:
        raise UsageError(f"{study.get('_path', 'study')}: --games chooses levels; only a study with layout = "
                         "\"levels\" has them")
    g = study["_game"]
    unit, n = _count(study, quick)
    seats, labels = study_agents(study, champions)
    layout = study["layout"]
    extra = [study[k] for k in ("solo", "opponent") if k in study]
    with shared_engine(prepare_seats(g, seats + extra)):
        result, table = LAYOUTS[layout].run(g, study, seats, labels, unit, n, seed, workers, progress)
    specs = [parse_seat(s, g) for s in seats]
    if any(sees_hidden_hands(spec) for spec in specs):
        table += "\n\n" + PERFECT_NOTE
    head = f"# {study['name']}\n\n{g.name} ({options_text(played_options(g))}), " \
           f"{n} {unit} per pairing{' (--quick)' if quick else ''}, seed {seed}"
    if study.get("rule"):
        head += f"; rule={study['rule']} for agents with a 'can win' rule"
    named = bidders(g, labels, specs)
    if named:
        head += "\n\n" + bidders_line(named, g)
    return {"study": study["name"], "layout": layout, "unit": unit, "count": n, "seed": seed, "bidders": named,
            "result": result, "table": head + "\n\n" + table}


def _run_levels(study: dict, quick: bool, workers: int, seed: int, progress: bool, games=None,
                previous: list | None = None) -> dict:
    from evolve.evaluate.levels import run_levels

    result, table = run_levels(study, quick, workers, seed, progress, games, previous)
    head = f"# {study['name']}\n\nseed {seed}{' (--quick)' if quick else ''}"
    if any(sees_hidden_hands(parse_seat(s, lv["_game"])) for lv in study["levels"]
           for s in lv["agents"] + lv["opponents"]):
        table += "\n\n" + PERFECT_NOTE
    return {"study": study["name"], "layout": "levels", "unit": "deals", "count": None, "seed": seed, "bidders": {},
            "result": result, "table": head + "\n\n" + table}


def _bar(total, desc, progress):
    return Progress(total, desc, "pairing", enabled=progress)


def _pairs(g, seats, labels, unit, n, seed, blocks, workers, progress) -> dict:
    pairs = [(i, j) for i in range(len(seats)) for j in range(i + 1, len(seats))]
    bar = _bar(len(pairs), f"{g.name} pairs", progress)
    cells = []
    for i, j in pairs:
        kw = {"n_games": n} if unit == "games" else {"n_deals": n}
        c = head_to_head(g, seats[i], seats[j], seed=seed, blocks=blocks, workers=workers, **kw)
        c["row"], c["col"] = labels[i], labels[j]
        cells.append(c)
        bar.update(1)
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
        bar.update(1)
    bar.close()
    return {"game": g.name, "opponent": opponent, "fair_share": fair_share_label(g), "cells": cells}


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
            seatings = [[seat, solo, solo, solo]] + ([[solo] * 4] if base is None else [])
            results, _ = play_paired(g, seatings, start, min(PLAY_CHUNK, n - start), seed, workers)
            mine.append(results[0].points[:, 0].astype(np.float64))
            if base is None:
                theirs.append(results[1].points[:, 0].astype(np.float64))
        mine = np.concatenate(mine)
        if base is None:
            base = np.concatenate(theirs)
        ci, test = paired_difference(mine, base)
        rows.append({"agent": label, "points": mean_ci(mine).as_dict(), "solo_points": mean_ci(base).as_dict(),
                     "diff_points": {**ci.as_dict(), "t": test.statistic, "p": test.p_value}})
        bar.update(1)
    bar.close()
    return {"solo": solo, "deals": n, "rows": rows}


def _run_matrix(table):
    """A study laid out as a strategy matrix with ``table`` (the Euchre and Sueca papers),
    with the Sueca thesis's one-seat rows when the study names ``solo``."""

    def run(g, study, seats, labels, unit, n, seed, workers, progress):
        result = strategy_matrix(g, seats, n, seed, labels=labels, unit=unit, blocks=study.get("blocks", 0),
                                 workers=workers, progress=progress)
        text = table(result)
        if study.get("solo"):
            result["solo"] = _solo(g, seats, labels, study["solo"], n, seed, workers, progress)
            text += "\n\n" + _table_solo(result["solo"])
        return result, text

    return run


def _run_pairs(g, study, seats, labels, unit, n, seed, workers, progress):
    result = _pairs(g, seats, labels, unit, n, seed, study.get("blocks", 0), workers, progress)
    return result, _table_pairs(result)


def _run_versus(g, study, seats, labels, unit, n, seed, workers, progress):
    result = _versus(g, seats, labels, study["opponent"], unit, n, seed, workers, progress)
    return result, _table_versus(result)


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


def _table_matrix(matrix) -> str:
    lines = ["| team A | team B | games won A-B | A games % (Wilson 95%) | tricks won A-B | total score A-B | "
             "paired diff points/deal (95% CI) |",
             "|---|---|---|---|---|---|---|"]
    for c in _upper(matrix):
        gm = c.get("games", {})
        games = f"{gm['a_wins']}-{gm['b_wins']}" if gm else "-"
        rate = _pct(gm["rate"], gm["low"], gm["high"]) if gm else "-"
        d = c["diff_points"]
        lines.append(
            f"| {c['row']} | {c['col']} | {games} | {rate} | {c['a_tricks_total']:.0f}-{c['b_tricks_total']:.0f} | "
            f"{c['a_score_total']:.0f}-{c['b_score_total']:.0f} | {_paired(d, 3)} |"
        )
    return "\n".join(lines) + "\n\n" + markdown_tables(matrix)


def _table_points_matrix(matrix) -> str:
    lines = ["| team A | team B | A points/deal (sd) | B points/deal (sd) | paired A-B (95% CI) | rubbers A-B (A %) |",
             "|---|---|---|---|---|---|"]
    for c in _upper(matrix):
        a, b, d = c["a_points_rounds"], c["b_points_rounds"], c["diff_points"]
        gm = c.get("games")
        rub = f"{gm['a_wins']}-{gm['b_wins']} ({_pct(gm['rate'], gm['low'], gm['high'])})" if gm else "-"
        lines.append(f"| {c['row']} | {c['col']} | {a['mean']:.2f} ({a['sd']:.2f}) | {b['mean']:.2f} ({b['sd']:.2f}) | "
                     f"{_paired(d, 2)} | {rub} |")
    return "\n".join(lines)


def _table_pairs(result) -> str:
    lines = ["| A | B | double rounds | A % of points | per block mean (sd) | paired A-B points/round (95% CI) |",
             "|---|---|---|---|---|---|"]
    for c in result["cells"]:
        pp, d = c["percent_points"], c["diff_points"]
        blk = pp.get("block_mean_ci")
        blk_s = f"{blk['mean']:.2f} ({blk['sd']:.2f}) over {blk['n']}" if blk else "-"
        lines.append(f"| {c['row']} | {c['col']} | {c['deals']} | {pp['overall']:.2f} | {blk_s} | "
                     f"{_paired(d, 2)} |")
    return "\n".join(lines)


def _table_versus(result) -> str:
    share = result["fair_share"]
    lines = [f"| agent (vs 3 x {result['opponent']}) | ATpR (95% CI) | sd | rounds | ATpR - {share} (95% CI), t test | "
             "study normal p | paired A-B tricks (95% CI) |",
             "|---|---|---|---|---|---|---|"]
    for c in result["cells"]:
        a, d, r = c["a_atpr"], c["diff_points"], c["a_points_rounds"]
        lines.append(f"| {c['row']} | {format_ci(a, 4)} | {r['sd']:.3f} | {c['rounds']} | "
                     f"{format_comparison(shifted(a, float(share)), a[f'p_vs_{share}'])} | "
                     f"{format_p(a['study_normal_p'])} | {_paired(d)} |")
    lines.append("")
    lines.append(
        "ATpR CI and t test over deals (each deal played with the agent in all four seats); better / no different / "
        f"worse at alpha 0.05. The study's normal figure is 1 - Phi((ATpR - {share}) / 1.5612), shown for "
        "comparison only."
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class StudyLayout:
    """How a study is played and laid out: ``run(game, study, seats, labels, unit, n, seed,
    workers, progress) -> (result, table)``; ``needs`` and ``takes`` name the optional
    ``[study]`` keys the layout requires and accepts."""

    run: Callable
    needs: tuple[str, ...] = ()
    takes: tuple[str, ...] = ()
    paper: str = ""         # the paper whose table it lays out (evolve.reproduce); its earlier name


# the table layouts (each a paper's: the Euchre paper's matrix, the Sueca thesis's points
# matrix, the Jass paper's pairs, the Spades thesis's agent-versus-opponent rows)
LAYOUTS = {
    "matrix": StudyLayout(_run_matrix(_table_matrix), paper="euchre"),
    "points_matrix": StudyLayout(_run_matrix(_table_points_matrix), takes=("solo",), paper="sueca"),
    "pairs": StudyLayout(_run_pairs, paper="jass"),
    "versus": StudyLayout(_run_versus, needs=("opponent",), paper="spades"),
    "levels": StudyLayout(None),    # several games: evolve.evaluate.levels
}
# a study file written before the layouts had their own names names the layout's paper
EARLIER_NAMES = {layout.paper: name for name, layout in LAYOUTS.items() if layout.paper}
