"""The agent registry: names usable in arena seats, configs and benchmarks.

A seat string is ``name`` or ``name:key=value,key=value``, for example
``random:bidder=simple``. Every agent resolves to an ``AgentSpec``: plain numbers (kinds
and parameter vectors) that the Numba engine dispatches on.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDER_OPTIONS, BIDDERS, bidder_from, resolve_bidder
from evolve.agents.kinds import (
    BID_HI,
    BID_KIND,
    BID_LO,
    BID_RANDOM,
    PERFECT_KINDS,
    PLAY_HI,
    PLAY_KIND,
    PLAY_LO,
    PLAY_RANDOM,
    SEAT_INTS,
)
from evolve.core.errors import UsageError
from evolve.games.options import Option, resolve_options
from evolve.games.registry import GAMES


@dataclass(frozen=True)
class AgentSpec:
    """One seat's agent as data: card-play kind and parameters, bidder kind and parameters."""

    name: str
    play_kind: int
    play_params: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bid_kind: int = BID_RANDOM
    bid_params: np.ndarray = field(default_factory=lambda: np.zeros(0))
    work_size: int = 0  # float64 scratch the agent needs per decision (search agents)
    bidder: str = ""    # what bids and calls trump, for tables (``simple``, ``context``, ``evolved ...``)
    # a seat decided in Python (``evolve.agents.external``): a factory of the object whose
    # ``play(obs, rngs)`` / ``bid(obs, rngs)`` decide; ``evolve.play`` seats it on tables
    python: Callable[[], Any] | None = None


@dataclass(frozen=True)
class AgentDef:
    """A registered agent: how to build its spec from options, and where it applies."""

    name: str
    describe: str
    make: Callable[[dict, Any], AgentSpec]
    options: dict[str, Option]
    games: tuple[str, ...] = tuple(GAMES)      # default: every registered game


AGENTS: dict[str, AgentDef] = {}


# seats resolved by a module of their own: name -> (usage, resolve(rest of the seat string, game))
RESOLVERS: dict[str, tuple[str, Callable[[str, Any], "AgentSpec"]]] = {}


def register_resolver(name: str, usage: str, resolve: Callable[[str, Any], "AgentSpec"]) -> None:
    """Resolve seat strings ``name:...`` with ``resolve`` (``champion:PATH`` registers itself
    this way, so the registry needs no import of the modules above it)."""
    RESOLVERS[name] = (usage, resolve)


def register(agent: AgentDef) -> AgentDef:
    """Add an agent to the registry (names are unique)."""
    if agent.name in AGENTS:
        raise ValueError(f"agent {agent.name!r} registered twice")
    AGENTS[agent.name] = agent
    return agent


def _make_random(opts: dict, game) -> AgentSpec:
    kind, params = bidder_from(opts, game)
    return AgentSpec("random", PLAY_RANDOM, np.zeros(0), kind, params)


register(AgentDef("random", "a uniformly random legal card", _make_random, dict(BIDDER_OPTIONS)))


def parse_seat(text: str, game) -> AgentSpec:
    """Resolve a seat string such as ``random:bidder=simple`` for ``game``."""
    if isinstance(text, AgentSpec):
        return text
    name, _, rest = str(text).strip().partition(":")
    if name in RESOLVERS:
        return RESOLVERS[name][1](rest, game)
    agent = AGENTS.get(name)
    if agent is None:
        raise UsageError(f"unknown agent {name!r}; valid agents: "
                         f"{', '.join([*AGENTS, *(u for u, _ in RESOLVERS.values())])}")
    if game.name not in agent.games:
        raise UsageError(f"agent {name!r} does not play {game.name}; it plays: {', '.join(agent.games)}")
    given = {}
    for item in filter(None, (p.strip() for p in split_top(rest, text))):
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"agent option {item!r} in seat {text!r} is not key=value")
        value = value.strip()
        if value.startswith("(") and value.endswith(")"):
            value = value[1:-1]     # a nested seat string, e.g. rollout=(markov:tau=0.3)
        given[key] = value
    bidder = given.get("bidder", "")
    if game.name not in BIDDER_GAMES.get(bidder, (game.name,)):
        raise UsageError(f"seat {text!r}: bidder {bidder!r} decides only {', '.join(BIDDER_GAMES[bidder])} calls, "
                         f"not {game.name}")
    opts = resolve_options(agent.options, given, f"agent {name!r}")
    spec = agent.make(opts, game)
    if "bidder" in opts and not spec.bidder:       # an agent that calls trump itself labels its own
        spec = replace(spec, bidder=resolve_bidder(opts["bidder"], game))
    return replace(spec, name=str(text).strip())


_BIDDER_NAMES = {kind: name for name, kind in reversed(BIDDERS.items())}


def bidder_label(spec: AgentSpec) -> str:
    """What bids and calls trump for ``spec``: its recorded bidder, else the name of its bid kind."""
    return spec.bidder or _BIDDER_NAMES.get(int(spec.bid_kind), f"bid kind {spec.bid_kind}")


#: the note printed under any table that seats a perfect-information agent
PERFECT_NOTE = ("perfect_*: perfect-information upper bounds; they see every seat's hidden hand on purpose "
                "(not honest players)")


def sees_hidden_hands(spec: AgentSpec) -> bool:
    """Whether the engine hands this seat's agent every hand (the perfect-information
    family, ``evolve.agents.kinds.PERFECT_KINDS``; never an honest agent)."""
    return PERFECT_KINDS[0] <= spec.play_kind < PERFECT_KINDS[1]


def parse_seats(seats, game) -> list[AgentSpec]:
    """Four seats from a comma-separated string or a list; one entry fills all four seats
    and two entries ``a,b`` sit as ``a,b,a,b`` (side {0,2} against side {1,3})."""
    if isinstance(seats, str):
        seats = split_seats(seats)
    seats = list(seats)
    if len(seats) in (1, 2):
        seats = seats * (4 // len(seats))
    if len(seats) != 4:
        raise UsageError(f"expected 4 seats (or 1 for all, or 2 as a,b,a,b), got {len(seats)}: {seats}")
    return [parse_seat(s, game) for s in seats]


def split_top(text: str, where: str = "") -> list[str]:
    """Split ``text`` at the commas outside parentheses (a nested seat string such as
    ``rollout=(markov:tau=0.3,bidder=simple)`` stays whole)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                break
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise UsageError(f"unbalanced parentheses in {where or text!r}; a nested seat string goes in one pair of "
                         "parentheses, e.g. mc:rollout=(markov:tau=0.3)")
    parts.append(text[start:])
    return parts


def split_seats(text: str) -> list[str]:
    """Split ``a,b:x=1,y=2,c`` into seats: a comma followed by ``key=`` continues options
    (commas inside parentheses never split)."""
    parts: list[str] = []
    for piece in split_top(text):
        piece = piece.strip()
        if parts and "=" in piece.split(":")[0] and ":" in parts[-1]:
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return parts


def pack_tables(tables: np.ndarray, specs: list[AgentSpec], alloc=None) -> tuple[np.ndarray, np.ndarray]:
    """Seat arrays for many tables at once: ``tables[t, s]`` indexes ``specs``. Returns
    ``(seat_ints [T, SEAT_INTS], params)`` where every spec's parameters are stored once.
    ``alloc(n)``, if given, supplies the float64 array of n values that ``params`` is
    written into (e.g. shared memory that worker processes map)."""
    tables = np.asarray(tables, dtype=np.int64).reshape(-1, 4)
    chunks, play_at, bid_at, pos = [], [], [], 0
    for spec in specs:
        for values, where in ((spec.play_params, play_at), (spec.bid_params, bid_at)):
            v = np.asarray(values, np.float64).ravel()
            where.append((pos, pos + len(v)))
            chunks.append(v)
            pos += len(v)
    ints = np.zeros((tables.shape[0], SEAT_INTS), np.int64)
    play_at, bid_at = np.array(play_at, np.int64), np.array(bid_at, np.int64)
    ints[:, PLAY_KIND:PLAY_KIND + 4] = np.array([s.play_kind for s in specs], np.int64)[tables]
    ints[:, BID_KIND:BID_KIND + 4] = np.array([s.bid_kind for s in specs], np.int64)[tables]
    ints[:, PLAY_LO:PLAY_LO + 4], ints[:, PLAY_HI:PLAY_HI + 4] = play_at[tables, 0], play_at[tables, 1]
    ints[:, BID_LO:BID_LO + 4], ints[:, BID_HI:BID_HI + 4] = bid_at[tables, 0], bid_at[tables, 1]
    if alloc is None or not pos:
        params = np.concatenate(chunks) if pos else np.zeros(1)
    else:
        params = alloc(pos)
        np.concatenate(chunks, out=params)
    return ints, params


def pack_seats(specs: list[AgentSpec]) -> tuple[np.ndarray, np.ndarray]:
    """The engine's ``(seat_ints, seat_params)`` arrays for the four agents of one table."""
    ints, params = pack_tables(np.arange(4)[None, :], list(specs))
    return ints[0], params
