"""``python -m evolve.studies CONFIG``: run a study (``evolve.evaluate.studies``) and print
its tables beside the source's figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.evaluate.matrix import _jsonable, heatmap
from evolve.evaluate.studies import load_study, run_study


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.studies``."""
    p = Parser(prog="python -m evolve.studies", description="Rerun a study setup and print its table.")
    p.add_argument("config", help="experiments/studies/<file>.toml")
    p.add_argument("--quick", action="store_true", help="scale the games/deals down (by the config's 'quick', default "
                                                        "100)")
    p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--champion", action="append", default=[], metavar="PATH", help="add champion:PATH (repeatable)")
    p.add_argument("--out", default=None, help="also write table.md and result.json (and a heatmap) here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if args.workers <= 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a positive integer")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    study = load_study(args.config)
    out = run_study(study, quick=args.quick, workers=args.workers, seed=args.seed, champions=args.champion)
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "table.md").write_text(out["table"] + "\n")
        (d / "result.json").write_text(json.dumps(_jsonable(out), indent=1))
        if "labels" in out["result"]:
            heatmap(out["result"], d / "heatmap.png")
    print(json.dumps(_jsonable(out)) if args.json else out["table"])
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.studies"))
