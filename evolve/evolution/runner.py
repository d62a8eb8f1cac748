"""The evolution loop (SPEC §4) with neat-python-style reporters.

``Evolution(config).run()`` evolves a population of networks, checkpointing every
``checkpoint_every`` generations, until ``generations`` have passed and ``patience``
generations have gone by without a new best (or ``max_generations``). Random numbers of
generation g come from (seed, g), so a resumed run continues bit for bit, whatever the
number of workers or the backend.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from deap import tools

import evolve
from evolve.agents.champion import Champion, save_champion
from evolve.agents.network import Architecture
from evolve.agents.registry import AgentSpec, BIDDER_OPTIONS, bidder_from
from evolve.errors import UsageError
from evolve.evolution.checkpoint import RunState, load_checkpoint, save_checkpoint
from evolve.evolution.config import Config
from evolve.evolution.operators import make_toolbox, mutation_rate, next_generation
from evolve.evolution.parallel import make_runner
from evolve.evolution.tournament import Tournament
from evolve.games.registry import make_game


class Reporter:
    """Hooks called by the loop; subclasses override what they need."""

    def start(self, run: "Evolution", state: RunState) -> None: ...
    def generation(self, run: "Evolution", state: RunState, record: dict) -> None: ...
    def end(self, run: "Evolution", state: RunState) -> None: ...


class ProgressReporter(Reporter):
    """A tqdm bar with each generation's best and mean fitness and the mutation rate."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.bar = None

    def start(self, run, state):
        from tqdm.auto import tqdm

        total = max(run.config.evolution["generations"], state.generation)
        self.bar = tqdm(total=total, initial=state.generation, desc=run.config.name, unit="gen",
                        disable=not self.enabled, dynamic_ncols=True)

    def generation(self, run, state, record):
        if self.bar is None:
            return
        target = max(run.config.evolution["generations"], state.best_generation + run.config.evolution["patience"] + 1)
        self.bar.total = min(target, run.config.evolution["max_generations"])
        self.bar.set_postfix(best=f"{record['max']:.3f}", mean=f"{record['mean']:.3f}", m=f"{record['mutation']:.2f}",
                             hof=f"{state.hof_fitness:.3f}")
        self.bar.update(1)

    def end(self, run, state):
        if self.bar is not None:
            self.bar.close()


class CheckpointReporter(Reporter):
    """Atomic checkpoint every k generations and at the end, plus logbook.json."""

    def __init__(self, every: int = 1):
        self.every = every

    def generation(self, run, state, record):
        if state.generation % self.every == 0:
            run.save(state)

    def end(self, run, state):
        run.save(state)


class PlotReporter(Reporter):
    """Redraws the fitness curves every ``every`` generations and at the end."""

    def __init__(self, every: int = 25):
        self.every = every

    def generation(self, run, state, record):
        if state.generation % self.every == 0:
            run.plot(state)

    def end(self, run, state):
        run.plot(state)


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
        hidden = tuple(cfg.network["hidden"]) or None
        self.arch = Architecture.for_game(self.game, cfg.network["encoding"], hidden, cfg.network["bias"])
        ev = cfg.evolution
        self.tournament = Tournament(self.game, ev["fitness"], ev["games_per_generation"], ev["rounds_per_game"],
                                     ev["deals"] == "shared", tuple(ev["opponents"]), ev["opponent_share"])
        self.toolbox = make_toolbox(ev["selection"], ev["mutation_operator"], ev["mutation_sigma"])
        self.run_dir = Path(self.run_dir or Path("populations") / cfg.name)
        self.plot_dir = Path(self.plot_dir or Path("plots") / cfg.name)
        self.workers = self.workers or cfg.parallel["workers"]
        opts = {k: o.default for k, o in BIDDER_OPTIONS.items()}
        opts["bidder"] = cfg.network["bidder"]
        self.bid_kind, self.bid_params = bidder_from(opts)
        if not self.reporters:
            self.reporters = [ProgressReporter(self.progress), CheckpointReporter(ev["checkpoint_every"]), PlotReporter()]

    # ------------------------------------------------------------------ state
    @property
    def checkpoint_path(self) -> Path:
        return self.run_dir / "checkpoint.npz"

    def initial_state(self) -> RunState:
        """Generation 0: random genomes (the study), or with an ``[imitation]`` teacher the
        imitating genome plus perturbed copies of it (see ``evolve.evolution.imitation``)."""
        seed = self.config.experiment["seed"]
        rng = np.random.default_rng([seed, 0x5EED])
        pop = np.stack([self.arch.random_genome(rng) for _ in range(self.config.evolution["population"])])
        founders = None
        if self.config.imitation["teacher"]:
            founder = self.warm_start()
            noise = rng.normal(0.0, self.config.imitation["noise"], pop.shape)
            pop = np.clip(founder + noise, -1.0, 1.0)
            pop[0] = founder
            founders = founder[None, :].copy()
        return RunState(generation=0, population=pop, fitness=np.full(len(pop), np.nan),
                        hof_genome=pop[0].copy(), hof_fitness=-np.inf, hof_generation=-1, best_generation=0,
                        logbook=[], seed=seed, config_hash=self.config.hash(), founders=founders)

    def warm_start(self) -> np.ndarray:
        """Train the imitating genome; its summary goes to ``imitation.json``."""
        from evolve.evolution.imitation import imitate

        genome, summary = imitate(self.game, self.arch, self.config.imitation, self.config.experiment["seed"],
                                  self.progress, self.workers)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "imitation.json").write_text(json.dumps(summary, indent=2) + "\n")
        return genome

    def resume_state(self) -> RunState:
        state = load_checkpoint(self.checkpoint_path)
        if state.config_hash != self.config.hash():
            raise UsageError(f"{self.checkpoint_path}: written by a different configuration (hash {state.config_hash}, "
                             f"this one {self.config.hash()}); use the same file and overrides, or another --out")
        return state

    def save(self, state: RunState) -> None:
        save_checkpoint(self.checkpoint_path, state)
        tmp = self.run_dir / "logbook.json.tmp"
        tmp.write_text(json.dumps(state.logbook))
        tmp.replace(self.run_dir / "logbook.json")

    def plot(self, state: RunState) -> Path:
        from evolve.evolution.plots import plot_fitness

        return plot_fitness(state.logbook, self.plot_dir / "fitness.png",
                            f"{self.config.name}: {self.game.name} {self.arch.encoding}-based, fitness {self.config.evolution['fitness']}")

    def member_specs(self, population: np.ndarray) -> list[AgentSpec]:
        packed = self.arch.pack_many(population)
        return [AgentSpec(f"member{i}", self.arch.kind, p, self.bid_kind, self.bid_params, self.arch.work_size)
                for i, p in enumerate(packed)]

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
        fitness, counts = self.tournament.evaluate(self.member_specs(state.population), state.seed, g, runner,
                                                   self.workers if runner else 1)
        played = counts > 0
        rate = mutation_rate(g, ev["generations"], ev["mutation_start"], ev["mutation_end"], ev["mutation_schedule"])
        f = fitness[played]
        record = {"gen": g, "max": float(f.max()), "mean": float(f.mean()), "std": float(f.std()), "min": float(f.min()),
                  "mutation": rate, "rounds": int(counts.sum()), "seconds": round(time.perf_counter() - t0, 4)}
        best = int(np.argmax(np.where(played, fitness, -np.inf)))
        if fitness[best] > state.hof_fitness:
            state.hof_genome = state.population[best].copy()
            state.hof_fitness = float(fitness[best])
            state.hof_generation = g
            state.best_generation = g
        record["hof"] = state.hof_fitness
        state.logbook.append(record)
        state.fitness = fitness
        order = np.lexsort((np.arange(len(fitness)), -np.where(played, fitness, -np.inf)))
        state.elite = state.population[order[: ev["elite"]]].copy()
        rng = np.random.default_rng([state.seed, g, 2])
        state.population = next_generation(state.population, np.where(played, fitness, -np.inf), rate, self.toolbox, rng,
                                           ev["selection"], ev["mutate_parents"])
        state.generation = g + 1
        return record

    def run(self, resume: bool = False) -> RunState:
        """Evolve until done; returns the final state (also checkpointed)."""
        state = self.resume_state() if resume else self.initial_state()
        if not resume:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            (self.run_dir / "config.json").write_text(json.dumps(self.config.as_dict(), indent=2, default=str) + "\n")
        self.warm_up(state.population)
        for r in self.reporters:
            r.start(self, state)
        with make_runner(self.config.parallel["backend"], self.workers, self.config.parallel["scheduler"]) as runner:
            while not state.finished and not self.done(state):
                record = self.step(state, runner)
                for r in self.reporters:
                    r.generation(self, state, record)
        state.finished = True
        for r in self.reporters:
            r.end(self, state)
        return state

    def warm_up(self, population: np.ndarray) -> None:
        """Compile (or load) the kernels before the progress bar starts its clock: one
        table of one round, and breeding four members. (A real compile is announced on
        stderr by ``evolve._numba_cache``.)"""
        few = population[: min(4, len(population))]
        replace(self.tournament, games=1, rounds=1).evaluate(self.member_specs(few), 0, 0)
        next_generation(few.copy(), np.arange(len(few), dtype=float), 0.5, self.toolbox, np.random.default_rng(0))

    def logbook(self, state: RunState) -> tools.Logbook:
        """The run's statistics as a DEAP Logbook."""
        lb = tools.Logbook()
        lb.header = ["gen", "max", "mean", "std", "min", "mutation", "hof"]
        for rec in state.logbook:
            lb.record(**rec)
        return lb

    def validate_candidates(self, state: RunState) -> tuple[np.ndarray, list[float]]:
        """Hall of fame plus elite (plus the warm-start founder), each played on the same
        ``validation_deals`` deals against the tournament's opponents (or Random); returns
        the best and all scores."""
        from evolve.api import play
        from evolve.evolution.fitness import seat_fitness

        ev = self.config.evolution
        candidates = [state.hof_genome] + ([] if state.elite is None else list(state.elite))
        candidates += [] if state.founders is None else list(state.founders)
        opponent = (ev["opponents"] or ["random"])[0]
        scores = []
        for genome in candidates:
            spec = self.member_specs(genome[None, :])[0]
            seats = [spec, opponent, spec, opponent] if self.game.partnership else [spec, opponent, opponent, opponent]
            r = play(self.game, seats, ev["validation_deals"], state.seed + 1_000_003,
                     record=ev["fitness"] == "advanced", workers=self.workers)
            scores.append(float(seat_fitness(r, ev["fitness"])[:, 0].mean()))
        return candidates[int(np.argmax(scores))], scores

    def champion(self, state: RunState) -> Champion:
        """The champion with its metadata: the hall-of-fame member, or with ``champion =
        "validated"`` the best of hall of fame and elite on the validation deals."""
        genome = state.hof_genome
        selection = {"champion_selection": self.config.evolution["champion"]}
        if self.config.evolution["champion"] == "validated":
            genome, scores = self.validate_candidates(state)
            selection.update(validation_scores=scores, validation_deals=self.config.evolution["validation_deals"])
        meta = {**selection,
            "game": self.game.name, "game_options": self.game.options, "encoding": self.arch.encoding,
            "layers": [self.arch.n_in, self.arch.n_h1, self.arch.n_h2, self.arch.n_out],
            "fitness_kind": self.config.evolution["fitness"], "fitness": state.hof_fitness,
            "generation": state.hof_generation, "generations_run": state.generation,
            "seed": state.seed, "config_hash": state.config_hash, "experiment": self.config.name,
            "version": evolve.__version__, "bidder": self.config.network["bidder"],
        }
        if self.config.imitation["teacher"]:
            meta["imitation"] = {k: self.config.imitation[k] for k in ("teacher", "opponents", "deals", "epochs")}
        return Champion(self.arch, np.array(genome, copy=True), meta)

    def export_champion(self, state: RunState, champion: Champion | None = None) -> Path:
        return save_champion(self.run_dir, champion or self.champion(state))
