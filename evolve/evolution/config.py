"""Experiment configuration: a TOML file validated against a schema.

Every key has a type, a default, a check and a description (``evolve.core.schema.Key``);
unknown keys are rejected. Any problem is a ``ConfigError`` whose message is one line naming
the file (or ``--set``), the key and what is expected.

- ``extends = "other.toml"`` at the top of a file takes that file's settings and changes
  only what this file says (``evolve.core.schema.read_toml``); ``--set section.key=value``
  changes one more (``load_config(path, sets)``). The run folder records the resolved
  configuration, so a config written out or as a difference gives the same run and hash.
- ``schema = N`` says which version of the schema a file is written in (absent: the
  current one, ``SCHEMA_VERSION``). Older versions are upgraded when read
  (``evolve.evolution.migrations``), so a run folder or champion written under one still
  loads, resumes and keeps its hash.
- Each algorithm's own settings are a table of their own, ``[evolution.ga]``,
  ``[evolution.es]``, ``[evolution.cma]`` (``STRATEGIES[name].PARAMS``).

See ``experiments/*.toml`` for commented examples and ``docs/reference/config.md`` for
every key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from evolve.core.errors import UsageError
from evolve.core.files import npz_json_paths
from evolve.core.schema import (
    Key,
    apply_sets,
    check_table,
    merge,
    non_negative,
    positive,
    read_toml,
    unit_interval,
)
from evolve.evolution import migrations
from evolve.evolution.strategies import STRATEGIES
from evolve.games.registry import GAMES, make_game


class ConfigError(UsageError):
    """A configuration file is malformed."""


_pos, _nonneg, _unit = positive, non_negative, unit_interval


def _trainer_choices(name: str) -> dict:
    """One of the imitation trainer's named choices (``evolve.learn.imitation.INITS``,
    ``LOGITS``), imported only when a config names one."""
    from evolve.learn import imitation

    return getattr(imitation, name)


SCHEMA: dict[str, dict[str, Key]] = {
    "experiment": {
        "name": Key(
            (str,),
            None,
            "a name (letters, digits, _ and -)",
            lambda s: bool(s) and all(c.isalnum() or c in "_-" for c in s),
            doc=("The experiment's name. The run folder is `populations/<name>` and the plots go to `plots/<name>` "
                 "unless `--out` names another folder; without the key the name is the file's name without `.toml`."),
        ),
        "seed": Key((int,), 0, "a non-negative integer", _nonneg,
            doc=("The seed of every random draw of the run: generation 0, the tables and deals of each generation, "
                 "the operators, the teacher's deals and the validation and benchmark deals. The same config and "
                 "seed give the same run on any number of workers.")),
        "game": Key((str,), None, "one of " + ", ".join(GAMES),
            doc="The game the run plays; its rule options go in `[game_options]`."),
        "description": Key((str,), "", "a string",
            doc=("Free text about the experiment, kept with the run's settings in the run folder's `config.json`. "
                 "`--resume` may change it.")),
    },
    "game_options": {},  # free-form, validated by the game's own option table
    "agent": {
        "kind": Key((str,), "network", "network, or a parametric kind (see python -m evolve.arena agents)",
            doc=("What the run evolves: `network` (the tanh network that `[network]` describes) or a parametric "
                 "kind, a bounded vector of an agent's numbers such as `markov` or `jass_trump`.")),
        "play": Key((str,), "cardcounting", "a seat string whose card play a bidding genome is paired with",
            doc=("For a parametric kind that bids or calls trump, the seat string whose card play every evolved "
                 "seat plays with. Card-play kinds and networks ignore it.")),
        "bidder": Key((str,), "default", "the bidder a card-play genome is paired with (default: the game's rule-based "
                                         "bidder, or a bidder name such as simple, random, context)",
            doc=("For a parametric kind that plays cards, the bidder every evolved seat bids with: `default` (the "
                 "game's rule-based bidder) or a bidder name. The run folder's `config.json` records the bidder "
                 "`default` stands for.")),
        "init": Key(
            (str,),
            "default",
            "default (the agent's hand-set numbers), another start the kind ships "
            "(e.g. bulk), uniform, or champion:PATH (an evolved champion of the same kind)",
            doc=("Where a parametric genome starts: `default` (the numbers the registered agent uses), another "
                 "start the kind ships (such as `bulk`), `uniform` (every member drawn uniformly within the bounds, "
                 "no founder) or `champion:PATH` (the genome of an evolved champion of the same kind). Networks "
                 "ignore it."),
        ),
        "noise": Key(
            (float, int),
            0.1,
            "a non-negative number (sd, in unit coordinates, of the perturbed copies "
            "of the start point in generation 0)",
            _nonneg,
            doc=("Standard deviation, in unit coordinates, of the perturbed copies of a parametric start point that "
                 "fill generation 0 beside the start itself. `es` and `cma` centre their search distribution on the "
                 "start and draw generation 0 from it instead."),
        ),
    },
    "network": {
        "encoding": Key((str,), "seat", "card, hand or seat", lambda s: s in ("card", "hand", "seat"),
            doc=("What the inputs describe: `seat` (8 inputs per card relative to the deciding seat: in the hand, "
                 "who played it in this trick, played earlier, which seats may still hold it), `card` (the Spades "
                 "thesis's 3 inputs per card: in the hand, on the table, played earlier) or `hand` (the thesis's "
                 "hand-based inputs, one output per hand position). Games whose trump varies add a one-hot of the "
                 "trump mode.")),
        "hidden": Key(
            (list,),
            [],
            "a list of two positive integers (empty: the Spades thesis's rule, round(2/3 inputs + outputs))",
            lambda v: v == [] or (len(v) == 2 and all(isinstance(x, int) and x > 0 for x in v)),
            doc=("The sizes of the two hidden tanh layers, e.g. `[256, 128]`. Empty: both layers have round(2/3 x "
                 "inputs + outputs) units, the Spades thesis's rule."),
        ),
        "bias": Key((bool,), True, "true or false",
            doc="Whether the three layers have bias weights (false: the genome holds no biases and they are zero)."),
        "direct": Key(
            (bool,),
            False,
            "true (direct per-card feature connections to the outputs: would win the "
            "trick, wins it for certain, strength, partner winning, points) or false",
            doc=("Adds six per-card features of what the deciding seat sees (the card would win the trick, wins it "
                 "for certain, its strength, its strength while the partner wins, its card points, its strength if "
                 "it would win) to each legal card's output, each times an evolved weight. An imitation warm start "
                 "leaves these weights at 0 for evolution to set."), neutral=False),
        "layer2": Key(
            (str,),
            "float32",
            "float32 or int16 (the second layer's weights and inputs in int16 fixed point: "
            "about 0.6x the time of that layer; the rounding changes play a little)",
            lambda s: s in ("float32", "int16"),
            doc=("The number format the second layer plays in: `float32`, or `int16` fixed point (weights and "
                 "inputs rounded, sums exact in int32; about 0.6x the time of that layer). The genome is float32 "
                 "either way, but the rounding changes play a little, so evolve and validate a network in the "
                 "format it plays in."), neutral="float32"),
        "suits": Key(
            (str,),
            "as_dealt",
            "as_dealt or trump_first (the suits renumbered so that trump comes first, in Euchre the left "
            "bower's suit second: one function for every trump suit; card and seat encodings, games whose "
            "trump varies)",
            lambda s: s in ("as_dealt", "trump_first"),
            doc=("`trump_first` renumbers the suits before the network sees them (trump first, in Euchre the left "
                 "bower's suit second), so one function serves every trump suit; `as_dealt` keeps them as dealt. "
                 "`trump_first` needs a card-based encoding (`card` or `seat`) and a game whose trump varies."),
                 neutral="as_dealt"),
        "bidder": Key(
            (str,),
            "default",
            "the bidder of evolved seats: default (the game's rule-based bidder) or a bidder name such as simple, "
            "random, context (python -m evolve.arena agents lists them)",
            doc=("The bidder of the evolved seats, which the network does not decide: `default` (the game's "
                 "rule-based bidder) or a bidder name, perhaps with its options after it "
                 "(`search,bid_iterations=4000`). The run folder's `config.json` records the bidder `default` "
                 "stands for."),
        ),
    },
    "evolution": {
        "population": Key((int,), 60, "an integer >= 4", lambda x: x >= 4,
            doc=("Members per generation. `tournament = \"thesis\"` needs a multiple of 4, the antithetic `es` an "
                 "even number.")),
        "games_per_generation": Key((int,), 15, "a positive integer", _pos,
            doc=("With `tournament = \"tables\"`: the tables of a generation, population tables of four members and, "
                 "with `opponent_share`, tables of one member against opponents; there must be a seat for every "
                 "member. With `tournament = \"thesis\"`: the games every member plays. Common random numbers ignore "
                 "it (one table per member and opponent).")),
        "rounds_per_game": Key((int,), 4, "a positive integer", _pos,
            doc=("Rounds (deals) each table plays. Every block of four rounds plays one deal with the hands and the "
                 "dealer rotated one seat a round, so every seat plays every hand.")),
        "generations": Key(
            (int,), 200, "a positive integer (minimum length, and the span of the mutation annealing)", _pos,
            doc=("The least number of generations a run makes, and the span over which the `ga`'s mutation rate "
                 "anneals from `[evolution.ga] mutation_start` to `mutation_end`."),
        ),
        "patience": Key((int,), 0, "a non-negative integer (generations after the last new best)", _nonneg,
            doc=("After `generations`, the run goes on until `patience` generations have passed without a new best "
                 "(0: it stops at `generations`).")),
        "max_generations": Key((int,), 5000, "a positive integer", _pos,
            doc="The most generations a run makes, whatever `patience` says; at least `generations`."),
        "fitness": Key(
            (str,),
            "simple",
            "simple, advanced, side_points or side_score",
            lambda s: s in ("simple", "advanced", "side_points", "side_score"),
            doc=("What a member scores, as a mean per round: `simple` (the tricks its seat takes), `advanced` (the "
                 "Spades thesis's advanced fitness: for each trick taken, a score of the winning card, higher the "
                 "less likely that card was to win), `side_points` (the card points of its side; tricks in Spades "
                 "and Euchre) or `side_score` (its side's hand score). The side fitnesses need a partnership "
                 "game; Hearts, which rewards neither tricks nor card points, takes `side_score` alone (the seat's "
                 "hand score, minus the points it took)."),
        ),
        "opponents": Key(
            (list,),
            [],
            "a list of seat strings (empty: members play each other)",
            lambda v: all(isinstance(x, str) for x in v),
            doc=("Seat strings the members play against at opponent tables (`opponent_share`) or, with "
                 "`common_random_numbers`, at one table each. Empty: members play only each other."),
        ),
        "opponent_share": Key(
            (float, int), 0.0, "a fraction in [0, 1] of each generation's games played against `opponents`", _unit,
            doc=("The share of a generation's `games_per_generation` tables that seat one member (two with `partner "
                 "= \"self\"`) against opponents drawn from `opponents`; the others seat four members."),
        ),
        "stages": Key(
            (list,),
            [],
            "a list of tables {until = generation, opponents = [seat strings], rounds_per_game = n}: before "
            "generation `until` the first stage not yet over replaces `opponents` and/or `rounds_per_game` "
            "(an opponent schedule that ends at `opponents`, a budget that grows late)",
            lambda v: all(isinstance(x, dict) for x in v),
            doc=("An opponent schedule and growing budget: each generation plays with the first "
                 "`[[evolution.stages]]` table whose `until` it has not reached, and after the last with the plain "
                 "`opponents` and `rounds_per_game`. Stages that seat opponents need opponent tables "
                 "(`common_random_numbers` or `opponent_share` > 0)."), neutral=[]),
        "checkpoint_every": Key(
            (int,), 1, "a positive integer (checkpoint only after generations divisible by it)", _pos,
            doc=("The run checkpoints only after generations divisible by it (and always at the end and when "
                 "interrupted)."),
        ),
        "checkpoint_seconds": Key(
            (float, int),
            30.0,
            "a non-negative number (seconds at least between two checkpoints; "
            "0: after every checkpoint_every generations)",
            _nonneg,
            doc=("The least time between two checkpoints, in seconds (0: after every `checkpoint_every` "
                 "generations); a long imitation training is also stored this often."), neutral=30.0),
        "algorithm": Key(
            (str,),
            "es",
            "ga (the study's truncation, recombination and mutation), cma (DEAP's CMA-ES) "
            "or es (OpenAI-style evolution strategy)",
            lambda s: s in STRATEGIES,
            doc=("The search: `ga` (the Spades thesis's GA: truncation, uniform recombination, annealed mutation), "
                 "`cma` (DEAP's CMA-ES, for genomes of up to 5,000 values) or `es` (an OpenAI-style evolution "
                 "strategy: mirrored perturbations, centered ranks, Adam on the mean; for networks of any size)."),
                 neutral="ga"),
        "common_random_numbers": Key(
            (bool,),
            False,
            "true (every member plays the same deals, seat and random streams against each of `opponents`) or false",
            doc=("Every member sits in seat 0 (and seat 2 with `partner = \"self\"`) of one table per entry of "
                 "`opponents`, and all tables play the same deals with the same random streams, so equal members "
                 "get equal fitness and what separates members is their play. Needs `opponents`."), neutral=False),
        "progress_every": Key(
            (int,),
            10,
            "a non-negative integer (every k generations the generation's best plays "
            "progress_deals fixed deals against the first opponent or Random; 0: never)",
            _nonneg,
            doc=("Every k generations the generation's best member (with `es` or `cma`: the search mean) plays "
                 "`progress_deals` fixed deals against the validation opponents: the `val` figure of the progress "
                 "bar and the fitness plot. 0: never."), neutral=10),
        "progress_deals": Key((int,), 1000, "a positive integer (fixed deals of the progress figure)", _pos,
            doc="Fixed deals per validation opponent of the progress figure.", neutral=1000),
        "partner": Key(
            (str,),
            "opponent",
            "opponent (at opponent tables the member's partner is an opponent) or "
            "self (the member sits in both seats of its side)",
            lambda s: s in ("opponent", "self"),
            doc=("Who partners a member at an opponent table in a partnership game: `opponent` (an opponent sits in "
                 "the partner's seat) or `self` (the member sits in both seats of its side)."), neutral="opponent"),
        "champion": Key(
            (str,),
            "validated",
            "hall_of_fame (best single evaluation, the study), validated (the best candidate on the validation "
            "deals) or founder_unless_better (the founder unless the best is better on them, its CI above zero)",
            lambda s: s in ("hall_of_fame", "validated", "founder_unless_better"),
            doc=("How the champion is picked: `hall_of_fame` (the member with the best single evaluation), "
                 "`validated` (the hall of fame, the last `elite`, the founder and the search mean play the same "
                 "`validation_deals` fixed deals; the best mean wins) or `founder_unless_better` (the same play, "
                 "but the founder stays unless the best beats it with the paired 95% CI above zero; needs a "
                 "founder)."),
        ),
        "founder": Key(
            (str,), "",
            "a champion's folder or champion.npz written by python -m evolve.run for this run's agent (its genome "
            "is generation 0's founder and the ES's start; empty: no founder from a champion)",
            doc=("A champion written by `python -m evolve.run` (its folder or `champion.npz`) of this run's game "
                 "and agent, whose genome is generation 0's founder: the search's start, a champion candidate to "
                 "the end. The config hash covers the file's bytes. It replaces an `[imitation]` teacher: a run has "
                 "one or the other."), neutral=""),
        "validation_deals": Key(
            (int,), 4000, "a positive integer (deals per candidate when the champion is validated)", _pos,
            doc=("Fixed deals each champion candidate plays against each validation opponent when the champion is "
                 "`validated` or `founder_unless_better`."),
        ),
        "validation_opponents": Key(
            (list,),
            [],
            "a list of seat strings (the progress figure and the validated "
            "champion play the same fixed deals against each; empty: the first of "
            "`opponents`, or Random)",
            lambda v: all(isinstance(x, str) for x in v),
            doc=("The fixed opponents of the progress figure and of the champion's validation; with several, each "
                 "plays the same fixed deals and the scores are pooled. Empty: the first of `opponents`, or "
                 "`random`."), neutral=[]),
        "elite": Key(
            (int,), 8, "a positive integer (best members of the last generation kept as champion candidates)", _pos,
            doc="How many of the last generation's best members are champion candidates beside the hall of fame.",
        ),
        "evaluation": Key(
            (str,),
            "sequential",
            "sequential (one deal after another) or lockstep (many deals at once, "
            "network decisions batched: the same results, faster)",
            lambda s: s in ("sequential", "lockstep"),
            doc=("`sequential` plays one deal after another; `lockstep` plays many deals at once with the networks' "
                 "decisions batched (the same results bit for bit; it pays only with large networks). `--resume` "
                 "may switch it."),
        ),
        "tournament": Key(
            (str,),
            "tables",
            "tables (games_per_generation tables in all, members seated from random permutations) or thesis "
            "(the Spades thesis's: every member plays every game, in fresh groups of four sharing its deal)",
            lambda s: s in ("tables", "thesis"),
            doc=("`tables`: `games_per_generation` tables in all, members seated from random permutations; "
                 "`thesis`: the Spades thesis's procedure, where every member plays every game in fresh groups of "
                 "four that share the game's deal (a population that is a multiple of 4; no opponent tables)."),
                 neutral="tables"),
    },
    "imitation": {
        "teacher": Key((str,), "", 'a seat string such as "ismcts:iterations=200" (empty: no warm start, the study)',
            doc=("A seat string whose play a network learns before evolution (a warm start by imitation), e.g. "
                 "`ismcts:iterations=200`; the trained clone and perturbed copies of it form generation 0. Empty: "
                 "no warm start.")),
        "opponents": Key(
            (list,),
            ["random"],
            "a list of seat strings (the teacher's opponents)",
            lambda v: bool(v) and all(isinstance(x, str) for x in v),
            doc=("The seat strings the teacher plays against, filling the other seats in turn (the teacher sits in "
                 "seat 0, and in seat 2 too in partnership games); the DAgger rounds use them as well."),
        ),
        "deals": Key((int,), 16000, "a positive integer (deals the teacher plays)", _pos,
            doc="Deals the teacher plays; each decision with two or more legal cards becomes a training example."),
        "epochs": Key((int,), 12, "a positive integer", _pos,
            doc="Passes over the examples in the first training."),
        "learning_rate": Key((float, int), 0.001, "a positive number (Adam step size)", _pos,
            doc="Adam's step size in training (with `schedule = \"cosine\"`, the first epoch's)."),
        "batch": Key((int,), 256, "a positive integer (decisions per training step)", _pos,
            doc="Decisions per training step (minibatch size)."),
        "schedule": Key(
            (str,), "cosine",
            "constant or cosine (the Adam step size: fixed, or decayed to 0 along a half cosine over the epochs "
            "of each training)",
            lambda s: s in ("constant", "cosine"),
            doc=("Adam's step size over the epochs of each training: `constant`, or `cosine` (decayed from "
                 "`learning_rate` towards 0 along a half cosine)."), neutral="constant"),
        "holdout": Key(
            (int,), 0,
            "a non-negative integer (the teacher's last decisions kept out of training; their loss and "
            "accuracy are reported per epoch)",
            _nonneg,
            doc=("The teacher's last N decisions kept out of training; their loss and accuracy are reported after "
                 "every epoch, in the progress bar and in `imitation.json`. 0: none."), neutral=0),
        "init": Key(
            (str,), "fan_in",
            "small or fan_in (the trained network's start: every weight 0.3 x U(-1, 1), or scaled by "
            "sqrt(3 / fan-in) with zero biases, which wide layers need)",
            lambda s: s in _trainer_choices("INITS"),
            doc=("The trained network's start: `small` (every weight 0.3 x U(-1, 1)) or `fan_in` (each layer scaled "
                 "by sqrt(3 / fan-in), biases zero), which wide layers need."), neutral="small"),
        "logits": Key(
            (str,), "linear",
            "tanh or linear (the softmax is taken over 5 x tanh(output), or over the output sums themselves, "
            "the values the agent's argmax compares)",
            lambda s: s in _trainer_choices("LOGITS"),
            doc=("What the training's softmax is taken over: `tanh` (5 x tanh(output)) or `linear` (the output sums "
                 "themselves, the very values the agent's argmax compares)."), neutral="tanh"),
        "noise": Key(
            (float, int), 0.05, "a non-negative number (sd of the perturbation of the other initial members)", _nonneg,
            doc=("Standard deviation, in unit coordinates, of the perturbed copies of the founder (the imitation "
                 "clone, or the `[evolution] founder`) that fill generation 0 beside it. `es` and `cma` centre "
                 "their search distribution on the founder instead."),
        ),
        "targets": Key(
            (str,),
            "choice",
            "choice (the card the teacher plays) or visits (an ISMCTS teacher's root visit shares, "
            "a soft target)",
            lambda s: s in ("choice", "visits"),
            doc=("What the network learns: `choice` (the card the teacher plays) or `visits` (an ISMCTS teacher's "
                 "share of root visits per legal card, a soft target)."), neutral="choice"),
        "dagger_rounds": Key(
            (int,), 0, "a non-negative integer (DAgger rounds: the clone plays, the teacher labels its decisions)",
            _nonneg,
            doc=("DAgger rounds after the first training: each round the clone plays in the teacher's seats, the "
                 "DAgger teacher labels every decision the clone made, the examples join the data and training goes "
                 "on. 0: none."), neutral=0),
        "dagger_deals": Key((int,), 0, "a non-negative integer (deals the clone plays per DAgger round; 0: deals)",
                            _nonneg,
            doc="Deals the clone plays per DAgger round (0: `deals`).", neutral=0),
        "dagger_epochs": Key((int,), 0, "a non-negative integer (epochs after each DAgger round; 0: epochs)",
                             _nonneg,
            doc="Epochs of the training after each DAgger round (0: `epochs`).", neutral=0),
        "dagger_teacher": Key(
            (str,), "",
            "a seat string (the searcher that labels the clone's decisions in DAgger rounds, perhaps stronger "
            "than the teacher whose games it first learnt from; empty: the teacher)",
            doc=("The seat string that labels the clone's decisions in DAgger rounds, perhaps a stronger search "
                 "than the teacher whose games the clone first learnt from. Empty: the teacher."), neutral=""),
        "dagger_learning_rate": Key(
            (float, int), 0, "a non-negative number (Adam step size of the trainings after DAgger rounds, which "
                             "start from the clone; 0: learning_rate)", _nonneg,
            doc=("Adam's step size of the trainings after DAgger rounds, which go on from the clone (0: "
                 "`learning_rate`)."), neutral=0),
        "dagger_data": Key(
            (str,), "joined",
            "joined (each DAgger training sees the teacher's examples and every round's) or relabelled (only the "
            "rounds' examples: the clone's own decisions as the DAgger teacher labels them)",
            lambda s: s in ("joined", "relabelled"),
            doc=("What each DAgger training sees: `joined` (the teacher's examples and every round's) or "
                 "`relabelled` (only the rounds' examples, the clone's decisions as the DAgger teacher labels "
                 "them)."), neutral="joined"),
    },
    "parallel": {
        "workers": Key((int,), 0, "a non-negative integer (worker processes; 0: every core)", _nonneg,
            doc=("Processes that play a generation's tables, the teacher's deals and the benchmark (0: every core). "
                 "The results do not depend on it; `--workers` overrides it.")),
        "backend": Key((str,), "loky", "loky, threads or dask", lambda s: s in ("loky", "threads", "dask"),
            doc=("Where the shares of the work run: `loky` (worker processes on this machine), `threads` (threads "
                 "of one process) or `dask` (a Dask cluster). The results do not depend on it.")),
        "scheduler": Key((str,), "", "a dask scheduler address such as tcp://host:8786 (empty: a local cluster)",
            doc=("With `backend = \"dask\"`, the address of the Dask scheduler, e.g. `tcp://host:8786` (empty: a "
                 "local cluster).")),
    },
    "benchmark": {
        "deals": Key((int,), 20000, "a non-negative integer (0 skips the final benchmark)", _nonneg,
            doc=("Deals the champion plays against each benchmark opponent at the end of the run (0: no benchmark). "
                 "When the run has a founder and another candidate became the champion, the two also play the same "
                 "deals against each opponent: what evolution added.")),
        "opponents": Key((list,), ["random"], "a list of seat strings", lambda v: all(isinstance(x, str) for x in v),
            doc=("The seat strings the champion is benchmarked against: its side against the opponent's in "
                 "partnership games, one seat against three otherwise.")),
    },
}

# what each table of an experiment file is for (the configuration reference)
SECTION_DOCS = {
    "experiment": "What the experiment is: its name, game and seed.",
    "game_options": "The options of the game that `[experiment] game` names, each as `key = value` (free-form: "
                    "the game's own option table checks them).",
    "agent": "What is evolved: a network (the default, described by `[network]`) or a parametric kind, and how a "
             "parametric genome starts.",
    "network": "The evolved network: its inputs, hidden layers, number format and the bidder of its seats.",
    "evolution": "The search: the algorithm and its operators, the tournament that scores each generation, how "
                 "long the run goes on, how it checkpoints and how the champion is picked.",
    "imitation": "An optional warm start: a network trained to play like a teacher (and DAgger rounds) before "
                 "evolution starts from it.",
    "parallel": "Where the work runs; the results do not depend on these keys.",
    "benchmark": "The champion's final benchmark against fixed opponents.",
}


#: each algorithm's own settings, the tables ``[evolution.<name>]`` (``STRATEGIES[name].PARAMS``)
STRATEGY_PARAMS: dict[str, dict[str, Key]] = {name: strategy.PARAMS for name, strategy in STRATEGIES.items()}

#: the settings of the DAgger rounds, which determine nothing when there are none
DAGGER_KEYS = ("dagger_deals", "dagger_epochs", "dagger_teacher", "dagger_learning_rate", "dagger_data")

# Settings a resumed run may change (it only goes on for longer, checkpoints differently or
# picks its champion differently); every other key fixes what has happened so far.
EXTENDABLE = {("evolution", k) for k in ("generations", "patience", "max_generations", "checkpoint_every",
                                         "checkpoint_seconds", "champion", "validation_deals", "elite",
                                         "progress_every", "progress_deals", "evaluation")} | {
    ("experiment", "description")}


def validation_opponents(evolution: dict) -> list[str]:
    """The fixed opponents of the progress figure and the validated champion, from an
    ``[evolution]`` table (a run folder's ``config.json`` too, which may predate the key):
    ``validation_opponents``, else the first of the tournament's opponents, or Random."""
    return list(evolution.get("validation_opponents") or []) or [(evolution.get("opponents") or ["random"])[0]]


def _digest(d: dict) -> str:
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def _flat(d: dict, prefix: str = "") -> dict:
    """``{"section.key": value}`` of a config's sections, the strategy tables one level deeper
    (``evolution.es.sigma``)."""
    out = {}
    for key, value in d.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and (not prefix or key in STRATEGY_PARAMS):
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class Config:
    """A validated experiment configuration (sections as plain dicts; ``evolution`` holds each
    algorithm's table under its name). ``sets``: the ``--set`` overrides it was read with."""

    path: Path | None
    experiment: dict
    game_options: dict
    agent: dict
    network: dict
    evolution: dict
    imitation: dict
    parallel: dict
    benchmark: dict
    sets: tuple[str, ...] = field(default=(), compare=False)

    @property
    def name(self) -> str:
        return self.experiment["name"]

    def as_dict(self) -> dict:
        """The sections as plain data (what the run folder's ``config.json`` records, with the
        schema version it is written in)."""
        return {"schema": migrations.SCHEMA_VERSION, **{k: getattr(self, k) for k in SCHEMA}}

    @property
    def founder_source(self) -> str | None:
        """See ``founder_source``: ``"imitation"``, ``"champion"``, ``"start point"`` or None."""
        return founder_source(self.as_dict())

    def hash(self) -> str:
        """Hash of everything that determines the run (not the number of workers)."""
        return _digest(self._determining())

    def history_hash(self) -> str:
        """Hash of what determines the generations run so far: everything but the settings
        that only say how long to go on, how often to checkpoint and what to do at the end
        (``EXTENDABLE``), which a resumed run may change."""
        d = self._determining()
        for section, key in EXTENDABLE:
            d.get(section, {}).pop(key, None)
        d.pop("benchmark", None)
        return _digest(d)

    def _determining(self) -> dict:
        """What the hash covers: the settings in the layout of schema version 1
        (``migrations.hash_form``), so that a config keeps the hash it had when written,
        without what does not change the results."""
        d = migrations.hash_form(json.loads(json.dumps(self.as_dict(), default=str)), SCHEMA, STRATEGY_PARAMS)
        d["parallel"] = {}
        d["evolution"].pop("evaluation", None)    # how deals are played, not what: the same results
        if not d["imitation"]["teacher"]:
            del d["imitation"]      # a run without a warm start does not depend on the imitation settings
        elif not d["imitation"].get("dagger_rounds"):
            for key in DAGGER_KEYS:  # nor one without DAgger rounds on theirs
                d["imitation"].pop(key, None)
        if d["agent"]["kind"] == "network":
            del d["agent"]          # nor a network on the parametric agent's
        else:
            del d["network"]        # a parametric agent plays no network: its defaults do not determine the run
        if d["evolution"].get("founder"):      # the founder's bytes determine the run, not only its path
            npz, _ = npz_json_paths(d["evolution"]["founder"], "champion", "champion")
            d["evolution"]["founder"] = {"path": d["evolution"]["founder"],
                                         "sha256": hashlib.sha256(npz.read_bytes()).hexdigest()}
        return d

    def changes_from(self, other: "Config") -> dict[str, tuple]:
        """``{"section.key": (other's value, this value)}`` for every key that differs (a
        strategy's keys as ``evolution.es.sigma``)."""
        a, b = _flat(other.as_dict()), _flat(self.as_dict())
        return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if k != "schema" and a.get(k) != b.get(k)}

    def with_overrides(self, **sections: dict) -> "Config":
        """A copy with some keys replaced (validated again; a strategy's table merges)."""
        data = self.as_dict()
        for section, values in sections.items():
            data[section] = merge(data[section], {k: v for k, v in values.items() if v is not None})
        return validate(data, self.path, sets=self.sets)


def _everyone_plays(evolution: dict) -> str | None:
    """Why a generation's tables would leave members out, or None when every member
    plays (``seat_tables`` fills the member seats from permutations of the population)."""
    from evolve.evolution.tournament import member_seats, opponent_tables

    population, games = evolution["population"], evolution["games_per_generation"]
    opponents, share = len(evolution["opponents"]), evolution["opponent_share"]
    seats = member_seats(games, opponents, share)
    if seats >= population:
        return None
    needed = next(g for g in range(games, population + 1) if member_seats(g, opponents, share) >= population)
    vs = opponent_tables(games, opponents, share)
    layout = f"{games - vs} population tables x 4 seats" + (f" + {vs} opponent tables x 1 seat" if vs else "")
    return (f"got {games}; only {seats} of the {population} members would play each generation ({layout}); "
            f"expected at least {needed} for population {population}, so that every member plays")


def _evolution(given, fail) -> dict:
    """The ``[evolution]`` table with each algorithm's own table ``[evolution.<name>]``."""
    if not isinstance(given, dict):
        fail("evolution", "expected a table")
    own = {name: given.get(name, {}) for name in STRATEGY_PARAMS}
    values = check_table("evolution", SCHEMA["evolution"],
                         {k: v for k, v in given.items() if k not in STRATEGY_PARAMS}, fail)
    for name, params in STRATEGY_PARAMS.items():
        values[name] = check_table(f"evolution.{name}", params, own[name], fail)
    return values


def validate(data: dict, path: Path | None = None, *, sets: tuple[str, ...] = (), version: int | None = None) -> Config:
    """Check ``data`` against the schema and fill defaults (ConfigError on any problem).
    ``data`` may be in an older schema version (its ``schema`` key, else ``version``, else the
    current one): it is upgraded first. ``sets``: the ``--set`` overrides already written
    into ``data``, named as such in an error about one of their keys."""
    where = str(path) if path else "<config>"
    from_set = {text.partition("=")[0].strip(): text for text in sets}

    def fail(key: str, msg: str):
        if key in from_set:
            raise ConfigError(f"--set {from_set[key]}: {key}: {msg}")
        raise ConfigError(f"{where}: {key}: {msg}")

    if not isinstance(data, dict):
        fail("<root>", "expected a table of sections")
    data = migrations.upgrade(data, version, fail)
    for section in data:
        if section not in SCHEMA:
            fail(section, f"unknown section; valid sections: {', '.join(SCHEMA)}")
    out: dict[str, dict] = {}
    for section, keys in SCHEMA.items():
        given = data.get(section, {})
        if section == "game_options":
            if not isinstance(given, dict):
                fail(section, "expected a table")
            out[section] = dict(given)
        elif section == "evolution":
            out[section] = _evolution(given, fail)
        else:
            # without a name the experiment is named after its file
            named = ("name",) if section == "experiment" and path is not None else ()
            out[section] = check_table(section, keys, given, fail, optional=named)
    if out["experiment"]["name"] is None:
        out["experiment"]["name"] = path.stem
    g = _game(out, fail)
    from evolve.agents.callback_slot import compiles_deferred

    with compiles_deferred():       # checking a seat compiles nothing (the run compiles what it needs)
        _check_seats(out, g, fail)
        _check_agent(out["agent"], g, fail)
    _resolve_bidders(out, g, fail)
    _check_network(out["network"], g, fail)
    _check_evolution(out["evolution"], g, fail)
    if out["evolution"]["founder"]:
        _check_founder(out, g, fail)
    if out["evolution"]["champion"] == "founder_unless_better" and founder_source(out) is None:
        fail("evolution.champion", "got 'founder_unless_better' but the run has no founder; expected an "
                                   "[imitation] teacher, an [evolution] founder (or a parametric [agent] whose "
                                   "init is not uniform), or champion = \"validated\"")
    return Config(path=path, **out, sets=tuple(sets))


def _check_founder(out: dict, g, fail) -> None:
    """``[evolution] founder``: a readable champion of the run's game, and the run's only
    warm start (its agent is checked against the run's when the run builds it)."""
    from evolve.agents.genomes.champion import load_champion

    path = out["evolution"]["founder"]
    if out["imitation"]["teacher"]:
        fail("evolution.founder", f"got {path!r} beside an [imitation] teacher; expected one warm start, the "
                                  "founder or the teacher")
    try:
        champion = load_champion(path)
    except UsageError as e:
        fail("evolution.founder", f"{e}; expected a champion's folder or champion.npz written by python -m evolve.run")
    if champion.game != g.name:
        fail("evolution.founder", f"{path} is a {champion.game} champion; expected a {g.name} one")


def founder_source(sections: dict) -> str | None:
    """Where generation 0's founder, a champion candidate to the end, comes from:
    ``"imitation"`` (the genome trained on an ``[imitation]`` teacher), ``"champion"``
    (the genome of the champion ``[evolution] founder``), ``"start point"`` (a parametric
    agent whose init is not uniform), or None (no founder)."""
    if sections["evolution"].get("founder"):
        return "champion"
    if sections["imitation"]["teacher"]:
        return "imitation"
    if sections["agent"]["kind"] != "network" and sections["agent"]["init"] != "uniform":
        return "start point"
    return None


def _resolve_bidders(out: dict, g, fail) -> None:
    """``bidder = "default"`` becomes the game's own bidder, so the run folder's config
    (and its hash) names the bidder it was evolved with."""
    from evolve.agents.bidding.bidders import resolve_bidder
    from evolve.agents.genomes.evolvable import bidder_spec

    for section in ("network", "agent"):
        try:
            bidder_spec(out[section]["bidder"], g)
        except UsageError as e:
            fail(f"{section}.bidder", str(e))
        out[section]["bidder"] = resolve_bidder(out[section]["bidder"], g)


def _game(out: dict, fail):
    """The experiment's game with its options."""
    game = out["experiment"]["game"]
    if game not in GAMES:
        fail("experiment.game", f"got {game!r}; expected one of {', '.join(GAMES)}")
    try:
        return make_game(game, **out["game_options"])
    except UsageError as e:
        fail("game_options", str(e))


def _check_seats(out: dict, g, fail) -> None:
    """Every opponent, validation opponent and teacher is a seat of this game."""
    from evolve.agents.registry import parse_seat

    seats = [(f"{section}.opponents", seat) for section in ("evolution", "benchmark", "imitation")
             for seat in out[section]["opponents"]]
    seats += [("evolution.validation_opponents", seat) for seat in out["evolution"]["validation_opponents"]]
    seats += [(f"evolution.stages[{k}].opponents", seat) for k, stage in enumerate(out["evolution"]["stages"])
              if isinstance(stage.get("opponents"), list) for seat in stage["opponents"] if isinstance(seat, str)]
    seats += [("imitation.teacher", out["imitation"]["teacher"])] if out["imitation"]["teacher"] else []
    labeller = out["imitation"]["dagger_teacher"]
    seats += [("imitation.dagger_teacher", labeller)] if labeller else []
    if labeller and out["imitation"]["targets"] == "visits" and labeller.partition(":")[0] != "ismcts":
        fail("imitation.dagger_teacher", f"got {labeller!r}; visit targets are an ISMCTS teacher's root visit "
                                         "shares, so expected an ismcts seat (or targets = \"choice\")")
    for key, seat in seats:
        try:
            parse_seat(seat, g)
        except UsageError as e:
            fail(key, f"seat {seat!r}: {e}")


def _check_evolution(ev: dict, g, fail) -> None:
    """The ``[evolution]`` settings that depend on each other or on the game."""
    if ev["opponent_share"] > 0 and not ev["opponents"]:
        fail("evolution.opponent_share", "is > 0 but evolution.opponents is empty; expected a list of seat strings")
    if ev["common_random_numbers"] and not ev["opponents"]:
        fail("evolution.common_random_numbers", "is true but evolution.opponents is empty; expected a list of seat "
                                                "strings (each member plays the same deals against each of them)")
    if ev["algorithm"] == "es" and ev["population"] % 2:
        fail("evolution.population", f"got {ev['population']}; expected an even number (the ES samples mirrored "
                                     "pairs)")
    _check_stages(ev, fail)
    if ev["tournament"] == "thesis":
        _check_thesis_tournament(ev, fail)
    left_out = None if ev["common_random_numbers"] or ev["tournament"] == "thesis" else _everyone_plays(ev)
    if left_out:
        fail("evolution.games_per_generation", left_out)
    if ev["max_generations"] < ev["generations"]:
        fail("evolution.max_generations", f"got {ev['max_generations']}; expected >= evolution.generations "
                                          f"({ev['generations']})")
    if not g.protocol.tricks_are_aim and ev["fitness"] != "side_score":
        fail("evolution.fitness", f"got {ev['fitness']!r}; {g.name} does not reward tricks or card points: use "
                                  "side_score (the seat's hand score)")
    elif ev["fitness"] in ("side_points", "side_score") and not g.partnership and g.protocol.tricks_are_aim:
        fail("evolution.fitness", f"got {ev['fitness']!r}; side fitness needs a partnership game (use simple or "
                                  "advanced)")


STAGE_KEYS = ("until", "opponents", "rounds_per_game")
# what each key of an ``[[evolution.stages]]`` table does (the configuration reference)
STAGE_DOCS = {
    "until": "The first generation after the stage: it covers the generations from the previous stage's `until` "
             "(or 0) up to `until - 1`. Stages come in rising order of `until`.",
    "opponents": "The seat strings the stage's generations play against instead of `[evolution] opponents`.",
    "rounds_per_game": "The rounds per table of the stage's generations instead of `[evolution] "
                       "rounds_per_game`.",
}


def _check_stages(ev: dict, fail) -> None:
    """``stages``: each a table of known keys, ``until`` rising, at least one setting."""
    last = 0
    for k, stage in enumerate(ev["stages"]):
        key = f"evolution.stages[{k}]"
        unknown = sorted(set(stage) - set(STAGE_KEYS))
        if unknown:
            fail(f"{key}.{unknown[0]}", f"unknown key; expected {', '.join(STAGE_KEYS)}")
        until = stage.get("until")
        if not isinstance(until, int) or isinstance(until, bool) or until <= last:
            fail(f"{key}.until", f"got {until!r}; expected an integer generation above {last} (stages in order)")
        last = until
        if "opponents" not in stage and "rounds_per_game" not in stage:
            fail(key, "changes nothing; expected opponents and/or rounds_per_game")
        if "opponents" in stage:
            opponents = stage["opponents"]
            if not isinstance(opponents, list) or not opponents or not all(isinstance(x, str) for x in opponents):
                fail(f"{key}.opponents", f"got {opponents!r}; expected a non-empty list of seat strings")
            if not (ev["common_random_numbers"] or ev["opponent_share"] > 0):
                fail(f"{key}.opponents", "no table seats opponents (expected common_random_numbers = true or "
                                         "opponent_share > 0)")
        rounds = stage.get("rounds_per_game", 1)
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds <= 0:
            fail(f"{key}.rounds_per_game", f"got {rounds!r}; expected a positive integer")


def stage_settings(evolution: dict, generation: int) -> tuple[int, list[str], int]:
    """The stage of ``generation`` (its index, or len(stages) after the last) and the
    opponents and rounds per game it plays with."""
    for k, stage in enumerate(evolution.get("stages") or []):
        if generation < stage["until"]:
            return (k, list(stage.get("opponents", evolution["opponents"])),
                    int(stage.get("rounds_per_game", evolution["rounds_per_game"])))
    return len(evolution.get("stages") or []), list(evolution["opponents"]), int(evolution["rounds_per_game"])


def _check_thesis_tournament(ev: dict, fail) -> None:
    """The thesis's tournament splits the whole population into groups of four for every
    game and shares each game's deal among them: no opponent tables."""
    if ev["population"] % 4:
        fail("evolution.population", f"got {ev['population']}; expected a multiple of 4 (tournament = thesis splits "
                                     "the population into groups of four for every game)")
    if ev["opponent_share"] > 0 or ev["common_random_numbers"]:
        key = "opponent_share" if ev["opponent_share"] > 0 else "common_random_numbers"
        fail(f"evolution.{key}", f"got {ev[key]!r}; tournament = thesis seats members only (expected "
                                 f"{'0' if key == 'opponent_share' else 'false'}, or tournament = tables)")


def _check_network(network: dict, game, fail) -> None:
    """``[network] suits``: renumbering the suits needs one output per card and a trump that varies."""
    from evolve.agents.network.architecture import trump_first_refusal

    refusal = trump_first_refusal(game, network["encoding"]) if network["suits"] == "trump_first" else None
    if refusal:
        fail("network.suits", f"{refusal}; expected as_dealt")


def _check_agent(agent: dict, game, fail) -> None:
    """The ``[agent]`` table: a known kind for this game, a valid start and pairing."""
    from evolve.agents.genomes.evolvable import bidder_spec
    from evolve.agents.genomes.parametric import PARAMETRIC
    from evolve.agents.registry import parse_seat

    kind = agent["kind"]
    if kind == "network":
        return
    definition = PARAMETRIC.get(kind)
    if definition is None:
        fail("agent.kind", f"got {kind!r}; expected network or one of {', '.join(PARAMETRIC)}")
    if game.name not in definition.games:
        fail("agent.kind", f"{kind!r} does not play {game.name}; it plays {', '.join(definition.games)}")
    if agent["init"].startswith("champion:"):
        from evolve.agents.genomes.champion import start_genome
        from evolve.agents.genomes.evolvable import ParametricAgent

        try:
            start_genome(ParametricAgent(definition, game, agent["play"]), agent["init"])
        except UsageError as e:
            fail("agent.init", str(e))
    elif agent["init"] not in (*definition.starts, "uniform"):
        fail("agent.init", f"got {agent['init']!r}; expected one of {', '.join([*definition.starts, 'uniform'])}, "
                           "or champion:PATH")
    try:
        if definition.role == "bid":
            parse_seat(agent["play"], game)
        else:
            bidder_spec(agent["bidder"], game)
    except UsageError as e:
        fail("agent.play" if definition.role == "bid" else "agent.bidder", str(e))


def load_config(path: str | Path, sets: list[str] | tuple[str, ...] = ()) -> Config:
    """Read and validate a TOML experiment file: its ``extends`` chain resolved, then the
    ``--set section.key=value`` overrides ``sets`` applied, in order."""
    path = Path(path)
    try:
        data = apply_sets(read_toml(path), sets)
    except UsageError as e:
        raise ConfigError(str(e)) from None
    return validate(data, path, sets=tuple(sets))
