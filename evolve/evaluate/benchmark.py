"""End-of-run benchmark: the champion against baseline opponents, with honest statistics.

Cut-throat Spades: the champion at seat 0 against three copies of the opponent (the dealer
rotates, so it plays every position); its ATpR with a 95% CI, a t test against the fair
share 3.25 and the Spades thesis's normal figure (``evolve.evaluate.figures``). Partnership games: the champion in
seats 0 and 2 against the
opponent in 1 and 3; side points per deal and (Jass) percentage of the points."""

from __future__ import annotations

import numpy as np

from evolve.core.stats import (
    format_ci,
    format_comparison,
    mean_ci,
    negated,
    one_sample_t,
    p_clause,
    paired_difference,
    shifted,
)
from evolve.evaluate.figures import fair_share, fair_share_test
from evolve.runtime.play import play


def seats_against(spec, opponent, game) -> list:
    """``spec`` against ``opponent``: its side against the opponent's in partnership games
    (seats 0 and 2), one seat against three otherwise."""
    return [spec, opponent, spec, opponent] if game.partnership else [spec, opponent, opponent, opponent]


def _per_deal(spec, opponent, game, deals: int, seed: int, workers: int, lockstep: bool,
              engine_families=()) -> np.ndarray:
    """Per deal, the side points (partnership games) or tricks (cut-throat) of ``spec``'s seat 0."""
    r = play(game, seats_against(spec, opponent, game), deals, seed, workers=workers, lockstep=lockstep,
             engine_families=engine_families)
    return seat_figure(r, game)


def seat_figure(r, game) -> np.ndarray:
    """Per deal, what seat 0 is after: its side's points (partnership games), its tricks
    (cut-throat Spades) or its hand score where tricks are no aim (Hearts: minus the
    points it took)."""
    if game.partnership:
        return r.side_points()[:, 0].astype(np.float64)
    if not game.protocol.tricks_are_aim:
        return r.score[:, 0].astype(np.float64)
    return r.tricks[:, 0].astype(np.float64)


def _as_points(game, ci: dict) -> dict:
    """A seat-0 figure as printed: Hearts' hand score as the points taken (lower is better)."""
    return negated(ci) if not game.partnership and not game.protocol.tricks_are_aim else ci


def against_founder(champion_spec, founder_spec, game, opponents: list[str], deals: int, seed: int,
                    workers: int = 1, lockstep: bool = False, engine_families=()) -> list[dict]:
    """What evolution added to a warm start: the champion and its founder each play the same
    ``deals`` deals against each opponent (same cards, same seats, same seed); one row per
    opponent with the mean paired difference champion - founder (tricks, or side points)
    and its t test (``lockstep``, ``engine_families``: as in ``benchmark``)."""
    rows = []
    for opp in opponents:
        a = _per_deal(champion_spec, opp, game, deals, seed, workers, lockstep, engine_families)
        b = _per_deal(founder_spec, opp, game, deals, seed, workers, lockstep, engine_families)
        diff, test = paired_difference(a, b)
        rows.append({"opponent": opp, "deals": deals, "champion": mean_ci(a).as_dict(), "founder": mean_ci(b).as_dict(),
                     "difference": diff.as_dict(), "p": test.p_value})
    return rows


def render_against_founder(rows: list[dict], game) -> str:
    """The champion-versus-founder table as text."""
    what = "side points" if game.partnership else ("ATpR" if game.protocol.tricks_are_aim else "points")
    w = max([len("opponent")] + [len(r["opponent"]) for r in rows])
    lower = "" if game.partnership or game.protocol.tricks_are_aim else ", points taken: lower is better"
    lines = [f"{'opponent':<{w}} {'deals':>7}  {'champion ' + what:<26} {'founder ' + what:<26} "
             f"champion - founder on the same deals (95% CI), paired t test{lower}"]
    for r in rows:
        champion, founder, diff = (_as_points(game, r[k]) for k in ("champion", "founder", "difference"))
        lines.append(
            f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(champion):<26} {format_ci(founder):<26} "
            f"{format_comparison(diff, r['p'])}"
        )
    return "\n".join(lines)


def benchmark(champion_spec, game, opponents: list[str], deals: int, seed: int, workers: int = 1,
              lockstep: bool = False, engine_families=()) -> list[dict]:
    """One row per opponent with the champion's figures (``lockstep``: played by
    ``evolve.runtime.lockstep``, the same figures; ``engine_families``: see ``evolve.play``)."""
    rows = []
    for opp in opponents:
        r = play(game, seats_against(champion_spec, opp, game), deals, seed, workers=workers, lockstep=lockstep,
                 engine_families=engine_families)
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
        if not game.partnership and not game.protocol.tricks_are_aim:
            # Hearts: the same deals again with the opponent in the champion's seat, paired
            base = play(game, [opp] * 4, deals, seed, workers=workers, lockstep=lockstep,
                        engine_families=engine_families)
            diff, test = paired_difference(r.score[:, 0], base.score[:, 0])
            row["points"] = negated(mean_ci(r.score[:, 0]).as_dict())
            row["opponent_points"] = negated(mean_ci(base.score[:, 0]).as_dict())
            row["points_difference"] = negated(diff.as_dict())
            row["points_t_test_p"] = test.p_value
        tricks = r.tricks[played].astype(float)
        row["atpr"] = mean_ci(tricks[:, 0]).as_dict()
        test = fair_share_test(game, tricks[:, 0])
        if test is not None:
            row["opponent_atpr"] = mean_ci(tricks[:, 1:].mean(axis=1)).as_dict()
            row["t_test_p"] = test["p"]
            row["study_normal_p"] = test["study_normal_p"]
        rows.append(row)
    return rows


def render(rows: list[dict], game) -> str:
    """The benchmark table as text; the opponent column is as wide as its longest name.
    Partnership games compare the sides' scores, cut-throat Spades the champion's ATpR
    with 3.25: signed difference, 95% CI, t test and verdict (better / no different /
    worse at alpha 0.05)."""
    w = max([len("opponent")] + [len(r["opponent"]) for r in rows])
    lines = []
    if game.partnership:
        lines.append(f"{'opponent':<{w}} {'deals':>7}  {'side points (95% CI)':<26} {'% of points':<26} "
                     f"score per deal, champion side - opponents (95% CI), t test")
        for r in rows:
            lines.append(
                f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(r['points']):<26} {format_ci(r['share']):<26} "
                f"{format_comparison(r['score'], r.get('score_t_test_p'))}"
            )
    elif not game.protocol.tricks_are_aim:
        lines.append(f"{'opponent':<{w}} {'deals':>7}  {'champion points (95% CI)':<26} "
                     f"{'opponent in its seat':<26} points per deal, champion - the opponent in the champion's seat "
                     "on the same deals (95% CI), t test; lower is better")
        for r in rows:
            lines.append(
                f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(r['points']):<26} "
                f"{format_ci(r['opponent_points']):<26} "
                f"{format_comparison(r['points_difference'], r['points_t_test_p'])}"
            )
    else:
        share = fair_share(game)
        lines.append(f"{'opponent':<{w}} {'deals':>7}  {'champion ATpR (95% CI)':<26} {'opponents ATpR':<26} "
                     f"champion ATpR - {share:g} (95% CI), t test; study normal p")
        for r in rows:
            opp = format_ci(r["opponent_atpr"]) if "opponent_atpr" in r else ""
            test = ""
            if "t_test_p" in r:
                test = (f"{format_comparison(shifted(r['atpr'], share), r['t_test_p'])}; "
                        f"study normal {p_clause(r['study_normal_p'])}")
            lines.append(f"{r['opponent']:<{w}} {r['deals']:>7}  {format_ci(r['atpr']):<26} {opp:<26} {test}".rstrip())
    return "\n".join(lines)
