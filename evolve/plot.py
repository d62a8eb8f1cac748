"""``python -m evolve.plot RUN_DIR``: redraw the plots of any run from its logbook.

The picture is the one the run draws (same title, from the run's ``config.json``), written
where the run writes it: ``RUN_DIR/plots`` for a run with ``--out``, else
``plots/<experiment>``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError

RUN_FOLDER = "expected a run folder written by python -m evolve.run"


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except ValueError as e:
        raise UsageError(f"{path}: invalid JSON ({e})") from None


def run_config(run_dir: Path) -> dict | None:
    """The run's config as saved in ``config.json`` (None for a run that saved none)."""
    path = run_dir / "config.json"
    if not path.is_file():
        return None
    config = _read_json(path)
    try:
        config["experiment"]["name"], config["experiment"]["game"]
        config["network"]["encoding"], config["evolution"]["fitness"]
    except (KeyError, TypeError) as e:
        raise UsageError(f"{path}: not a run's config (missing {e}); {RUN_FOLDER}") from None
    return config


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.plot``."""
    p = Parser(prog="python -m evolve.plot", description="Redraw the fitness curves of a run.")
    p.add_argument("run_dir", help="a run folder, e.g. populations/spades_cardbased")
    p.add_argument("--out", help="output folder (default: RUN_DIR/plots if present, else plots/<experiment>)")
    args = p.parse_args(argv)
    from evolve.evolution.checkpoint import load_checkpoint
    from evolve.evolution.reporters import plot_fitness, run_title, validation_label

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: no such folder; {RUN_FOLDER}")
    log_path, checkpoint = run_dir / "logbook.json", run_dir / "checkpoint.npz"
    if log_path.is_file():
        logbook = _read_json(log_path)
    elif checkpoint.is_file():
        logbook = load_checkpoint(checkpoint).logbook
    else:
        raise UsageError(f"{run_dir}: no logbook.json or checkpoint.npz; {RUN_FOLDER}")
    if not isinstance(logbook, list):
        raise UsageError(f"{log_path}: not a list of generation records; {RUN_FOLDER}")
    config = run_config(run_dir)
    name = config["experiment"]["name"] if config else run_dir.name
    if args.out:
        out = Path(args.out)
    else:
        out = run_dir / "plots" if (run_dir / "plots").is_dir() else Path("plots") / name
    try:
        path = plot_fitness(logbook, out / "fitness.png", run_title(config) if config else f"{name}: fitness",
                            validation_label(config) if config else "")
    except (KeyError, TypeError) as e:
        raise UsageError(f"{log_path}: a generation record lacks {e}; {RUN_FOLDER}") from None
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.plot"))
