"""``python -m evolve.tables``: measure the Euchre bulk bidding tables
(``evolve.learn.bidding_tables``) and write them."""

from __future__ import annotations

import datetime
import sys

from evolve.agents.bidding import euchre_tables as eb
from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.learn.bidding_tables import BANDWIDTH, BIN, GRID, measure, write_tables

TABLE_GAMES = ("euchre",)     # the games whose bidders read measured tables (the Euchre bidding article)


def main(argv: list[str] | None = None) -> int:
    from evolve.core.version import __version__

    if argv is None:
        argv = sys.argv[1:]
    p = Parser(prog="python -m evolve.tables", description="Measure the Euchre bidding tables by bulk play.")
    p.add_argument("game", help="euchre (the only game with bidding tables)")
    p.add_argument("--play", default="cardcounting", help="card-play agent of all four seats (a seat string)")
    p.add_argument("--bidder", default="explore", help="bidder of all four seats during the measurement "
                   "(default explore: random with probability --epsilon, else the linear bidder on the Euchre bidding "
                   "article's table)")
    p.add_argument("--epsilon", type=float, default=0.5, help="explore bidder: probability of a random bid (0.5)")
    p.add_argument("--deals", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pseudo", type=float, default=20.0, help="smoothing pseudo-count (default 20)")
    p.add_argument("--out", default=str(eb.DATA), help="output .npz (a .json is written beside it)")
    args = p.parse_args(argv)
    if args.game not in TABLE_GAMES:
        raise UsageError(f"game {args.game!r} has no bidding tables; games with them: {', '.join(TABLE_GAMES)}")
    from evolve.agents.bidding.bidders import BIDDERS

    if args.bidder not in BIDDERS:
        raise UsageError(f"--bidder {args.bidder!r} is invalid; valid: {', '.join(BIDDERS)}")
    if not str(args.out).endswith(".npz"):
        raise UsageError(f"--out {args.out!r} must end in .npz")
    tables = measure(args.play, args.deals, args.seed, bidder=args.bidder, epsilon=args.epsilon,
                     pseudo=args.pseudo, progress=True)
    meta = {
        "command": "python -m evolve.tables " + " ".join(argv),
        "game": "euchre", "play": args.play, "bidder": args.bidder,
        "epsilon": args.epsilon if args.bidder == "explore" else None,
        "deals": args.deals, "seed": args.seed, "decisions": int(tables["decisions"]),
        "seconds": round(float(tables["seconds"]), 1),
        "smoothing": f"context table and profile outcomes: (sum + m * prior) / (n + m), m = {args.pseudo}; "
                     "context prior = the maker's rate of the card with the same 'alone'; outcome prior = "
                     "the mean of the same context and action",
        "profile_grid": list(GRID), "bandwidth": BANDWIDTH, "threshold_bin": BIN,
        "units": "rates in [0, 1]; x 32512 gives the Euchre bidding article's units",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "version": __version__,
        "layouts": {n: eb.LAYOUTS[n].describe() for n in ("linear", "group", "profile", "context", "logic",
                                                           "logic_profile")},
        "thresholds_linear": [round(float(x), 3) for x in tables["thresholds_linear"]],
        "thresholds_context": [round(float(x), 3) for x in tables["thresholds_context"]],
        "thresholds_logic": [round(float(x), 3) for x in tables["thresholds_logic"]],
    }
    paths = write_tables(args.out, tables, meta)
    print(f"wrote {paths[0]} and {paths[1]} ({args.deals} deals, {meta['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.tables"))
