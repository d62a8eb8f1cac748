"""``python -m evolve.dnn``: train the three-head network (``evolve.learn.dnn``: policy,
value and card-distribution heads, the card play network of the Jass paper's Section 6.3,
trained on deals a named agent plays instead of human games) and store it as ``dnn.npz`` +
``dnn.json``.

    python -m evolve.dnn --game jass --agent "dmcts:determinizations=5,iterations=100,bidder=simple" \\
        --deals 8000 --seed 1 --workers 2 --out /tmp/dnn_jass
    python -m evolve.arena matrix --game jass --agents "pdmcts:net=/tmp/dnn_jass,dmcts" --games 100
    python -m evolve.arena --game jass --seats pdmcts,dmcts --deals 200     # the shipped dnn_jass

Its heads serve ``pdmcts`` / ``pismcts`` (determinizations drawn through the card
distribution), ``maxvalue:net=`` (the value head) and ``dnn`` (the policy head). The seed
fixes the result bit for bit, whatever ``--workers``. The held-out scores (whole deals kept
apart) are printed next to their baselines.
"""

from __future__ import annotations

import sys

from evolve.core.cli import add_scheduler, parse_options, run
from evolve.value import check_training_args, training_parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.dnn``."""
    p = training_parser("python -m evolve.dnn", "Train a policy / value / card-distribution network on deals "
                        "played by an agent.", 128, "folder for dnn.npz and dnn.json")
    p.add_argument("--workers", type=int, default=1, help="processes that play the training deals (default 1)")
    add_scheduler(p)
    args = p.parse_args(argv)
    check_training_args(args, {"workers": 1})
    import evolve.agents.search.register  # noqa: F401  (registers the search agents)
    from evolve.agents.registry import parse_seat
    from evolve.agents.search.value_net import save_value
    from evolve.games.registry import make_game
    from evolve.learn.dnn import train_dnn

    game = make_game(args.game, **parse_options(args.option))
    parse_seat(args.agent, game)
    net = train_dnn(game, args.agent, args.deals, args.seed, args.hidden, args.epochs, workers=args.workers,
                    progress=True)
    path = save_value(args.out, net)
    m = net.meta
    s = m["held_out"]
    print(f"{path}: {game.name}, {m['positions']} positions of {args.deals} deals by {args.agent}")
    print(f"  held out: card places {100 * s['card_accuracy']:.1f}% right (uniform guess "
          f"{100 * m['card_accuracy_uniform']:.1f}%), cross entropy {s['card_cross_entropy']:.4f}; policy "
          f"{100 * s['policy_accuracy']:.1f}% of the agent's cards; value mean squared error {s['value_mse']:.5f} "
          f"(constant prediction {m['value_mse_constant']:.5f})")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.dnn"))
