"""Registry entries of the rule-based card-play baselines (``evolve.agents.rulebased``; ``docs/reference/agents.md``).

Seat strings: ``highlow:rule=study``, ``markov:tau=0.3``, ``hybrid2:tau=0.2,bidder=random``.
Every baseline takes the shared bidder options; its default bidder is ``simple`` (the
rule-based bidder: Spades hand estimate, Euchre bidding article's table and thresholds, the Jass "ranked"
trump choice), so every game can be played through every phase with sensible calls.
"""

from __future__ import annotations

import math

import numpy as np

from evolve.agents.bidding.bidders import BIDDER_OPTIONS, bidder_from
from evolve.agents.registry import AgentDef, AgentSpec, register
from evolve.agents.rulebased.markov import markov_values
from evolve.agents.rulebased.play import (
    KIND_ALWAYS_HIGH,
    KIND_CARDCOUNTING,
    KIND_COOPHIGHLOW,
    KIND_HIGH,
    KIND_HIGHLOW,
    KIND_HYBRID,
    KIND_HYBRID2,
    KIND_HYBRID2_COMPLETIONS,
    KIND_JASS,
    KIND_LOW,
    KIND_MARKOV,
    KIND_MARKOV2,
    KIND_MARKOV2_COMPLETIONS,
    KIND_OBLIGATED_TRUMP,
    KIND_OBLIGATED_TRUMP_LEAD,
    KIND_THIRD_HAND_HIGH,
    RULE_CORRECT,
    RULE_STUDY,
)
from evolve.core.errors import UsageError
from evolve.games.options import Option
from evolve.games.registry import GAMES

ALL_GAMES = tuple(GAMES)     # every registered game
RULES = ("correct", "study")
VALUES = ("count", "strength")
LEADS = ("markov", "completions")

_BIDDER = dict(BIDDER_OPTIONS)
_RULE = {"rule": Option("correct", "'can win' test: correct (trick keys) | study (the Euchre study's fixed "
                        "strength scores, so an off-suit ace 'beats' a led nine)", RULES)}
_TAU = {"tau": Option("0.25", "threshold on the Markov ratio (a number >= 0)")}
_VALUES = {"values": Option("count", "Markov card values: count (ordered 4-card tricks the card wins, exact) | "
                            "strength (the game's strength score)", VALUES)}
_LEAD = {"lead": Option("markov", "leading a trick: markov (Markov's ratio on its card values, as the Euchre paper "
                        "states) | completions (completions of the lead from the unseen cards)", LEADS)}
# lead=completions: the kind of Markov2 / Hybrid2 that leads by completions
_COMPLETIONS_KIND = {KIND_MARKOV2: KIND_MARKOV2_COMPLETIONS, KIND_HYBRID2: KIND_HYBRID2_COMPLETIONS}


def _tau(opts: dict, name: str) -> float:
    try:
        tau = float(opts["tau"])
    except (TypeError, ValueError):
        raise UsageError(f"agent {name!r}: option tau={opts['tau']!r} is invalid; expected a number >= 0") from None
    if not math.isfinite(tau) or tau < 0:
        raise UsageError(f"agent {name!r}: option tau={opts['tau']!r} is invalid; expected a number >= 0")
    return tau


def rule_params(game, tau: float = 0.25, rule: str = "correct", values: str | np.ndarray | None = None) -> np.ndarray:
    """The parameter vector ``[tau, rule, values...]`` of a rule-based agent. ``values`` is
    a Markov value kind (``count`` | ``strength``) or an explicit ``[mode, card]`` array
    (for example evolved card values); ``None`` for agents without Markov values."""
    head = [float(tau), float(RULE_STUDY if rule == "study" else RULE_CORRECT)]
    if values is None:
        return np.array(head, np.float64)
    if isinstance(values, str):
        table = markov_values(game.rules, values)
    else:
        table = np.asarray(values, np.float64)
        expected = (game.info.n_modes, game.info.n_cards)
        if table.shape != expected:
            raise UsageError(f"Markov values must have shape {expected} for {game.name}, got {table.shape}")
    return np.concatenate([head, np.asarray(table, np.float64).ravel()])


def _maker(name: str, kind: int, *, tau: bool = False, rule: bool = False, values: bool = False,
           lead: bool = False):
    def make(opts: dict, game) -> AgentSpec:
        bid_kind, bid_params = bidder_from(opts, game)
        play_kind = _COMPLETIONS_KIND[kind] if lead and opts["lead"] == "completions" else kind
        params = rule_params(
            game,
            _tau(opts, name) if tau else 0.25,
            opts["rule"] if rule else "correct",
            opts["values"] if values else None,
        )
        return AgentSpec(name, play_kind, params, bid_kind, bid_params)

    return make


def _define(name: str, kind: int, describe: str, games=ALL_GAMES, *, tau=False, rule=False, values=False,
            lead=False):
    options = dict(_BIDDER)
    if tau:
        options.update(_TAU)
    if values:
        options.update(_VALUES)
    if rule:
        options.update(_RULE)
    if lead:
        options.update(_LEAD)
    return register(AgentDef(name, describe, _maker(name, kind, tau=tau, rule=rule, values=values, lead=lead),
                             options, games))


_NO_PARTNER = " Cut-throat Spades has no partner: there it plays as HighLow."

_define("high", KIND_HIGH, "the strongest legal card (trumps above non-trumps; Euchre: the study's scores; "
        "ties to the lowest card id); every game")
_define("low", KIND_LOW, "the weakest legal card (same order as high); every game")
_define("highlow", KIND_HIGHLOW, "leading High; else High if some legal card beats the winning card, "
        "otherwise Low; every game", rule=True)
_define("coophighlow", KIND_COOPHIGHLOW, "Low when the partner has played and is winning the trick, else "
        "HighLow; every game." + _NO_PARTNER, rule=True)
_define("cardcounting", KIND_CARDCOUNTING, "the Euchre paper's card counter: tracks which cards each seat may hold "
        "(played cards and revealed voids removed) and plays Low to a partner who is void or stronger, "
        "HighLow or CoopHighLow otherwise; every game." + _NO_PARTNER, rule=True)
_define("markov", KIND_MARKOV, "High when (Markov values of the hand) / (values of the unseen cards) >= tau, "
        "else Low; values = ordered 4-card tricks each card wins; every game", tau=True, values=True)
_define("markov2", KIND_MARKOV2, "as markov with value = completions of the current trick (from unseen "
        "cards) that the card wins; leading, exactly as markov (the Euchre paper's Section 3.3; lead=completions: "
        "on the completions of the lead); every game", tau=True, values=True, lead=True)
_define("hybrid", KIND_HYBRID, "Markov ratio >= tau: CoopHighLow, else CardCounting; every game."
        + _NO_PARTNER, tau=True, values=True, rule=True)
_define("hybrid2", KIND_HYBRID2, "Markov2 ratio >= tau (leading: Markov's; lead=completions as markov2): "
        "CoopHighLow, else CardCounting; every game." + _NO_PARTNER, tau=True, values=True, rule=True, lead=True)
_define("obligated_trump", KIND_OBLIGATED_TRUMP, "Sueca study: void in the led suit, a random trump if "
        "holding one, else a random legal card. Plays every game; in Jass Obe-abe/Une-ufe (no trump) it is random")
_define("always_high", KIND_ALWAYS_HIGH, "Sueca study: the legal card of highest trick rank whatever its "
        "suit, ties at random; every game")
_define("jass_rule_based", KIND_JASS, "card-counting Jass player with per-mode heuristics (pull trumps with "
        "the boss trump, cash sure winners, schmieren to a partner who wins, ruff tricks worth >= 8 points); "
        "trump choice: the ranked bidder (bidder=simple). Jass only: its rules use card points and Jass "
        "legality", games=("jass",))

_define("obligated_trump_lead", KIND_OBLIGATED_TRUMP_LEAD, "Sueca study (Table 5.1, leading trump): "
        "obligated_trump that leads a random trump when holding one; every game")
_define("third_hand_high", KIND_THIRD_HAND_HIGH, "Sueca study (Table 5.2, as third player): always_high's "
        "card as the third card of a trick, otherwise a random legal card; every game")

BASELINES = ("high", "low", "highlow", "coophighlow", "cardcounting", "markov", "markov2", "hybrid", "hybrid2",
             "obligated_trump", "always_high", "jass_rule_based", "obligated_trump_lead", "third_hand_high")
