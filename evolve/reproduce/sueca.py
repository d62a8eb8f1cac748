"""The Sueca thesis (Lopes Carreiro 2016): Random, Obligated Trump, Always High, Monte Carlo.

Every table of the thesis with figures is registered here: Chapter 4's random-play tables
(4.3-4.7), the strategies of Chapter 5 (Figure 5.1, Tables 5.1, 5.2), the Monte Carlo
tables of Chapter 6 (6.1-6.5, the means and sds of Figures 6.1-6.3, the truth by round and
by prohibited suits of Figures 6.6, 6.7) and Chapter 7's lineups (Tables 7.1-7.21), plus
two tables of our own: how the headline figures move with our budget, and which Monte
Carlo player (honest ``mc`` or the upper bound ``perfect_mc``) the thesis's figures match,
table by table. The thesis's setup (its Chapter 4, Section 8.2 and Chapter 7): trump the
suit of a uniformly random card, N leads every deal (``setup = "study"``), 1,000,000 deals
per setting, the team N-S's average card points (of 120) and their sd.

Agents (``docs/reproductions/sueca.md`` gives every reading and its reason): R ``random``,
T ``obligated_trump``, T leading trump ``obligated_trump_lead``, A ``always_high``, A as
third player ``third_hand_high``, MC ``mc:variant=...,shuffle=per_card`` (a shuffle per
move, Section 6.1; ``ties=random`` for Normal) and the same with ``perfect_mc``. Units of
work and statistics: ``evolve.reproduce.sueca_play``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from evolve.agents.registry import PERFECT_NOTE
from evolve.reproduce.cells import Z95, Cell, proportion, proportion_se
from evolve.reproduce.plots import finish, scatter
from evolve.reproduce.registry import Document, Reproduction, document, register
from evolve.reproduce.sueca_play import (
    CONDITIONAL_COV,
    MAX_SHUFFLES,
    N_COV,
    blocks,
    dealer_block,
    lineup_block,
    merge,
    prefix,
    ratio,
    run_blocks,
    share,
    summary,
    truth_block,
    truth_rates,
)

DOC = document(Document("sueca", "Lopes Carreiro 2016", "Examining different strategies for the card game Sueca",
                        "000_a350b72122b41af2.txt",
                        versions=(("", "rule-based seats and shuffle rates"), ("mc", "MC seats, honest `mc`"),
                                  ("perfect_mc", "MC seats, `perfect_mc` (upper bound)"))))
DATA = json.loads((Path(__file__).with_name("data") / "sueca.json").read_text())
PAPER_DEALS = DATA["deals"]
CH7 = DATA["chapter7"]["tables"]

# the thesis's letters -> our seats; MC is Chapter 7's Monte Carlo Extra (50 shuffles x 2 playouts)
LETTERS = {"R": "random", "T": "obligated_trump", "A": "always_high", "TL": "obligated_trump_lead",
           "A3": "third_hand_high"}
MC_EXTRA = "variant=extra,shuffles=50,playouts=2,shuffle=per_card"
VERSIONS = ("mc", "perfect_mc")

# budgets (full, quick): deals per unit of work
RULE_DEALS = (400_000, 5_000)          # lineups without MC (the thesis: 1,000,000)
MC_DEALS = (300, 2)                    # Chapter 7 lineups with MC, per version
KEEP_DEALS = (3_000, 4)                # the headline lineups, kept deal by deal (the budget table)
KEPT = (("MC", "R", "R", "R"), ("MC", "MC", "R", "R"))
PREFIXES = ((100, 300, 1000, 3000), (2, 4))
CH4_DEALS = (100_000, 2_000)           # Chapter 4 deals per row (kept deals where trump is fixed)
BIN_DEALS = ((100_000, 2_000), (300, 2))   # Table 6.3 per bin: random, each MC
TRUTH_DEALS = (2_000, 4)
MC_WORK = (200_000, 4)                 # Tables 6.1, 6.2: about this many playouts per card over the deals
MC_MIN_DEALS, MC_MAX_DEALS = 400, 2_000    # bounds of a Chapter 6 setting's full budget
BLOCK_RULES, BLOCK_MC = 65_536, 25

ROUND1, ROUND2, ROUND0 = 0.05, 0.005, 0.5     # half the last printed digit
ROUNDING = ("Tolerance: half the last digit the thesis prints (its rounding); the thesis's own standard error "
            "is its sd / sqrt(1,000,000) for a mean, the sd's from our kurtosis at its size.")
CV_NOTE = ("Our means are adjusted by a regression on covariates with known means (N-S's and N's trumps and trump "
           "points against their expectations given the hands; on uniform deals also their card points): the "
           "same expectation as the plain mean with about half its variance (evolve/reproduce/sueca_play.py).")
PERFECT_TEXT = f"{PERFECT_NOTE}; perfect_mc is here to test whether the thesis's MC behaved as one."


# ----------------------------------------------------------------------------- units


def seats_of(letters, version: str = "mc", mc: str = MC_EXTRA) -> list[str]:
    """Our seats in play order N, W, S, E from the thesis's columns N, S, E, W."""
    def one(x):
        return f"{version}:{mc}" if x == "MC" else LETTERS[x]

    n, s, e, w = letters
    return [one(n), one(w), one(s), one(e)]


def unit(ctx, seats: list[str], n: int, decks: str = "", keep: bool = False) -> dict:
    """``n`` deals of a lineup (decks: ``evolve.reproduce.sueca_play.build_decks``), resumed."""
    searching = any(s.startswith(VERSIONS) for s in seats)

    def compute() -> dict:
        tasks = [(seats, a, b, decks, keep) for a, b in blocks(n, BLOCK_MC if searching else BLOCK_RULES)]
        return merge(run_blocks(lineup_block, tasks, ctx.workers))

    return ctx.memo({"sueca": "lineup", "seats": seats, "deals": n, "decks": decks, "keep": keep}, compute)


def lineup(ctx, letters, version: str = "mc") -> dict:
    """A Chapter 7 lineup (columns N, S, E, W) on uniform deals."""
    letters = tuple(letters)
    if letters in KEPT:
        return unit(ctx, seats_of(letters, version), ctx.budget(*KEEP_DEALS), keep=True)
    n = ctx.budget(*MC_DEALS) if "MC" in letters else ctx.budget(*RULE_DEALS)
    return unit(ctx, seats_of(letters, version), n)


def mc_seat(version: str, variant: str, shuffles: int, playouts: int = 1) -> str:
    """The thesis's MC variant as a seat: a shuffle per move (``shuffle=per_card``), Normal's
    ties at random."""
    opts = f"variant={variant},shuffles={shuffles}"
    if variant == "extra":
        opts += f",playouts={playouts}"
    opts += ",shuffle=per_card"
    if variant == "normal":
        opts += ",ties=random"
    return f"{version}:{opts}"


def mc_deals(work: int) -> int:
    """Full-budget deals of a Chapter 6 setting spending ``work`` playouts per card and move."""
    return min(MC_MAX_DEALS, max(MC_MIN_DEALS, MC_WORK[0] // work))


def one_mc(ctx, version: str, variant: str, shuffles: int, playouts: int = 1) -> dict:
    """One MC seat at N, three Random seats (Chapter 6), on about ``MC_WORK`` playouts per
    card over the deals (``mc_deals``); Chapter 7's setting is its unit."""
    if (variant, shuffles, playouts) == ("extra", 50, 2):
        return lineup(ctx, KEPT[0], version)
    work = shuffles * playouts
    n = ctx.budget(mc_deals(work), MC_WORK[1])
    return unit(ctx, [mc_seat(version, variant, shuffles, playouts)] + ["random"] * 3, n)


# ----------------------------------------------------------------------------- cells


def mean_cell(table, row, column, paper, stats, tol, *, paper_sd=None, n_cov=N_COV, unit_="points") -> Cell:
    """N-S's mean points of a unit beside the thesis's figure."""
    s = summary(stats, n_cov)
    if s["n"] == 0:
        return Cell(table, row, column, unit_, paper, tolerance=tol, reason="no deals at this budget")
    z = Z95
    sd_paper = paper_sd if paper_sd else s["sd"]
    return Cell(table, row, column, unit_, paper, s["mean"], s["mean"] - z * s["se"], s["mean"] + z * s["se"], s["n"],
                sd_paper / math.sqrt(PAPER_DEALS), tol)


def sd_cell(table, row, column, paper, stats, tol) -> Cell:
    """The sd of N-S's points beside the thesis's."""
    s = summary(stats, 0)
    if s["n"] < 2:
        return Cell(table, row, column, "points", paper, tolerance=tol, reason="no deals at this budget")
    z = Z95
    return Cell(table, row, column, "points", paper, s["sd"], s["sd"] - z * s["sd_se"], s["sd"] + z * s["sd_se"],
                s["n"], s["sd_se"] * math.sqrt(s["n"] / PAPER_DEALS), tol)


def extreme_cell(table, row, column, paper, stats, which: str) -> Cell:
    """An extreme of the thesis's 1,000,000 deals beside ours: not compared."""
    s = summary(stats, 0)
    return Cell(table, row, column, "points", paper, s[which], n=s["n"],
                reason=f"the {which} of 1,000,000 deals has no standard error; ours over {s['n']:,} deals")


def versioned(cells: list[Cell], version: str) -> list[Cell]:
    """The cells of one MC version (``mc`` or ``perfect_mc``), named in their extra data
    (the summaries count each version on its own row)."""
    for c in cells:
        c.extra = {**c.extra, "version": version}
    return cells


def share_cell(table, row, column, paper, stats, lo, hi, tol) -> Cell:
    """The % of deals with N-S's points in ``lo .. hi`` (or outside, for lo > hi: a side > 90)."""
    if lo <= hi:
        k, n = share(stats, lo, hi)
    else:
        inside, n = share(stats, hi + 1, lo - 1)
        k = n - inside
    rate, low, high = proportion(k, n)
    return Cell(table, row, column, "% of deals", paper, rate, low, high, n, proportion_se(paper, PAPER_DEALS), tol)


def chance_reason(c: Cell, tests: int) -> None:
    """The reason of a differing cell where no rule difference is known: how far out it is."""
    if c.verdict != "differs" or c.reason:
        return
    se = (c.bound - c.tolerance) / Z95
    z = (abs(c.difference) - c.tolerance) / se if se > 0 else math.inf
    if z < 3.5:
        c.reason = (f"{z:.1f} standard errors beyond the rounding; about 1 in 20 of the {tests} such cells falls "
                    "outside its 95% bound by chance; no rule difference known")
    else:
        c.reason = f"{z:.0f} standard errors beyond the rounding; nothing known explains it"


def pair_reasons(honest: Cell, perfect: Cell, what: str) -> None:
    """Reasons for an honest / perfect-information pair of cells of the same figure."""
    for c, other, name in ((honest, perfect, "perfect_mc"), (perfect, honest, "mc")):
        if c.verdict != "differs" or c.reason or other.ours is None:
            continue
        seen = "played as if it saw the hidden hands" if name == "perfect_mc" else "played as an honest search"
        if other.verdict == "reproduced":
            c.reason = f"{name} reproduces it ({other.ours:.2f}): the thesis's {what} {seen}"
        elif abs(other.difference) < abs(c.difference):
            c.reason = f"{name} comes nearer ({other.ours:.2f}), as if the thesis's {what} {seen}"
        else:
            c.reason = f"{name} is further off ({other.ours:.2f}); nothing known explains it"


def placeholder_reason(cells: list[Cell], rows: list) -> None:
    """The thesis's rows that print 60.0 for both sides and the sd (Table 7.9)."""
    bad = {f"{r[0]} {r[1]} | {r[2]} {r[3]}" for r in rows if r[6] == 60.0}
    for c in cells:
        if c.row in bad and c.verdict == "differs" and not c.reason:
            c.reason = ("the thesis's row reads 60.0 / 60.0 / 60.0: a placeholder (an sd of 60 needs every deal at "
                        "0 or 120 points)")


# ----------------------------------------------------------------------------- Chapter 4


def _unavailable(key, title, source, why):
    register(Reproduction("sueca", key, title, source, unavailable=why))


_unavailable("table4.1", "average score by trump suit and leader, one deck", "Table 4.1 (Section 4.1)",
             "one random deck the thesis does not give (Table 4.2 gives only its suit counts per team); "
             "its claim that the leader makes no difference is the lineups' equality in Table 7.17")
_unavailable("table4.2", "cards per suit per team of Table 4.1's deck", "Table 4.2 (Section 4.1)",
             "a description of Table 4.1's unpublished deck, not a measurement")


def _table4_3(ctx) -> list[Cell]:
    n = ctx.budget(PAPER_DEALS, RULE_DEALS[1])

    def compute() -> dict:
        parts = run_blocks(dealer_block, blocks(n, BLOCK_RULES), ctx.workers)
        out = {d: [sum(p[d][k] for p in parts) for k in range(5)] for d in ("0", "1", "2", "3")}
        out["n"] = sum(p["n"] for p in parts)
        return out

    res = ctx.memo({"sueca": "dealer", "deals": n}, compute)
    t = DATA["table4.3"]
    cells = []
    for dealer, (name, paper) in enumerate(zip(t["columns"], t["score"])):
        mean, se = ratio(*res[str(dealer)])
        z = Z95
        cells.append(Cell("table4.3", f"dealer {name}", "dealer's team", "points", paper, mean, mean - z * se,
                          mean + z * se, res["n"], 24.3 / math.sqrt(PAPER_DEALS), ROUND0))
    for c in cells:
        chance_reason(c, 4)
    return cells


register(Reproduction(
    "sueca", "table4.3", "random play, trump from the dealer's first card: the dealer's team's average",
    "Table 4.3 (Section 4.2.1)", _table4_3, digits=1,
    notes=("Reading: the table prints 63 for every dealer 'from the perspective of N and S', but the text says the "
           "dealer's team has an advantage of three points, and by symmetry N-S would score 57 when W or E deals: "
           "the 63s are the dealer's team's score.",
           "Ours: random play on uniform deals with trump from a random card, reweighted by 0.4 x the dealer's "
           "trumps, which is exactly trump from the dealer's first card (N leads every deal, as in the thesis); "
           "the weighted mean's delta-method CI. The thesis's se uses Table 7.1's sd 24.3.", ROUNDING)))


def _conditioned(ctx, key: str, rows: list[tuple[str, str, float, float, float]], lows: str, highs: str,
                 tol=ROUND0) -> list[Cell]:
    """Rows of a Chapter 4 table on built decks: (row, deck spec, low, average, high)."""
    cells = []
    n = ctx.budget(*CH4_DEALS)
    for row, spec, low, avg, high in rows:
        played = 4 * n if spec.startswith(("trumps:", "nine:")) else n
        st = unit(ctx, ["random"] * 4, played, spec)
        cov = CONDITIONAL_COV if spec.startswith("points:") else 0
        cells += [extreme_cell(key, row, lows, low, st, "min"),
                  mean_cell(key, row, "average", avg, st, tol, n_cov=cov),
                  extreme_cell(key, row, highs, high, st, "max")]
    for c in cells:
        chance_reason(c, len(rows))
    return cells


def _chapter4(key: str, by: str, row, spec, lows: str, highs: str):
    """A Chapter 4 table whose rows are ``DATA[key][by]``: ``row(x)`` labels them, ``spec(x)``
    builds their decks; ``lows`` / ``highs`` name the extremes' columns."""
    def run(ctx) -> list[Cell]:
        t = DATA[key]
        rows = [(row(x), spec(x), lo, av, hi) for x, lo, av, hi in zip(t[by], t[lows], t["average"], t[highs])]
        return _conditioned(ctx, key, rows, lows, highs)

    return run


_table4_4 = _chapter4("table4.4", "trumps", lambda k: f"{k} trumps", lambda k: f"trumps:N:{k}", "lowest", "highest")
_table4_5 = _chapter4("table4.5", "missing", lambda f: f"T = {f}", lambda f: f"nine:{f}", "lowest", "highest")
_table4_6 = _chapter4("table4.6", "trumps", lambda k: f"{k} trumps", lambda k: f"trumps:NS:{k}", "min", "max")
_table4_7 = _chapter4("table4.7", "bins", lambda b: f"{b[0]}-{b[1]}", lambda b: f"points:{b[0]}:{b[1]}", "min", "max")


_BUILT = (f"Random play, {CH4_DEALS[0]:,} deals per row (the thesis: 1,000,000); N leads; deals drawn uniformly "
          "among those the row describes: ")
_EXTREMES = ("Lowest and highest are extremes of the thesis's 1,000,000 deals: shown, not compared (no standard "
             "error; ours come from fewer deals).")
register(Reproduction(
    "sueca", "table4.4", "random play, N holds k trumps: N-S's lowest, average, highest", "Table 4.4 (Section 4.2.2)",
    _table4_4, digits=1,
    notes=(_BUILT + "N holds exactly k clubs; only the deals the engine gives clubs trump are kept (a quarter, "
           "whatever the hands, so the kept hands are not biased).", _EXTREMES, ROUNDING)))
register(Reproduction(
    "sueca", "table4.5", "random play, N holds nine trumps but T: N-S's highest, average, lowest",
    "Table 4.5 (Section 4.2.2)", _table4_5, digits=1,
    notes=(_BUILT + "N holds the nine trumps other than T and one random other card (trump fixed as in table4.4).",
           "Reading: the columns as printed (T = Two, then Ace): the text's 'maximally 39 points' lost when T is the "
           "Ace matches the Ace column's lowest 81.", _EXTREMES, ROUNDING)))
register(Reproduction(
    "sueca", "table4.6", "random play, N-S hold k trumps: N-S's min, average, max", "Table 4.6 (Section 4.3.1)",
    _table4_6, digits=1,
    notes=(_BUILT + "N and S hold exactly k clubs together (trump fixed as in table4.4).", _EXTREMES, ROUNDING)))
register(Reproduction(
    "sueca", "table4.7", "random play by N-S's card points in hand: min, average, max", "Table 4.7 (Section 4.3.2)",
    _table4_7, digits=1,
    notes=(_BUILT + "N and S hold between a and b card points together (both ends included, as the thesis says), "
           "drawn with the exact count of such hands; trump from a random card.", _EXTREMES, ROUNDING, CV_NOTE)))


# ----------------------------------------------------------------------------- Chapter 5


def _figure5_1(ctx) -> list[Cell]:
    f = DATA["figure5.1"]
    st = lineup(ctx, ("R", "R", "R", "R"))
    cells = [mean_cell("figure5.1", "R R | R R", "mean", f["mean"], st, ROUND0),
             sd_cell("figure5.1", "R R | R R", "sd", f["sd"], st, ROUND2),
             share_cell("figure5.1", "R R | R R", "36 to 84 points", 68, st, 36, 84, ROUND0),
             share_cell("figure5.1", "R R | R R", "a side above 90 (two game points)", f["two_game_points_pct"], st,
                        91, 29, ROUND0)]
    if cells[1].verdict == "differs":
        cells[1].reason = "the thesis's own Table 7.1 prints 24.3 for the same four Random seats"
    if cells[2].verdict == "differs":
        cells[2].reason = ("the thesis's 68% is a normal curve's share within one sd, not a count; N-S's points "
                           "are not normal (bounded 0..120, our count)")
    if cells[3].verdict == "differs":
        cells[3].reason = ("the text ties its 13% to 'two standard deviations' (a normal curve's 5% outside them): "
                           "no count of deals; nothing known gives 13%")
    cells[0].extra = {"hist": st["hist"]}
    for c in cells:
        chance_reason(c, 4)
    return cells


def distribution_plot(cells: list[Cell], path: Path, title: str) -> Path:
    """Our distributions of N-S's points (the thesis's Figures 5.1, 6.1-6.3 show its bars,
    whose heights are not in the text) with the thesis's mean and sd as a normal curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    shown = [c for c in cells if c.extra.get("hist")]
    fig, axes = plt.subplots(1, max(1, len(shown)), figsize=(min(4.2 * len(shown), 16), 3.2), dpi=110,
                             squeeze=False)
    x = np.arange(121)
    for ax, c in zip(axes[0], shown):
        hist = np.asarray(c.extra["hist"], float)
        ax.bar(x, hist / max(hist.sum(), 1), width=1.0, color="tab:blue", alpha=0.6, label="ours")
        sd = c.extra.get("paper_sd")
        if sd and c.paper is not None:
            ax.plot(x, np.exp(-0.5 * ((x - c.paper) / sd) ** 2) / (sd * math.sqrt(2 * math.pi)), "k-", lw=1.2,
                    label="thesis: normal(mean, sd)")
        ax.set_title(f"{c.row}, {c.column}", fontsize=9)
        ax.set_xlabel("N-S card points")
    return finish(fig, path, title, legend_from=axes[0][0])


register(Reproduction(
    "sueca", "figure5.1", "four Random seats: mean, sd and shares of N-S's points", "Figure 5.1 (Section 5.1)",
    _figure5_1, digits=2, plot=distribution_plot,
    notes=(f"Four Random seats, {RULE_DEALS[0]:,} deals (the thesis's Chapter 7 lineup R R | R R; the thesis: "
           "1,000,000).",
           "The figure's bars are not in the text; compared: its mean (60), sd (24.00), '68% lies between 36 and "
           "84 points' and '13% of the time the team loses or wins two game points' (read: a side above 90).",
           ROUNDING, CV_NOTE)))


def _strategy_table(key: str, variants: tuple[str, str]):
    t = DATA[key]

    def run(ctx) -> list[Cell]:
        cells = []
        for r, row in enumerate(t["rows"]):
            for col, letter in enumerate(variants):
                letters = (letter, "R", "R", "R") if r == 0 else (letter, letter, "R", "R")
                st = lineup(ctx, letters)
                cells.append(mean_cell(key, f"{row} ({' '.join(letters[:2])} | R R)", t["columns"][col],
                                       t["score"][r][col], st, ROUND1))
        for c in cells:
            chance_reason(c, 8)
        return cells

    return run


register(Reproduction(
    "sueca", "table5.1", "Obligated Trump leading a random card or a trump: one player, a team",
    "Table 5.1 (Section 5.2)", _strategy_table("table5.1", ("T", "TL")), digits=2,
    notes=("T = obligated_trump (void in the led suit: a random trump if any, else a random card; leads and "
           "follows at random); TL = obligated_trump_lead (the same, leading a random trump when it holds one). "
           "One player: at N with three Random seats; team: N and S.",
           f"{RULE_DEALS[0]:,} deals per row (the thesis: 1,000,000). Reading: 'a trump card' is a random one "
           "(the thesis picks at random wherever it names no card).", ROUNDING, CV_NOTE)))
register(Reproduction(
    "sueca", "table5.2", "Always High always or as third player only: one player, a team", "Table 5.2 (Section 5.3)",
    _strategy_table("table5.2", ("A", "A3")), digits=2,
    notes=("A = always_high (the legal card of highest rank whatever its suit, ties at random); A3 = "
           "third_hand_high (the same as the trick's third card, else a random card). One player at N, team N "
           "and S, three or two Random seats.",
           f"{RULE_DEALS[0]:,} deals per row (the thesis: 1,000,000). Reading: 'highest card' is the trick rank "
           "A, 7, K, J, Q, 6 .. 2 regardless of trump ('whether it is a trump card or not', Section 5.3); as "
           "third player: always_high's card as the third card of a trick and a random card otherwise (the "
           "thesis names no other rule, and its 60.0 / 60.1 are Random's).", ROUNDING, CV_NOTE)))


# ----------------------------------------------------------------------------- Chapter 6


MC_NOTES = ("mc = the thesis's Monte Carlo as it describes it (honest: a uniform deal of the unseen cards "
            "consistent with the voids shown, drawn anew for each move's playouts, Section 6.1; Normal keeps a "
            "move with the single best playout, ties at random); perfect_mc = the same playouts from the true "
            "hands.", PERFECT_TEXT)


def _mc_cells(ctx, key, row, column_for, paper, variant, shuffles, playouts, tol, what) -> list[Cell]:
    """The honest and perfect cells of one Chapter 6 setting (one MC seat at N)."""
    cells = []
    for version in VERSIONS:
        st = one_mc(ctx, version, variant, shuffles, playouts)
        cells += versioned([mean_cell(key, row, column_for(version), paper, st, tol)], version)
    if paper is not None:
        pair_reasons(cells[0], cells[1], what)
    return cells


def _table6_1(ctx) -> list[Cell]:
    t = DATA["table6.1"]
    cells = []
    for k, paper in zip(t["playouts"], t["score"]):
        cells += _mc_cells(ctx, "table6.1", f"{k} playouts per shuffle", lambda v: f"Extra, {v}", paper, "extra",
                           t["shuffles"], k, ROUND2, "Extra")
    return cells


def _table6_2(ctx) -> list[Cell]:
    t = DATA["table6.2"]
    cells = []
    for variant in ("normal", "average", "extra"):
        for s, paper in zip(t["shuffles"], t[variant]):
            if paper is None:
                continue
            cells += _mc_cells(ctx, "table6.2", f"{variant}, {s} shuffles", lambda v, x=variant: f"{x}, {v}", paper,
                               variant, s, 2 if variant == "extra" else 1, ROUND2, variant.capitalize())
    return cells


_SETTINGS = (f"One MC seat at N, three Random seats; deals per setting: about {MC_WORK[0]:,} playouts per card "
             f"over the deals ({mc_deals(100):,} deals up to 100 playouts per card, {mc_deals(250):,} at 250, "
             f"{mc_deals(500):,} at 500); the thesis plays 1,000,000. Its times (minutes on its machine) are not "
             "compared.")
register(Reproduction(
    "sueca", "table6.1", "MC Extra by playouts per shuffle (10 shuffles)", "Table 6.1 (Section 6.1.2)", _table6_1,
    notes=(_SETTINGS, *MC_NOTES,
           "With one playout per shuffle Extra is Average by definition, yet the thesis's 69.97 is 3.3 points above "
           "its own Average with 10 shuffles (66.67, Table 6.2) at the same time (24 against 25 minutes).",
           ROUNDING, CV_NOTE)))
register(Reproduction(
    "sueca", "table6.2", "MC Normal, Average, Extra by number of shuffles", "Table 6.2 (Section 6.1.3)", _table6_2,
    notes=(_SETTINGS, *MC_NOTES,
           "Extra (2 playouts per shuffle) at S shuffles spends as many playouts as Average at 2S; an honest "
           "Extra can only match Average's limit (the thesis's Average 69.54 at 500), yet its Extra gives 72.72 "
           "at 50 and 72.95 at 100: the thesis's Extra was not the honest search its text describes (the hidden hands "
           "are one explanation: which_mc sets honest mc and perfect_mc beside every MC table).", ROUNDING,
           CV_NOTE)))


def _figures6(ctx) -> list[Cell]:
    f = DATA["figures6.1-6.3"]
    settings = {"normal": (100, 1), "average": (100, 1), "extra": (10, 2)}
    cells = []
    for variant, mean, sd in zip(f["variants"], f["mean"], f["sd"]):
        s, k = settings[variant]
        pair_mean, pair_sd = [], []
        for version in VERSIONS:
            st = one_mc(ctx, version, variant, s, k)
            m = mean_cell("figures6.1-6.3", variant, f"mean, {version}", mean, st, ROUND0)
            m.extra = {"hist": st["hist"], "paper_sd": sd}
            pair_mean += versioned([m], version)
            pair_sd += versioned([sd_cell("figures6.1-6.3", variant, f"sd, {version}", sd, st, ROUND2)], version)
        pair_reasons(*pair_mean, variant.capitalize())
        pair_reasons(*pair_sd, variant.capitalize())
        cells += pair_mean + pair_sd
    return cells


register(Reproduction(
    "sueca", "figures6.1-6.3", "one MC seat: mean and sd of N-S's points (Normal, Average, Extra)",
    "Figures 6.1, 6.2, 6.3 and their text (Section 6.1.2)", _figures6, plot=distribution_plot,
    notes=("The figures' bars are not in the text; compared: the means and sds it gives. Reading of the settings "
           "the text leaves open: Normal and Average with 100 shuffles (Average's 69 needs 100 or more: Table "
           "6.2), Extra with 10 shuffles of 2 playouts (the paragraph follows Table 6.1, whose 71.50 rounds to "
           "its 72); the units of table6.2.", *MC_NOTES, ROUNDING, CV_NOTE)))


def _table6_3(ctx) -> list[Cell]:
    t = DATA["table6.3"]
    settings = {"normal": (100, 1), "average": (100, 1), "extra": (50, 2)}
    cells = []
    n_random = ctx.budget(*BIN_DEALS[0])
    n_mc = ctx.budget(*BIN_DEALS[1])
    for b, (lo, hi) in enumerate(t["bins"]):
        spec, row = f"points:{lo}:{hi}", f"{lo}-{hi}"
        st = unit(ctx, ["random"] * 4, n_random, spec)
        cells.append(mean_cell("table6.3", row, "Random", t["random"][b], st, ROUND0, n_cov=CONDITIONAL_COV))
        for variant, (s, k) in settings.items():
            pair = []
            for version in VERSIONS:
                st = unit(ctx, [mc_seat(version, variant, s, k)] + ["random"] * 3, n_mc, spec)
                pair += versioned([mean_cell("table6.3", row, f"{variant}, {version}", t[variant][b], st, ROUND0,
                                             n_cov=CONDITIONAL_COV)], version)
            pair_reasons(*pair, variant.capitalize())
            cells += pair
    for c in cells:
        chance_reason(c, 12)
    return cells


register(Reproduction(
    "sueca", "table6.3", "N-S's points by card points in hand: Random and one MC seat", "Table 6.3 (Section 6.1.3)",
    _table6_3, digits=1, plot=scatter,
    notes=(f"Deals as table4.7 (N-S hold a..b card points, both included); Random: four Random seats, "
           f"{BIN_DEALS[0][0]:,} deals per bin; MC: one MC seat at N, {BIN_DEALS[1][0]} deals per bin and version "
           "(the thesis: 1,000,000).",
           "Reading of the settings the text leaves open: Normal and Average with 100 shuffles, Extra with 50 x 2 "
           "(Chapter 7's; the bin means weighted by how often each bin occurs come near Table 6.2's 64.5, 69 and "
           "72.7 only with these).", *MC_NOTES, ROUNDING, CV_NOTE)))


def _truth(ctx) -> dict:
    n = ctx.budget(*TRUTH_DEALS)
    seats = seats_of(KEPT[0], "mc")

    def compute() -> dict:
        return truth_rates(run_blocks(truth_block, [(seats, a, b) for a, b in blocks(n, BLOCK_MC)], ctx.workers))

    return ctx.memo({"sueca": "truth", "seats": seats, "deals": n}, compute)


def _truth_cells(ctx, key: str, ways: tuple[str, ...]) -> list[Cell]:
    res = _truth(ctx)
    t = DATA["table6.5"]
    papers = {"regular": t["regular_pct"], "new": t["new_pct"]}
    cells = []
    z = Z95
    for way in ways:
        for k, n_max in enumerate(MAX_SHUFFLES):
            paper = papers[way][k]
            rate, se = res[way][k], res[way + "_se"][k]
            tol = ROUND2 if paper < 0.1 else ROUND1
            cells.append(Cell(key, f"at most {n_max} shuffles", f"truth, {way} way", "% of playouts", paper, rate,
                              rate - z * se, rate + z * se, res["n"], 0.0, tol))
    for c in cells:
        if c.verdict == "differs" and not c.reason:
            c.reason = ("ours is the exact acceptance chance of the thesis's shuffle on our games' positions; "
                        "the thesis counts its own MC's positions, which may differ")
    return cells


_TRUTH_NOTES = (
    "The thesis's MC draws a deal of the unseen cards at random and redraws while a seat gets a suit it has shown "
    "it lacks; after the maximal number of shuffles N it takes the true hands ('the truth'). Our MC draws exactly "
    "uniformly from the consistent deals and never falls back. Ours here: on the positions of our MC seat (Chapter "
    "7's Extra at N, three Random seats), the exact chance p that one shuffle is consistent (the consistent deals "
    "counted over all deals of the unseen cards with the seats' hand sizes; the new way counts after giving a "
    "suit two seats lack to the third), so a playout takes the truth with chance (1 - p)^N; per decision "
    "weighted by its number of legal cards (100 playouts per card), decisions with one legal card excluded "
    "(no shuffle, Section 6.1.1).",
    f"{TRUTH_DEALS[0]:,} deals (the thesis: 1,000,000); the CI is over deals (ratio of sums). The times are not "
    "compared.")
register(Reproduction(
    "sueca", "table6.4", "how often the MC's shuffle falls back to the true hands", "Table 6.4 (Section 6.2.1)",
    lambda ctx: _truth_cells(ctx, "table6.4", ("regular",)), notes=_TRUTH_NOTES + (ROUNDING,)))
register(Reproduction(
    "sueca", "table6.5", "the same with the new shuffle", "Table 6.5 (Section 6.2.1)",
    lambda ctx: _truth_cells(ctx, "table6.5", ("regular", "new")), notes=_TRUTH_NOTES + (ROUNDING,)))
_unavailable("figure6.5", "the truth rate by maximal shuffles", "Figure 6.5 (Section 6.2.1)",
             "it plots Table 6.4's figures, reproduced as table6.4")


def _figure6_6(ctx) -> list[Cell]:
    res = _truth(ctx)
    cells = [Cell("figure6.6", f"round {r + 1}", "share of the truth", "%", None, v, n=res["n"],
                  reason="the bars are not in the text")
             for r, v in enumerate(res["by_round"])]
    top = sorted(range(10), key=lambda r: -res["by_round"][r])[:3]
    cells[0].reason = (f"the text: none at rounds 1 and 10, most at rounds 5, 6 and 7; ours most at rounds "
                       f"{', '.join(str(r + 1) for r in sorted(top))}")
    return cells


def _figure6_7(ctx) -> list[Cell]:
    res = _truth(ctx)
    cells = [Cell("figure6.7", f"{m} prohibited suits", "share of the truth", "%", None, v, n=res["n"],
                  reason="the bars are not in the text")
             for m, v in enumerate(res["by_missing"]) if m <= 8]
    share, se = res["two_or_three"], res["two_or_three_se"]
    c = Cell("figure6.7", "2 or 3 prohibited suits", "share of the truth", "%", 70.0, share, share - Z95 * se,
             share + Z95 * se, res["n"], at_least=True, reason="the text: 'more than 70% of the times'")
    if c.verdict == "differs":
        c.reason += ("; ours is the exact share on our MC seat's positions (the CI over deals), the thesis counts "
                     "its own MC's positions, which may differ")
    cells.append(c)
    return cells


register(Reproduction(
    "sueca", "figure6.6", "where the truth is taken: by round (at most 100 shuffles)", "Figure 6.6 (Section 6.2.1)",
    _figure6_6, digits=1, notes=_TRUTH_NOTES + ("Rounds are tricks 1..10; the regular shuffle.",)))
register(Reproduction(
    "sueca", "figure6.7", "where the truth is taken: by prohibited suits (at most 100 shuffles)",
    "Figure 6.7 (Section 6.2.1)", _figure6_7, digits=1,
    notes=_TRUTH_NOTES + ("Prohibited suits: the voids the other three seats have shown, counted over seats; the "
                          "regular shuffle.",)))
_unavailable("figure6.4", "an example of shuffling the cards", "Figure 6.4 (Section 6.2)",
             "an example position, no figures")
_unavailable("figure6.8", "an example with a high number of shuffles", "Figure 6.8 (Section 6.2.1)",
             "an example position, no figures")


# ----------------------------------------------------------------------------- Chapter 7


def _row_label(r) -> str:
    return f"{r[0]} {r[1]} | {r[2]} {r[3]}"


def chapter7_cells(ctx, number: str) -> list[Cell]:
    """Table 7.<number>: per row N-S's mean and sd; rows with MC once per version."""
    key, rows = f"table{number}", CH7[number]["rows"]
    cells: list[Cell] = []
    for r in rows:
        letters, paper_mean, paper_sd = tuple(r[:4]), r[4], r[6]
        label = _row_label(r)
        if "MC" not in letters:
            st = lineup(ctx, letters)
            cells += [mean_cell(key, label, "N-S mean", paper_mean, st, ROUND1, paper_sd=paper_sd),
                      sd_cell(key, label, "N-S sd", paper_sd, st, ROUND1)]
            continue
        means, sds = [], []
        for version in VERSIONS:
            st = lineup(ctx, letters, version)
            means += versioned([mean_cell(key, label, f"N-S mean, {version}", paper_mean, st, ROUND1,
                                          paper_sd=paper_sd)], version)
            sds += versioned([sd_cell(key, label, f"N-S sd, {version}", paper_sd, st, ROUND1)], version)
        pair_reasons(*means, "MC")
        pair_reasons(*sds, "MC")
        cells += means + sds
    placeholder_reason(cells, rows)
    for c in cells:
        chance_reason(c, len(cells))
    return cells


_CH7_NOTES = (
    "Columns as the thesis prints them: N, S (team N-S), E, W (team E-W); play order N, W, S, E, N leads every "
    "deal. Reading: the header's E before W (E is seat 3, W seat 1), play counter-clockwise (Section 2.2: "
    "N, W, S, E on the compass).",
    f"Rows without MC: {RULE_DEALS[0]:,} deals (the thesis: 1,000,000). Rows with MC: {MC_DEALS[0]} deals per "
    f"version ({KEEP_DEALS[0]:,} for MC R | R R and MC MC | R R), the same deals in every row (as the thesis's); see "
    "'budget' for how the figures move with the deals.",
    "MC = Chapter 7's Monte Carlo Extra: 50 shuffles x 2 playouts per possible card, a shuffle per move; "
    "mc honest, perfect_mc from the true hands.", PERFECT_TEXT, ROUNDING, CV_NOTE)
for _number in CH7:
    _cite = CH7[_number]["cite"]
    _first = CH7[_number]["rows"][0]
    register(Reproduction(
        "sueca", f"table{_number}", "N-S's average points and sd per lineup", f"{_cite} (Chapter 7)",
        lambda ctx, n=_number: chapter7_cells(ctx, n), digits=1, notes=_CH7_NOTES, plot=scatter))


# ----------------------------------------------------------------------------- our own tables


def _budget(ctx) -> list[Cell]:
    cells = []
    sizes = ctx.budget(*PREFIXES)
    for letters in KEPT:
        paper_row = next(r for r in CH7["7.5" if letters == KEPT[0] else "7.6"]["rows"] if tuple(r[:4]) == letters)
        for version in VERSIONS:
            st = lineup(ctx, letters, version)
            for n in sizes:
                if n > st["n"]:
                    continue
                c = mean_cell("budget", f"{' '.join(letters[:2])} | R R, {version}", f"first {n:,} deals",
                              paper_row[4], prefix(st, n), ROUND1, paper_sd=paper_row[6])
                cells += versioned([c], version)
    for c in cells:
        if c.verdict == "differs" and not c.reason:
            c.reason = ("mc is honest; the thesis's MC Extra matches perfect_mc instead (which_mc)"
                        if c.row.endswith(", mc") else "nothing known explains it")
    return cells


register(Reproduction(
    "sueca", "budget", "how the headline MC figures move with our number of deals",
    "Tables 7.5 and 7.6 (Chapter 7), first rows", _budget, digits=2,
    notes=("The thesis plays 1,000,000 deals per lineup; ours are the first n deals of each headline lineup "
           "(the same deals for mc and perfect_mc). The CI narrows as 1/sqrt(n); the estimate wanders inside it.",
           PERFECT_TEXT, ROUNDING, CV_NOTE)))


def _gap(key: str, group: str, version: str, cells: list[Cell]) -> Cell:
    """The mean difference ours - paper over a group of cells of one MC version, as a
    cell whose paper figure is 0 (arithmetic on those cells)."""
    done = [c for c in cells if c.ours is not None and c.paper is not None]
    if not done:
        return versioned([Cell(key, group, version, "points (ours - paper)", 0.0, reason="no cells at this budget",
                               kind="arithmetic")], version)[0]
    m = len(done)
    gap = sum(c.difference for c in done) / m
    se = math.sqrt(sum(((c.high - c.low) / (2 * Z95)) ** 2 for c in done)) / m
    paper_se = math.sqrt(sum(c.paper_se ** 2 for c in done)) / m
    ok = sum(c.verdict == "reproduced" for c in done)
    return versioned([Cell(key, group, version, "points (ours - paper)", 0.0, gap, gap - Z95 * se, gap + Z95 * se,
                           sum(c.n for c in done), paper_se, done[0].tolerance,
                           reason=f"{ok} of {m} cells reproduced", kind="arithmetic")], version)[0]


def _which_mc(ctx) -> list[Cell]:
    groups: list[tuple[str, list[Cell]]] = []
    t61 = _table6_1(ctx)
    groups.append(("table6.1 Extra", t61))
    t62 = _table6_2(ctx)
    for variant in ("normal", "average", "extra"):
        groups.append((f"table6.2 {variant}", [c for c in t62 if c.row.startswith(variant)]))
    figs = [c for c in _figures6(ctx) if c.column.startswith("mean")]
    for variant in ("normal", "average", "extra"):
        groups.append((f"figures6.1-6.3 {variant} mean", [c for c in figs if c.row == variant]))
    t63 = _table6_3(ctx)
    for variant in ("normal", "average", "extra"):
        groups.append((f"table6.3 {variant}", [c for c in t63 if c.column.startswith(variant)]))
    for number in CH7:
        rows = [c for c in chapter7_cells(ctx, number) if c.column.startswith("N-S mean, ")]
        if rows:
            groups.append((f"table{number} MC rows", rows))
    cells = []
    for group, members in groups:
        for version in VERSIONS:
            cells.append(_gap("which_mc", group, version, [c for c in members if c.column.endswith(", " + version)]))
    for c in cells:
        if c.verdict == "differs" and " of " in c.reason:
            c.reason += "; the mean gap excludes 0"
    return cells


register(Reproduction(
    "sueca", "which_mc", "which Monte Carlo the thesis's figures match: honest mc or perfect_mc, table by table",
    "Tables 6.1, 6.2, 6.3, 7.1-7.21, Figures 6.1-6.3", _which_mc, digits=2, plot=scatter,
    notes=("Per table (and MC variant) and per version: the mean of ours - the thesis's figure over the table's MC "
           "cells, with its CI (the cells' standard errors combined); 'reproduced' when 0 is inside the bound; "
           "the reason counts the cells reproduced one by one. The thesis reports falling back to the true hands "
           "in about 0.3% of its playouts (Chapter 7; table6.5 puts the new way's rate at 100 shuffles beside "
           "ours), far too rare to make an honest player a perfect-information one.", PERFECT_TEXT)))
