"""Figures that every report of a batch of deals shares, whatever the game: the fair-share
test of a seat's ATpR where the game has a fair share (cut-throat Spades: 13 tricks over
4 seats), the Spades thesis's normal figure beside it, and the share of the card points
where the game makes it the headline (Jass: 157 points per deal). The arena, the
head-to-head matrix, the end-of-run benchmark and the studies all take them from here.
"""

from __future__ import annotations

import math

import numpy as np

from evolve.agents.registry import bidder_label
from evolve.core.stats import mean_ci, normal_tail, one_sample_t, shifted, verdict
from evolve.games.registry import GAMES


def fair_share(game) -> float | None:
    """A seat's ATpR under no skill (cut-throat Spades: 3.25), or None in partnership games."""
    return game.protocol.fair_share


def study_normal_p(game, atpr: float) -> float:
    """The Spades thesis's figure 1 - Phi((ATpR - 3.25) / 1.5612), for comparison only: it
    treats a mean over many rounds as if it were one round's tricks (1.5612 is the sd of
    one seat's tricks in a round under no skill, sqrt(13 x 1/4 x 3/4))."""
    n = game.info.n_tricks
    return normal_tail(atpr, fair_share(game), math.sqrt(n * 0.25 * 0.75))


def fair_share_test(game, tricks) -> dict | None:
    """A seat's tricks per deal against the fair share: the signed difference with its 95%
    CI, the one-sample t test, the verdict and the thesis's normal figure; None where the
    game has no fair share."""
    share = fair_share(game)
    if share is None:
        return None
    tricks = np.asarray(tricks, np.float64)
    ci = mean_ci(tricks)
    test = one_sample_t(tricks, share)
    difference = shifted(ci.as_dict(), share)
    return {"fair_share": share, "t": test.statistic, "p": test.p_value, "difference": difference,
            "verdict": verdict(difference), "study_normal_p": study_normal_p(game, ci.mean)}


def fair_share_label(game) -> str:
    """``3.25``: the fair share as printed in table headers."""
    return f"{fair_share(game):g}"


def share_of_points(game) -> bool:
    """The game's headline is each side's percentage of the card points."""
    return game.protocol.share_of_points


def bidders(game, labels, specs) -> dict[str, str]:
    """What bids and calls trump for each seat label (``evolve.agents.registry.bidder_label``),
    or nothing where the game asks for no calls (cut-throat Spades, Sueca, fixed-trump Euchre)."""
    if not game.protocol.has_calls:
        return {}
    return {str(label): bidder_label(spec) for label, spec in zip(labels, specs)}


def bidders_line(named: dict[str, str], game) -> str:
    """The header line naming each seat's bidder (empty when the game has no calls):
    ``bids and trump calls: ismcts: context; champion:...: simple`` (what the bidders
    decide is the protocol's ``calls_name``: Hearts' pass). ``game``: a ``Game`` or a name."""
    if not named:
        return ""
    info = GAMES[getattr(game, "name", game)]
    return f"{info.protocol.calls_name}: " + "; ".join(f"{label}: {bidder}" for label, bidder in named.items())
