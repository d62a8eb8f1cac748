"""The Euchre bidding article (Rollason 2015): four bidding systems and their one table.

The article prints one table with numbers, ``KCardWinRate`` (its third system's per-card
trick-win rates from bulk testing, in units of 1/32512), the shape of its fourth system's
context table (4608 entries, 192 contexts) and an estimate (63 million entries, 20 years).
It gives no win rate, threshold or share of hands for any system: it says only that
system 2 "played better" than system 1, that system 3 "improved play" and that system 4
"plays pretty well". Its engine played the cards with ISMCTS.

Ours (``evolve.learn.bidding_tables``: bulk play with the ``explore`` bidder, each bid
random with probability 0.5, else the linear bidder on the article's table):

- ``kcardwinrate``: the maker's per-card trick-win rate with CardCounting card play
  beside the article's figures (Wilson CIs; the article's sample is not given);
- ``kcardwinrate_ismcts``: the same measured with ISMCTS card play (the article's);
- ``structure``: our context table's shape and the article's estimate, recomputed;
- ``systems``: systems 1-4 (``logic``, ``logic_profile``, ``profile``, ``context``) against
  each other with the same card play, where the article makes claims without figures;
- ``ismcts_tables``: whether tables measured with ISMCTS play instead of CardCounting
  make the table bidders stronger (each against itself on CardCounting-measured tables);
- ``engine``: what the article measured with its own engine and does not print.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evolve.reproduce.cells import Cell, proportion
from evolve.reproduce.registry import Document, Reproduction, document, register

DOC = document(Document("bidding", "Rollason 2015", "Euchre bidding", "003_d01d79b9616465ed.txt"))
DATA = json.loads((Path(__file__).with_name("data") / "bidding.json").read_text())

SLOT = {"9": 0, "10": 1, "J": 2, "Q": 3, "K": 4, "A": 5, "left": 6, "right": 7}
GROUP = {"other": 0, "shadow": 1, "trump": 2}
CARDCOUNTING = "cardcounting"
ISMCTS = "ismcts:iterations=100"
DEALS = {CARDCOUNTING: (400_000, 2_000), ISMCTS: (400_000, 200)}   # (full, quick) deals of bulk play
GAMES_FULL, GAMES_QUICK = 4000, 20
# the article's systems -> our bidders (docs/reproductions/bidding.md)
SYSTEMS = {1: "logic", 2: "logic_profile", 3: "profile", 4: "context"}
KEEP = ("group_maker", "group_maker_n", "group_all", "group_all_n", "start_logic", "start_logic_profile",
        "start_profile", "start_context")
# why a per-card rate differs, by the card play that measured ours
_UNKNOWN = ("the article gives neither its ISMCTS budget, its bidders (ours: explore, random with probability 0.5) "
            "nor its sample size, so no sampling error of its enters the bound")
WHY_RATE = {
    CARDCOUNTING: f"ours played its cards with CardCounting, the article's engine with ISMCTS (kcardwinrate_ismcts "
                  f"measures ours with ISMCTS play); also {_UNKNOWN}",
    ISMCTS: f"ours is ISMCTS at 100 iterations a card on our engine, and {_UNKNOWN}; ours has a CI of a few tenths "
            "of a point on the full 400,000 deals",
}


def _tables(ctx, play: str, budget: str = "") -> dict:
    """The bulk tables measured with card player ``play`` (one unit of work) on the deals
    of ``DEALS[budget or play]``."""
    from evolve.learn.bidding_tables import measure

    deals = ctx.budget(*DEALS[budget or play])

    def compute() -> dict:
        out = measure(play, deals, seed=1)
        return {k: np.asarray(out[k]).tolist() for k in KEEP} | {"deals": deals, "seconds": float(out["seconds"])}

    return ctx.memo({"bidding": "tables", "play": play, "deals": deals}, compute)


def _winrate_cells(key: str, tables: dict, play: str) -> list[Cell]:
    rate = np.asarray(tables["group_maker"])
    n = np.asarray(tables["group_maker_n"])
    out = []
    for group, card, value, _pct in DATA["kcardwinrate"]["entries"]:
        g, s = GROUP[group], SLOT[card]
        count = int(n[g, s])
        ours, low, high = proportion(round(rate[g, s] * count), count) if count else (None, None, None)
        c = Cell(key, f"{group} {card}", "trick-win rate", "% of the maker's cards", 100 * value / DATA["kcardwinrate"]
                 ["unit"], ours, low, high, count)
        if (group, card) == ("trump", "right"):
            c.kind, c.reason = "certain", "the right bower is the highest card: it wins every trick it is played in"
        elif c.verdict == "differs":
            c.reason = WHY_RATE[play]
        out.append(c)
    return out


def _winrate(key: str, play: str):
    def run(ctx) -> list[Cell]:
        return _winrate_cells(key, _tables(ctx, play), play)

    return run


def _structure(ctx) -> list[Cell]:
    from evolve.agents.bidding.euchre_tables import CONTEXT_SHAPE

    ct, est = DATA["context_table"], DATA["estimate"]
    entries = int(np.prod(CONTEXT_SHAPE))
    contexts = int(np.prod(CONTEXT_SHAPE[:-1]))
    years = est["entries"] * est["deals_per_context"] * est["seconds_per_game"] / (365.25 * 86400)
    exact = "exact: computed, not sampled"
    return [
        Cell("structure", "context table", "entries", "entries", ct["entries"], entries, entries, entries, 1,
             reason=exact, kind="arithmetic"),
        Cell("structure", "context table", "contexts per card", "contexts", ct["contexts"], contexts, contexts,
             contexts, 1, reason=exact, kind="arithmetic"),
        Cell("structure", "exact-context estimate", "time to fill", "years", est["years"], years, years, years, 1,
             tolerance=0.5, reason="63e6 contexts x 100 deals x 0.1 s; tolerance 0.5: the article rounds to 20",
             kind="arithmetic"),
    ]


def _pairing(ctx, key: str, a: str, b: str, label: str) -> list[Cell]:
    from evolve.evaluate.matrix import head_to_head

    games = ctx.budget(GAMES_FULL, GAMES_QUICK)

    def compute() -> dict:
        cell = head_to_head("euchre", a, b, seed=3, n_games=games, workers=ctx.workers)
        return {k: cell[k] for k in ("games", "score_share", "deals")}

    r = ctx.memo({"bidding": "pairing", "a": a, "b": b, "games": games}, compute)
    rate, low, high = proportion(r["games"]["a_wins"], r["games"]["completed"])
    ss = r["score_share"]
    return [Cell(key, label, "games won", "% of games", None, rate, low, high, r["games"]["completed"]),
            Cell(key, label, "total score", "% of points", None, 100 * ss["mean"], 100 * ss["low"],
                 100 * ss["high"], r["deals"])]


def _seat(bidder: str, genome: str = "") -> str:
    return f"{CARDCOUNTING}:bidder={bidder}" + (f",bid_genome={genome}" if genome else "")


def _systems(ctx) -> list[Cell]:
    claims = {(2, 1): "the article: system 2 'played better' than system 1",
              (3, 2): "the article: system 3 'improved play'", (4, 3): "the article: system 4 'plays pretty well'",
              (4, 1): "no claim: the last system against the first"}
    out = []
    for (x, y), claim in claims.items():
        cells = _pairing(ctx, "systems", _seat(SYSTEMS[x]), _seat(SYSTEMS[y]), f"system {x} vs {y}")
        for c in cells:
            c.reason = f"no figure in the article; {claim}"
        out += cells
    return out


def _genome(ctx, tables: dict, bidder: str, play: str) -> str:
    """A ``bid_genome`` file of ``bidder``'s start vector from ``tables`` (in the work folder)."""
    folder = (ctx.work or Path("plots/reproduce/bidding/work")) / "genomes"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{bidder}_{play.split(':')[0]}_{tables['deals']}.npz"
    np.savez(path, genome=np.asarray(tables[f"start_{bidder}"], np.float64))
    return str(path)


def _ismcts_tables(ctx) -> list[Cell]:
    cc, mcts = _tables(ctx, CARDCOUNTING, ISMCTS), _tables(ctx, ISMCTS)     # the same deals
    out = []
    for system in (1, 2, 3, 4):
        bidder = SYSTEMS[system]
        a = _seat(bidder, _genome(ctx, mcts, bidder, ISMCTS))
        b = _seat(bidder, _genome(ctx, cc, bidder, CARDCOUNTING))
        label = f"system {system} ({bidder}): ISMCTS-measured vs CardCounting-measured"
        cells = _pairing(ctx, "ismcts_tables", a, b, label)
        for c in cells:
            c.reason = (f"no figure in the article (its tables were measured with ISMCTS play); both tables from "
                        f"{mcts['deals']:,} deals, played with CardCounting cards ({mcts['seconds']:.0f} s of ISMCTS "
                        f"bulk play against {cc['seconds']:.0f} s of CardCounting)")
        out += cells
    return out


_PLAYED = ("bulk play: every seat plays its cards with {play} and bids with explore (random with probability 0.5, "
           "else linear on the article's table), {full:,} deals ({quick:,} with --quick), random seed 1; the maker's "
           "rate (the table the bidders use); the article's figures are its own engine's and give no sample size, so "
           "no standard error of theirs enters the verdict")

register(Reproduction(
    "bidding", "kcardwinrate", "per-card trick-win rates, CardCounting play", "KCardWinRate (third system)",
    _winrate("kcardwinrate", CARDCOUNTING), digits=1,
    notes=(_PLAYED.format(play="CardCounting", full=DEALS[CARDCOUNTING][0], quick=DEALS[CARDCOUNTING][1]),
           "the article's percentages in its comments are its values x 100 / 32512 truncated; ours are the exact "
           "values' percentages")))
register(Reproduction(
    "bidding", "kcardwinrate_ismcts", "per-card trick-win rates, ISMCTS play (the article's)",
    "KCardWinRate (third system)", _winrate("kcardwinrate_ismcts", ISMCTS), digits=1,
    notes=(_PLAYED.format(play="ISMCTS (100 iterations a card)", full=DEALS[ISMCTS][0], quick=DEALS[ISMCTS][1]),
           "the article does not say its ISMCTS budget; 100 iterations costs about 36 times CardCounting's time "
           "per deal here (1,000 iterations about 360 times)")))
register(Reproduction(
    "bidding", "structure", "the context table's shape and the exact-context estimate", "fourth system (text)",
    _structure, digits=2,
    notes=("our context table `[alone][lead][partner took the upcard][trumps 0-5][voids 0-3][card]` against the "
           "article's `[wolf][lead][part][#trumps][#voids][card index]`; the estimate's arithmetic redone",)))
register(Reproduction(
    "bidding", "systems", "the four systems against each other", "the four systems (text: no figures)", _systems,
    digits=1,
    notes=("systems 1-4 = bidder=logic, logic_profile, profile, context (bulk tables shipped in "
           "evolve/agents/data/euchre_tables.npz, measured with CardCounting play); standard Euchre, games to 10, "
           f"{GAMES_FULL:,} games ({GAMES_QUICK} with --quick) on paired deals with the seats exchanged, every seat "
           "playing its cards with cardcounting",)))
register(Reproduction(
    "bidding", "ismcts_tables", "tables measured with ISMCTS play against CardCounting-measured ones",
    "the article's bulk testing (its engine played ISMCTS)", _ismcts_tables, digits=1,
    notes=(f"each system's bidder from tables measured with ISMCTS play ({ISMCTS}) against the same bidder from "
           "tables measured with CardCounting play, both on the same number of deals (random seed 1); the games use "
           "CardCounting card play for both sides (ISMCTS games would cost about 36 times as much)",)))
register(Reproduction(
    "bidding", "engine", "what the article measured with its own engine", "the four systems (text)",
    unavailable="the article prints neither its Profile ROM tables (systems 2 and 3), its context table's values, "
                "its thresholds, nor any win rate or share of hands bid: they came from its own engine (ISMCTS "
                "play, its bidding, its block games) and only its KCardWinRate table is printed"))
