"""``python -m evolve.studies CONFIG``: run a study (``evolve.evaluate.studies``) and print
its tables beside the source's figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.core.cli import Parser, add_scheduler, run
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
    add_scheduler(p)
    p.add_argument("--champion", action="append", default=[], metavar="PATH", help="add champion:PATH (repeatable)")
    p.add_argument("--out", default=None, help="also write table.md and result.json (and a heatmap) here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--games", default=None, metavar="GAME,...",
                   help="a levels study: play only the levels of these games (again); with --out the other levels "
                        "are kept from OUT/result.json when the study still names them as played there (without "
                        "--games, --out keeps every such level and plays the others)")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="change one key of the study file, typed by its schema (repeatable), e.g. study.seed=22 or "
                        "study.deals=2000")
    args = p.parse_args(argv)
    if args.workers <= 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a positive integer")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    study = load_study(args.config, args.set)
    games = previous = None
    if args.games is not None:
        games = list(dict.fromkeys(t.strip().lower() for t in args.games.split(",") if t.strip()))
        if not games:
            raise UsageError("--games is empty; expected comma-separated game names, e.g. --games sueca,jass")
        if args.out and study["layout"] == "levels":     # other layouts: run_study's one-line refusal
            previous = earlier_levels(Path(args.out) / "result.json")
    elif args.out and study["layout"] == "levels" and (Path(args.out) / "result.json").is_file():
        try:     # a whole run keeps what it can and plays the rest: an unreadable result keeps nothing
            previous = earlier_levels(Path(args.out) / "result.json")
        except UsageError:
            previous = None
    out = run_study(study, quick=args.quick, workers=args.workers, seed=args.seed, champions=args.champion,
                    games=games, previous=previous)
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "table.md").write_text(out["table"] + "\n")
        (d / "result.json").write_text(json.dumps(_jsonable(out), indent=1))
        if "labels" in out["result"]:
            heatmap(out["result"], d / "heatmap.png")
    print(json.dumps(_jsonable(out)) if args.json else out["table"])
    return 0


def earlier_levels(path: Path) -> list:
    """The levels of the levels-study result at ``path`` (``--games`` keeps the others from
    it); a UsageError naming the file when it is missing or not such a result."""
    if not path.is_file():
        raise UsageError(f"{path}: missing; --games with --out keeps the other levels from the result.json of an "
                         "earlier whole run of the study there (run it once without --games)")
    try:
        data = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: not JSON ({e}); expected the result.json of a levels study") from None
    levels = data.get("result", {}).get("levels") if isinstance(data, dict) and data.get("layout") == "levels" \
        and isinstance(data.get("result"), dict) else None
    if not isinstance(levels, list):
        raise UsageError(f"{path}: not the result of a levels study (layout \"levels\" with result.levels)")
    return levels


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.studies"))
