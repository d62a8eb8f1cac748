"""``python -m evolve.human``: play at a table in the terminal (for SSH users).

    python -m evolve.human --game jass --seats me,champion:populations/jass_markov/champion.npz,random,random

``me`` marks your seat (one or more). The other seats are agent seat strings or bot URLs,
as in ``evolve.serve``. Your hand is shown with card names and your legal cards or calls
numbered; type the number (or the name, e.g. ``10D`` or ``push``). A wrong key asks
again; Ctrl-D or Ctrl-C leaves. ``--log FILE`` writes the table log (JSON, replayable
with ``evolve.runtime.session.replay``) at the end.
"""

from __future__ import annotations

import json

from evolve.agents.registry import split_seats
from evolve.core.cli import Parser, parse_options, run
from evolve.core.errors import UsageError
from evolve.games.registry import GAMES, make_game
from evolve.runtime.session import Table
from evolve.runtime.terminal import Terminal


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m evolve.human", description="Play at a table in the terminal.")
    p.add_argument("--game", required=True, help=" | ".join(GAMES))
    p.add_argument("--seats", required=True,
                   help="four seats: me (you), agent seat strings or bot URLs, e.g. me,jass_rule_based,random,random")
    p.add_argument("--seed", type=int, default=0, help="the deals (as evolve.play with this seed); default 0")
    p.add_argument("--deals", type=int, default=0, help="stop after this many deals (0: play to the game target)")
    p.add_argument("--dealer", type=int, default=0, help="the first deal's dealer, 0..3 (default 0)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option, e.g. stick_the_dealer=true")
    p.add_argument("--log", help="write the table log (JSON) to this file at the end")
    a = p.parse_args(argv)
    game = make_game(a.game, **parse_options(a.option))
    seats = split_seats(a.seats)
    if len(seats) != 4:
        raise UsageError(f"--seats needs 4 seats, got {len(seats)}: {seats}")
    if not any(s.strip().lower() in ("me", "human") for s in seats):
        raise UsageError("--seats has no 'me': mark your seat with me, e.g. --seats me,random,random,random")
    table = Table(game, seats, a.seed, deals=a.deals, dealer=a.dealer)
    term = Terminal(table)
    try:
        term.play()
    except EOFError:
        term.say("\nbye (end of input)")
    finally:
        if a.log:
            with open(a.log, "w") as f:
                json.dump(table.log(), f, indent=1)
            term.say(f"log written to {a.log}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run(main, prog="python -m evolve.human"))
