"""``python -m evolve.arena``: play agents against each other and report the figures.

    python -m evolve.arena --game spades --seats random,random,random,random --deals 10000 --seed 1
    python -m evolve.arena --game euchre --seats random:bidder=simple,random:bidder=random --deals 5000 \\
        --option stick_the_dealer=true --json

Prints per-seat ATpR and per-side points and hand scores, each with a 95% confidence
interval, and games won to the target with a Wilson interval where the game has one.

Strategy matrix (every pairing on paired deals with the seats exchanged)::

    python -m evolve.arena matrix --game euchre --option setup=fixed_spades \
        --agents random,low,high,highlow,coophighlow --games 10001 [--seed S] [--workers W] \
        [--out DIR] [--json]

``--games`` counts games to the target where the game has one (Euchre 10, Sueca rubbers
to 4), otherwise deals. Writes matrix.md/.csv/.json/.png under plots/matrix/<game>/.

Every agent and game with its options and defaults::

    python -m evolve.arena agents
"""

from __future__ import annotations

import json
import sys

from evolve.core.cli import Parser, add_scheduler, parse_options, run
from evolve.core.errors import UsageError
from evolve.evaluate.summary import render, summarize
from evolve.runtime.play import play


def _option_line(name: str, option) -> str:
    values = " | ".join(map(str, option.choices)) if option.choices else option.kind.__name__
    default = str(option.default).lower() if isinstance(option.default, bool) else option.default
    return f"    {name}={default}  ({values}) {option.help}"


def listing() -> str:
    """Every registered agent and game with its options and their defaults."""
    import evolve.agents  # noqa: F401  (registers every agent)
    from evolve.agents.bidding.bidders import BIDDER_OPTIONS
    from evolve.agents.registry import AGENTS
    from evolve.games.registry import GAMES

    lines = ["agents (seat strings: name or name:key=value,key=value; every agent also takes the bidder options "
             "below)", ""]
    for name, agent in AGENTS.items():
        games = "" if set(GAMES) <= set(agent.games) else f"  [{', '.join(agent.games)} only]"
        lines.append(f"  {name}: {agent.describe}{games}")
        for key, option in agent.options.items():
            if key not in BIDDER_OPTIONS:
                lines.append(_option_line(key, option))
    lines.append("  champion:PATH[@bidder]: an evolved network from PATH (a champion.npz or its folder); "
                 "any bidder below, with its options after it (champion:PATH@search,bid_iterations=4000); "
                 "default: the game's default bidder")
    lines += ["", "bidder options (every agent):"]
    lines += [_option_line(key, option) for key, option in BIDDER_OPTIONS.items()]
    lines += ["", "games (--game NAME, options as --option key=value)", ""]
    for name, info in GAMES.items():
        lines.append(f"  {name}: {info.describe}" if info.describe else f"  {name}")
        lines += [_option_line(key, option) for key, option in info.options.items()]
    return "\n".join(lines)


def agents_main(argv: list[str] | None = None) -> int:
    """``python -m evolve.arena agents``: list every agent and game with its options."""
    p = Parser(prog="python -m evolve.arena agents",
               description="List every registered agent and every game with its options and defaults.")
    p.parse_args(argv)
    print(listing())
    return 0


def matrix_main(argv: list[str] | None = None) -> int:
    """``python -m evolve.arena matrix ...``: a strategy matrix with tables and a heatmap."""
    from pathlib import Path

    from evolve.agents.registry import split_seats
    from evolve.evaluate.matrix import (
        _jsonable,
        markdown_tables,
        strategy_matrix,
        write_matrix,
    )
    from evolve.games.registry import GAMES, make_game

    p = Parser(prog="python -m evolve.arena matrix",
               description="Every pairing of agents on paired deals with the seats exchanged.")
    p.add_argument("--game", required=True, help=" | ".join(GAMES))
    p.add_argument("--agents", required=True, help="comma-separated agents, e.g. "
                                                   "random,low,high,mc:shuffles=50,playouts=2")
    p.add_argument("--games", type=int, default=1000,
                   help="games to the target per pairing where the game has a target, else deals (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1)
    add_scheduler(p)
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="game option, repeatable")
    p.add_argument("--out", default=None, help="output folder (default plots/matrix/<game>)")
    p.add_argument("--json", action="store_true", help="print the matrix as one JSON object instead of markdown")
    args = p.parse_args(argv)
    if args.games <= 0:
        raise UsageError(f"--games {args.games} is invalid; expected a positive integer")
    if args.workers <= 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a positive integer")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    agents = split_seats(args.agents)
    if not agents or any(not a for a in agents):
        raise UsageError(f"--agents {args.agents!r} is invalid; expected comma-separated agent names")
    g = make_game(args.game, **parse_options(args.option))
    matrix = strategy_matrix(g, agents, args.games, args.seed, workers=args.workers, progress=True)
    out = Path(args.out) if args.out else Path("plots") / "matrix" / g.name
    paths = write_matrix(matrix, out)
    if args.json:
        print(json.dumps(_jsonable(matrix)))
    else:
        print(markdown_tables(matrix))
        print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    return 0


MAIN_EPILOG = """\
seats:
  four comma-separated seats (seats 0-3), one seat for all four, or two seats a,b
  that sit as a,b,a,b (side 0,2 against side 1,3). A seat is name[:key=value,...],
  e.g. random:bidder=simple or mc:shuffles=50,playouts=2, or champion:PATH for an
  evolved network.
agents: {agents}, champion:PATH
games: {games}

other commands:
  python -m evolve.arena matrix --game G --agents a,b,c [--games N] ...
      every pairing of agents on paired deals (python -m evolve.arena matrix --help)
  python -m evolve.arena agents
      every agent and game with its options and defaults

example:
  python -m evolve.arena --game euchre --seats random:bidder=simple,random:bidder=random --deals 20000 \\
      --option stick_the_dealer=true
"""


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.arena`` (``matrix`` or ``agents`` as first
    argument: the strategy matrix or the listing of agents and games)."""
    import argparse

    import evolve.agents  # noqa: F401  (registers every agent, for the help text)
    from evolve.agents.registry import AGENTS
    from evolve.games.registry import GAMES

    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "matrix":
        return matrix_main(list(argv[1:]))
    if argv and argv[0] == "agents":
        return agents_main(list(argv[1:]))
    p = Parser(prog="python -m evolve.arena",
               usage="%(prog)s [-h] --game GAME --seats SEATS [options]\n"
                     "       %(prog)s matrix --game GAME --agents A,B,... [options]\n"
                     "       %(prog)s agents",
               description="Play agents against each other and report ATpR, points and scores with 95% CIs.",
               epilog=MAIN_EPILOG.format(agents=", ".join(AGENTS), games=", ".join(GAMES)),
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help=" | ".join(GAMES))
    p.add_argument("--seats", required=True,
                   help="four comma-separated seats, one for all four, or two as a,b (sits a,b,a,b); "
                        "e.g. random,random:bidder=simple")
    p.add_argument("--deals", type=int, default=10000, help="number of deals (default 10000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dealer", type=int, default=0, help="dealer of the first deal; it then rotates")
    p.add_argument("--workers", type=int, default=1)
    add_scheduler(p)
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="game option, repeatable (python -m evolve.arena agents lists them)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.deals <= 0:
        raise UsageError(f"--deals {args.deals} is invalid; expected a positive integer")
    if args.workers <= 0:
        raise UsageError(f"--workers {args.workers} is invalid; expected a positive integer")
    result = play(
        args.game,
        args.seats,
        args.deals,
        args.seed,
        dealer=args.dealer,
        workers=args.workers,
        **parse_options(args.option),
    )
    summary = summarize(result)
    print(json.dumps(summary) if args.json else render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.arena"))
