"""Genomes: bounded float vectors with a name for each block of values.

Everything the harness evolves is a genome: a network's weights (blocks ``W1``, ``b1``,
...), Markov's ``tau`` and card values, a Euchre bidding table, Jass trump-choice weights,
a Spades bid predictor. A ``Layout`` says how a flat ``float64`` vector splits into named,
shaped blocks and what bounds each value has; operators, checkpoints and champion files
work on the flat vector, and an agent reads its blocks by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from evolve.core.errors import UsageError


@dataclass(frozen=True)
class Block:
    """A named, shaped block of a genome with its bounds (scalars or arrays of ``shape``)."""

    name: str
    shape: tuple[int, ...]
    low: float | np.ndarray = -1.0
    high: float | np.ndarray = 1.0
    describe: str = ""

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass(frozen=True)
class Layout:
    """The blocks of a genome, in the order they are stored in the flat vector."""

    blocks: tuple[Block, ...]

    def __post_init__(self):
        names = [b.name for b in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate block names in {names}")

    @cached_property
    def size(self) -> int:
        return sum(b.size for b in self.blocks)

    @cached_property
    def offsets(self) -> dict[str, tuple[int, int]]:
        """Block name -> (start, stop) in the flat vector."""
        out, pos = {}, 0
        for b in self.blocks:
            out[b.name] = (pos, pos + b.size)
            pos += b.size
        return out

    @cached_property
    def lower(self) -> np.ndarray:
        return np.concatenate([np.broadcast_to(np.asarray(b.low, np.float64), b.shape).ravel() for b in self.blocks])

    @cached_property
    def upper(self) -> np.ndarray:
        return np.concatenate([np.broadcast_to(np.asarray(b.high, np.float64), b.shape).ravel() for b in self.blocks])

    def split(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """The named blocks of a flat genome (views, shaped)."""
        genome = np.asarray(genome, np.float64)
        return {b.name: genome[slice(*self.offsets[b.name])].reshape(b.shape) for b in self.blocks}

    def join(self, blocks: dict[str, np.ndarray], where: str = "genome") -> np.ndarray:
        """The flat genome from named blocks (UsageError naming a missing or misshapen block)."""
        parts = []
        for b in self.blocks:
            if b.name not in blocks:
                raise UsageError(f"{where}: block {b.name!r} is missing; expected blocks {', '.join(self.names)}")
            v = np.asarray(blocks[b.name], np.float64)
            if v.size != b.size:
                raise UsageError(f"{where}: block {b.name!r} has {v.size} values; expected {b.size} (shape {b.shape})")
            parts.append(v.ravel())
        return np.concatenate(parts) if parts else np.zeros(0)

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.blocks]

    def clip(self, genome: np.ndarray) -> np.ndarray:
        """The genome clamped to its bounds (in place when it is a float64 array)."""
        return np.clip(genome, self.lower, self.upper, out=genome if isinstance(genome, np.ndarray) else None)

    def check(self, genome: np.ndarray, where: str = "genome") -> np.ndarray:
        """``genome`` as float64 if it has the right length and lies within the bounds."""
        g = np.asarray(genome, np.float64).ravel()
        if g.size != self.size:
            raise UsageError(f"{where}: has {g.size} values; expected {self.size} ({', '.join(self.names)})")
        bad = np.flatnonzero(~np.isfinite(g) | (g < self.lower - 1e-12) | (g > self.upper + 1e-12))
        if bad.size:
            i = int(bad[0])
            name = next(n for n, (a, z) in self.offsets.items() if a <= i < z)
            block = next(b for b in self.blocks if b.name == name)
            j = ", ".join(str(int(k)) for k in np.unravel_index(i - self.offsets[name][0], block.shape))
            raise UsageError(f"{where}: {name}[{j}] = {float(g[i])!r} is out of bounds; expected a value in "
                             f"[{self.lower[i]:g}, {self.upper[i]:g}]")
        return g

    def uniform(self, rng: np.random.Generator) -> np.ndarray:
        """A genome drawn uniformly within the bounds."""
        return rng.uniform(self.lower, self.upper)

    def describe(self) -> list[dict]:
        """JSON-ready summary of the blocks (champion.json, run folders)."""
        return [{"name": b.name, "shape": list(b.shape), "describe": b.describe} for b in self.blocks]
