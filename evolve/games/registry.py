"""The game registry: every game is a module on the shared trick engine.

``make_game("euchre", setup="fixed_spades")`` validates options and returns a ``Game``
(static info, the option values, the flat Numba ``rules`` array and the game's protocol).
``MODULES`` is the one list of game modules: adding a game is its module (rules tables,
deal kernels ``deal`` / ``setup`` / ``finish``, protocol, ``INFO``) plus its entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from evolve.core.errors import UsageError
from evolve.games.euchre import game as euchre
from evolve.games.hearts import game as hearts
from evolve.games.info import GameInfo
from evolve.games.jass import game as jass
from evolve.games.options import resolve_options
from evolve.games.protocol import Protocol
from evolve.games.rules import P_PARTNERSHIP, P_TARGET
from evolve.games.spades import game as spades
from evolve.games.sueca import game as sueca

MODULES = (spades, euchre, sueca, jass, hearts)
GAMES: dict[str, GameInfo] = {m.INFO.name: m.INFO for m in MODULES}
KERNELS = {m.INFO.game_id: m for m in MODULES}   # rules[P_GAME] -> the module with its deal kernels


@dataclass(frozen=True)
class Game:
    """A game with its option values fixed."""

    info: GameInfo
    options: dict[str, Any]
    rules: np.ndarray

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def partnership(self) -> bool:
        """True when seats {0,2} and {1,3} form sides."""
        return bool(self.rules[P_PARTNERSHIP])

    @property
    def n_sides(self) -> int:
        """2 for partnership games, 4 for cut-throat Spades and Hearts."""
        return 2 if self.partnership else 4

    @property
    def target(self) -> int:
        """Game target (0: none; the running total covers the whole run)."""
        return int(self.rules[P_TARGET])

    @property
    def bag_limit(self) -> int:
        """Accumulated bags that cost a side 100 points (standard Spades bidding: 10; 0: no
        bag penalty)."""
        return self.protocol.bag_limit

    @cached_property
    def protocol(self) -> Protocol:
        """The game's protocol: its calls, who acts, when play starts, its figures
        (``evolve.games.protocol``)."""
        return self.info.protocol(self)

    def side_of(self, seat: int) -> int:
        """The side a seat scores for."""
        return seat % 2 if self.partnership else seat


def make_game(name: str | Game, **options: Any) -> Game:
    """Look up a game by name and validate its options (UsageError on bad input)."""
    if isinstance(name, Game):
        if options:
            return make_game(name.name, **{**name.options, **options})
        return name
    info = GAMES.get(str(name).lower())
    if info is None:
        raise UsageError(f"unknown game {name!r}; valid games: {', '.join(GAMES)}")
    values = resolve_options(info.options, options, info.name)
    try:
        rules = info.build(values)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return Game(info=info, options=values, rules=rules)


__all__ = ["GAMES", "Game", "GameInfo", "make_game"]
