"""End-of-run benchmark: the champion against baseline opponents, with honest statistics.

Cut-throat Spades: the champion at seat 0 against three copies of the opponent (the dealer
rotates, so it plays every position); its ATpR with a 95% CI, a t test against 3.25 and
the study's normal figure. Partnership games: the champion in seats 0 and 2 against the
opponent in 1 and 3; side points per deal and (Jass) percentage of the points."""

from __future__ import annotations

import numpy as np

from evolve.api import play
from evolve.stats import SPADES_FAIR_ATPR, format_ci, mean_ci, one_sample_t, study_normal_p


def benchmark(champion_spec, game, opponents: list[str], deals: int, seed: int, workers: int = 1) -> list[dict]:
    """One row per opponent with the champion's figures."""
    rows = []
    for opp in opponents:
        if game.partnership:
            seats = [champion_spec, opp, champion_spec, opp]
        else:
            seats = [champion_spec, opp, opp, opp]
        r = play(game, seats, deals, seed, workers=workers)
        played = ~r.passed_out
        row = {"opponent": opp, "deals": int(played.sum())}
        if game.partnership:
            pts = r.side_points()[played].astype(float)
            row["points"] = mean_ci(pts[:, 0]).as_dict()
            row["opponent_points"] = mean_ci(pts[:, 1]).as_dict()
            share = pts[:, 0] / np.maximum(pts.sum(axis=1), 1)
            row["share"] = mean_ci(100 * share).as_dict()
            row["score"] = mean_ci(r.score[played, 0] - r.score[played, 1]).as_dict()
        tricks = r.tricks[played].astype(float)
        row["atpr"] = mean_ci(tricks[:, 0]).as_dict()
        if game.name == "spades" and not game.partnership:
            row["opponent_atpr"] = mean_ci(tricks[:, 1:].mean(axis=1)).as_dict()
            row["t_test_p"] = one_sample_t(tricks[:, 0], SPADES_FAIR_ATPR).p_value
            row["study_normal_p"] = study_normal_p(row["atpr"]["mean"])
        rows.append(row)
    return rows


def render(rows: list[dict], partnership: bool) -> str:
    """The benchmark table as text."""
    lines = []
    if partnership:
        lines.append(f"{'opponent':<28} {'deals':>7}  {'side points (95% CI)':<26} {'% of points':<26} {'score diff':<24}")
        for r in rows:
            lines.append(f"{r['opponent']:<28} {r['deals']:>7}  {format_ci(r['points']):<26} {format_ci(r['share']):<26} {format_ci(r['score']):<24}")
    else:
        lines.append(f"{'opponent':<28} {'deals':>7}  {'champion ATpR (95% CI)':<26} {'opponents ATpR':<26} {'t-test p':>9} {'study p':>9}")
        for r in rows:
            opp = format_ci(r["opponent_atpr"]) if "opponent_atpr" in r else ""
            tp = f"{r['t_test_p']:.3g}" if "t_test_p" in r else ""
            sp = f"{r['study_normal_p']:.3g}" if "study_normal_p" in r else ""
            lines.append(f"{r['opponent']:<28} {r['deals']:>7}  {format_ci(r['atpr']):<26} {opp:<26} {tp:>9} {sp:>9}")
    return "\n".join(lines)
