"""Evolved champions on disk: ``champion.npz`` (named weight arrays, no pickle) plus
``champion.json`` (game, encoding, layer sizes, fitness kind, generation, seed, config hash,
package version). ``load_champion(path)`` returns a ``Champion``; the seat string
``champion:PATH`` plays it in the arena, configs and benchmarks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evolve.agents.network import Architecture
from evolve.atomic import atomic_write
from evolve.agents.registry import BIDDERS, AgentSpec, bidder_from, BIDDER_OPTIONS
from evolve.errors import UsageError


@dataclass(frozen=True)
class Champion:
    """An evolved network: its architecture, genome and metadata."""

    arch: Architecture
    genome: np.ndarray
    meta: dict = field(default_factory=dict)

    def spec(self, name: str = "champion", bidder: str = "simple") -> AgentSpec:
        """The seat's ``AgentSpec`` (card play by the network, bids by ``bidder``)."""
        opts = {k: o.default for k, o in BIDDER_OPTIONS.items()}
        opts["bidder"] = bidder
        kind, params = bidder_from(opts)
        return AgentSpec(name, self.arch.kind, self.arch.pack(self.genome), kind, params, self.arch.work_size)


def save_champion(directory: str | Path, champion: Champion) -> Path:
    """Write ``champion.npz`` and ``champion.json`` into ``directory`` atomically."""
    directory = Path(directory)
    arrays = champion.arch.unpack(champion.genome)
    atomic_write(directory / "champion.npz", lambda f: np.savez(f, **arrays))
    meta = {**champion.meta, "architecture": champion.arch.to_json()}
    atomic_write(directory / "champion.json", lambda f: f.write((json.dumps(meta, indent=2) + "\n").encode()))
    return directory / "champion.npz"


def load_champion(path: str | Path) -> Champion:
    """Load a champion from its ``.npz`` (or its folder); the ``.json`` must sit beside it."""
    path = Path(path)
    if path.is_dir():
        path = path / "champion.npz"
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise UsageError(f"champion file {str(path)!r} not found")
    if not meta_path.is_file():
        raise UsageError(f"champion metadata {str(meta_path)!r} not found (expected beside {path.name})")
    try:
        meta = json.loads(meta_path.read_text())
        a = meta["architecture"]
        arch = Architecture(a["game"], a["encoding"], int(a["n_in"]), int(a["n_h1"]), int(a["n_h2"]), int(a["n_out"]), bool(a["bias"]))
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{meta_path}: invalid champion metadata ({e})") from None
    try:
        with np.load(path, allow_pickle=False) as data:
            parts = [np.asarray(data[name], np.float64).ravel() for name, _ in arch.layers if arch.bias or not name.startswith("b")]
            for (name, shape) in arch.layers:
                if name in data and data[name].shape != shape:
                    raise ValueError(f"{name} has shape {data[name].shape}, expected {shape}")
    except (ValueError, KeyError, OSError) as e:
        raise UsageError(f"{path}: invalid champion weights ({e})") from None
    genome = np.concatenate(parts)
    return Champion(arch, genome, {k: v for k, v in meta.items() if k != "architecture"})


def champion_seat(path: str, game, bidder: str = "simple") -> AgentSpec:
    """The seat ``champion:PATH`` for ``game`` (UsageError if it was evolved for another)."""
    champ = load_champion(path)
    if champ.arch.game != game.name:
        raise UsageError(f"champion {path!r} plays {champ.arch.game}, not {game.name}")
    if bidder not in BIDDERS:
        raise UsageError(f"bidder {bidder!r} is invalid; valid values: {', '.join(BIDDERS)}")
    return champ.spec(f"champion:{path}", bidder)

