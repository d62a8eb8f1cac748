"""The bidders a seat string can name (``bidder=...``), the games each one decides, their
shared seat options and how they become a bidder kind and parameter vector."""

from __future__ import annotations

import numpy as np

from evolve.agents.bidding import euchre_tables as euchre_bidding
from evolve.agents.bidding import learnt as learnt_bidding
from evolve.agents.bidding import search as search_bidding
from evolve.agents.bidding.tables import BID_JASS_SURE, BID_JASS_TABLE, JASS_GRAF, JASS_SURE_PUSH_BELOW
from evolve.agents.kinds import BID_RANDOM, BID_SIMPLE
from evolve.games.options import Option
from evolve.games.registry import GAMES

BIDDERS = {"random": BID_RANDOM, "simple": BID_SIMPLE, **euchre_bidding.KINDS, "graf": BID_JASS_TABLE,
           "search": search_bidding.BID_SEARCH, "simple_rb": BID_JASS_SURE, "learnt": learnt_bidding.BID_LEARNT}
# bidders that decide only some games' calls (their tables mean nothing in the others); the
# search bidder searches whatever calls a game has, so it applies to every game with calls
BIDDER_GAMES = {"graf": ("jass",), **{name: ("euchre",) for name in euchre_bidding.KINDS},
                "search": tuple(name for name, info in GAMES.items() if info.may_call and info.searchable_calls),
                "simple_rb": ("jass",), "learnt": ("jass", "euchre")}

# ``bidder=default``: each game's rule-based bidder, the one its ``GameInfo.default_bidder``
# names (the strongest that costs about as little as the card play, docs/results/bidders.md)
DEFAULT = "default"
GAME_DEFAULT_BIDDERS = {name: info.default_bidder for name, info in GAMES.items()}


def resolve_bidder(name: str, game) -> str:
    """The bidder ``name`` stands for in ``game`` (a ``Game`` or its name): ``default`` is
    the game's own (``GAME_DEFAULT_BIDDERS``), any other name itself."""
    if name != DEFAULT:
        return name
    return GAME_DEFAULT_BIDDERS[getattr(game, "name", game)]


BIDDER_OPTIONS = {
    "bidder": Option(
        DEFAULT,
        "bids and trump calls: default (the game's rule: "
        + ", ".join(f"{name.capitalize()} {info.default_bidder}" for name, info in GAMES.items()
                    if info.may_call)
        + ") | random | simple (rule-based) | Euchre table bidders "
        "linear | group | profile | context | explore | logic | logic_profile (evolve.agents.bidding.euchre_tables) | "
        "graf (Jass: "
        "the Graf trump table) | search (a UCB1 search over the calls with "
        "determinized random playouts, evolve.agents.bidding.search; every game with calls) | "
        "simple_rb (Jass: the Jass paper's Simple "
        "RB, the mode with the most certain tricks, push below 3) | learnt (Jass, Euchre: a network trained on "
        "the search bidder's calls, evolve.agents.bidding.learnt; bid_net=PATH)",
        (DEFAULT, *BIDDERS),
    ),
    "bid_start": Option(
        "auto",
        "Euchre table bidders: start vector default (the Euchre bidding article's table; logic: its own boosts with "
        "simple's thresholds) | bulk (shipped measured tables) | auto (linear: default, others: bulk)",
        ("auto", "default", "bulk"),
    ),
    "bid_genome": Option("", "Euchre table bidders: .npz with the vector 'genome' or its named blocks"),
    "bid_net": Option("", "learnt bidder: trump.npz (with its .json) written by python -m evolve.trump for the "
                      "game (default: the shipped evolve/agents/data/trump_jass.npz or trump_euchre.npz)"),
    "order": Option(-1, "Euchre simple bidder: order-up threshold in expected tricks x100 (default 260)", kind=int),
    "call": Option(-1, "Euchre simple bidder: round-2 call threshold x100 (default 260)", kind=int),
    "alone": Option(-1, "Euchre simple bidder: go-alone threshold x100 (default 420)", kind=int),
    "bid_iterations": Option(
        search_bidding.DEFAULT_ITERATIONS,
        "search bidder: playouts per bid or trump call (one determinization each)",
        kind=int,
        minimum=1,
    ),
    "bid_c": Option(
        round(search_bidding.DEFAULT_C, 6),
        "search bidder: UCB1 exploration constant on rewards in [0, 1] (default sqrt 2)",
        kind=float,
        minimum=0.0,
    ),
}


def bidder_from(opts: dict, game) -> tuple[int, np.ndarray]:
    """Bidder kind and parameters from the shared bidder options, for ``game`` (a ``Game`` or
    its name; ``bidder=default`` is the game's own bidder)."""
    opts = {**opts, "bidder": resolve_bidder(opts["bidder"], game)}
    if opts["bidder"] == "graf":
        return BID_JASS_TABLE, JASS_GRAF.copy()
    if opts["bidder"] == "simple_rb":
        return BID_JASS_SURE, np.array([JASS_SURE_PUSH_BELOW])
    if opts["bidder"] == "learnt":
        name = getattr(game, "name", game)
        return learnt_bidding.BID_LEARNT, learnt_bidding.bidder_params(opts.get("bid_net") or "", name)
    if opts["bidder"] == "search":
        search_bidding.ensure_compiled()     # compile / load the callback here rather than mid-engine
        return search_bidding.BID_SEARCH, np.array([opts["bid_iterations"], opts["bid_c"]], np.float64)
    lo, hi = euchre_bidding.EUCHRE_TABLE_KINDS
    if lo <= BIDDERS[opts["bidder"]] < hi:
        return BIDDERS[opts["bidder"]], euchre_bidding.bidder_params(opts["bidder"], opts)
    thresholds = [opts["order"], opts["call"], opts["alone"]]
    defaults = [260, 260, 420]
    params = np.array([(t if t >= 0 else d) / 100.0 for t, d in zip(thresholds, defaults)])
    return BIDDERS[opts["bidder"]], params
