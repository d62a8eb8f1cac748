"""End-of-run benchmark: the champion against baseline opponents, with honest statistics.

Cut-throat Spades: the champion at seat 0 against three copies of the opponent (the dealer
rotates, so it plays every position); its ATpR with a 95% CI, a t test against 3.25 and
the study's normal figure. Partnership games: the champion in seats 0 and 2 against the
opponent in 1 and 3; side points per deal and (Jass) percentage of the points."""

from __future__ import annotations

import numpy as np

from evolve.api import play
from evolve.stats import SPADES_FAIR_ATPR, format_ci, format_comparison, mean_ci, one_sample_t, p_clause, shifted, study_normal_p


def benchmark(champion_spec, game, opponents: list[str], deals: int, seed: int, workers: int = 1,
              lockstep: bool = False) -> list[dict]:
    """One row per opponent with the champion's figures (``lockstep``: played by
    ``evolve.lockstep``, the same figures)."""
    rows = []
    for opp in opponents:
        if game.partnership:
            seats = [champion_spec, opp, champion_spec, opp]
        else:
            seats = [champion_spec, opp, opp, opp]
        r = play(game, seats, deals, seed, workers=workers, lockstep=lockstep)
        played = ~r.passed_out
        row = {"opponent": opp, "deals": int(played.sum())}
        if game.partnership:
            pts = r.side_points()[played].astype(float)
            row["points"] = mean_ci(pts[:, 0]).as_dict()
            row["opponent_points"] = mean_ci(pts[:, 1]).as_dict()
            share = pts[:, 0] / np.maximum(pts.sum(axis=1), 1)
            row["share"] = mean_ci(100 * share).as_dict()
            score_diff = r.score[played, 0] - r.score[played, 1]
            row["score"] = mean_ci(score_diff).as_dict()
            row["score_t_test_p"] = one_sample_t(score_diff, 0.0).p_value
        tricks = r.tricks[played].astype(float)
        row["atpr"] = mean_ci(tricks[:, 0]).as_dict()
        if game.name == "spades" and not game.partnership:
            row["opponent_atpr"] = mean_ci(tricks[:, 1:].mean(axis=1)).as_dict()
            row["t_test_p"] = one_sample_t(tricks[:, 0], SPADES_FAIR_ATPR).p_value
            row["study_normal_p"] = study_normal_p(row["atpr"]["mean"])
        rows.append(row)
    return rows


def render(rows: list[dict], partnership: bool) -> str:
    """The benchmark table as text; the opponent column is as wide as its longest name.
    Partnership games compare the sides' scores, cut-throat Spades the champion's ATpR
    with 3.25: signed difference, 95% CI, t test and verdict (better / no different /
    worse at alpha 0.05)."""
    w = max([len("opponent")] + [len(r["opponent"]) for r in rows])
    lines = []
    if partnership:
        lines.append(f"{'opponent':<{w}} {'deals':>7}  {'side points (95% CI)':<26} {'% of points':<26} "
                     f"score per deal, champion side - opponents (95% CI), t test")
        for r in rows:
            lines.append(f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(r['points']):<26} {format_ci(r['share']):<26} "
                         f"{format_comparison(r['score'], r.get('score_t_test_p'))}")
    else:
        lines.append(f"{'opponent':<{w}} {'deals':>7}  {'champion ATpR (95% CI)':<26} {'opponents ATpR':<26} "
                     f"champion ATpR - 3.25 (95% CI), t test; study normal p")
        for r in rows:
            opp = format_ci(r["opponent_atpr"]) if "opponent_atpr" in r else ""
            test = ""
            if "t_test_p" in r:
                test = (f"{format_comparison(shifted(r['atpr'], SPADES_FAIR_ATPR), r['t_test_p'])}; "
                        f"study normal {p_clause(r['study_normal_p'])}")
            lines.append(f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(r['atpr']):<26} {opp:<26} {test}".rstrip())
    return "\n".join(lines)
