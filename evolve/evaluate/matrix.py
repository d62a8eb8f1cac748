"""Head-to-head comparisons on paired deals and strategy matrices (``docs/how-to/compare-agents.md``).

``head_to_head(game, a, b, n_deals, seed)`` plays agent ``a`` against agent ``b`` on the
same deals twice (partnership games: ``a`` in seats 0,2 then, on the identical decks and
dealers, ``b`` in seats 0,2 — the Jass "double round"); in cut-throat Spades ``a`` sits
in seat 0 against three ``b``, then the same decks are replayed with ``a`` in seats 1, 2
and 3 (rotating hands), so every hand is played once by ``a``.

Per deal (pair) it forms ``a``'s and ``b``'s result averaged over the passes and reports
the paired difference ``a - b`` with its CI and t test, side points mean and sd, the
percentage of points, ATpR (with the study's normal figure in cut-throat Spades) and
games won to the target with a Wilson interval where the game has a target.

``strategy_matrix`` runs every pairing of a list of agents (row agent vs column agent,
self-play diagonal included) and ``write_matrix`` writes markdown, CSV, JSON and a heatmap.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from evolve.agents.callback_slot import compiles_deferred
from evolve.agents.registry import parse_seat
from evolve.core.errors import UsageError, checked_int
from evolve.core.progress import progress_line
from evolve.core.stats import (
    format_comparison,
    mean_ci,
    p_clause,
    paired_difference,
    ratio_ci,
    shifted,
    signed_ci,
    verdict,
    wilson,
)
from evolve.evaluate.figures import bidders, bidders_line, fair_share_test, share_of_points
from evolve.evaluate.paired import PLAY_CHUNK, play_paired
from evolve.games.match import accumulate_games
from evolve.games.registry import Game, make_game
from evolve.runtime.play import options_text, played_options, shared_engine
from evolve.runtime.precompile import prepare_seats


def seatings(game: Game, a: str, b: str) -> list[tuple[list[str], int]]:
    """The passes of a head-to-head: (four seats, side of ``a``) per pass."""
    if game.partnership:
        return [([a, b, a, b], 0), ([b, a, b, a], 1)]
    return [([a if s == r else b for s in range(4)], r) for r in range(4)]


class _Passes:
    """Per-pass per-deal arrays, grown chunk by chunk."""

    def __init__(self, n_passes: int):
        self.fields: list[dict[str, list[np.ndarray]]] = [
            {k: [] for k in ("tricks", "points", "score", "bags", "played", "decks")} for _ in range(n_passes)
        ]

    def add(self, p: int, r, decks):
        f = self.fields[p]
        f["tricks"].append(r.tricks.astype(np.int64))
        f["points"].append(r.points.astype(np.int64))
        f["score"].append(r.score.astype(np.int64))
        f["bags"].append(r.bags.astype(np.int64))
        f["played"].append(~r.passed_out)
        f["decks"].append(decks)

    def get(self, p: int, key: str) -> np.ndarray:
        return np.concatenate(self.fields[p][key])


def head_to_head(
    game: str | Game,
    a: str,
    b: str,
    n_deals: int | None = None,
    seed: int = 0,
    *,
    n_games: int | None = None,
    blocks: int = 0,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    keep_decks: bool = False,
    **options,
) -> dict:
    """Agent ``a`` against agent ``b`` on paired deals with the seats exchanged.

    Give ``n_deals`` (deals, each played once per pass) or ``n_games`` (games to the
    game's target: deals are played in deterministic chunks until the passes together
    have completed ``n_games`` games; the first ``n_games`` in deal order count).
    ``blocks``: also report the percentage of points per block of consecutive deals
    (the Jass paper's 10 x 100 double rounds). ``progress(k)`` is called with the number
    of deals just played (per pass set). Returns plain data (see ``render_pair``)."""
    g = make_game(game, **options)
    specs = [parse_seat(s, g) for s in (a, b)]  # one-line error on a bad agent, before any play
    if (n_deals is None) == (n_games is None):
        raise UsageError("give either n_deals or n_games")
    if n_games is not None and g.target <= 0:
        raise UsageError(f"{g.name} has no game target here; count deals instead of games")
    checked_int(seed, "seed", 0)
    passes = seatings(g, a, b)
    store = _Passes(len(passes))
    done = 0

    def play_chunk(n: int):
        nonlocal done
        results, decks = play_paired(g, [seats for seats, _ in passes], done, n, seed, workers)
        for p, r in enumerate(results):
            store.add(p, r, decks if (keep_decks and p == 0) else None)
        done += n
        if progress is not None:
            progress(n)

    game_list: list[tuple[int, int, int]] = []  # (deal, pass, winning side)
    if n_games is None:
        n_deals = int(n_deals)
        if n_deals <= 0:
            raise UsageError(f"n_deals={n_deals} is invalid; expected a positive integer")
        while done < n_deals:
            play_chunk(min(PLAY_CHUNK, n_deals - done))
        if g.target > 0:
            game_list = _games(g, store, passes)
    else:
        n_games = int(n_games)
        if n_games <= 0:
            raise UsageError(f"n_games={n_games} is invalid; expected a positive integer")
        while True:
            game_list = _games(g, store, passes) if done else []
            if len(game_list) >= n_games:
                break
            missing = n_games - len(game_list)
            per_deal = len(game_list) / done if done and game_list else len(passes) / 8.0
            play_chunk(int(min(PLAY_CHUNK, max(256, math.ceil(1.1 * missing / per_deal)))))
        game_list = game_list[:n_games]
        last = game_list[-1][0] + 1  # keep the deals up to the one that completed the last game
        for f in store.fields:
            for k, arrs in f.items():
                if arrs and arrs[0] is not None:
                    f[k] = [np.concatenate(arrs)[:last]]
        done = last
    cell = _summarize(g, a, b, seed, store, passes, done, game_list, blocks, n_games)
    cell["bidders"] = bidders(g, ("A", "B"), specs)
    return cell


def _games(g: Game, store: _Passes, passes) -> list[tuple[int, int, int]]:
    out = []
    for p in range(len(passes)):
        _, _, winner = accumulate_games(store.get(p, "score"), store.get(p, "bags"), g.n_sides, g.target, g.bag_limit,
                                        g.protocol.target_is_loss)
        for i in np.nonzero(winner >= 0)[0]:
            out.append((int(i), p, int(winner[i])))
    out.sort()
    return out


def _ci(x) -> dict:
    return mean_ci(x).as_dict()


def _summarize(g, a, b, seed, store, passes, n, game_list, blocks, n_games) -> dict:
    P = len(passes)
    played = np.ones(n, bool)
    for p in range(P):
        played &= store.get(p, "played")
    a_pts = np.zeros(n)
    b_pts = np.zeros(n)
    a_score = np.zeros(n)
    b_score = np.zeros(n)
    a_tricks = np.zeros(n)  # per seat of a
    b_tricks = np.zeros(n)
    a_rounds, b_rounds = [], []  # a's (b's) side points of every single (deal, seating)
    a_score_rounds, b_score_rounds = [], []  # likewise the sides' hand scores (partnership games)
    for p, (_, side_a) in enumerate(passes):
        tricks = store.get(p, "tricks").astype(np.float64)
        score = store.get(p, "score").astype(np.float64)
        if g.partnership:
            pts = store.get(p, "points").astype(np.float64)
            a_pts += pts[:, side_a]
            b_pts += pts[:, 1 - side_a]
            a_rounds.append(pts[played, side_a])
            b_rounds.append(pts[played, 1 - side_a])
            a_score += score[:, side_a]
            b_score += score[:, 1 - side_a]
            a_score_rounds.append(score[:, side_a])
            b_score_rounds.append(score[:, 1 - side_a])
            a_tricks += (tricks[:, side_a] + tricks[:, side_a + 2]) / 2
            b_tricks += (tricks[:, 1 - side_a] + tricks[:, 3 - side_a]) / 2
        else:
            others = [s for s in range(4) if s != side_a]
            # each for itself: the seat's tricks (cut-throat Spades), or its hand score where
            # tricks are no aim (Hearts: minus the points taken)
            measure = tricks if g.protocol.tricks_are_aim else score
            a_pts += measure[:, side_a]
            b_pts += measure[:, others].mean(axis=1)
            a_rounds.append(measure[played, side_a])
            b_rounds.append(measure[played][:, others].ravel())
            a_score += score[:, side_a]
            b_score += score[:, others].mean(axis=1)
            a_tricks += tricks[:, side_a]
            b_tricks += tricks[:, others].mean(axis=1)
    for arr in (a_pts, b_pts, a_score, b_score, a_tricks, b_tricks):
        arr /= P
        np.round(arr, 9, out=arr)  # exact ties stay exact (means over 3 seats, 2 or 4 passes)
    pd_ci, pd_t = paired_difference(a_pts[played], b_pts[played])
    sd_ci, sd_t = paired_difference(a_score, b_score)
    td_ci, td_t = paired_difference(a_tricks[played], b_tricks[played])
    out = {
        "game": g.name,
        "options": played_options(g),
        "a": a,
        "b": b,
        "seed": seed,
        "deals": int(n),
        "passes": P,
        "rounds": int(n * P),
        "passed_out": int((~played).sum()),
        "unit": "points" if g.partnership else ("tricks" if g.protocol.tricks_are_aim else g.protocol.score_name),
        "share_of_points": share_of_points(g),
        "a_points": _ci(a_pts[played]),
        "b_points": _ci(b_pts[played]),
        "diff_points": {**pd_ci.as_dict(), "t": pd_t.statistic, "p": pd_t.p_value},
        # every single round (deal x seating): the per-deal sd of one side's points
        "a_points_rounds": _ci(np.concatenate(a_rounds)),
        "b_points_rounds": _ci(np.concatenate(b_rounds)),
        "a_score": _ci(a_score),
        "b_score": _ci(b_score),
        "diff_score": {**sd_ci.as_dict(), "t": sd_t.statistic, "p": sd_t.p_value},
        "diff_atpr": {**td_ci.as_dict(), "t": td_t.statistic, "p": td_t.p_value},
        # totals over all passes (the Euchre study's "tricks won" and "total score")
        "a_tricks_total": float(a_tricks.sum() * P * (2 if g.partnership else 1)),
        "b_tricks_total": float(b_tricks.sum() * P * (2 if g.partnership else 3)),
        "a_score_total": float(a_score.sum() * P),
        "b_score_total": float(b_score.sum() * P * (1 if g.partnership else 3)),
    }
    out["a_atpr"] = _ci(a_tricks[played])
    out["b_atpr"] = _ci(b_tricks[played])
    test = fair_share_test(g, a_tricks[played])
    if test is not None:
        share = f"{test['fair_share']:g}"
        out["a_atpr"][f"t_vs_{share}"] = test["t"]
        out["a_atpr"][f"p_vs_{share}"] = test["p"]
        out["a_atpr"]["study_normal_p"] = test["study_normal_p"]
        out["fair_share"] = test["fair_share"]
        out["a_atpr"]["note"] = "CI and t test over deals (each the mean of the 4 rotations); n rounds = 4 x deals"
    if g.partnership:
        # each side's share of all the hand scores (the Euchre paper's "total score"), per deal paired
        out["score_share"] = ratio_ci(a_score, a_score + b_score).as_dict()
        # over every single (deal, seating): its sd is the spread of one unpaired deal's share,
        # what a study that plays each deal once (the Euchre paper) has for its own standard error
        a_single, b_single = np.concatenate(a_score_rounds), np.concatenate(b_score_rounds)
        out["score_share_rounds"] = ratio_ci(a_single, a_single + b_single).as_dict()
        total = a_pts + b_pts
        # a's share of all the card points, paired by deal (the Jass paper's "% of points")
        out["points_share"] = ratio_ci(a_pts[played], total[played]).as_dict()
        ok = played & (total > 0)
        share = 100.0 * a_pts[ok] / total[ok]
        tot = float(total[played].sum())
        out["percent_points"] = {
            "overall": 100.0 * float(a_pts[played].sum()) / tot if tot else float("nan"),
            "per_deal": _ci(share),
        }
        if blocks and blocks > 0:
            per = []
            for idx in np.array_split(np.arange(n), blocks):
                m = played[idx]
                t = float(total[idx][m].sum())
                per.append(100.0 * float(a_pts[idx][m].sum()) / t if t else float("nan"))
            out["percent_points"]["blocks"] = per
            out["percent_points"]["block_mean_ci"] = _ci(per)
    if g.target > 0:
        wins = sum(1 for _, p, w in game_list if w == passes[p][1])
        k = len(game_list)
        rate, lo, hi = wilson(wins, k)
        out["games"] = {
            "target": g.target, "requested": n_games, "completed": k, "a_wins": wins, "b_wins": k - wins,
            "rate": rate, "low": lo, "high": hi,
        }
        if g.n_sides != 2:      # one seat against three: an equal player wins a quarter of the games
            out["games"]["fair_rate"] = 1.0 / g.n_sides
    if store.fields[0]["decks"] and store.fields[0]["decks"][0] is not None:
        out["_decks"] = store.get(0, "decks")
    return out


def mirror(cell: dict) -> dict:
    """The same partnership head-to-head seen from ``b``'s side (exact: the passes are
    the same two seatings in the other order)."""
    m = dict(cell)
    m["a"], m["b"] = cell["b"], cell["a"]
    for x, y in (("a_points", "b_points"), ("a_points_rounds", "b_points_rounds"), ("a_score", "b_score"),
                 ("a_atpr", "b_atpr"), ("a_tricks_total", "b_tricks_total"), ("a_score_total", "b_score_total")):
        m[x], m[y] = cell[y], cell[x]
    for key in ("diff_points", "diff_score", "diff_atpr"):
        d = dict(cell[key])
        d["mean"], d["low"], d["high"], d["t"] = -d["mean"], -d["high"], -d["low"], -d["t"]
        m[key] = d
    if "score_share" in cell:
        c = dict(cell["score_share"])
        c["mean"], c["low"], c["high"] = 1 - c["mean"], 1 - c["high"], 1 - c["low"]
        m["score_share"] = c
    if "percent_points" in cell:
        pp = cell["percent_points"]
        q = {"overall": 100.0 - pp["overall"]}
        c = dict(pp["per_deal"])
        c["mean"], c["low"], c["high"] = 100 - c["mean"], 100 - c["high"], 100 - c["low"]
        q["per_deal"] = c
        if "blocks" in pp:
            q["blocks"] = [100.0 - v for v in pp["blocks"]]
            c = dict(pp["block_mean_ci"])
            c["mean"], c["low"], c["high"] = 100 - c["mean"], 100 - c["high"], 100 - c["low"]
            q["block_mean_ci"] = c
        m["percent_points"] = q
    if "games" in cell:
        gm = dict(cell["games"])
        gm["a_wins"], gm["b_wins"] = gm["b_wins"], gm["a_wins"]
        gm["rate"], gm["low"], gm["high"] = 1 - gm["rate"], 1 - gm["high"], 1 - gm["low"]
        m["games"] = gm
    if cell.get("bidders"):
        m["bidders"] = {"A": cell["bidders"]["B"], "B": cell["bidders"]["A"]}
    return m


# ----------------------------------------------------------------------------- matrix


def headline(cell: dict) -> tuple[str, float, float, float, float]:
    """The figure a matrix cell shows: (label, value, low, high, neutral centre)."""
    if "games" in cell and cell["games"]["completed"]:
        gm = cell["games"]
        return ("games won by row %", 100 * gm["rate"], 100 * gm["low"], 100 * gm["high"],
                100 * gm.get("fair_rate", 0.5))
    if cell.get("share_of_points") and "percent_points" in cell:
        c = cell["percent_points"]["per_deal"]
        return "row % of points", c["mean"], c["low"], c["high"], 50.0
    d = cell["diff_points"]
    return f"paired difference row - column ({cell['unit']} per deal)", d["mean"], d["low"], d["high"], 0.0


def strategy_matrix(
    game: str | Game,
    agents: Sequence[str],
    count: int,
    seed: int = 0,
    *,
    labels: Sequence[str] | None = None,
    unit: str = "auto",
    blocks: int = 0,
    workers: int = 1,
    progress: bool = False,
    **options,
) -> dict:
    """Every pairing of ``agents`` (row vs column, self-play included). ``count`` is games
    to the target when ``unit`` is ``games`` (``auto``: when the game has a target),
    otherwise deals. Partnership cells below the diagonal are the exact mirrors."""
    g = make_game(game, **options)
    agents = list(agents)
    if not agents:
        raise UsageError("no agents given")
    with compiles_deferred():
        specs = [parse_seat(s, g) for s in agents]
    labels = list(labels) if labels else agents
    if unit == "auto":
        unit = "games" if g.target > 0 else "deals"
    if unit == "games" and g.target <= 0:
        raise UsageError(f"{g.name} has no game target with these options; count deals")
    n = len(agents)
    pairs = [(i, j) for i in range(n) for j in range(n) if (i <= j or not g.partnership)]
    cells: list[list[dict | None]] = [[None] * n for _ in range(n)]
    with shared_engine(prepare_seats(g, agents)), \
            progress_line(f"{g.name} matrix", len(pairs), "pairing", enabled=progress) as bar:
        for i, j in pairs:
            kw = {"n_games": count} if unit == "games" else {"n_deals": count}
            cell = head_to_head(g, agents[i], agents[j], seed=seed, blocks=blocks, workers=workers, **kw)
            cell["row"], cell["col"] = labels[i], labels[j]
            cells[i][j] = cell
            if g.partnership and i != j:
                m = mirror(cell)
                m["row"], m["col"] = labels[j], labels[i]
                cells[j][i] = m
            bar.update(1)
    label = headline(cells[0][0])[0]
    return {
        "game": g.name, "options": played_options(g), "agents": agents, "labels": labels,
        "seed": seed, "count": count, "unit": unit, "headline": label, "cells": cells,
        "bidders": bidders(g, labels, specs),
    }


def _fmt_ci(v, lo, hi, digits=2) -> str:
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def markdown_tables(matrix: dict) -> str:
    """The matrix as markdown tables: the headline figure and the paired difference."""
    labels = matrix["labels"]
    cells = matrix["cells"]
    opts = options_text(matrix["options"])
    out = [f"## {matrix['game']} ({opts}): {matrix['count']} {matrix['unit']} per pairing, seed {matrix['seed']}", ""]
    if matrix.get("bidders"):
        out += [bidders_line(matrix["bidders"], matrix["game"]), ""]

    def table(title, fn):
        out.extend([f"### {title}", "",
                    "| row \\ column | " + " | ".join(labels) + " |",
                    "|---|" + "---|" * len(labels)])
        for i, r in enumerate(labels):
            out.append(f"| {r} | " + " | ".join(fn(cells[i][j]) for j in range(len(labels))) + " |")
        out.append("")

    head = headline(cells[0][0])[0]
    if head.startswith("paired"):
        table(head + " (95% CI): row better / no different / worse at alpha 0.05",
              lambda c: f"{signed_ci(c['diff_points'], 3)} {verdict(c['diff_points'])}")
    else:
        table(head + " (row vs column, 95% CI)", lambda c: _fmt_ci(*headline(c)[1:4], digits=1 if "%" in head else 3))
    unit = cells[0][0]["unit"]
    if not head.startswith("paired"):
        table(f"paired difference row - column, {unit} per deal (95% CI): row better / no different / worse at alpha "
              f"0.05",
              lambda c: f"{signed_ci(c['diff_points'], 3)} {verdict(c['diff_points'])}")
    table(f"row side {unit} per deal (mean, sd over single deals)",
          lambda c: f"{c['a_points_rounds']['mean']:.3f} (sd {c['a_points_rounds']['sd']:.3f})")
    return "\n".join(out)


CSV_FIELDS = ["row", "col", "deals", "rounds", "headline", "value", "low", "high",
              "a_points_mean", "a_points_sd", "b_points_mean", "b_points_sd",
              "diff_mean", "diff_low", "diff_high", "diff_p", "a_atpr", "a_atpr_low", "a_atpr_high",
              "games_completed", "a_wins", "percent_points"]


def matrix_rows(matrix: dict) -> list[dict]:
    rows = []
    for line in matrix["cells"]:
        for c in line:
            label, v, lo, hi, _ = headline(c)
            rows.append({
                "row": c["row"], "col": c["col"], "deals": c["deals"], "rounds": c["rounds"], "headline": label,
                "value": v, "low": lo, "high": hi,
                "a_points_mean": c["a_points"]["mean"], "a_points_sd": c["a_points"]["sd"],
                "b_points_mean": c["b_points"]["mean"], "b_points_sd": c["b_points"]["sd"],
                "diff_mean": c["diff_points"]["mean"], "diff_low": c["diff_points"]["low"],
                "diff_high": c["diff_points"]["high"], "diff_p": c["diff_points"]["p"],
                "a_atpr": c["a_atpr"]["mean"], "a_atpr_low": c["a_atpr"]["low"], "a_atpr_high": c["a_atpr"]["high"],
                "games_completed": c.get("games", {}).get("completed", ""),
                "a_wins": c.get("games", {}).get("a_wins", ""),
                "percent_points": c.get("percent_points", {}).get("overall", ""),
            })
    return rows


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items() if not k.startswith("_")}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    return x


def heatmap(matrix: dict, path: Path) -> Path:
    """A heatmap PNG of the headline figure, annotated, centred on its neutral value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    labels = matrix["labels"]
    n = len(labels)
    vals = np.full((n, n), np.nan)
    label, centre = "", 0.0
    for i in range(n):
        for j in range(n):
            label, v, _, _, centre = headline(matrix["cells"][i][j])
            vals[i, j] = v
    finite = vals[np.isfinite(vals)]
    span = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    span = span if span > 0 else 1.0
    low, high = centre - span, centre + span
    if "%" in label:        # a share stays within 0..100 (its centre is 25 where one seat plays three)
        low, high = max(low, min(0.0, centre - 1.0)), min(high, max(100.0, centre + 1.0))
    norm = TwoSlopeNorm(vcenter=centre, vmin=low, vmax=high)
    size = max(4.0, 0.9 * n + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    im = ax.imshow(vals, cmap="RdBu", norm=norm)
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("column agent")
    ax.set_ylabel("row agent")
    digits = 1 if "%" in label else 2
    for i in range(n):
        for j in range(n):
            v = vals[i, j]
            if np.isfinite(v):
                dark = (v - centre) / ((high if v >= centre else low) - centre) > 0.6
                ax.text(j, i, f"{v:.{digits}f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label=label)
    ax.set_title(f"{matrix['game']}: {label}\n{matrix['count']} {matrix['unit']} per pairing", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_matrix(matrix: dict, out_dir: str | Path, stem: str = "matrix") -> dict[str, Path]:
    """Write ``<stem>.md``, ``.csv``, ``.json`` and ``.png`` under ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {k: out / f"{stem}.{k}" for k in ("md", "csv", "json", "png")}
    paths["md"].write_text(markdown_tables(matrix) + "\n")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS)
    w.writeheader()
    for row in matrix_rows(matrix):
        w.writerow(row)
    paths["csv"].write_text(buf.getvalue())
    paths["json"].write_text(json.dumps(_jsonable(matrix), indent=1))
    heatmap(matrix, paths["png"])
    return paths


def render_pair(cell: dict) -> str:
    """A text report of one head-to-head."""
    u = cell["unit"]
    lines = [
        f"{cell['game']}: {cell['a']} (A) vs {cell['b']} (B), {cell['deals']} deals x {cell['passes']} seatings, "
        f"seed {cell['seed']}",
        f"  A {u} per deal  {_fmt_ci(cell['a_points']['mean'], cell['a_points']['low'], cell['a_points']['high'], 4)}"
        f"  sd {cell['a_points']['sd']:.3f}",
        f"  B {u} per deal  {_fmt_ci(cell['b_points']['mean'], cell['b_points']['low'], cell['b_points']['high'], 4)}"
        f"  sd {cell['b_points']['sd']:.3f}",
        *([f"  {bidders_line(cell['bidders'], cell['game'])}"] if cell.get("bidders") else []),
        f"  paired A - B    {format_comparison(cell['diff_points'], cell['diff_points']['p'], 4)}"
        f" (t {cell['diff_points']['t']:.3f})",
        f"  A ATpR          {_fmt_ci(cell['a_atpr']['mean'], cell['a_atpr']['low'], cell['a_atpr']['high'], 4)}",
    ]
    if "fair_share" in cell:
        share = cell["fair_share"]
        lines[-1] += (
            f"  vs {share:g}: {format_comparison(shifted(cell['a_atpr'], share), cell['a_atpr'][f'p_vs_{share:g}'], 4)}"
            f"; study normal {p_clause(cell['a_atpr']['study_normal_p'])}"
        )
    if "percent_points" in cell:
        pp = cell["percent_points"]
        lines.append(f"  A % of points   {pp['overall']:.2f} overall; per deal "
                     f"{_fmt_ci(pp['per_deal']['mean'], pp['per_deal']['low'], pp['per_deal']['high'])}")
    if "games" in cell:
        gm = cell["games"]
        lines.append(f"  games to {gm['target']}: {gm['completed']} completed, A won {gm['a_wins']} = "
                     f"{100 * gm['rate']:.2f}% [{100 * gm['low']:.2f}, {100 * gm['high']:.2f}] (Wilson 95%)")
    return "\n".join(lines)
