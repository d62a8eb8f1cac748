"""The Spades thesis (van Hus 2020): evolved networks for cut-throat Spades.

What the thesis reports and how each figure is reproduced (``docs/reproductions/spades.md``):

- **Table 1** (Section 3): the network with the highest fitness of each of four runs
  (card- / hand-based encoding x simple / advanced fitness), its generation, tricks over
  its 60 rounds, ATpR and (advanced) fitness. These are *in-sample* figures: the best of
  every member's one 60-round evaluation over the whole run. Ours: the same four runs by
  ``evolve.evolution.runner.Evolution`` with the thesis's tournament (``[evolution]
  tournament = "thesis"``: every member plays all 15 games of 4 rounds, in fresh groups of
  four sharing each game's deal), from the committed configs, on several seeds (a single
  run is one draw: the spread over seeds is the thesis's figure's own standard error).
  Beside them, out of sample, each run's champion against three Random and three HighLow
  seats on 20,000 deals, and what 60 Random players that learn nothing reach in-sample by
  luck over as many generations as the thesis's run (the null).
- **Footnote 1**: an arbitrary player's advanced fitness, 12090 over 780 tricks, by the
  footnote's arithmetic and as measured.
- **Section 3 / Appendix C**: the normal comparison with an arbitrary player (Phi(3.9)),
  and what the same question gives when asked of a 60-round mean and of a run's best.
- **Tables 2 and 3** (Appendix B): the card scores of advanced fitness (our table) and the
  win chances they come from (the thesis's closed form, and as measured in random play).
- **Table 4** (Appendix C): the binomial trick distribution, and as measured.
- **Section 2.3 and Figures 1-2**: the two architectures' layer sizes.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from evolve.reproduce.cells import Cell, proportion
from evolve.reproduce.registry import Document, Reproduction, document, register

DOC = document(Document("spades", "van Hus 2020", "Artificial Neural Networks for playing Spades",
                        "004_e45664b0e106f215.txt"))
DATA = json.loads((Path(__file__).with_name("data") / "spades.json").read_text())
EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"

# Table 1's cells -> the committed configs that run them (tournament = "thesis")
CONFIGS = {"card_simple": "spades_cardbased_study.toml", "hand_simple": "spades_handbased.toml",
           "card_advanced": "spades_cardbased_study_advanced.toml", "hand_advanced": "spades_handbased_advanced.toml"}
ROUNDS = DATA["procedure"]["rounds_per_member"]           # 60 rounds per member and generation
SEEDS_FULL, SEEDS_QUICK = 3, 2                           # runs per Table 1 cell
GENERATIONS_QUICK = 3                                    # quick runs stop here
# full runs follow the thesis's rule (200 generations, 200 more after every new best) up to this
# cap, which fits the full reproduction into about 45 minutes on 2 cores
GENERATIONS_CAP_FULL = 400
GENERATIONS_THESIS = 200                                 # the thesis's minimum run: the budget row of table1
BENCH_DEALS_FULL, BENCH_DEALS_QUICK = 20_000, 500        # out-of-sample deals per opponent
OPPONENTS = ("random", "highlow")
NULL_GENERATIONS_FULL, NULL_GENERATIONS_QUICK = 20_000, 40   # generations of 60 Random players
NULL_BLOCK_QUICK = 10                                    # quick: blocks of 10 generations, not the thesis's length
RANDOM_DEALS_FULL, RANDOM_DEALS_QUICK = 200_000, 4000    # random play for Tables 2-4
_CURVES: dict[str, list[dict]] = {}                      # the runs' logbooks, for table1's plot
# every unit plays on the runs' one engine kernel (networks; Random and HighLow are rule-based): no other to compile
FAMILIES = ("network", "rules")


def _printed_tolerance(text: str) -> float:
    """Half a unit of the last digit a figure is printed with ("0.0234" -> 0.00005,
    "4.6602e-3" -> 0.00000005): what rounding to the printed figure may hide."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _rate(successes: int, n: int, scale: float = 1.0) -> tuple[float, float, float]:
    """A rate (percent / ``scale``) with its Wilson interval (``proportion``)."""
    rate, low, high = proportion(successes, n)
    return rate / scale, low / scale, high / scale


def _exact(table: str, row: str, column: str, unit: str, paper_text, ours: float, reason: str = "",
           kind: str = "arithmetic") -> Cell:
    """A figure the thesis computes (a formula, a table of its model): ours computed the
    same way (``arithmetic``; ``fitted`` where ours is the closed form fitted to its
    table), compared within the thesis's printed rounding."""
    paper = float(paper_text)
    tolerance = _printed_tolerance(paper_text) if isinstance(paper_text, str) else 0.0
    return Cell(table, row, column, unit, paper, ours, ours, ours, 0, tolerance=tolerance, reason=reason, kind=kind)


def _mean_cell(table: str, row: str, column: str, unit: str, paper, values, reason: str, spread_is_paper_se: bool,
               scale: float = 1.0, kind: str = "measured") -> Cell:
    """Our figure as the mean of ``values`` (one per run) with its t interval; with
    ``spread_is_paper_se`` the paper's figure, one run of the same procedure, has the
    run-to-run sd as its standard error."""
    from evolve.core.stats import mean_ci

    x = np.asarray(values, np.float64) * scale
    ci = mean_ci(x)
    low, high = (ci.low, ci.high) if x.size > 1 else (None, None)
    paper_se = ci.sd if spread_is_paper_se and x.size > 1 else 0.0
    return Cell(table, row, column, unit, paper, ci.mean, low, high, int(x.size), paper_se=paper_se, reason=reason,
                kind=kind)


# ------------------------------------------------------------------ units of work

def _config(cell: str, seed: int, quick: bool):
    from evolve.evolution.config import load_config

    cfg = load_config(EXPERIMENTS / CONFIGS[cell])
    over = ({"generations": GENERATIONS_QUICK, "max_generations": GENERATIONS_QUICK} if quick
            else {"max_generations": GENERATIONS_CAP_FULL})
    return cfg.with_overrides(experiment={"seed": seed}, evolution=over)


def _run_folder(ctx, key: dict) -> Path:
    """Where a run checkpoints: in the work folder, named by its key and the code, so an
    interrupted reproduction resumes inside the run and other code never reuses it."""
    from evolve.reproduce.runner import source_hash

    name = json.dumps({"key": key, "quick": ctx.quick, "code": source_hash()}, sort_keys=True)
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    base = ctx.work if ctx.work is not None else Path(tempfile.mkdtemp(prefix="spades-thesis-"))
    return base / "runs" / f"{key['cell']}-seed{key['seed']}-{digest}"


def _out_of_sample(evo, spec, deals: int, seed: int) -> dict:
    """The champion in seat 0 against three copies of each opponent: ATpR (and, with
    advanced fitness, its fitness per round) with 95% CIs over ``deals`` fresh deals."""
    from evolve.agents.registry import parse_seat
    from evolve.core.stats import mean_ci
    from evolve.evaluate.benchmark import seats_against
    from evolve.evolution.fitness import seat_fitness
    from evolve.runtime.play import play

    advanced = evo.config.evolution["fitness"] == "advanced"
    out = {}
    for opponent in OPPONENTS:
        r = play(evo.game, seats_against(spec, parse_seat(opponent, evo.game), evo.game), deals, seed,
                 record=advanced, workers=evo.workers, engine_families=evo.engine_families)
        out[opponent] = {"atpr": mean_ci(r.tricks[:, 0].astype(np.float64)).as_dict()}
        if advanced:
            out[opponent]["fitness"] = mean_ci(seat_fitness(r, "advanced")[:, 0]).as_dict()
    return out


def _run(ctx, cell: str, seed: int) -> dict:
    """One evolution run of a Table 1 cell (resumed inside the run when interrupted) and its
    champion out of sample."""
    from evolve.evolution.runner import Evolution

    cfg = _config(cell, seed, ctx.quick)
    deals = ctx.budget(BENCH_DEALS_FULL, BENCH_DEALS_QUICK)
    key = {"spades": "table1 run", "cell": cell, "seed": seed, "config": cfg.hash(), "deals": deals}

    def compute() -> dict:
        folder = _run_folder(ctx, key)
        start = time.perf_counter()
        evo = Evolution(cfg, run_dir=folder, plot_dir=folder / "plots", workers=ctx.workers, progress=ctx.progress)
        resume = (folder / "checkpoint.npz").is_file() and not ctx.fresh
        state = evo.run(resume=resume, overwrite=not resume)
        champion = evo.champion(state)
        log = state.logbook
        best = log[state.hof_generation]
        return {
            "generations": state.generation, "hof_generation": state.hof_generation,
            "hof_fitness": state.hof_fitness, "hof_tricks": best.get("tricks", best["max"]),
            "out_of_sample": _out_of_sample(evo, champion.spec("champion"), deals, 10_000 + seed),
            "seconds": time.perf_counter() - start,
            "logbook": [{k: r[k] for k in ("gen", "max", "mean", "std", "hof", "tricks", "validation",
                                           "validation_low", "validation_high") if k in r} for r in log],
        }

    return ctx.memo(key, compute)


def _null(ctx) -> dict:
    """60 Random players (an arbitrary player that learns nothing) in the thesis's
    tournament, generation after generation: per generation the best ATpR, the best
    advanced fitness and the tricks of that member; over all evaluations the tail counts
    and moments of a member's 60-round figures."""
    generations = ctx.budget(NULL_GENERATIONS_FULL, NULL_GENERATIONS_QUICK)
    key = {"spades": "null", "population": 60, "games": DATA["procedure"]["games"],
           "rounds": DATA["procedure"]["rounds_per_game"], "generations": generations, "seed": 0}

    def compute() -> dict:
        from evolve.agents.registry import parse_seat
        from evolve.core.progress import progress_line
        from evolve.evolution.tournament import Tournament
        from evolve.games.registry import make_game

        game = make_game("spades")
        tournament = Tournament(game, "advanced", key["games"], key["rounds"], engine_families=FAMILIES,
                                procedure="thesis")
        specs = [parse_seat("random", game)] * key["population"]
        thresholds = _null_thresholds()
        best_atpr, best_fitness, tricks_of_best, mean_fitness, sd_atpr = [], [], [], [], []
        above = {name: 0 for name in thresholds}
        sums = np.zeros(4)
        with progress_line("spades: 60 Random players, thesis tournament", generations, "gen",
                           enabled=ctx.progress) as bar:
            for g in range(generations):
                fitness, _, tricks = tournament.evaluate(specs, key["seed"], g, with_tricks=True)
                best_atpr.append(float(tricks.max()))
                i = int(np.argmax(fitness))
                best_fitness.append(float(fitness[i]))
                tricks_of_best.append(float(tricks[i]))
                mean_fitness.append(float(fitness.mean()))
                sd_atpr.append(float(tricks.std(ddof=1)))
                for name, (kind, value) in thresholds.items():
                    above[name] += int(((tricks if kind == "atpr" else fitness) >= value - 1e-9).sum())
                sums += [tricks.sum(), (tricks ** 2).sum(), fitness.sum(), (fitness ** 2).sum()]
                bar.update(1)
        n = generations * key["population"]
        return {"generations": generations, "evaluations": n, "best_atpr": best_atpr, "best_fitness": best_fitness,
                "tricks_of_best": tricks_of_best, "mean_fitness": mean_fitness, "sd_atpr": sd_atpr, "above": above,
                "atpr_mean": sums[0] / n, "atpr_sd": math.sqrt(max(sums[1] / n - (sums[0] / n) ** 2, 0.0)),
                "fitness_mean": sums[2] / n, "fitness_sd": math.sqrt(max(sums[3] / n - (sums[2] / n) ** 2, 0.0))}

    return ctx.memo(key, compute)


def _null_thresholds() -> dict[str, tuple[str, float]]:
    """The thesis's Table 1 figures as per-round thresholds: ATpR for the simple-fitness
    cells, fitness per round for the advanced ones (their best is the best by fitness)."""
    out = {}
    for cell, row in DATA["table1"]["cells"].items():
        out[cell] = ("fitness", row["fitness"] / ROUNDS) if "fitness" in row else ("atpr", row["tricks"] / ROUNDS)
    return out


def _blocks(values: list[float], size: int) -> np.ndarray:
    """The best of each whole block of ``size`` generations (one null run per block)."""
    x = np.asarray(values, np.float64)
    n = x.size // size
    return x[: n * size].reshape(n, size).max(axis=1) if n else np.empty(0)


def _null_run_length(cell: str, quick: bool) -> int:
    """Generations of the thesis's run of a cell: 200 after its best (Section 2.5), which it
    found at Table 1's generation (quick: a short block, the figures then mean little)."""
    return NULL_BLOCK_QUICK if quick else DATA["table1"]["cells"][cell]["generation"] + DATA["procedure"]["patience"]


def _random_play(ctx) -> dict:
    """Four Random seats on many deals: plays and wins per card and role (led / followed)
    and seat 0's tricks per round."""
    deals = ctx.budget(RANDOM_DEALS_FULL, RANDOM_DEALS_QUICK)

    def compute() -> dict:
        from evolve.evolution.fitness import _record_arrays, win_counts
        from evolve.runtime.play import play

        r = play("spades", "random", deals, 7, record=True, workers=ctx.workers, engine_families=FAMILIES)
        played, won = win_counts(*_record_arrays(r), 1, 52)
        tricks = r.tricks.astype(np.int64)
        return {"deals": deals, "played": played[0].tolist(), "won": won[0].tolist(),
                "histogram": np.bincount(tricks[:, 0], minlength=14).tolist(),
                "mean": float(tricks[:, 0].mean()), "sd": float(tricks[:, 0].std(ddof=1))}

    return ctx.memo({"spades": "random play", "deals": deals, "seed": 7}, compute)


# ------------------------------------------------------------------ Table 1

def _table1(ctx) -> list[Cell]:
    seeds = range(1, 1 + ctx.budget(SEEDS_FULL, SEEDS_QUICK))
    runs = {cell: [_run(ctx, cell, s) for s in seeds] for cell in CONFIGS}
    null = _null(ctx)
    _CURVES.clear()
    _CURVES.update({cell: [r["logbook"] for r in rs] for cell, rs in runs.items()})
    _CURVES["null"] = [{"gen": g, "atpr": a, "fitness": f} for g, (a, f) in
                       enumerate(zip(null["best_atpr"], null["best_fitness"]))]
    out = []
    for cell, rs in runs.items():
        out += _table1_cells(cell, rs, null, ctx.quick)
    return out


def _table1_cells(cell: str, rs: list[dict], null: dict, quick: bool) -> list[Cell]:
    paper = DATA["table1"]["cells"][cell]
    label = paper["label"]
    n = len(rs)
    spread = f"{n} runs (seeds 1-{n}); the thesis's se is their spread, its figure being one run"
    gens = [r["hof_generation"] for r in rs]
    lengths = [r["generations"] for r in rs]
    out = [Cell("table1", label, "generation of the best", "generation", paper["generation"], float(np.median(gens)),
                n=n, reason=f"not compared: when a run's last record falls is one draw; ours the median of {n} runs "
                            f"(range {min(gens)}-{max(gens)}; runs of {min(lengths)}-{max(lengths)} generations)")]
    tricks = [r["hof_tricks"] for r in rs]
    # why an in-sample figure can differ: it is a maximum of noisy scores, not a skill
    luck = ("a run's best of 60 members x every generation's noisy 60-round score: set by luck, by the population "
            "(the thesis gives none; ours 60) and by the run's length as much as by skill (see the null row)")
    out.append(_mean_cell("table1", label, "tricks in its 60 rounds", "tricks", paper["tricks"], tricks,
                          f"in sample, {luck}; {spread}", True, ROUNDS))
    # the same comparison as the tricks' in another unit: arithmetic on the cell above
    out.append(_mean_cell("table1", label, "ATpR in sample", "tricks per round", paper["tricks"] / ROUNDS, tricks,
                          f"tricks / 60 (Table 1 prints {paper['atpr']}); in sample, {luck}; {spread}", True,
                          kind="arithmetic"))
    early = [_best_by(r["logbook"], GENERATIONS_THESIS) for r in rs]
    out.append(_mean_cell("table1", label, f"ATpR in sample, best of generations 0-{GENERATIONS_THESIS - 1}",
                          "tricks per round", paper["tricks"] / ROUNDS, early,
                          f"the budget: the same runs stopped at the thesis's minimum of {GENERATIONS_THESIS} "
                          f"generations (ours run to {max(lengths)}); {spread}", True))
    if "fitness" in paper:
        per_trick = np.mean([r["hof_fitness"] / r["hof_tricks"] for r in rs if r["hof_tricks"] > 0])
        out.append(_mean_cell("table1", label, "fitness in its 60 rounds", "advanced fitness", paper["fitness"],
                              [r["hof_fitness"] for r in rs],
                              f"in sample; the thesis's {paper['fitness']} / {paper['tricks']} tricks = "
                              f"{paper['fitness'] / paper['tricks']:.1f} a won trick, ours {per_trick:.1f}: a trick is "
                              "mostly won by a high card or a spade, which Appendix B scores low (footnote1 measures "
                              f"Random's); nothing in the thesis explains its higher score per trick; {spread}",
                              True, ROUNDS))
    for opponent in OPPONENTS:
        atpr = [r["out_of_sample"][opponent]["atpr"]["mean"] for r in rs]
        deals = rs[0]["out_of_sample"][opponent]["atpr"]["n"]
        out.append(_mean_cell("table1", label, f"ATpR vs 3 {opponent}, out of sample", "tricks per round", None, atpr,
                              f"the thesis has no out-of-sample figure; the {n} champions on {deals:,} fresh deals "
                              "each, CI over the runs", False))
    if "fitness" in paper:
        fitness = [r["out_of_sample"]["random"]["fitness"]["mean"] for r in rs]
        out.append(_mean_cell("table1", label, "fitness in 60 rounds vs 3 random, out of sample", "advanced fitness",
                              None, fitness, "60 x the champions' mean fitness a round on the same fresh deals; "
                                             "an arbitrary player's is in footnote1", False, ROUNDS))
    gap = [r["hof_tricks"] - r["out_of_sample"]["random"]["atpr"]["mean"] for r in rs]
    out.append(_mean_cell("table1", label, "in sample - out of sample vs random", "tricks per round", None, gap,
                          "what the best evaluation of a run overstates its champion against the thesis's arbitrary "
                          "player", False, kind="arithmetic"))
    length = _null_run_length(cell, quick)
    kind, threshold = _null_thresholds()[cell]
    best = _blocks(null["best_atpr"] if kind == "atpr" else null["tricks_of_best"], length)
    reach = _blocks(null["best_atpr"] if kind == "atpr" else null["best_fitness"], length)
    hits = int((reach >= threshold - 1e-9).sum())
    what = "ATpR" if kind == "atpr" else f"fitness {paper['fitness']}"
    out.append(_mean_cell("table1", label, "null: 60 Random players, best ATpR in sample", "tricks per round", None,
                          best, f"no learning at all: the best of {length} generations ({best.size} blocks); "
                                f"{hits} of {best.size} reach the thesis's {what}", False))
    return out


def _best_by(logbook: list[dict], generations: int) -> float:
    """The in-sample ATpR of a run's best member among its first ``generations``: the
    generation's best by fitness (its tricks with advanced fitness)."""
    early = [r for r in logbook if r["gen"] < generations]
    best = max(early, key=lambda r: r["max"])          # the first of equal maxima, as the hall of fame keeps it
    return best.get("tricks", best["max"])


def _plot_table1(cells: list[Cell], path: Path, title: str) -> Path:
    """The four cells' runs: in-sample best of each generation and best so far (fitness
    per round), the generation's best on 1,000 fixed deals against Random (out of sample),
    and the thesis's in-sample figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evolve.reproduce.plots import dots, finish

    if not _CURVES:
        return dots(cells, path, title)
    null = _CURVES["null"]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), dpi=110, sharex=False)
    for ax, cell in zip(axes.ravel(), CONFIGS):
        logs = _CURVES[cell]
        paper = DATA["table1"]["cells"][cell]
        longest = max(len(log) for log in logs)
        luck = np.maximum.accumulate([r["fitness" if "fitness" in paper else "atpr"] for r in null[:longest]])
        ax.plot(np.arange(luck.size), luck, color="tab:gray", lw=1.2,
                label="60 Random players, best so far (in sample: luck alone)")
        for i, log in enumerate(logs):
            gen = [r["gen"] for r in log]
            first = i == 0
            ax.plot(gen, [r["max"] for r in log], color="tab:red", lw=0.5, alpha=0.5,
                    label="best of generation (in sample)" if first else None)
            ax.plot(gen, [r["hof"] for r in log], color="black", lw=0.9,
                    label="best so far (in sample)" if first else None)
            val = [r for r in log if "validation" in r]
            ax.plot([r["gen"] for r in val], [r["validation"] for r in val], color="tab:purple", lw=0.9, marker=".",
                    ms=2, label="generation's best vs 3 Random, 1,000 deals (out of sample)" if first else None)
        figure = paper.get("fitness", paper["tricks"]) / ROUNDS
        ax.axhline(figure, color="tab:green", ls="--", lw=1, label="the thesis's best (in sample)")
        ax.set_title(f"{paper['label']}: {len(logs)} runs", fontsize=9)
        ax.set_xlabel("generation")
        ax.set_ylabel("advanced fitness per round" if "fitness" in paper else "tricks per round")
        ax.grid(alpha=0.3)
    return finish(fig, path, title, top=0.96, legend_from=axes[0][0], bottom=0.07)


register(Reproduction(
    "spades", "table1", "the best network of each encoding and fitness, in sample and out of sample",
    "Table 1 (Section 3)", _table1, digits=2, plot=_plot_table1, plot_needs_run=True,
    notes=(
        "Procedure (Sections 2.4-2.5): every member plays all 15 games of 4 rounds of a generation, each game in fresh "
        "random groups of four that all play the game's four starting hands, rotated one seat a round: 60 rounds per "
        "member (Section 3: 'only got sixty rounds'; 234 tricks at ATpR 3.9 = 234 / 60; footnote 1: 780 = 60 x 13 "
        "tricks). Our configs: experiments/spades_{cardbased_study,handbased}{,_advanced}.toml, tournament = "
        "\"thesis\".",
        "The thesis does not give its population; ours is 60 (15 groups of four a game). Its hidden layers follow its "
        "rule round(2/3 inputs + outputs): 156 (card) and 226 (hand; the text's 266 contradicts the rule, see "
        "architectures). Mutation m from 0.8 to 0.2 over 200 generations; the run ends 200 generations after the last "
        "new best; the champion is the best single evaluation (hall of fame), as the thesis keeps it.",
        "In sample = the best member's one 60-round evaluation, the maximum over 60 members x every generation: what "
        "Table 1 reports. It is biased upwards by the selection of the maximum, even for players that cannot learn "
        "(the null row: 60 Random players, blocks of as many generations as the thesis's run, 200 after its best).",
        "Out of sample = each run's champion on fresh deals against three Random seats (the thesis's arbitrary "
        "player) and three HighLow seats; the gap row is in sample minus out of sample against Random.",
        "Full budget: 3 runs (random seeds 1-3) per cell, each by the thesis's rule (200 generations, going on 200 "
        "generations after every new best) but stopped at 400 generations to fit the run on 2 cores; the "
        "budget row gives the same runs' in-sample best of their first 200 generations, the thesis's minimum, to "
        "show how the figure moves with the run's length. 20,000 deals per opponent out of sample; a null of 20,000 "
        "generations of 60 Random players.",
        "Quick budget: 2 runs of 3 generations per cell, 500 deals, 40 null generations in blocks of 10: it checks "
        "the machinery, its figures say nothing.",
    )))


# ------------------------------------------------------------------ footnote 1

def _footnote1(ctx) -> list[Cell]:
    from evolve.core.stats import mean_ci
    from evolve.evolution.fitness import spades_table

    note = DATA["footnote1"]
    table = spades_table()[0].astype(np.float64)         # [card, role]
    share = note["lead_share"]
    mean_score = float((share * table[:, 0] + (1 - share) * table[:, 1]).mean())
    tricks = share * note["tricks"]                      # 195: an arbitrary player's quarter of the 780 tricks
    null = _null(ctx)
    # every generation's members take 3.25 tricks a round on average (all tricks go to members),
    # so a generation's mean fitness / 3.25 is its mean score of a won trick; generations are independent
    fitness = mean_ci(np.asarray(null["mean_fitness"]) * ROUNDS)
    per_trick = mean_ci(np.asarray(null["mean_fitness"]) / (tricks / ROUNDS))
    n = null["evaluations"]
    return [
        _exact("footnote1", "the footnote's arithmetic", "mean card score, leading 25%", "score",
               str(note["mean_card_score"]), mean_score, "the mean of Appendix B's 52 scores, led 25% of the time; "
                                                         "the footnote rounds it to 62"),
        Cell("footnote1", "the footnote's arithmetic", "arbitrary player's fitness over 780 tricks", "advanced fitness",
             note["fitness"], mean_score * tricks, mean_score * tricks, mean_score * tricks, 0, tolerance=0.5 * tricks,
             reason="mean card score x 0.25 x 780; tolerance: the footnote's rounding of the score to 62 (0.5 x 195)",
             kind="arithmetic"),
        Cell("footnote1", "Random among 3 Random, measured", "arbitrary player's fitness over 780 tricks",
             "advanced fitness", note["fitness"], fitness.mean, fitness.low, fitness.high, n,
             reason=f"only the card that wins a trick scores, and it is the trick's highest, mostly a high card or a "
                    f"spade, which score low: {per_trick.mean:.1f} a won trick, not the mean card's 62"),
        Cell("footnote1", "Random among 3 Random, measured", "score of a won trick", "score", note["mean_card_score"],
             per_trick.mean, per_trick.low, per_trick.high, n,
             reason="the footnote averages every card's score; only winning cards score"),
    ]


register(Reproduction(
    "spades", "footnote1", "an arbitrary player's advanced fitness: 12090 over the 780 tricks of 60 rounds",
    "Section 3, footnote 1", _footnote1, digits=1,
    notes=("The footnote: 62 (the mean card score, leading 25% of tricks) x 0.25 x 780 = 12090. Its arithmetic is "
           "reproduced from Appendix B's scores. But advanced fitness scores only the card that wins each trick, and "
           "the winning card is the trick's highest, so an arbitrary player's measured fitness is far below 12090: "
           "the thesis's evolved 13339 and 13487 (Table 1) are not comparable with it.",
           "Measured: 60 Random players in the thesis's tournament (the null of table1), every member's 60-round "
           "advanced fitness; the CI is over the generations (each one's mean is independent of the others).")))


# ------------------------------------------------------------------ Section 3 and Appendix C

def _section3(ctx) -> list[Cell]:
    from evolve.core.stats import mean_ci, normal_tail

    sec = DATA["section3"]
    mu, sigma, atpr = float(sec["mu"]), float(sec["sigma"]), sec["atpr"]
    null = _null(ctx)
    length = _null_run_length("card_simple", ctx.quick)
    runs = _blocks(null["best_atpr"], length)
    hits = int((runs >= atpr - 1e-9).sum())
    one = _rate(null["above"]["card_simple"], null["evaluations"], 100)
    best = _rate(hits, runs.size, 100) if runs.size else (None, None, None)
    sd = mean_ci(null["sd_atpr"])
    tail_of_mean = normal_tail(atpr, mu, sigma / math.sqrt(ROUNDS))
    return [
        _exact("section3", "the thesis's normal N(3.25, 1.5612)", "Phi(3.9)", "probability", sec["phi"],
               1 - normal_tail(atpr, mu, sigma)),
        _exact("section3", "the thesis's normal N(3.25, 1.5612)", "1 - Phi(3.9)", "probability", sec["tail"],
               normal_tail(atpr, mu, sigma), "the chance it gives that an arbitrary player plays 'at least this well'"),
        Cell("section3", "its normal for a 60-round mean, N(3.25, 1.5612 / sqrt 60)", "1 - Phi(3.9)", "probability",
             float(sec["tail"]), tail_of_mean, tail_of_mean, tail_of_mean, 0,
             reason="Table 1's ATpR is a mean of 60 rounds, whose sd is 1.5612 / sqrt(60) = 0.20 under the thesis's "
                    "own binomial model, not 1.5612", kind="arithmetic"),
        Cell("section3", "Random among 3 Random, measured", "sd of a 60-round ATpR", "tricks per round",
             float(sec["sigma"]), sd.mean, sd.low, sd.high, len(null["sd_atpr"]),
             reason="the spread of members' 60-round ATpR in a generation of the thesis's tournament: the rotated "
                    "hands cancel most of the luck of the deal"),
        Cell("section3", "Random among 3 Random, measured", "P(60-round ATpR >= 3.9)", "probability",
             float(sec["tail"]), *one, null["evaluations"],
             reason="one arbitrary player's 60 rounds in the thesis's tournament almost never reach 3.9"),
        Cell("section3", f"Random among 3 Random, measured: a run of {length} generations", "P(run's best >= 3.9)",
             "probability", float(sec["tail"]), *best, int(runs.size),
             reason=f"Table 1 reports the best of 60 members x {length} generations: {hits} of {runs.size} runs of 60 "
                    "Random players reach 3.9 by luck alone"),
    ]


register(Reproduction(
    "spades", "section3", "the comparison with an arbitrary player: Phi(3.9) and what it should ask",
    "Section 3 and Appendix C", _section3, digits=3,
    notes=("The thesis compares its best ATpR, 3.9, with one round of an arbitrary player's tricks, N(3.25, 1.5612), "
           "and finds a 0.339 chance that such a player does at least as well. Its arithmetic is reproduced. Two "
           "other questions answer what it asks: how often one arbitrary player's 60-round mean reaches 3.9, and how "
           "often the best of a whole run of arbitrary players does (Table 1's figure is such a best).",
           "Measured on 60 Random players in the thesis's tournament (table1's null); a run is a block of 218 "
           "generations, the length of the thesis's card-based simple-fitness run (its best at generation 18, then "
           "200 more).")))


# ------------------------------------------------------------------ Tables 2 and 3 (Appendix B)

RANKS = DATA["table2"]["ranks"]


def _model_chances(spade: bool, r: int) -> tuple[float, float]:
    """The thesis's win chances (leading, following) of rank ``r`` (2..14), as the closed
    form of ``evolve.evolution.fitness.spades_table`` states them."""
    if spade:
        p = (r - 2 + 39) / 51
        return p, p
    return (2 * (r - 2) + 14) / 51, (r - 2) / 51


def _appendix_b(ctx, key: str) -> list[Cell]:
    from evolve.evolution.fitness import spades_table

    spade = key == "table3"
    data = DATA[key]
    table = spades_table()[0]
    play = _random_play(ctx)
    played, won = np.asarray(play["played"]), np.asarray(play["won"])
    suits = [3] if spade else [0, 1, 2]
    out = []
    for i, rank in enumerate(data["ranks"]):
        r = 14 - i
        cards = [suit * 13 + r - 2 for suit in suits]
        lead, follow = _model_chances(spade, r)
        row = rank
        fitted = "the closed form fitted to Appendix B (evolve.evolution.fitness.spades_table)"
        for column, ours in (("leading", 100 * lead), ("following", 100 * follow), ("average", 50 * (lead + follow))):
            out.append(_exact(key, row, f"win chance {column}, model", "%", data[column][i], ours, fitted, "fitted"))
        for role, column in ((0, "leading"), (1, "following")):
            scores = {int(table[c, role]) for c in cards}
            ours = float(scores.pop()) if len(scores) == 1 else float("nan")
            out.append(_exact(key, row, f"fitness score {column}", "score", data[f"score_{column}"][i], ours,
                              "round(100 (1 - p)) of the model's chance: the score advanced fitness uses", "fitted"))
        for role, column in ((0, "leading"), (1, "following")):
            rate, low, high = _rate(int(won[cards, role].sum()), int(played[cards, role].sum()))
            certain = _certain(spade, r, role)
            out.append(Cell(key, row, f"win chance {column}, random play", "%", float(data[column][i]), rate, low, high,
                            int(played[cards, role].sum()), reason=certain or _measured_reason(spade, role),
                            kind="certain" if certain else "measured"))
    return out


def _certain(spade: bool, r: int, role: int) -> str:
    """Why the rules fix a card's win chance whatever the play ("" where they do not)."""
    if spade and r == 14:
        return "the ace of spades, the highest trump, wins every trick it is played in"
    if not spade and r == 2 and role == 1:
        return "a followed 2 of a plain suit is below the led card and is no trump: it never wins"
    return ""


def _measured_reason(spade: bool, role: int) -> str:
    """Why a measured win chance differs from the thesis's model, by card kind and role."""
    if spade and role == 1:
        return "a followed spade wins only by trumping with no higher spade after it; in a spade trick it must beat " \
               "the led spade: the model gives it the leading chance"
    if spade:
        return "the model's rank share is not a win chance: a led spade loses to any higher spade still out"
    if role == 0:
        return "a led card loses only to a higher card of its suit or a trump played by a void seat; the model " \
               "counts cards, not plays"
    return "a followed card wins only in the led suit, above the led card and the others: the model counts cards"


register(Reproduction(
    "spades", "table2", "win chance and card score of each club, heart or diamond", "Table 2 (Appendix B)",
    lambda ctx: _appendix_b(ctx, "table2"), digits=2,
    notes=("The scores are what advanced fitness uses: ours (evolve.evolution.fitness.spades_table) equal the thesis's "
           "for every card. The thesis does not say how its win chances were found; they follow a closed form (led: "
           "(2(r-2)+14)/51, followed: (r-2)/51, r = 2..14), which the model rows reproduce. Measured: four Random "
           "seats, every card's plays as the trick's first card (leading) or later (following), pooled over the three "
           "suits, 200,000 deals.",)))
register(Reproduction(
    "spades", "table3", "win chance and card score of each spade", "Table 3 (Appendix B)",
    lambda ctx: _appendix_b(ctx, "table3"), digits=2,
    notes=("Spades: the model gives every spade (r-2+39)/51 whether led or followed; the scores follow from it. "
           "Measured as for table2.",)))


# ------------------------------------------------------------------ Table 4 (Appendix C)

def _table4(ctx) -> list[Cell]:
    from evolve.core.stats import mean_ci

    data = DATA["table4"]
    mu = 13 * 0.25
    play = _random_play(ctx)
    hist = np.asarray(play["histogram"])
    n = int(hist.sum())
    out = []
    for x in range(14):
        p = math.comb(13, x) * 0.25 ** x * 0.75 ** (13 - x)
        row = f"x = {x}"
        out.append(_exact("table4", row, "P(x), binomial", "probability", data["p"][x], p, "" if x else
                          "0.75^13 = 0.02376: the printed 0.0234 is a slip; the thesis's own (x - mu)^2 P(x) = 0.2509 "
                          "of this row uses 0.02376"))
        out.append(_exact("table4", row, "P(x) x", "tricks", data["px"][x], p * x))
        out.append(_exact("table4", row, "(x - mu)^2 P(x)", "tricks^2", data["var"][x], (x - mu) ** 2 * p))
        rate, low, high = _rate(int(hist[x]), n, 100)
        out.append(Cell("table4", row, "P(x), random play", "probability", float(data["p"][x]), rate, low, high, n,
                        reason="tricks are not 13 independent quarter chances: a hand's strength "
                                              "carries from trick to trick, so the spread is wider than binomial"))
    out.append(_exact("table4", "totals", "mu", "tricks", data["mu"], mu))
    out.append(_exact("table4", "totals", "sigma^2", "tricks^2", data["variance"], 13 * 0.25 * 0.75))
    tricks = np.repeat(np.arange(14), hist).astype(np.float64)
    mean = mean_ci(tricks)
    out.append(Cell("table4", "totals, random play", "mu", "tricks", float(data["mu"]), mean.mean, mean.low, mean.high,
                    n, reason="every trick goes to one of four equal seats"))
    var = float(tricks.var(ddof=1))
    se = var * math.sqrt(2 / (n - 1))          # the variance's standard error, near normal for large n
    out.append(Cell("table4", "totals, random play", "sigma^2", "tricks^2", float(data["variance"]), var,
                    var - 1.96 * se, var + 1.96 * se, n, reason="wider than binomial (see the rows above)"))
    return out


register(Reproduction(
    "spades", "table4", "the binomial distribution of a seat's tricks in a round, and as played",
    "Table 4 (Appendix C)", _table4, digits=4,
    notes=("The thesis's model: each of the 13 tricks a quarter chance, P(x) = C(13, x) 0.25^x 0.75^(13-x); its "
           "arithmetic is reproduced (tolerance: half a unit of the printed digit). Measured: seat 0's tricks among "
           "four Random seats, 200,000 deals.",)))


# ------------------------------------------------------------------ Section 2.3, Figures 1 and 2

def _architectures(ctx) -> list[Cell]:
    from evolve.agents.network.architecture import Architecture
    from evolve.games.registry import make_game

    game = make_game("spades")
    out = []
    for encoding in ("card", "hand"):
        arch = Architecture.for_game(game, encoding)
        paper = DATA["architectures"][encoding]
        row = f"{encoding}-based"
        rule = 2 * arch.n_in / 3 + arch.n_out
        out.append(_exact("architectures", row, "inputs", "nodes", paper["inputs"], arch.n_in))
        out.append(Cell("architectures", row, "hidden per layer", "nodes", paper["hidden"], arch.n_h1, arch.n_h1,
                        arch.n_h1, 0, kind="arithmetic", reason="" if arch.n_h1 == paper["hidden"] else
                        f"the thesis's rule gives 2/3 x {arch.n_in} + {arch.n_out} = {rule:.1f}, and gives its 156 for "
                        "the card-based net: its '266' is one digit off 226; we follow the rule (hidden = [266, 266] "
                        "runs the text's figure)"))
        out.append(_exact("architectures", row, "outputs", "nodes", paper["outputs"], arch.n_out))
    return out


register(Reproduction(
    "spades", "architectures", "the card- and hand-based networks' layer sizes",
    "Section 2.3 (Figures 1 and 2 draw the two networks)", _architectures, digits=0,
    notes=("Card-based: 3 inputs per card (in my hand / on the table / played before), 52 outputs. Hand-based: 5 "
           "inputs per card (rank, one-hot suit) for the 13 cards of the hand, the 3 cards already in the trick and "
           "the 48 cards of earlier tricks: 65 + 15 + 240 = 320, 13 outputs. Two tanh hidden layers of round(2/3 "
           "inputs + outputs). Figures 1 and 2 are drawings of these networks; they hold no other figure.",)))
