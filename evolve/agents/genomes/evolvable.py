"""What the harness evolves: a genome ``Layout`` plus the way a genome becomes a seat.

Two families share this interface, so the runner, operators, tournament, checkpoints,
champion files and benchmark serve both without a second loop:

- ``NetworkAgent``: a fixed-topology tanh network (the Spades thesis); blocks ``W1``, ``b1``, ...,
  every weight in [-1, 1]; bids come from a named bidder.
- ``ParametricAgent``: a registered parametric kind (``evolve.agents.genomes.parametric``) such as
  Markov's ``tau`` and card values or a bidding table; the genome fills either the card
  play or the bidding half of a seat, and the other half comes from a seat string (for
  example ``play = "cardcounting"`` for a bidder).

The runner keeps genomes in *unit* coordinates (every value in [-1, 1], mapped linearly
onto its bounds), so the study's operators apply to any genome unchanged; networks, whose
bounds are [-1, 1], are their own unit coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDER_OPTIONS, bidder_from, resolve_bidder
from evolve.agents.network.architecture import Architecture
from evolve.agents.registry import AgentSpec, parse_seat
from evolve.core.errors import UsageError
from evolve.core.layout import Block, Layout
from evolve.games.options import resolve_options


def to_unit(layout: Layout, genomes: np.ndarray) -> np.ndarray:
    """Genomes (rows) in unit coordinates; fixed values (low == high) map to 0."""
    genomes = np.asarray(genomes, np.float64)
    if layout_is_unit(layout):
        return genomes.copy()
    span = layout.upper - layout.lower
    return np.where(span > 0, 2.0 * (genomes - layout.lower) / np.where(span > 0, span, 1.0) - 1.0, 0.0)


def from_unit(layout: Layout, units: np.ndarray) -> np.ndarray:
    """Genomes in natural units from unit coordinates (clamped to the bounds)."""
    units = np.clip(np.asarray(units, np.float64), -1.0, 1.0)
    if layout_is_unit(layout):
        return units
    return layout.lower + (units + 1.0) * 0.5 * (layout.upper - layout.lower)


def layout_is_unit(layout: Layout) -> bool:
    """True when every bound is exactly [-1, 1] (networks)."""
    return bool(np.all(layout.lower == -1.0) and np.all(layout.upper == 1.0))


def bidder_spec(bidder: str, game) -> tuple[int, np.ndarray]:
    """Kind and parameters of a named bidder in ``game`` (a ``Game`` or its name), with its
    default options unless ``bidder`` names some after it: ``search,bid_iterations=4000``
    (so ``champion:PATH@search,bid_iterations=4000`` pairs a network with that search)."""
    name_given, *items = str(bidder).split(",")
    given = {"bidder": name_given.strip()}
    for item in filter(None, (i.strip() for i in items)):
        key, eq, value = item.partition("=")
        if not eq or key.strip() == "bidder" or key.strip() not in BIDDER_OPTIONS:
            raise UsageError(f"bidder {bidder!r}: {item!r} is not a bidder option key=value; bidder options: "
                             f"{', '.join(k for k in BIDDER_OPTIONS if k != 'bidder')}")
        given[key.strip()] = value.strip()
    if given["bidder"] not in BIDDER_OPTIONS["bidder"].choices:
        raise UsageError(f"bidder {given['bidder']!r} is invalid; valid values: "
                         f"{', '.join(BIDDER_OPTIONS['bidder'].choices)}")
    opts = resolve_options(BIDDER_OPTIONS, given, f"bidder {bidder!r}")
    name = resolve_bidder(opts["bidder"], game)
    if getattr(game, "name", game) not in BIDDER_GAMES.get(name, (getattr(game, "name", game),)):
        raise UsageError(f"bidder {given['bidder']!r} decides only {', '.join(BIDDER_GAMES[name])} calls, not "
                         f"{getattr(game, 'name', game)}")
    opts["bidder"] = name
    return bidder_from(opts, game)


@dataclass(frozen=True)
class NetworkAgent:
    """An evolved network (card play) with a named bidder."""

    arch: Architecture
    bidder: str = "default"

    kind = "network"

    @property
    def layout(self) -> Layout:
        return Layout(tuple(Block(name, shape) for name, shape in self.arch.layers
                            if self.arch.bias or not name.startswith("b")))

    def initial(self, rng: np.random.Generator, n: int, init: str = "uniform", noise: float = 0.0,
                start: np.ndarray | None = None) -> np.ndarray:
        """``n`` random networks, weights uniform in [-1, 1] (the study)."""
        return np.stack([self.arch.random_genome(rng) for _ in range(n)])

    def specs(self, genomes: np.ndarray, names: list[str] | None = None) -> list[AgentSpec]:
        """One seat per genome (natural units)."""
        packed = self.arch.pack_many(genomes)
        kind, params = bidder_spec(self.bidder, self.arch.game)
        names = names or [f"member{i}" for i in range(len(packed))]
        name, comma, options = self.bidder.partition(",")      # a bidder's options may follow its name
        label = resolve_bidder(name, self.arch.game) + comma + options
        return [AgentSpec(n, self.arch.kind, p, kind, params, self.arch.work_size, label)
                for n, p in zip(names, packed)]

    def blocks(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """The named arrays stored in ``champion.npz`` (zero biases when bias is off)."""
        return self.arch.unpack(genome)

    def title(self) -> str:
        return f"{self.arch.game} {self.arch.encoding}-based network"

    def to_json(self) -> dict:
        return {"architecture": self.arch.to_json()}

    def paired(self, other: str) -> "NetworkAgent":
        """The same network with another bidder (``champion:PATH@bidder``)."""
        bidder_spec(other, self.arch.game)
        return replace(self, bidder=other)


@dataclass(frozen=True)
class ParametricAgent:
    """A registered parametric kind for one game, paired with a seat for its other half."""

    definition: "ParametricKind"  # noqa: F821  (evolve.agents.genomes.parametric)
    game: object
    pair: str

    @property
    def kind(self) -> str:
        return self.definition.name

    @property
    def layout(self) -> Layout:
        return self.definition.layout(self.game)

    def start(self, init: str) -> np.ndarray:
        """The named start point (``default``, ``bulk``, ...) in natural units (an evolved
        champion as a start: ``evolve.agents.genomes.champion.start_genome``)."""
        starts = self.definition.starts
        if init not in starts:
            raise UsageError(f"agent {self.kind!r}: init {init!r} is invalid; valid values: "
                             f"{', '.join([*starts, 'uniform'])}")
        return self.layout.check(starts[init](self.game), f"{self.kind} start {init!r}")

    def initial(self, rng: np.random.Generator, n: int, init: str = "default", noise: float = 0.1,
                start: np.ndarray | None = None) -> np.ndarray:
        """``n`` genomes: uniform within the bounds, or the start point (``start`` if given,
        else the named start ``init``) followed by copies perturbed by N(0, ``noise``) in
        unit coordinates."""
        layout = self.layout
        if init == "uniform" and start is None:
            return np.stack([layout.uniform(rng) for _ in range(n)])
        natural = self.start(init) if start is None else start
        start = to_unit(layout, natural[None, :])
        units = np.clip(start + rng.normal(0.0, noise, (n, layout.size)), -1.0, 1.0)
        units[:, layout.lower == layout.upper] = 0.0
        genomes = from_unit(layout, units)
        genomes[0] = natural        # exactly the start point, not its round trip through unit coordinates
        return genomes

    def base_spec(self) -> AgentSpec:
        return parse_seat(self.pair, self.game)

    def specs(self, genomes: np.ndarray, names: list[str] | None = None) -> list[AgentSpec]:
        """One seat per genome (natural units): the pair's seat with this half replaced."""
        base = self.base_spec()
        genomes = np.asarray(genomes, np.float64).reshape(-1, self.layout.size)
        names = names or [f"member{i}" for i in range(len(genomes))]
        kind = self.definition.agent_kind(self.game)
        out = []
        for name, g in zip(names, genomes):
            params = self.definition.params(self.game, g)
            if self.definition.role == "play":
                out.append(replace(base, name=name, play_kind=kind, play_params=params, work_size=0))
            else:
                out.append(replace(base, name=name, bid_kind=kind, bid_params=params, bidder=f"evolved {self.kind}"))
        return out

    def blocks(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        return {k: np.array(v) for k, v in self.layout.split(genome).items()}

    def title(self) -> str:
        half = "card play" if self.definition.role == "play" else "bidding"
        return f"{self.game.name} {self.kind} ({half}; paired with {self.pair})"

    def to_json(self) -> dict:
        return {"agent": {"kind": self.kind, "role": self.definition.role, "pair": self.pair,
                          "blocks": self.layout.describe()}}

    def paired(self, other: str) -> "ParametricAgent":
        """The same genome with another seat for the other half (``champion:PATH@seat``)."""
        if self.definition.role == "play":
            bidder_spec(other, self.game)
            other = f"random:bidder={other}"
        parse_seat(other, self.game)
        return replace(self, pair=other)
