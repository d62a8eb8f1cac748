"""Evolved champions on disk: ``champion.npz`` (named arrays, no pickle) plus
``champion.json`` (what kind of agent it is, game, fitness, generation, seed, config hash,
package version; for a network its architecture, for a parametric agent its kind, the
half of the seat it fills and what it was paired with). ``load_champion(path)`` returns a
``Champion``; the seat string ``champion:PATH`` plays it in the arena, configs and
benchmarks, and ``champion:PATH@X`` pairs it with another bidder (networks, card-play
genomes) or another card-play seat (bidding genomes)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.agents.genomes.evolvable import NetworkAgent, ParametricAgent
from evolve.agents.network.architecture import Architecture, encoding_refusal
from evolve.agents.registry import AgentSpec, register_resolver
from evolve.core.errors import UsageError
from evolve.core.files import npz_json_paths, read_npz, write_npz_json

CHAMPION_FILE = "a champion.npz written by python -m evolve.run"


@dataclass(frozen=True)
class Champion:
    """An evolved agent: what it is (``agent``), its genome in natural units and metadata."""

    agent: NetworkAgent | ParametricAgent
    genome: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.agent, Architecture):     # Champion(arch, genome): a network with the simple bidder
            object.__setattr__(self, "agent", NetworkAgent(self.agent))

    @property
    def arch(self) -> Architecture | None:
        """The network's architecture (None for a parametric agent)."""
        return getattr(self.agent, "arch", None)

    @property
    def game(self) -> str:
        return self.arch.game if self.arch is not None else self.agent.game.name

    def spec(self, name: str = "champion", pair: str | None = None) -> AgentSpec:
        """The seat's ``AgentSpec``; ``pair`` replaces what it was evolved with (a bidder
        name, or for a bidding genome a card-play seat string)."""
        agent = self.agent.paired(pair) if pair else self.agent
        return agent.specs(self.genome[None, :], [name])[0]


def save_champion(directory: str | Path, champion: Champion) -> Path:
    """Write ``champion.npz`` and ``champion.json`` into ``directory`` atomically."""
    meta = {**champion.meta, **champion.agent.to_json()}
    return write_npz_json(directory, "champion", champion.agent.blocks(champion.genome), meta)


def load_champion(path: str | Path) -> Champion:
    """Load a champion from its ``.npz`` (or its folder); the ``.json`` must sit beside it.
    Anything wrong with either file is one ``UsageError`` naming the file."""
    path, meta_path = npz_json_paths(path, "champion", "champion")
    try:
        meta = json.loads(meta_path.read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (ValueError, UnicodeDecodeError) as e:
        raise UsageError(f"{meta_path}: invalid champion metadata ({e})") from None
    data = read_npz(path, CHAMPION_FILE)
    if "architecture" in meta:
        agent = _network(meta, meta_path)
    elif "agent" in meta:
        agent = _parametric(meta, meta_path)
    else:
        raise UsageError(f"{meta_path}: neither 'architecture' nor 'agent' is given; expected the champion.json "
                         "written beside a champion.npz")
    genome = _genome(agent, data, path)
    rest = {k: v for k, v in meta.items() if k not in ("architecture", "agent")}
    return Champion(agent, genome, rest)


def _network(meta: dict, meta_path: Path) -> NetworkAgent:
    try:
        a = meta["architecture"]
        refusal = encoding_refusal(a["encoding"])
    except (KeyError, TypeError) as e:
        raise UsageError(f"{meta_path}: invalid champion metadata ({e.__class__.__name__}: {e})") from None
    if refusal:         # an unknown encoding, or one that was removed (``REMOVED_ENCODINGS``)
        raise UsageError(f"{meta_path}: {refusal}")
    try:
        arch = Architecture(a["game"], a["encoding"], int(a["n_in"]), int(a["n_h1"]), int(a["n_h2"]), int(a["n_out"]),
                            bool(a["bias"]), bool(a.get("direct", False)), str(a.get("layer2", "float32")),
                            str(a.get("suits", "as_dealt")))
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{meta_path}: invalid champion metadata ({e.__class__.__name__}: {e})") from None
    return NetworkAgent(arch, meta.get("bidder", "simple"))


def _parametric(meta: dict, meta_path: Path) -> ParametricAgent:
    from evolve.agents.genomes.parametric import PARAMETRIC
    from evolve.games.registry import make_game

    try:
        a = meta["agent"]
        kind, pair, game_name = a["kind"], a["pair"], meta["game"]
        options = dict(meta.get("game_options") or {})
    except (KeyError, TypeError) as e:
        raise UsageError(f"{meta_path}: invalid champion metadata (missing {e})") from None
    definition = PARAMETRIC.get(kind)
    if definition is None:
        raise UsageError(f"{meta_path}: unknown parametric kind {kind!r}; known kinds: {', '.join(PARAMETRIC)}")
    try:
        game = make_game(game_name, **{k: v for k, v in options.items()})
    except UsageError as e:
        raise UsageError(f"{meta_path}: {e}") from None
    return ParametricAgent(definition, game, pair)


def _genome(agent, data: dict, path: Path) -> np.ndarray:
    if isinstance(agent, NetworkAgent):
        arch = agent.arch
        try:
            for name, shape in arch.layers:
                if name in data and data[name].shape != shape:
                    raise ValueError(f"{name} has shape {data[name].shape}, expected {shape}")
            parts = [np.asarray(data[name], np.float64).ravel() for name, _ in arch.layers
                     if arch.bias or not name.startswith("b")]
        except (ValueError, KeyError) as e:
            raise UsageError(f"{path}: invalid champion weights ({e.__class__.__name__}: {e})") from None
        return np.concatenate(parts)
    layout = agent.layout
    genome = layout.join(data, str(path))
    return layout.check(genome, str(path))


def start_genome(agent, init: str) -> np.ndarray | None:
    """The genome (natural units) of the champion that ``init`` names (``champion:PATH``),
    which must be of ``agent``'s kind, as the start of a run; None for any other ``init``."""
    if not init.startswith("champion:"):
        return None
    path = init.partition(":")[2]
    champ = load_champion(path)
    if getattr(champ.agent, "kind", None) != agent.kind:
        raise UsageError(f"champion {path!r} is a {champ.agent.kind} agent, not {agent.kind}; expected a "
                         f"champion of kind {agent.kind}")
    return champ.genome.copy()


def champion_seat(rest: str, game) -> AgentSpec:
    """The seat ``champion:PATH`` (or ``champion:PATH@X``) for ``game`` (UsageError if it
    was evolved for another game)."""
    path, _, pair = rest.partition("@")
    if not path:
        raise UsageError("seat 'champion:PATH' needs the path of a champion.npz (optionally PATH@bidder, or "
                         "PATH@seat for an evolved bidder)")
    champ = load_champion(path)
    if champ.game != game.name:
        raise UsageError(f"champion {path!r} plays {champ.game}, not {game.name}")
    if isinstance(champ.agent, ParametricAgent) and champ.agent.game.options != game.options:
        champ = Champion(ParametricAgent(champ.agent.definition, game, champ.agent.pair), champ.genome, champ.meta)
    return champ.spec(f"champion:{path}", pair or None)


register_resolver("champion", "champion:PATH", champion_seat)
