"""The static description of a registered game: its cards, hand size, trump modes, options
and how its rules tables are built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from evolve.games.options import Option


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
    game_id: int = -1                   # rules[P_GAME]
    protocol: type | None = field(default=None, repr=False)   # the game's Protocol subclass

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
