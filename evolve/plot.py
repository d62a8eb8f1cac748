"""``python -m evolve.plot RUN_DIR``: redraw the plots of any run from its logbook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.cli import Parser, run
from evolve.errors import UsageError


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m evolve.plot", description="Redraw the fitness curves of a run.")
    p.add_argument("run_dir", help="a run folder, e.g. populations/spades_cardbased")
    p.add_argument("--out", help="output folder (default plots/<run name>)")
    args = p.parse_args(argv)
    from evolve.evolution.checkpoint import load_checkpoint
    from evolve.evolution.plots import plot_fitness

    run_dir = Path(args.run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"run folder {str(run_dir)!r} not found")
    log_path = run_dir / "logbook.json"
    if log_path.is_file():
        try:
            logbook = json.loads(log_path.read_text())
        except ValueError as e:
            raise UsageError(f"{log_path}: invalid JSON ({e})") from None
    else:
        logbook = load_checkpoint(run_dir / "checkpoint.npz").logbook
    out = Path(args.out) if args.out else Path("plots") / run_dir.name
    path = plot_fitness(logbook, out / "fitness.png", run_dir.name)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.plot"))
