"""Helpers shared by the game modules: dealing, option specs and game metadata."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numba import njit

from evolve.games.bits import bit


# Inlined (Numba IR) into each game's deal: a call would copy the whole ``DealRecord``
# (17 array descriptors, ~150 words) onto the stack once per deal.
@njit(cache=True, _nrt=False, inline="always")
def deal_hands(deck, hand_size, hands, rec, i):
    """Give seat s the cards deck[s*hand_size:(s+1)*hand_size]; record hands and the rest."""
    for s in range(4):
        m = np.uint64(0)
        for k in range(hand_size):
            c = deck[s * hand_size + k]
            m |= bit(c)
            rec.hands[i, s, k] = c
        hands[s] = m
    n_rest = rec.rest.shape[1]
    for k in range(n_rest):
        rec.rest[i, k] = deck[4 * hand_size + k]


@dataclass(frozen=True)
class Option:
    """A named game option: its default, its allowed values (``choices``) or type, and help."""

    default: Any
    help: str
    choices: tuple | None = None
    kind: type = str
    minimum: float | None = None

    def parse(self, name: str, value: Any) -> Any:
        """Convert ``value`` (a Python value or the string from ``--option k=v``) or raise
        ValueError with a one-line message naming the option and the valid values."""
        if self.kind is bool:
            if isinstance(value, bool):
                v = value
            elif isinstance(value, (int, np.integer)) and value in (0, 1):
                v = bool(value)
            elif isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                v = value.lower() in ("true", "1", "yes", "on")
            else:
                raise ValueError(f"option {name}={value!r} is invalid; expected true or false")
            return v
        if self.kind is float:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"option {name}={value!r} is invalid; expected a number") from None
            if not np.isfinite(v) or (self.minimum is not None and v < self.minimum):
                low = f" >= {self.minimum}" if self.minimum is not None else ""
                raise ValueError(f"option {name}={value!r} is invalid; expected a finite number{low}")
            return v
        if self.kind is int:
            try:
                v = int(value)
                if isinstance(value, float) and value != v:
                    raise ValueError
            except (TypeError, ValueError):
                raise ValueError(f"option {name}={value!r} is invalid; expected an integer") from None
            if self.minimum is not None and v < self.minimum:
                raise ValueError(f"option {name}={value!r} is invalid; expected an integer >= {self.minimum}")
            return v
        v = str(value)
        if self.choices is not None and v not in self.choices:
            raise ValueError(f"option {name}={value!r} is invalid; valid values: {', '.join(self.choices)}")
        return v


def resolve_options(spec: dict[str, Option], given: dict[str, Any], owner: str) -> dict[str, Any]:
    """Defaults of ``spec`` overridden by ``given``; raise UsageError naming the bad key
    or value and listing the valid ones."""
    from evolve.errors import UsageError

    values = {k: opt.default for k, opt in spec.items()}
    for key, value in given.items():
        opt = spec.get(key)
        if opt is None:
            raise UsageError(f"unknown option {key!r} for {owner}; valid options: {', '.join(spec) or 'none'}")
        try:
            values[key] = opt.parse(key, value)
        except ValueError as e:
            raise UsageError(f"{owner}: {e}") from None
    return values


@dataclass(frozen=True)
class GameInfo:
    """Static description of a registered game."""

    name: str
    n_cards: int
    hand_size: int
    n_modes: int
    suits: str
    faces: tuple[str, ...]
    options: dict[str, Option]
    build: Callable[[dict], Any] = field(repr=False)
    describe: str = ""
    mode_names: tuple[str, ...] = ()

    @property
    def n_rest(self) -> int:
        """Cards not dealt to the four hands."""
        return self.n_cards - 4 * self.hand_size

    @property
    def n_tricks(self) -> int:
        """Tricks per deal."""
        return self.hand_size

    def card_name(self, card: int) -> str:
        """Human-readable name such as 'AS' or '10H'."""
        n_ranks = len(self.faces)
        return f"{self.faces[card % n_ranks]}{self.suits[card // n_ranks]}"

    def card_id(self, name: str) -> int:
        """Inverse of ``card_name``."""
        n_ranks = len(self.faces)
        face, suit = name[:-1].upper(), name[-1].upper()
        if suit not in self.suits or face not in self.faces:
            raise ValueError(f"unknown card {name!r} for {self.name}")
        return self.suits.index(suit) * n_ranks + self.faces.index(face)
