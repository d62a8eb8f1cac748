"""The static description of a registered game: its cards, hand size, trump modes, options
and how its rules tables are built."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from evolve.games.options import Option


@dataclass(frozen=True)
class GameAgent:
    """A card-play agent a game ships for itself (Hearts' ``hearts_rules``): its seat name,
    a description and its Numba card function ``card(kind, params, lo, hi, seat, rules,
    mode, hand, legal, pub, rngs) -> card`` (``evolve.agents.game`` registers it)."""

    name: str
    describe: str
    card: Callable = field(repr=False)


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
    # per mode, the position each suit takes when trump comes first (``trump_first_orders``);
    # empty: the game has one trump mode, so there is nothing to renumber
    trump_first: tuple[tuple[int, ...], ...] = ()
    # the bidder ``bidder=default`` stands for in this game (a name of
    # ``evolve.agents.bidding.bidders.BIDDERS``; games without calls ignore it)
    default_bidder: str = "simple"
    # the cards a deal's private decisions give away, which the deal record keeps in order
    # (``DealRecord.private``): the Euchre dealer's discard
    n_private: int = 0
    # the rule-based choice of a private card decision (Hearts' pass): a Numba function
    # ``(rules, hand, pub) -> card of hand`` that every bidder but ``random`` decides with
    private_rule: Callable | None = field(default=None, repr=False)
    # the card-play agents the game ships (``GameAgent``; seated by name in every command)
    agents: tuple[GameAgent, ...] = ()
    # whether the search bidder can search the game's calls (Hearts' pass: no)
    searchable_calls: bool = True
    # the name of the same game in OpenSpiel, for the engine benchmark's ratio ("" : none)
    openspiel: str = ""

    @property
    def may_call(self) -> bool:
        """Whether some option set gives the game calls (bids, trump): a protocol whose class
        says ``has_calls = False`` never has any; the others decide per option set."""
        return self.protocol is None or self.protocol.has_calls is not False

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


def trump_first_orders(n_modes: int, second_suit=None) -> tuple[tuple[int, ...], ...]:
    """Per mode, the new position of each of the four suits when the suits are renumbered
    with trump first: modes 0..3 make that suit trump (every multi-mode game here
    numbers them so), it goes to position 0, ``second_suit(trump)`` (when given: a suit
    the rules tie to trump, the Euchre left bower's) to 1, the others after it in their
    order; the modes without trump (Jass's obe-abe and une-ufe) keep the suits as dealt.
    Trick-taking rules treat the suits alike but for trump, so a position played with
    trump first is the same position whatever suit is trump."""
    orders = []
    for mode in range(n_modes):
        if mode >= 4:
            orders.append((0, 1, 2, 3))
            continue
        first = [mode] + ([second_suit(mode)] if second_suit is not None else [])
        sequence = first + [s for s in range(4) if s not in first]
        orders.append(tuple(sequence.index(s) for s in range(4)))
    return tuple(orders)
