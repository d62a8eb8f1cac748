"""Parametric agents: heuristics whose behaviour is a bounded vector (``docs/how-to/evolve-parametric-agents.md``).

A ``ParametricKind`` names what a genome parametrises, for which games, which half of a
seat it fills (``play`` or ``bid``), its ``Layout`` (named blocks with bounds) and its
start points (``default``: the hand-set or exact numbers the registered agent uses;
others such as ``bulk`` where a kind ships measured tables). ``params`` turns a genome
into the engine's parameter vector. Configs name a kind in ``[agent] kind = ...``, and
``evolve.agents.genomes.evolvable.ParametricAgent`` makes seats of it.

Adding a kind: write its layout and start points, register it here (or from the module
that defines its kernels) with ``register_parametric``; the conformance test plays every
registered kind from each of its start points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evolve.agents.bidding import euchre_tables as euchre_bidding
from evolve.agents.bidding.tables import (
    BID_JASS_TABLE,
    BID_SPADES_TABLE,
    JASS_GRAF,
    JASS_LAYOUT,
    JASS_RANKED,
    SPADES_LAYOUT,
    SPADES_RULE_OF_THUMB,
)
from evolve.agents.rulebased.markov import markov_values
from evolve.agents.rulebased.play import KIND_HYBRID, KIND_MARKOV, RULE_CORRECT
from evolve.core.layout import Block, Layout
from evolve.games.registry import GAMES

ALL_GAMES = tuple(GAMES)     # every registered game


@dataclass(frozen=True)
class ParametricKind:
    """A registered parametric agent kind."""

    name: str
    describe: str
    role: str                                   # "play" or "bid"
    agent_kind: Callable[[object], int]         # the engine's play or bid kind for a game
    layout: Callable[[object], Layout]
    starts: dict[str, Callable[[object], np.ndarray]]
    games: tuple[str, ...] = ALL_GAMES
    params: Callable[[object, np.ndarray], np.ndarray] = field(
        default=lambda game, genome: np.asarray(genome, np.float64)
    )


PARAMETRIC: dict[str, ParametricKind] = {}


def register_parametric(kind: ParametricKind) -> ParametricKind:
    """Add a parametric kind (names are unique)."""
    if kind.role not in ("play", "bid"):
        raise ValueError(f"parametric kind {kind.name!r}: role must be play or bid")
    if kind.name in PARAMETRIC:
        raise ValueError(f"parametric kind {kind.name!r} registered twice")
    PARAMETRIC[kind.name] = kind
    return kind


# ------------------------------------------------------------------ Markov / Hybrid

def _markov_layout(game) -> Layout:
    info = game.info
    return Layout((
        Block("tau", (1,), 0.0, 2.0, "play High (Markov) / CoopHighLow (Hybrid) when the hand's share of the "
                                     "unseen value is at least tau"),
        Block("rule", (1,), float(RULE_CORRECT), float(RULE_CORRECT), "the 'can win' test (fixed: correct)"),
        Block("values", (info.n_modes, info.n_cards), 0.0, 1.0, "card value per trump mode (the exact Markov "
                                                               "counts divided by the largest)"),
    ))


def _markov_default(game) -> np.ndarray:
    """tau 0.25 and the exact counts of the registered agents, scaled to at most 1 (the
    ratio the agents compare with tau does not change with the scale)."""
    values = markov_values(game.rules, "count").astype(np.float64)
    return np.concatenate([[0.25, float(RULE_CORRECT)], (values / values.max()).ravel()])


for _name, _kind, _what in (("markov", KIND_MARKOV, "Markov(tau): High when the hand's share of the unseen card "
                                                    "value is >= tau, else Low"),
                            ("hybrid", KIND_HYBRID, "Hybrid(tau): CoopHighLow when the Markov ratio is >= tau, "
                                                    "else CardCounting")):
    register_parametric(ParametricKind(
        _name, f"{_what}; the genome is tau and the card values per trump mode", "play",
        lambda game, k=_kind: k, _markov_layout, {"default": _markov_default}))


# ------------------------------------------------------------------ Euchre table bidders

for _name in ("linear", "group", "profile", "context", "logic", "logic_profile"):
    register_parametric(ParametricKind(
        f"euchre_{_name}_bidder", f"Euchre {_name} table bidder (evolve.agents.bidding.euchre_tables): "
        + euchre_bidding.DESCRIBE[_name], "bid", lambda game, n=_name: euchre_bidding.KINDS[n],
        lambda game, n=_name: euchre_bidding.LAYOUTS[n],
        {start: (lambda game, n=_name, w=start: euchre_bidding.start_vector(n, w))
         for start in euchre_bidding.start_names(_name)}, games=("euchre",)))


# ------------------------------------------------------------------ Jass trump choice, Spades bids

register_parametric(ParametricKind(
    "jass_trump", "Jass trump choice: per-card weights per mode, length bonus and exponent, push score and "
    "the partner's offsets after a push (starts: default = ranked, graf = the Graf table)", "bid",
    lambda game: BID_JASS_TABLE, lambda game: JASS_LAYOUT,
    {"default": lambda game: JASS_RANKED.copy(), "graf": lambda game: JASS_GRAF.copy()}, games=("jass",)))

register_parametric(ParametricKind(
    "spades_bid_predictor", "Spades bid predictor: tricks from per-suit length and honours, spade length and "
    "top spades; nil logic under standard bidding (start default = the rule of thumb)", "bid",
    lambda game: BID_SPADES_TABLE, lambda game: SPADES_LAYOUT,
    {"default": lambda game: SPADES_RULE_OF_THUMB.copy()}, games=("spades",)))
