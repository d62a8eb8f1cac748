"""Any agent as a jass-kit ``Agent`` (Schieber), servable with jass-kit's player service.

::

    from jass.arena.arena import Arena
    from jass.agents.agent_random_schieber import AgentRandomSchieber
    from evolve.interop.jasskit import JassKitAgent
    arena = Arena(nr_games_to_play=100, print_every_x_games=1000)
    arena.set_players(JassKitAgent("jass_rule_based:bidder=simple"), AgentRandomSchieber(),
                      JassKitAgent("jass_rule_based:bidder=simple"), AgentRandomSchieber())
    arena.play_all_games()
    arena.points_team_0.sum() / (arena.points_team_0.sum() + arena.points_team_1.sum())

``action_trump`` / ``action_play_card`` turn jass-kit's ``GameObservation`` (the player's
own hand and the public record: dealer, trump, push, tricks) into an
``evolve.Observation`` (``observation``) and ask ``evolve.agent`` (the very engine code).
``player_service({"name": "seat string", ...})`` is jass-kit's Flask player service with
those agents registered; jass-kit's blueprint serves ``/<name>/action_trump`` and
``/<name>/action_play_card``, so ``http://HOST:PORT/<name>`` is the player's URL for
jass-kit's ``AgentByNetwork`` or a tournament server.
``python -m evolve.interop.jasskit serve --player rule=jass_rule_based`` runs it.

Mapping (checked by the referee tests, ``tests/referees/jass_referees.py``): cards
``jk = suit * 9 + (8 - rank)`` (same suit order D H S C, jass-kit counts A..6), an
involution; players ``jk = (-seat) % 4`` (jass-kit plays N, W, S, E: p -> p - 1), which
keeps the teams {0, 2} and {1, 3}; trump modes are the same numbers, push is jass-kit's 10
(our 6). jass-kit's legality allows some undertrumps the standard rule forbids (its
quirk); our agents play by the standard rule, a subset, so every card is legal there.
Random stream: as ``evolve.agent(..., seed=)``; the streams run on from game to game.
"""

from __future__ import annotations

import sys

import numpy as np
from jass.agents.agent import Agent as _JassAgent
from jass.game.const import PUSH as JK_PUSH

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.games.jass.hooks import JASS_PUSH
from evolve.games.observation import Observation, seat_plays
from evolve.runtime.decide import Agent


def to_jk_card(card: int) -> int:
    """Our Jass card id <-> jass-kit's (an involution)."""
    card = int(card)
    return (card // 9) * 9 + 8 - card % 9


from_jk_card = to_jk_card


def to_jk_player(seat: int) -> int:
    """Our seat <-> jass-kit's player (an involution)."""
    return (-int(seat)) % 4


from_jk_player = to_jk_player


def observation(obs, game=None) -> Observation:
    """The ``evolve.Observation`` of a jass-kit ``GameObservation`` (its ``player`` is the
    one to act; only its hand and the public record are read)."""
    from evolve.games.registry import make_game

    g = game or make_game("jass")
    seat = from_jk_player(obs.player)
    dealer = from_jk_player(obs.dealer)
    fh = (dealer + 1) % 4
    hand = tuple(sorted(from_jk_card(c) for c in np.flatnonzero(np.asarray(obs.hand))))
    trump = int(obs.trump)
    if obs.forehand == 1:
        calls = ((fh, trump),)
    elif obs.forehand == 0:
        calls = ((fh, JASS_PUSH),) + (((fh + 2) % 4, trump),) if trump >= 0 else ((fh, JASS_PUSH),)
    else:
        calls = ()
    if trump < 0:
        return Observation(game="jass", seat=seat, dealer=dealer, hand=hand, phase="bid", calls=calls)
    cards = [from_jk_card(c) for row in np.asarray(obs.tricks) for c in row if c >= 0]
    tricks, trick = seat_plays(g, trump, fh, -1, cards)
    return Observation(game="jass", seat=seat, dealer=dealer, hand=hand, phase="play", trump=trump, calls=calls,
                       maker=(fh + 2) % 4 if obs.forehand == 0 else fh, tricks=tricks, trick=trick)


class JassKitAgent(_JassAgent):
    """``seat`` (a seat string or ``champion:PATH``) as a jass-kit agent; ``seed`` fixes
    its random stream (``evolve.agent``). Plays jass-kit's Schieber: no multipliers or
    match bonus (jass-kit counts the plain card points)."""

    def __init__(self, seat: str, seed: int = 0):
        self.agent = Agent(seat, "jass", seed=seed)

    def action_trump(self, obs) -> int:
        """A mode 0..5 or jass-kit's PUSH (10)."""
        mode = self.agent.bid(observation(obs, self.agent.game))
        return JK_PUSH if mode == JASS_PUSH else int(mode)

    def action_play_card(self, obs) -> int:
        """A jass-kit card id."""
        return to_jk_card(self.agent.play(observation(obs, self.agent.game)))


def player_service(players: dict[str, str], seed: int = 0):
    """jass-kit's player service (a Flask app) with ``{name: seat string}`` registered."""
    from jass.service.player_service_app import PlayerServiceApp

    app = PlayerServiceApp("evolve.interop.jasskit")
    for name, seat in players.items():
        app.add_player(name, JassKitAgent(seat, seed=seed))
    return app


def arena_match(seat: str, games: int, seed: int = 0) -> np.ndarray:
    """jass-kit's ``Arena``: ``seat`` as North and South against jass-kit's random agent
    (seeded; the arena deals with numpy's global generator, seeded here too); the share of
    the 157 points won by our side, one value per game."""
    from jass.agents.agent_random_schieber import AgentRandomSchieber
    from jass.arena.arena import Arena

    np.random.seed(seed)
    arena = Arena(nr_games_to_play=games, print_every_x_games=games + 1)
    rand = [AgentRandomSchieber(), AgentRandomSchieber()]
    for k, r in enumerate(rand):
        r._rng = np.random.default_rng([seed, k])       # jass-kit's agent seeds from the OS otherwise
    arena.set_players(JassKitAgent(seat, seed), rand[0], JassKitAgent(seat, seed), rand[1])
    arena.play_all_games()
    p0, p1 = arena.points_team_0, arena.points_team_1
    return p0 / (p0 + p1)


def engine_match(seat: str, deals: int, seed: int = 0) -> np.ndarray:
    """The same match in our engine (``seat`` at seats 0 and 2 against random cards and
    random trump calls, as jass-kit's random agent plays): the share of the points per
    deal. Our random bidder pushes with probability 1/7 (one of seven calls), jass-kit's
    with 1/2."""
    from evolve.runtime.play import play

    r = play("jass", [seat, "random:bidder=random"], deals, seed=seed)
    return r.points[:, 0] / r.points.sum(axis=1)


def compare(seat: str, games: int, deals: int, seed: int = 0) -> dict:
    """% of points in jass-kit's Arena and in our engine, with 95% CIs and the difference."""
    from evolve.core.stats import mean_ci, welch_difference

    a = 100 * arena_match(seat, games, seed)
    b = 100 * engine_match(seat, deals, seed)
    return {"jasskit": mean_ci(a).as_dict(), "engine": mean_ci(b).as_dict(), "difference": welch_difference(a, b),
            "games": games, "deals": deals}


def main(argv=None) -> int:
    """``python -m evolve.interop.jasskit serve --player NAME=SEAT [...] [--port P]``."""
    ap = Parser(prog="python -m evolve.interop.jasskit",
                                 description="Serve agents with jass-kit's player service.")
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve agents at http://HOST:PORT/NAME")
    s.add_argument("--player", action="append", required=True, metavar="NAME=SEAT",
                   help="a player name and its seat string, e.g. rule=jass_rule_based:bidder=graf (repeatable)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)")
    s.add_argument("--port", type=int, default=8888)
    s.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("compare", help="%% of points against jass-kit's random agent in its Arena and in our engine")
    c.add_argument("--seat", default="jass_rule_based:bidder=simple", help="seat string of our agent")
    c.add_argument("--games", type=int, default=2000, help="games in jass-kit's Arena (default 2000)")
    c.add_argument("--deals", type=int, default=200000, help="deals in our engine (default 200000)")
    c.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.command == "compare":
        return _compare_cli(args)
    try:
        players = {}
        for item in args.player:
            name, eq, seat = item.partition("=")
            if not eq or not name or not seat:
                raise UsageError(f"--player {item!r} is invalid; expected NAME=SEAT, e.g. rule=jass_rule_based")
            players[name] = seat
        if not 0 < args.port < 65536:
            raise UsageError(f"--port {args.port} is invalid; expected 1..65535")
        app = player_service(players, seed=args.seed)
    except (UsageError, ValueError) as e:
        raise UsageError(str(e)) from None
    for name in players:
        print(f"serving {players[name]!r} at http://{args.host}:{args.port}/{name}", flush=True)
    app.run(host=args.host, port=args.port)
    return 0


def _compare_cli(args) -> int:
    from evolve.interop import cross_engine_report

    try:
        if args.games < 2 or args.deals < 2:
            raise UsageError("--games and --deals must be at least 2")
        res = compare(args.seat, args.games, args.deals, args.seed)
    except (UsageError, ValueError) as e:
        raise UsageError(str(e)) from None
    print(cross_engine_report(f"jass: {args.seat} (N/S, seats 0 and 2) vs random, % of the points",
                              ("jass-kit Arena", res["jasskit"], f"{args.games} games, jass-kit's random agent"),
                              ("our engine", res["engine"], f"{args.deals} deals, our random agent"),
                              res["difference"], 2))
    return 0


if __name__ == "__main__":
    sys.exit(run(main, prog="python -m evolve.interop.jasskit"))
