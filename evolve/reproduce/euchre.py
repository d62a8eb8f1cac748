"""The Euchre cooperative-agents paper (Mychaskiw 2015): Tables 1-45, one pairing each.

Section 3 of the paper: every table pits two teams of two identical agents against each
other over 10,001 games to 10 points, "the dealer call trump to be spades" (no bidding:
the game option ``setup = "fixed_spades"``), and reports each team's games won, tricks won
and total score over the 10,001 games, and its time. Ours plays the same pairing on
paired deals with the seats exchanged (``evolve.evaluate.matrix.head_to_head``) until
10,001 games are complete, and compares:

- games won: team A's share of the games, % (Wilson CI; the seed's own standard error
  from its 10,001 games);
- tricks won: A's share of all tricks, % (5 tricks a deal; CI over deals);
- total score: A's share of all points scored, % (delta-method CI over deals).

Shares, because the paper's totals depend on how many deals its games took, which it does
not give (its tricks total / 5 estimates it, for the seed's standard error). The paper's
timings (Java, its machine) are not compared. Agents that test whether a card "can win"
use the paper's fixed strength scores (``rule=study``), as its code did.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from evolve.reproduce.cells import Cell, proportion, proportion_se
from evolve.reproduce.registry import Document, Reproduction, document, register

DOC = document(Document("euchre", "Mychaskiw 2015", "Cooperative Agents in Euchre", "001_7cd987f287e6d24c.txt"))
DATA = json.loads((Path(__file__).with_name("data") / "euchre.json").read_text())

# the paper's agent names -> our seats (rule=study: the paper's "can win" test)
SEATS = {"Random": "random", "Low": "low", "High": "high", "HighLow": "highlow:rule=study",
         "CoopHighLow": "coophighlow:rule=study", "CardCounting": "cardcounting:rule=study",
         "Markov": "markov", "Markov2": "markov2", "Hybrid": "hybrid:rule=study", "Hybrid2": "hybrid2:rule=study"}
GAMES_FULL, GAMES_QUICK = DATA["games"], 100


def _pairing(ctx, a: str, b: str) -> dict:
    from evolve.evaluate.matrix import head_to_head

    n_games = ctx.budget(GAMES_FULL, GAMES_QUICK)

    def compute() -> dict:
        cell = head_to_head("euchre", SEATS[a], SEATS[b], seed=0, n_games=n_games, workers=ctx.workers,
                            setup="fixed_spades")
        return {k: cell[k] for k in ("games", "a_points", "a_points_rounds", "score_share", "deals", "rounds")}

    return ctx.memo({"euchre": "pairing", "a": SEATS[a], "b": SEATS[b], "games": n_games}, compute)


def _cells(key: str, table: dict, result: dict) -> list[Cell]:
    a, b = table["agents"]
    won, tricks, score = table["games_won"], table["tricks_won"], table["total_score"]
    games = result["games"]
    seed_games = sum(won)
    seed_deals = sum(tricks) / 5          # every deal has 5 tricks
    out = []
    rate, low, high = proportion(games["a_wins"], games["completed"])
    seed_rate = 100 * won[0] / seed_games
    out.append(Cell(key, a, "games won", "% of games", seed_rate, rate, low, high, games["completed"],
                    proportion_se(seed_rate, seed_games)))
    pts = result["a_points"]        # A's tricks per deal, the mean of the two seatings
    seed_share = 100 * tricks[0] / sum(tricks)
    per_round_sd = 100 * result["a_points_rounds"]["sd"] / 5
    out.append(Cell(key, a, "tricks won", "% of tricks", seed_share, 100 * pts["mean"] / 5, 100 * pts["low"] / 5,
                    100 * pts["high"] / 5, result["deals"], per_round_sd / math.sqrt(seed_deals)))
    ss = result["score_share"]
    seed_score = 100 * score[0] / sum(score)
    sd_round = 100 * ss["sd"] * math.sqrt(2)        # ours pairs two seatings a deal; the seed plays each once
    out.append(Cell(key, a, "total score", "% of points", seed_score, 100 * ss["mean"], 100 * ss["low"],
                    100 * ss["high"], result["deals"], sd_round / math.sqrt(seed_deals)))
    for c in out:
        c.extra = {"against": b}
    return out


def _reproduction(number: str, table: dict) -> Reproduction:
    a, b = table["agents"]

    def run(ctx) -> list[Cell]:
        return _cells(f"table{number}", table, _pairing(ctx, a, b))

    return register(Reproduction(
        "euchre", f"table{number}", f"{a} against {b}", f"Table {number}", run,
        notes=(f"A = {a} ({SEATS[a]}), B = {b} ({SEATS[b]}); no bidding (spades trump), games to 10, "
               f"{GAMES_FULL:,} games ({GAMES_QUICK} with --quick) on paired deals with the seats exchanged; "
               f"the paper's times ({table['time_ms'][0]} and {table['time_ms'][1]} ms) are not compared",)))


for _number, _table in DATA["tables"].items():
    _reproduction(_number, _table)
