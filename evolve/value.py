"""``python -m evolve.value``: train a value network (``evolve.learn.value``) on deals a
named agent plays in all four seats, and store it as ``value.npz`` + ``value.json``.

    python -m evolve.value --game jass --agent jass_rule_based --deals 4000 --seed 1 --out /tmp/value_jass
    python -m evolve.arena --game jass --seats maxvalue:net=/tmp/value_jass,random --deals 200

The seed fixes the result bit for bit. The held-out error (whole deals kept apart) is
printed next to the error of the constant prediction.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evolve.core.cli import Parser, parse_options, run
from evolve.core.errors import UsageError
from evolve.games.registry import GAMES


def training_parser(prog: str, description: str, hidden: int, out_help: str) -> Parser:
    """The options of a command that trains a network on deals an agent plays in all four
    seats (``evolve.value``, ``evolve.dnn``)."""
    p = Parser(prog=prog, description=description)
    p.add_argument("--game", required=True, help=" | ".join(GAMES))
    p.add_argument("--agent", default="random", help="seat string of the agent that plays the training deals (all "
                   "four seats; default random)")
    p.add_argument("--deals", type=int, default=4000, help="training deals (default 4000; 10%% held out)")
    p.add_argument("--hidden", type=int, default=hidden, help=f"hidden tanh units (default {hidden})")
    p.add_argument("--epochs", type=int, default=10, help="passes over the training positions (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option (repeatable)")
    p.add_argument("--out", required=True, help=out_help)
    return p


def check_training_args(args, least: dict | None = None) -> None:
    """One-line errors for the counts of ``training_parser`` (and ``least``: more of them)."""
    for name, low in {"deals": 10, "hidden": 1, "epochs": 1, **(least or {})}.items():
        if getattr(args, name) < low:
            raise UsageError(f"--{name} {getattr(args, name)} is invalid; expected an integer >= {low}")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise UsageError(f"--out {args.out} is a file; expected a folder for the network's .npz and .json")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.value``."""
    p = training_parser("python -m evolve.value", "Train a value network on deals played by an agent.", 64,
                        "folder for value.npz and value.json")
    args = p.parse_args(argv)
    check_training_args(args)
    import evolve.agents.search.register  # noqa: F401  (registers the search agents)
    from evolve.agents.registry import parse_seat
    from evolve.agents.search.value_net import save_value
    from evolve.games.registry import make_game
    from evolve.learn.value import train_value

    game = make_game(args.game, **parse_options(args.option))
    parse_seat(args.agent, game)
    net = train_value(game, args.agent, args.deals, args.seed, args.hidden, args.epochs)
    path = save_value(args.out, net)
    m = net.meta
    print(f"{path}: {game.name}, {m['positions']} positions of {args.deals} deals by {args.agent}; held-out mean "
          f"squared error {m['mse_test']:.5f} (constant prediction {m['mse_test_constant']:.5f})")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.value"))
