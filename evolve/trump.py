"""``python -m evolve.trump``: train the learnt trump chooser (``bidder=learnt``,
``evolve.learn.trump``) of Jass (``--game jass``, the default) or Euchre (``--game euchre``)
to imitate the search bidder, and store it as ``trump.npz`` + ``trump.json`` (or
``NAME.npz`` + ``NAME.json`` when ``--out`` ends in ``.npz``).

    python -m evolve.trump --deals 20000 --iterations 2000 --seed 1 --out /tmp/trump --workers 2
    python -m evolve.arena --game jass --seats random:bidder=learnt,bid_net=/tmp/trump,random --deals 2000
    python -m evolve.trump --game euchre --deals 20000 --iterations 2000 --seed 1 --out /tmp/trump_euchre

The seed fixes the examples and the network bit for bit, on any number of workers.
``--examples PATH.npz`` keeps the labelled examples (the expensive part) and reuses them
when the file was made with the same ``--deals``, ``--iterations`` and ``--seed``. The
held-out accuracy (agreement with the search's call) is printed beside the trivial
baseline's (each seat's most common call).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from evolve.core.cli import Parser, add_scheduler, run
from evolve.core.errors import UsageError


def _examples(args, rules) -> dict:
    """The labelled examples: read from ``--examples`` when it matches, else made (and
    stored there when given)."""
    from evolve.core.files import npz_json_paths, read_npz, write_npz_json
    from evolve.core.progress import progress_line
    from evolve.learn.trump import EUCHRE_KEYS, label_euchre, label_examples

    euchre = args.game == "euchre"
    want = {"deals": args.deals, "iterations": args.iterations, "seed": args.seed, "c": args.c}
    if euchre:
        want["game"] = "euchre"
    keys = EUCHRE_KEYS if euchre else ("hands", "second", "label", "visits")
    path = Path(args.examples) if args.examples else None
    if path is not None and path.is_file():
        npz, meta_path = npz_json_paths(path, path.stem, "trump examples")
        try:
            meta = json.loads(meta_path.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            raise UsageError(f"{meta_path}: invalid examples metadata ({e})") from None
        if {k: meta.get(k) for k in want} == want:
            data = read_npz(npz, "labelled trump examples written by python -m evolve.trump")
            missing = [k for k in keys if k not in data]
            n = len(np.unique(data["index"])) if euchre and not missing else len(data.get("label", ()))
            if missing or n != args.deals:
                raise UsageError(f"{npz}: array {(missing or ['label'])[0]!r} missing or of the wrong length")
            print(f"{npz}: reusing {args.deals} labelled examples", file=sys.stderr)
            return data
    with progress_line("trump: search labels", args.deals, "hands") as bar:
        label = label_euchre if euchre else label_examples
        data = label(rules, args.deals, args.seed, args.iterations, args.c, args.workers,
                     lambda done, total: bar.update(done - bar.n))
    if path is not None:
        write_npz_json(path.parent, path.stem if path.suffix == ".npz" else path.name, data, want)
    return data


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m evolve.trump``."""
    p = Parser(prog="python -m evolve.trump",
               description="Train the learnt Jass or Euchre trump chooser on the search bidder's calls.")
    p.add_argument("--game", default="jass", choices=("jass", "euchre"), help="the game (default jass)")
    p.add_argument("--deals", type=int, default=20000, help="labelled hands (default 20000; 10%% held out); Jass: "
                   "half forehands and half partners after a push; Euchre: bidding decisions, every position "
                   "of both rounds alike, plus the alone decision of each that makes trump")
    p.add_argument("--iterations", type=int, default=2000, help="the search bidder's playouts per call (default 2000)")
    p.add_argument("--c", type=float, default=None, help="the search's UCB1 constant (default: bid_c's, sqrt 2 to "
                   "six decimals)")
    p.add_argument("--hidden", type=int, default=128, help="hidden tanh units (default 128)")
    p.add_argument("--epochs", type=int, default=40, help="passes over the training examples (default 40)")
    p.add_argument("--targets", default="soft", choices=("soft", "hard"),
                   help="soft: the search's root visit shares (default); hard: its call")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="processes for the labels (default 1; any number gives "
                   "the same result)")
    add_scheduler(p)
    p.add_argument("--examples", default="", help="PATH.npz: keep the labelled examples there and reuse them")
    p.add_argument("--out", required=True, help="folder for trump.npz and trump.json, or PATH.npz")
    args = p.parse_args(argv)
    for name, least in (("deals", 20), ("iterations", 1), ("hidden", 1), ("epochs", 1), ("workers", 1)):
        if getattr(args, name) < least:
            raise UsageError(f"--{name} {getattr(args, name)} is invalid; expected an integer >= {least}")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed} is invalid; expected a non-negative integer")
    from evolve.agents.bidding.learnt import TrumpNet, save_trump
    from evolve.games.registry import make_game
    from evolve.learn.trump import BID_C, train

    if args.c is None:
        args.c = BID_C
    if not args.c >= 0.0:
        raise UsageError(f"--c {args.c} is invalid; expected a number >= 0")

    rules = make_game(args.game).rules
    data = _examples(args, rules)
    net = train(data, args.seed, args.hidden, args.epochs, targets=args.targets)
    made = {"command": "python -m evolve.trump " + " ".join(argv if argv is not None else sys.argv[1:]),
            "teacher": f"bidder=search,bid_iterations={args.iterations},bid_c={args.c}",
            "label_seed": args.seed}
    net = TrumpNet(net.w1, net.b1, net.w2, net.b2, {**made, **net.meta}, net.game)
    out = Path(args.out)
    path = save_trump(out.parent, net, out.stem) if out.suffix == ".npz" else save_trump(out, net)
    m = net.meta
    if args.game == "euchre":
        print(f"{path}: {m['examples']} Euchre bidding decisions labelled by the search bidder ({args.iterations} "
              f"playouts), {m['rows']} with the alone decisions; held-out accuracy {m['accuracy_test']:.3f} "
              f"(order up {m['accuracy_test_order']:.3f}, round 2 {m['accuracy_test_call']:.3f}, alone "
              f"{m['accuracy_test_alone']:.3f}; each seat's most common call {m['accuracy_test_baseline']:.3f}; "
              f"training {m['accuracy_train']:.3f})")
        return 0
    print(f"{path}: {m['examples']} hands labelled by the search bidder ({args.iterations} playouts); held-out "
          f"accuracy {m['accuracy_test']:.3f} (forehand {m['accuracy_test_forehand']:.3f}, partner after a push "
          f"{m['accuracy_test_second']:.3f}; each seat's most common call {m['accuracy_test_baseline']:.3f}; "
          f"training {m['accuracy_train']:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="evolve.trump"))
