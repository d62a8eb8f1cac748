"""The figures of one batch of deals (``python -m evolve.arena``): per-seat ATpR, per-side
points and hand scores with 95% confidence intervals, the fair-share test of cut-throat
Spades and games won to the target with Wilson intervals; and their text report."""

from __future__ import annotations

import numpy as np

from evolve.agents.registry import PERFECT_NOTE, sees_hidden_hands
from evolve.core.stats import (
    format_comparison,
    mean_ci,
    p_clause,
    wilson,
)
from evolve.evaluate.figures import bidders, fair_share, fair_share_test, share_of_points
from evolve.runtime.play import PlayResult, options_text, played_options


def summarize(result: PlayResult) -> dict:
    """All arena figures of a batch of deals as plain data."""
    g = result.game
    played = ~result.passed_out
    tricks = result.tricks[played].astype(np.float64)
    seats = []
    for s in range(4):
        ci = mean_ci(tricks[:, s])
        entry = {"seat": s, "agent": result.seats[s].name, "atpr": ci.as_dict()}
        if sees_hidden_hands(result.seats[s]):
            entry["perfect_information"] = True
        test = fair_share_test(g, tricks[:, s])
        if test is not None:
            entry[f"t_test_vs_{test['fair_share']:g}"] = {k: test[k] for k in ("t", "p", "difference", "verdict")}
            entry["study_normal_p"] = test["study_normal_p"]
        seats.append(entry)
    sides = []
    n_sides = g.n_sides
    points = result.side_points()[played]
    for side in range(n_sides):
        entry = {"side": side, "seats": [s for s in range(4) if g.side_of(s) == side]}
        if side < points.shape[1] and g.partnership:
            entry["points"] = mean_ci(points[:, side]).as_dict()
            if share_of_points(g):
                total = points.sum(axis=1)
                entry["percent_of_points"] = mean_ci(100.0 * points[:, side] / total).as_dict()
        entry["score"] = mean_ci(result.score[:, side]).as_dict()
        sides.append(entry)
    out = {
        "game": g.name,
        "options": played_options(g),
        "seats": [s.name for s in result.seats],
        "bidders": bidders(g, range(4), result.seats),
        "seed": result.seed,
        "deals": result.n_deals,
        "passed_out": int(result.passed_out.sum()),
        "fair_share": fair_share(g),
        "score_name": g.protocol.score_name,
        "per_seat": seats,
        "per_side": sides,
    }
    if g.target > 0:
        ended = result.game_winner >= 0
        n_games = int(ended.sum())
        out["games"] = {"target": g.target, "completed": n_games, "won": [],
                        "lowest_wins": bool(g.protocol.target_is_loss)}
        for side in range(n_sides):
            k = int((result.game_winner[ended] == side).sum())
            p, lo, hi = wilson(k, n_games)
            out["games"]["won"].append({"side": side, "wins": k, "rate": p, "low": lo, "high": hi})
    return out


def _fmt(ci: dict) -> str:
    return f"{ci['mean']:9.4f}  [{ci['low']:.4f}, {ci['high']:.4f}]  sd {ci['sd']:.3f}"


def render(summary: dict) -> str:
    """A human-readable report of ``summarize``'s output. The agent column is as wide as
    the longest seat name (a ``champion:PATH`` seat can be long), so the figures stay in
    columns."""
    agent_width = max(len("agent"), *(len(e["agent"]) for e in summary["per_seat"]))
    bids = {int(k): v for k, v in summary.get("bidders", {}).items()}
    bid_width = max([len("bids")] + [len(v) for v in bids.values()]) + 1 if bids else 0
    lines = [
        f"{summary['game']} ({options_text(summary['options'])}): {summary['deals']} deals, seed {summary['seed']}"
        + (f", {summary['passed_out']} passed out" if summary["passed_out"] else ""),
        "",
        f"seat  {'agent':<{agent_width}} {'bids' if bids else '':<{bid_width}}{'ATpR':>9}  (95% CI)",
    ]
    for e in summary["per_seat"]:
        line = f"{e['seat']:>4}  {e['agent']:<{agent_width}} {bids.get(e['seat'], ''):<{bid_width}}{_fmt(e['atpr'])}"
        share = summary.get("fair_share")
        test = e.get(f"t_test_vs_{share:g}") if share else None
        if test:
            line += (f"   vs {share:g}: {format_comparison(test['difference'], test['p'])}; "
                     f"study normal {p_clause(e['study_normal_p'])}")
        lines.append(line)
    if "points" in summary["per_side"][0]:
        lines += ["", "side  seats    points / score per deal (95% CI)"]
        for e in summary["per_side"]:
            seats = ",".join(map(str, e["seats"]))
            lines.append(f"{e['side']:>4}  {seats:<8} points {_fmt(e['points'])}")
            if "percent_of_points" in e:
                lines.append(f"{'':>4}  {'':<8} % pts  {_fmt(e['percent_of_points'])}")
            lines.append(f"{'':>4}  {'':<8} score  {_fmt(e['score'])}")
    elif any(e["score"] != s["atpr"] for e, s in zip(summary["per_side"], summary["per_seat"])):
        lines += ["", f"seat  {summary.get('score_name', 'hand score')} per deal (95% CI)"]
        for e in summary["per_side"]:
            lines.append(f"{e['side']:>4}  {_fmt(e['score'])}")
    if "games" in summary:
        gm = summary["games"]
        lines += ["", f"games to {gm['target']}" + (" points, the lowest total wins" if gm.get("lowest_wins") else "")
                  + f": {gm['completed']} completed"]
        for w in gm["won"]:
            lines.append(f"  side {w['side']}: {w['wins']} won, {100 * w['rate']:.2f}% [{100 * w['low']:.2f}, "
                         f"{100 * w['high']:.2f}] (Wilson 95%)")
    if any(e.get("perfect_information") for e in summary["per_seat"]):
        lines += ["", PERFECT_NOTE]
    if summary.get("fair_share"):
        lines += [
            "",
            f"vs {summary['fair_share']:g}: the seat's ATpR minus its fair share of the tricks, 95% CI and t test; "
            "better / no different / "
            "worse at alpha 0.05. The study's normal p is shown for comparison only.",
        ]
    return "\n".join(lines)
