"""The evolution loop (the Spades thesis's procedure and its extensions;
``docs/explanation/how-a-run-works.md``) with neat-python-style reporters.

``Evolution(config).run()`` evolves a population of genomes, networks or parametric agents
alike (``evolve.agents.genomes.evolvable``), with the study's GA, CMA-ES or an OpenAI-style ES, until ``generations``
have passed and ``patience`` generations have gone by without a new best (or
``max_generations``). It checkpoints at most every ``checkpoint_seconds`` (and at the end,
and when interrupted). Random numbers of generation g come from (seed, g), so a resumed run
continues bit for bit, whatever the number of workers or the backend.

Genomes are kept in unit coordinates (see ``evolve.agents.genomes.evolvable``); seats and champions
get them in natural units.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import CancelledError
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from deap import tools

from evolve.agents.bidding.bidders import resolve_bidder
from evolve.agents.callback_slot import compiles_deferred
from evolve.agents.genomes.champion import Champion, load_champion, save_champion, start_genome
from evolve.agents.genomes.evolvable import (
    NetworkAgent,
    ParametricAgent,
    from_unit,
    to_unit,
)
from evolve.agents.genomes.parametric import PARAMETRIC
from evolve.agents.network.architecture import Architecture
from evolve.agents.registry import AgentSpec, parse_seat
from evolve.core.cores import resolve_workers
from evolve.core.errors import UsageError
from evolve.core.pool import SchedulerLost, cluster_workers, use_scheduler
from evolve.core.progress import progress_line
from evolve.core.stats import mean_ci, paired_difference
from evolve.core.version import __version__
from evolve.evaluate.benchmark import seats_against
from evolve.evolution.checkpoint import RunState, load_checkpoint, save_checkpoint
from evolve.evolution.config import (
    EXTENDABLE,
    SCHEMA,
    Config,
    ConfigError,
    stage_settings,
    validate,
    validation_opponents,
)
from evolve.evolution.parallel import make_runner
from evolve.evolution.reporters import (
    CheckpointReporter,
    PlotReporter,
    ProgressReporter,
    Reporter,
)
from evolve.evolution.strategies import cma, make_strategy
from evolve.evolution.tournament import Tournament
from evolve.games.registry import make_game
from evolve.runtime.play import engine_families_of, played_options
from evolve.runtime.precompile import CompileJob, compile_engine

# A run's files; imitation.json alone is no run yet (a start that stopped while imitating
# is made again exactly), so it does not make a folder "taken", but --overwrite removes it.
RUN_FILES = ("checkpoint.npz", "logbook.json", "config.json", "champion.npz", "champion.json", "benchmark.json",
             "benchmark_founder.json", "changes.json")


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM after checkpointing its last whole generation."""

    def __init__(self, generation: int, run_dir: Path, reason: str = ""):
        super().__init__(generation, run_dir)
        self.generation = generation
        self.run_dir = run_dir
        self.reason = reason        # why, when not Ctrl-C or SIGTERM (a lost Dask scheduler)


def evolvable_of(cfg: Config, game):
    """What a config evolves: a network (``[network]``) or a parametric kind (``[agent]``)."""
    if cfg.agent["kind"] == "network":
        hidden = tuple(cfg.network["hidden"]) or None
        arch = Architecture.for_game(game, cfg.network["encoding"], hidden, cfg.network["bias"], cfg.network["direct"],
                                     cfg.network["layer2"], cfg.network["suits"])
        return NetworkAgent(arch, cfg.network["bidder"])
    definition = PARAMETRIC[cfg.agent["kind"]]
    pair = cfg.agent["play"] if definition.role == "bid" else f"random:bidder={cfg.agent['bidder']}"
    return ParametricAgent(definition, game, pair)


# The number format a network plays its second layer in: its genome is float32 whatever
# the format, so a float32 champion may found a run that plays in int16 (and evolves and
# validates there, as its rounding changes play a little).
_PLAY_FORMAT_KEYS = ("layer2",)


def _genome_defining(agent_json: dict) -> dict:
    """An agent's ``to_json()`` without the keys that leave its genome as it is."""
    return {kind: {k: v for k, v in body.items() if k not in _PLAY_FORMAT_KEYS} if kind == "architecture" else body
            for kind, body in agent_json.items()}


def _difference(have: dict, want: dict) -> str:
    """What differs between two agents' ``to_json()`` (``{"architecture": {...}}`` or
    ``{"agent": {...}}``), key by key, the run's value in brackets."""
    if have.keys() != want.keys():
        return f"its kind, {next(iter(have))} (the run's: {next(iter(want))})"
    a, b = next(iter(have.values())), next(iter(want.values()))
    return ", ".join(f"{k} {a.get(k)!r} (the run's: {b.get(k)!r})" for k in sorted(set(a) | set(b))
                     if a.get(k) != b.get(k))


@dataclass
class Evolution:
    """An experiment: config, output folders, workers and reporters."""

    config: Config
    run_dir: Path | None = None
    plot_dir: Path | None = None
    workers: int | None = None
    progress: bool = True
    reporters: list[Reporter] = field(default_factory=list)

    def __post_init__(self):
        cfg = self.config
        self.game = make_game(cfg.experiment["game"], **cfg.game_options)
        self.agent = evolvable_of(cfg, self.game)
        self.arch = getattr(self.agent, "arch", None)
        self.layout = self.agent.layout
        ev = cfg.evolution
        where = f"{cfg.path or '<config>'}"
        if ev["algorithm"] == "cma" and self.layout.size > cma.MAX_DIMENSION:
            raise ConfigError(
                f"{where}: evolution.algorithm: cma on a genome of {self.layout.size} values needs a "
                f"{self.layout.size}² covariance matrix; expected ga or es for genomes over {cma.MAX_DIMENSION} values"
            )
        if cfg.imitation["teacher"] and self.arch is None:
            raise ConfigError(f"{where}: imitation.teacher: a warm start by imitation trains networks; expected no "
                              f"teacher for agent.kind = {cfg.agent['kind']!r}")
        if cfg.imitation["targets"] == "visits" and cfg.imitation["teacher"].partition(":")[0] != "ismcts":
            raise ConfigError(f"{where}: imitation.targets: \"visits\" are an ISMCTS teacher's root visit shares; "
                              f"expected an ismcts teacher, got {cfg.imitation['teacher']!r} (or targets = \"choice\")")
        self.founder_units = self.champion_founder() if cfg.founder_source == "champion" else None
        # seats are parsed without compiling the callbacks they need: ``prepare_kernels``
        # compiles those and the run's one engine kernel side by side
        with compiles_deferred() as self.callbacks:
            self.tournament = Tournament(self.game, ev["fitness"], ev["games_per_generation"], ev["rounds_per_game"],
                                         tuple(ev["opponents"]), ev["opponent_share"],
                                         ev["partner"] == "self", ev["common_random_numbers"],
                                         ev["evaluation"] == "lockstep", procedure=ev["tournament"])
            # one tournament per stage (``[[evolution.stages]]``, from its first generation's
            # settings), the last one the plain settings'
            firsts = [0, *(stage["until"] for stage in ev["stages"][:-1])] if ev["stages"] else []
            self.stage_tournaments = [replace(self.tournament, opponents=tuple(opponents), rounds=rounds)
                                      for _, opponents, rounds in (stage_settings(ev, g) for g in firsts)]
            self.stage_tournaments.append(self.tournament)
            self.engine_families = self.run_families()
        for t in self.stage_tournaments:
            t.engine_families = self.engine_families
        self.run_dir = Path(self.run_dir or Path("populations") / cfg.name)
        self.plot_dir = Path(self.plot_dir or Path("plots") / cfg.name)
        self.workers = resolve_workers(cfg.parallel["workers"] if self.workers is None else self.workers)
        self.strategy = make_strategy(ev)
        if not self.reporters:
            self.reporters = [ProgressReporter(self.progress),
                              CheckpointReporter(ev["checkpoint_every"], ev["checkpoint_seconds"]), PlotReporter()]

    def champion_founder(self) -> np.ndarray:
        """The genome of ``[evolution] founder`` in unit coordinates; the champion must be
        of this run's agent (the same architecture but perhaps for the second layer's number
        format, or the same parametric blocks)."""
        path = self.config.evolution["founder"]
        champion = load_champion(path)
        have, want = (_genome_defining(a.to_json()) for a in (champion.agent, self.agent))
        if have != want:
            raise ConfigError(f"{self.config.path or '<config>'}: evolution.founder: {path} differs from the run's "
                              f"agent in {_difference(have, want)}; expected a champion of the same agent")
        return to_unit(self.layout, champion.genome[None, :])[0]

    def run_families(self) -> tuple[str, ...]:
        """The agent families of every seat the run may play: its members, the tournament's,
        validation's and benchmark's opponents, the imitation teacher and its opponents.
        All the run's batches play on one engine kernel compiled with them all."""
        specs = self.member_specs(np.zeros((1, self.layout.size)))
        specs += [o for t in self.stage_tournaments for o in t.opponent_specs]
        seats = [*self.validation_opponents, *self.config.benchmark["opponents"]]
        if self.config.imitation["teacher"]:
            seats += [self.config.imitation["teacher"], *self.config.imitation["opponents"]]
        return engine_families_of(specs + [parse_seat(s, self.game) for s in seats])

    def prepare_kernels(self) -> None:
        """Compile the run's engine kernel and the callbacks its seats need, side by side on
        every core, where Numba's cache lacks them (``evolve.runtime.precompile``)."""
        calls = []
        if self.config.imitation["teacher"]:
            from evolve.learn.imitation import warm_replay

            calls.append(CompileJob("the teacher's replay", 5.0, call=(warm_replay, (self.game, self.arch))))
        compile_engine(self.game, self.engine_families, self.callbacks,
                       lockstep=self.config.evolution["evaluation"] == "lockstep", calls=calls)

    # ------------------------------------------------------------------ state
    @property
    def checkpoint_path(self) -> Path:
        return self.run_dir / "checkpoint.npz"

    def initial_state(self) -> RunState:
        """Generation 0: random genomes (the study), or with an ``[imitation]`` teacher the
        imitating genome plus perturbed copies of it (see ``evolve.learn.imitation``), or
        with an ``[evolution] founder`` that champion's genome plus perturbed copies."""
        seed = self.config.experiment["seed"]
        rng = np.random.default_rng([seed, 0x5EED])
        agent = self.config.agent
        pop = to_unit(self.layout, self.agent.initial(rng, self.config.evolution["population"], agent["init"],
                                                      agent["noise"], start_genome(self.agent, agent["init"])))
        founders = None
        if self.config.founder_source in ("imitation", "champion"):
            founder = self.warm_start() if self.founder_units is None else self.founder_units
            noise = rng.normal(0.0, self.config.imitation["noise"], pop.shape)
            pop = np.clip(founder + noise, -1.0, 1.0)
            pop[0] = founder
            founders = founder[None, :].copy()
        elif self.config.founder_source == "start point":
            founders = pop[:1].copy()
        pop = self.strategy.first(pop, seed)
        strategy = self.strategy.to_arrays()
        return RunState(
            generation=0,
            population=pop,
            fitness=np.full(len(pop), np.nan),
            hof_genome=np.clip(pop[0], -1.0, 1.0),
            hof_fitness=-np.inf,
            hof_generation=-1,
            best_generation=0,
            logbook=[],
            seed=seed,
            config_hash=self.config.hash(),
            founders=founders,
            strategy=strategy,
        )

    def warm_start(self) -> np.ndarray:
        """Train the imitating genome; its summary goes to ``imitation.json``."""
        from evolve.learn.imitation import HeldOutError, imitate

        try:
            genome, summary = imitate(self.game, self.arch, self.config.imitation, self.config.experiment["seed"],
                                      self.progress, self.workers, self.engine_families, student=self.agent,
                                      cache=self.run_dir / "imitation",
                                      checkpoint_seconds=self.config.evolution["checkpoint_seconds"])
        except HeldOutError as e:
            raise ConfigError(f"{self.config.path or '<config>'}: {e}") from None
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "imitation.json").write_text(json.dumps(summary, indent=2) + "\n")
        return genome

    def resume_state(self) -> RunState:
        """The checkpointed state. Settings that only say how long the run goes on (and
        how it checkpoints or picks its champion) may differ from the run's; the change is
        recorded in ``changes.json`` and ``config.json``. Any other difference is refused."""
        state = load_checkpoint(self.checkpoint_path)
        before = self.recorded_config()
        if before is None:
            if state.config_hash != self.config.hash():
                raise UsageError(f"{self.checkpoint_path}: written by a different configuration (hash "
                                 f"{state.config_hash}, this one {self.config.hash()}); use the same file and "
                                 "overrides, or another --out")
            return state
        if before.history_hash() != self.config.history_hash():
            changed = [k for k in self.config.changes_from(before)
                       if tuple(k.split(".", 1)) not in EXTENDABLE and not k.startswith(("parallel.", "benchmark."))]
            raise UsageError(f"{self.run_dir}: this run was made with other settings ({', '.join(changed)}); --resume "
                             "may change only " + ", ".join(sorted(".".join(k) for k in EXTENDABLE)) +
                             "; start anew with --overwrite or use another --out")
        changes = self.config.changes_from(before)
        if self.config.evolution["max_generations"] < state.generation:
            # the champion and logbook come from every generation run; recording a shorter
            # run over them would misstate where the champion came from
            raise UsageError(f"{self.run_dir}: this run has already run {state.generation} generations, so it "
                             f"cannot be cut to {self.config.evolution['max_generations']}; extend it with more, "
                             "or start anew with --overwrite or another --out")
        if changes:
            self.record_changes(state, changes)
            if state.finished and not self.done(state):
                state.finished = False
        state.config_hash = self.config.hash()
        return state

    def recorded_config(self) -> Config | None:
        """The configuration the run folder was last run with (``config.json``), if any."""
        path = self.run_dir / "config.json"
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text())
            data.pop("path", None)
            # written before schema versions existed: version 1
            return validate(data, path, version=1, sets=tuple(data.get("set", ())))
        except ValueError as e:
            raise UsageError(f"{path}: unreadable run configuration ({e}); nothing was changed") from None

    def record_changes(self, state: RunState, changes: dict) -> None:
        """Append the changed settings to ``changes.json`` and rewrite ``config.json``."""
        path = self.run_dir / "changes.json"
        log = json.loads(path.read_text()) if path.is_file() else []
        log.append({"generation": state.generation, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "changed": {k: {"from": a, "to": b} for k, (a, b) in changes.items()}})
        path.write_text(json.dumps(log, indent=2, default=str) + "\n")
        self.write_config()

    def write_config(self) -> None:
        """The resolved configuration (its ``extends`` chain and ``--set`` overrides applied)
        in ``config.json``, with the overrides themselves under ``set``."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        data = {**self.config.as_dict(), "set": list(self.config.sets)}
        (self.run_dir / "config.json").write_text(json.dumps(data, indent=2, default=str) + "\n")

    def save(self, state: RunState) -> None:
        state.strategy = self.strategy.to_arrays()
        save_checkpoint(self.checkpoint_path, state)
        tmp = self.run_dir / "logbook.json.tmp"
        tmp.write_text(json.dumps(state.logbook))
        tmp.replace(self.run_dir / "logbook.json")

    def plot(self, state: RunState) -> Path:
        from evolve.evolution.reporters import plot_fitness, run_title, validation_label

        return plot_fitness(state.logbook, self.plot_dir / "fitness.png", run_title(self.config.as_dict()),
                            validation_label(self.config.as_dict()))

    def natural(self, units: np.ndarray) -> np.ndarray:
        """Genomes in natural units from the runner's unit coordinates."""
        return from_unit(self.layout, units)

    def member_specs(self, population: np.ndarray) -> list[AgentSpec]:
        return self.agent.specs(self.natural(population))

    # ------------------------------------------------------------------ loop
    def done(self, state: RunState) -> bool:
        ev = self.config.evolution
        if state.generation >= ev["max_generations"]:
            return True
        return state.generation >= ev["generations"] and state.generation - state.best_generation > ev["patience"]

    def step(self, state: RunState, runner) -> dict:
        """Evaluate generation ``state.generation``, record it and breed the next one."""
        ev = self.config.evolution
        g = state.generation
        t0 = time.perf_counter()
        # advanced fitness: the best member's tricks too, which the thesis's Table 1 gives beside it
        advanced = ev["fitness"] == "advanced"
        stage, tournament = self.tournament_at(state)
        # on a cluster, a chunk of tables for each of its workers (chunks never change the figures)
        on_cluster = self.config.parallel["backend"] == "dask"
        chunks = (max(self.workers, cluster_workers()) if on_cluster else self.workers) if runner else 1
        fitness, counts, *tricks = tournament.evaluate(self.member_specs(state.population), state.seed, g, runner,
                                                       chunks, with_tricks=advanced)
        played = counts > 0
        rate = self.strategy.rate(g)
        f = fitness[played]
        record = {
            "gen": g,
            "max": float(f.max()),
            "mean": float(f.mean()),
            "std": float(f.std()),
            "min": float(f.min()),
            "mutation": rate,
            "rounds": int(counts.sum()),
            "seconds": round(time.perf_counter() - t0, 4),
        }
        if self.stage_tournaments[:-1]:
            record.update(stage=stage, rounds_per_game=tournament.rounds,
                          opponents=len(tournament.opponent_specs))
        best = int(np.argmax(np.where(played, fitness, -np.inf)))
        if advanced:
            record["tricks"] = float(tricks[0][best])
        evaluated = np.clip(state.population, -1.0, 1.0)
        order = np.lexsort((np.arange(len(fitness)), -np.where(played, fitness, -np.inf)))
        elite = evaluated[order[: ev["elite"]]].copy()
        # the figure that can move follows the search mean where there is one (the mean that
        # was sampled, so taken before the update)
        every = ev["progress_every"]
        progress = bool(every) and g % every == 0
        if progress:
            mean = self.strategy.mean()
            tracked = evaluated[best] if mean is None else mean
        population, figures = self.strategy.next(state.population, np.where(played, fitness, -np.inf), state.seed, g,
                                                 np.random.default_rng([state.seed, g, 2]))
        record.update(figures)
        # the state changes only here, all at once, so an interrupt leaves a whole generation
        if fitness[best] > state.hof_fitness:
            state.hof_genome = evaluated[best].copy()
            state.hof_fitness = float(fitness[best])
            state.hof_generation = g
            state.best_generation = g
        record["hof"] = state.hof_fitness
        if progress:
            # a figure that can move: self-play fitness means are fixed (3.25 in cut-throat Spades)
            ci = mean_ci(self.fixed_deal_scores(tracked, ev["progress_deals"], state.seed))
            record.update(validation=ci.mean, validation_low=ci.low, validation_high=ci.high)
        state.logbook.append(record)
        state.fitness, state.elite, state.population, state.generation = fitness, elite, population, g + 1
        return record

    def tournament_at(self, state: RunState) -> tuple[int, Tournament]:
        """The stage of generation ``state.generation`` and the tournament it plays: the
        stage's opponents and rounds per game."""
        k, _, _ = stage_settings(self.config.evolution, state.generation)
        return k, self.stage_tournaments[k]

    def existing_run(self) -> list[str]:
        """The files of an earlier run in the run folder."""
        if not self.run_dir.is_dir():
            return []
        return sorted(p.name for p in self.run_dir.iterdir() if p.name in RUN_FILES)

    def clear(self) -> None:
        """Delete an earlier run's files (and its plots) from the run folder."""
        for name in [*self.existing_run(), "imitation.json"]:
            (self.run_dir / name).unlink(missing_ok=True)
        for p in self.run_dir.glob("checkpoint.npz.*.tmp"):
            p.unlink()
        if (self.plot_dir / "fitness.png").is_file():
            (self.plot_dir / "fitness.png").unlink()

    def run(self, resume: bool = False, overwrite: bool = False) -> RunState:
        """Evolve until done; returns the final state (also checkpointed). A folder that
        holds a run is continued (``resume``), replaced (``overwrite``) or refused. On an
        interrupt the last whole generation is checkpointed and ``RunInterrupted`` raised."""
        found = [] if resume else self.existing_run()
        if found and not overwrite:           # refused before the kernels compile (up to a minute)
            raise UsageError(f"{self.run_dir} already holds a run ({', '.join(found)}); continue it with --resume, "
                             "start anew with --overwrite (deletes it), or choose another --out")
        if self.config.parallel["scheduler"]:
            use_scheduler(self.config.parallel["scheduler"])     # every step of the run on the cluster
        self.prepare_kernels()
        if resume:
            state = self.resume_state()
            if state.strategy:
                self.strategy.restore(state.strategy)
        else:
            if found:
                self.clear()
            state = self.initial_state()
            self.write_config()
        self.warm_up(state.population)
        for r in self.reporters:
            r.start(self, state)
        try:
            parallel = self.config.parallel
            with make_runner(parallel["backend"], self.workers, parallel["scheduler"]) as runner:
                while not state.finished and not self.done(state):
                    record = self.step(state, runner)
                    for r in self.reporters:
                        r.generation(self, state, record)
        except KeyboardInterrupt:
            for r in self.reporters:
                r.interrupted(self, state)
            self.save(state)
            raise RunInterrupted(state.generation, self.run_dir) from None
        except (SchedulerLost, OSError, TimeoutError, CancelledError) as e:
            if parallel["backend"] != "dask":
                raise
            # the cluster went away mid-generation: as an interrupt, the last whole generation is kept
            for r in self.reporters:
                r.interrupted(self, state)
            self.save(state)
            raise RunInterrupted(state.generation, self.run_dir, str(e) if isinstance(e, SchedulerLost) else
                                 f"lost the Dask scheduler at {parallel['scheduler'] or 'the local cluster'} "
                                 f"({e.__class__.__name__})") from None
        state.finished = True
        for r in self.reporters:
            r.end(self, state)
        return state

    def warm_up(self, population: np.ndarray) -> None:
        """Compile (or load) the kernels before the progress bar starts its clock: one
        table of one round, and breeding four members. (A real compile is announced on
        stderr by ``evolve.core.numba_cache``.)"""
        few = np.clip(population[: min(4, len(population))], -1.0, 1.0)
        replace(self.tournament, games=1, rounds=1).evaluate(self.member_specs(few), 0, 0)
        self.strategy.warm_up(few)

    def logbook(self, state: RunState) -> tools.Logbook:
        """The run's statistics as a DEAP Logbook."""
        lb = tools.Logbook()
        lb.header = ["gen", "max", "mean", "std", "min", "mutation", "hof"]
        for rec in state.logbook:
            lb.record(**rec)
        return lb

    def candidates(self, state: RunState) -> tuple[list[np.ndarray], list[str]]:
        """The champion candidates and their names: hall of fame, elite, founder, the
        search mean (ES and CMA)."""
        elite = [] if state.elite is None else list(state.elite)
        founders = [] if state.founders is None else list(state.founders)
        mean = self.strategy.mean()
        means = [] if mean is None else [mean]
        names = ["hall of fame"] + [f"elite {k + 1}" for k in range(len(elite))] + ["founder"] * len(founders) \
            + ["search mean"] * len(means)
        return [state.hof_genome] + elite + founders + means, names

    def validate_candidates(self, candidates: list[np.ndarray], names: list[str], seed: int,
                            rule: str = "validated") -> tuple[int, list[float], dict | None]:
        """Play each candidate on the same ``validation_deals`` deals against the validation
        opponents; returns the index of the champion, every candidate's mean score and, for
        ``rule = "founder_unless_better"``, the best candidate minus the founder on those
        deals (mean and 95% CI). "validated" takes the best mean. "founder_unless_better"
        keeps the founder unless the best is better with the CI's low end above zero: the
        best of several near-equal candidates is picked partly for its luck on these deals,
        so a small lead over the founder is no evidence that evolution helped."""
        ev = self.config.evolution
        against = "+".join(self.validation_opponents)
        per_deal = []
        with progress_line(f"{self.config.name}: validating candidates on {ev['validation_deals']} deals vs {against}",
                           len(candidates), "candidate", enabled=self.progress) as bar:
            for genome in candidates:
                per_deal.append(self.fixed_deal_scores(genome, ev["validation_deals"], seed))
                bar.update(1, best=f"{max(float(d.mean()) for d in per_deal):.3f}")
        scores = [float(d.mean()) for d in per_deal]
        best = int(np.argmax(scores))
        if rule != "founder_unless_better":
            return best, scores, None
        founder = names.index("founder")
        ci, _ = paired_difference(per_deal[best], per_deal[founder])
        margin = {k: round(v, 6) for k, v in ci.as_dict().items() if k in ("mean", "low", "high")}
        return (best if ci.low > 0 else founder), scores, margin

    @property
    def validation_opponents(self) -> list[str]:
        """The fixed opponents of validation (``config.validation_opponents``)."""
        return validation_opponents(self.config.evolution)

    def fixed_deal_scores(self, genome: np.ndarray, deals: int, seed: int) -> np.ndarray:
        """Per-deal fitness of ``genome`` (unit coordinates) on ``deals`` fixed deals of the
        run against each validation opponent in turn (its side against the opponent's in
        partnership games, one seat against three otherwise), concatenated. The deals depend
        only on the run's seed."""
        from evolve.evolution.fitness import seat_fitness
        from evolve.runtime.play import play

        spec = self.member_specs(np.asarray(genome)[None, :])[0]
        out = []
        for opponent in self.validation_opponents:
            r = play(
                self.game,
                seats_against(spec, opponent, self.game),
                deals,
                seed + 1_000_003,
                record=self.config.evolution["fitness"] == "advanced",
                workers=self.workers,
                lockstep=self.config.evolution["evaluation"] == "lockstep",
                engine_families=self.engine_families,
            )
            out.append(seat_fitness(r, self.config.evolution["fitness"])[:, 0].astype(np.float64))
        return np.concatenate(out)

    def champion(self, state: RunState) -> Champion:
        """The champion with its metadata: the hall-of-fame member (``champion =
        "hall_of_fame"``); with ``"validated"`` the best candidate (hall of fame, elite,
        founder, search mean) on the validation deals; with ``"founder_unless_better"`` the
        founder unless the best candidate beats it there with the paired 95% CI above zero
        (``best_minus_founder`` records that difference). ``chosen`` names the pick;
        ``fitness`` and ``generation`` are the hall of fame's."""
        genome = state.hof_genome
        rule = self.config.evolution["champion"]
        selection = {"champion_selection": rule}
        if rule != "hall_of_fame":
            candidates, names = self.candidates(state)
            chosen, scores, over_founder = self.validate_candidates(candidates, names, state.seed, rule)
            genome = candidates[chosen]
            selection.update(validation_scores=scores, validation_deals=self.config.evolution["validation_deals"],
                             validation_candidates=names, chosen=names[chosen])
            if over_founder is not None:
                selection["best_minus_founder"] = over_founder
        meta = {**selection, "kind": self.agent.kind, "game": self.game.name, "game_options": played_options(self.game)}
        if self.arch is not None:
            meta.update(
                encoding=self.arch.encoding,
                layers=[self.arch.n_in, self.arch.n_h1, self.arch.n_h2, self.arch.n_out],
                bidder=resolve_bidder(self.config.network["bidder"], self.game),
            )
        else:
            meta.update(init=self.config.agent["init"])
        meta.update({
            "algorithm": self.config.evolution["algorithm"],
            "fitness_kind": self.config.evolution["fitness"], "fitness": state.hof_fitness,
            "generation": state.hof_generation, "generations_run": state.generation,
            "seed": state.seed, "config_hash": state.config_hash, "experiment": self.config.name,
            "version": __version__,
        })
        if self.config.imitation["teacher"]:
            meta["imitation"] = {k: self.config.imitation[k] for k in ("teacher", "opponents", "deals", "epochs")}
            meta["imitation"].update({k: self.config.imitation[k] for k in ("targets", "dagger_rounds", "dagger_deals")
                                      if self.config.imitation[k] != SCHEMA["imitation"][k].default})
        if self.config.evolution["founder"]:
            meta["founder"] = self.config.evolution["founder"]
        return Champion(self.agent, self.natural(np.asarray(genome)[None, :])[0].copy(), meta)

    def export_champion(self, state: RunState, champion: Champion | None = None) -> Path:
        return save_champion(self.run_dir, champion or self.champion(state))
