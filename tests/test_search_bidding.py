"""The search bidder (``bidder=search``, ``evolve.agents.bidding.search``).

1. Legal calls in whole deals of every game it bids in (Jass with push, Euchre with and
   without stick-the-dealer and with lone hands, Spades exact and standard); the engine
   refuses any illegal call, and the records are checked here as well.
2. Reproducible: the same seed gives the same calls, whatever the number of workers.
3. Bad options are one-line usage errors; Sueca (no bidding) refuses the bidder.
4. Strength: in Jass the search bidder beats the random bidder by a margin that cannot be
   noise on a few hundred paired deals (same random card play on both sides).
Honesty (swapping the other seats' hands never changes the first call) is covered for
every registered bidder by ``test_parametric.test_swapping_hidden_hands_never_changes_the_first_bid``.
"""

from __future__ import annotations

import numpy as np
import pytest

import evolve
from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDERS
from evolve.agents.registry import parse_seat
from evolve.core.errors import UsageError
from evolve.evaluate.matrix import head_to_head
from evolve.games.registry import make_game

SEARCH = "random:bidder=search,bid_iterations=60"


def test_registered_for_the_bidding_games():
    assert "search" in BIDDERS
    assert set(BIDDER_GAMES["search"]) == {"spades", "euchre", "jass"}


def test_jass_calls_are_legal():
    r = evolve.play("jass", [SEARCH] * 4, 200, seed=3)
    first = r.calls[:, 0]
    assert ((first >= 0) & (first <= 6)).all()
    pushed = first == 6
    assert pushed.any() and (~pushed).any()                   # it pushes sometimes, not always
    assert ((r.calls[pushed, 1] >= 0) & (r.calls[pushed, 1] <= 5)).all()
    assert (r.calls[~pushed, 1] == -1).all()
    assert len(np.unique(r.trump)) == 6                        # every mode gets chosen


@pytest.mark.parametrize("options", [{}, {"stick_the_dealer": True, "discard_upcard": False}])
def test_euchre_calls_are_legal(options):
    r = evolve.play("euchre", [SEARCH, "random:bidder=simple"], 200, seed=4, **options)
    played = r.trump >= 0
    up_suit = r.rest[:, 0] // 6
    round2 = r.calls[:, 4:8]
    named = round2[(round2 >= 0) & (round2 <= 3)]
    assert named.size > 0
    for i in np.flatnonzero(played):
        calls = r.calls[i]
        if 5 not in calls[:4].tolist():                       # trump named in round 2
            assert r.trump[i] != up_suit[i]
    if options.get("stick_the_dealer"):
        assert played.all()
    # the search seats (0 and 2) order up, call and sometimes go alone
    makers = r.maker[played]
    assert np.isin(makers, (0, 2)).any()
    assert (r.alone[played & np.isin(r.maker, (0, 2))] == 1).any()


@pytest.mark.parametrize("options", [{"bidding": "exact"}, {"bidding": "standard", "partnership": True}])
def test_spades_bids_are_legal(options):
    r = evolve.play("spades", [SEARCH, "random:bidder=simple"], 40, seed=5, **options)
    assert ((r.bids >= 0) & (r.bids <= 13)).all()
    if options.get("partnership"):
        assert (r.bids[:, 0] + r.bids[:, 2] <= 13).all() and (r.bids[:, 1] + r.bids[:, 3] <= 13).all()
    assert len(np.unique(r.bids[:, 0])) > 2


@pytest.mark.parametrize("game,options", [("jass", {}), ("euchre", {}), ("spades", {"bidding": "exact"})])
def test_reproducible_for_any_number_of_workers(game, options):
    seats = [SEARCH, "random:bidder=simple"]
    a = evolve.play(game, seats, 64, seed=21, **options)
    b = evolve.play(game, seats, 64, seed=21, **options)
    c = evolve.play(game, seats, 64, seed=21, workers=2, **options)
    column = "bids" if game == "spades" else "calls"
    for other in (b, c):
        assert np.array_equal(getattr(a, column), getattr(other, column))
        assert np.array_equal(a.score, other.score)
    d = evolve.play(game, seats, 64, seed=22, **options)
    assert not np.array_equal(a.score, d.score)


@pytest.mark.parametrize("seat,match", [
    ("random:bidder=search,bid_iterations=0", "bid_iterations=.* expected an integer >= 1"),
    ("random:bidder=search,bid_iterations=many", "bid_iterations=.* expected an integer"),
    ("random:bidder=search,bid_c=-1", "bid_c=.* expected a finite number >= 0"),
])
def test_bad_options_are_one_line_errors(seat, match):
    with pytest.raises(UsageError, match=match) as e:
        parse_seat(seat, make_game("jass"))
    assert "\n" not in str(e.value)


def test_refused_where_there_is_no_bidding_to_search():
    with pytest.raises(UsageError, match="bidder 'search' decides only") as e:
        parse_seat("random:bidder=search", make_game("sueca"))
    assert "\n" not in str(e.value)


def test_jass_search_bidder_beats_random_trump_choice():
    r = head_to_head("jass", "random:bidder=search,bid_iterations=200", "random:bidder=random", n_deals=300, seed=8)
    d = r["diff_points"]
    # random card play on both sides; measured about +20 points per deal (of 157)
    assert d["low"] > 8.0, d
    assert r["percent_points"]["overall"] > 53.0
