"""``python -m evolve.run EXPERIMENT.toml``: the main job.

Evolves (progress bar with best/mean fitness and the mutation rate), checkpoints and
writes the logbook under ``populations/<experiment>/``, draws the fitness curves under
``plots/<experiment>/``, exports the champion (``champion.npz`` + ``champion.json``) and
benchmarks it against the baselines, printing an ATpR table.

    python -m evolve.run experiments/spades_cardbased.toml
    python -m evolve.run experiments/spades_cardbased.toml --resume
    python -m evolve.run experiments/spades_cardbased.toml --resume --generations 400   # extend a run
    python -m evolve.run experiments/spades_cardbased.toml --overwrite                  # start anew
    python -m evolve.run experiments/euchre_cardbased.toml --generations 20 --workers 2 --out /tmp/run
    python -m evolve.run experiments/spades_cardbased.toml --set evolution.es.sigma=0.02 --out /tmp/sigma
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path

import numpy as np

from evolve.core.cli import Parser, add_scheduler, run
from evolve.core.errors import UsageError
from evolve.core.pool import SchedulerLost


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.run``."""
    p = Parser(prog="python -m evolve.run", description="Evolve agents as an experiment file says, then benchmark the "
                                                        "champion.")
    p.add_argument("config", help="experiment TOML file, e.g. experiments/spades_cardbased.toml")
    p.add_argument("--resume", action="store_true", help="continue a run from its checkpoint; with --generations or a "
                   "config whose generations/patience/max_generations changed, extend a finished run")
    p.add_argument("--overwrite", action="store_true", help="start anew in a run folder that holds a run (deletes it)")
    p.add_argument(
        "--generations", type=int, help="run exactly this many generations (overrides generations, patience stop)"
    )
    p.add_argument("--seed", type=int, help="override experiment.seed")
    p.add_argument("--workers", type=int, help="override parallel.workers: processes, 0 for every core (results do "
                   "not depend on it)")
    add_scheduler(p)
    p.add_argument("--out", help="run folder (default populations/<experiment>; plots go to <out>/plots)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-benchmark", action="store_true", help="skip the final benchmark")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="change one key of the experiment file, typed by its schema (repeatable), e.g. "
                        "evolution.generations=400 or network.hidden=[128,64]; the run folder records it, and "
                        "--resume without --set reuses what the run was made with")
    args = p.parse_args(argv)

    from evolve.evolution.runner import Evolution, RunInterrupted

    cfg = _configured(args, args.set)
    out = Path(args.out) if args.out else None
    evo = Evolution(cfg, run_dir=out, plot_dir=(out / "plots") if out else None, workers=args.workers,
                    progress=not args.no_progress)
    recorded = _recorded_sets(evo.run_dir) if args.resume and not args.set else []
    if recorded:
        cfg = _configured(args, recorded)
        evo = Evolution(cfg, run_dir=out, plot_dir=(out / "plots") if out else None, workers=args.workers,
                        progress=not args.no_progress)
    if args.resume and args.overwrite:
        raise UsageError("--resume and --overwrite exclude each other: continue the run, or start anew")
    signal.signal(signal.SIGTERM, _interrupt)
    again = ["python", "-m", "evolve.run", args.config, "--resume"]
    for flag, value in (("--out", args.out), ("--generations", args.generations), ("--seed", args.seed),
                        ("--scheduler", args.scheduler)):
        again += [flag, str(value)] if value is not None else []
    for text in cfg.sets:
        again += ["--set", text]
    try:
        state = evo.run(resume=args.resume, overwrite=args.overwrite)
    except RunInterrupted as stop:
        why = f"{stop.reason}: " if stop.reason else ""
        print(f"evolve.run: {why}interrupted after {stop.generation} generations, all of them checkpointed in "
              f"{stop.run_dir}. Continue with: {shlex.join(again)}", file=sys.stderr)
        return 130
    except SchedulerLost as lost:       # before the generations: what the steps finished is kept
        print(f"evolve.run: {lost}; the finished steps are kept in {evo.run_dir}. Continue with: "
              f"{shlex.join(again)}", file=sys.stderr)
        return 130
    champion = evo.champion(state)
    path = evo.export_champion(state, champion)
    print(f"{cfg.name}: {state.generation} generations, best fitness {state.hof_fitness:.4f} "
          f"(generation {state.hof_generation}); champion {path}; curves {evo.plot_dir / 'fitness.png'}")
    deals = cfg.benchmark["deals"]
    if deals and not args.no_benchmark:
        _benchmark(evo, state, champion, deals, not args.no_progress)
    return 0


def _configured(args, sets: list[str]):
    """The experiment file with its ``--set`` overrides, then the flags that override keys."""
    from evolve.evolution.config import load_config

    cfg = load_config(args.config, sets)
    if args.generations is not None:
        if args.generations <= 0:
            raise UsageError(f"--generations {args.generations} is invalid; expected a positive integer")
        cfg = cfg.with_overrides(evolution={"generations": args.generations, "max_generations": args.generations})
    if args.seed is not None:
        if args.seed < 0:
            raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
        cfg = cfg.with_overrides(experiment={"seed": args.seed})
    if args.scheduler:
        # the generations go to the same cluster as every other step of the run
        cfg = cfg.with_overrides(parallel={"backend": "dask", "scheduler": args.scheduler})
    if args.workers is not None and args.workers < 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a non-negative integer (0: every core)")
    return cfg


def _recorded_sets(run_dir: Path) -> list[str]:
    """The ``--set`` overrides a run folder's ``config.json`` says the run was made with."""
    path = run_dir / "config.json"
    try:
        recorded = json.loads(path.read_text()).get("set", []) if path.is_file() else []
    except (ValueError, AttributeError):
        return []          # the resume itself reports an unreadable config.json
    return [str(text) for text in recorded] if isinstance(recorded, list) else []


def _benchmark(evo, state, champion, deals: int, progress: bool) -> None:
    """The champion against the benchmark opponents and, after a warm start, against its
    founder on the same deals (what evolution added); tables on stdout, JSON in the run folder."""
    from evolve.agents.registry import parse_seat
    from evolve.core.progress import progress_line
    from evolve.evaluate.benchmark import against_founder, benchmark, render, render_against_founder
    from evolve.evaluate.figures import bidders, bidders_line

    cfg = evo.config
    opponents = cfg.benchmark["opponents"]
    lockstep = cfg.evolution["evaluation"] == "lockstep"
    spec = champion.spec("champion")
    founder = None
    if state.founders is not None and not np.array_equal(evo.natural(state.founders[:1])[0], champion.genome):
        founder = evo.member_specs(state.founders[:1])[0]
    steps = len(opponents) * (3 if founder is not None else 1)
    with progress_line(f"{cfg.name}: benchmarking the champion, {deals} deals per opponent", steps, "table",
                       enabled=progress) as bar:
        rows = []
        for opponent in opponents:
            rows += benchmark(spec, evo.game, [opponent], deals, cfg.experiment["seed"] + 1, evo.workers, lockstep,
                              evo.engine_families)
            bar.update(1)
        extra = []
        for opponent in opponents if founder is not None else []:
            extra += against_founder(spec, founder, evo.game, [opponent], deals, cfg.experiment["seed"] + 2,
                                     evo.workers, lockstep, evo.engine_families)
            bar.update(2)
    (evo.run_dir / "benchmark.json").write_text(json.dumps(rows, indent=2) + "\n")
    print(f"\nchampion vs baselines, {deals} deals each (95% confidence intervals):")
    named = bidders(evo.game, ["champion", *opponents], [spec, *(parse_seat(o, evo.game) for o in opponents)])
    if named:
        print(bidders_line(named, evo.game))
    print(render(rows, evo.game))
    if founder is not None:
        (evo.run_dir / "benchmark_founder.json").write_text(json.dumps(extra, indent=2) + "\n")
        print(f"\nwhat evolution added: champion vs its warm-start founder, {deals} paired deals each:")
        print(render_against_founder(extra, evo.game))


def _interrupt(signum, frame):
    """SIGTERM stops a run like Ctrl-C: checkpoint, then say how to continue."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.run"))
