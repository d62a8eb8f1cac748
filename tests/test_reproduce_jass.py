"""The Jass paper's reproduction and what it added: the paper's figures as transcribed, the
Simple RB trump rule, T-DMCTS's schedule, pyschieber's players as seats (played on tables,
deal for deal as pyschieber's own game plays them) and the tables path of ``evolve.play``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import evolve
from evolve.agents.bidding.tables import jass_sure_mode, jass_sure_tricks
from evolve.agents.registry import parse_seat, parse_seats
from evolve.agents.search.card_search import scheduled_determinizations
from evolve.core.errors import UsageError
from evolve.games.registry import make_game
from evolve.reproduce.jass import DATA
from evolve.runtime.play import _play_on_tables

PAPER_TEXT = Path(__file__).resolve().parents[2] / "shared" / "papers" / "002_8055e80f3a2e3a62.txt"
JASS = make_game("jass")


def _hand(names: str) -> np.uint64:
    return np.uint64(sum(1 << JASS.info.card_id(n) for n in names.split()))


@pytest.mark.skipif(not PAPER_TEXT.is_file(), reason="the papers' texts are not beside the repository")
def test_transcribed_figures_are_the_papers():
    """Every mean +- STD of Tables 1 and 2 in data/jass.json stands in the paper's text."""
    text = PAPER_TEXT.read_text()
    found = {(float(m), float(s)) for m, s in re.findall(r"(\d\d\.\d\d)\s*(?:\\pm|\{\\pm\})\s*(\d\.\d\d)", text)}
    cells = [c for row in DATA["table1"]["cells"].values() for c in row if c is not None]
    assert len(cells) == 15
    for mean, sd in cells + list(DATA["table2"]["rows"].values()):
        assert (mean, sd) in found, (mean, sd)


def test_simple_rb_counts_certain_tricks_and_pushes_below_three():
    # hearts J 9 A (three top trumps) + spades A K (two side winners) = 5 certain tricks in hearts
    hand = _hand("JH 9H AH 7H AS KS 6D 7D 8C")
    assert jass_sure_tricks(hand, 1) == 5
    assert jass_sure_tricks(hand, 4) == 3           # Obe-abe: AH, AS KS
    assert jass_sure_tricks(hand, 5) == 2           # Une-ufe: 6D 7D (no six of hearts or clubs)
    params = np.array([3.0])
    assert jass_sure_mode(params, 0, 1, hand, True) == 1
    weak = _hand("7H 8H 10S QS 7D 9D 10C QC KC")     # no certain trick anywhere
    assert max(jass_sure_tricks(weak, m) for m in range(6)) < 3
    assert jass_sure_mode(params, 0, 1, weak, True) == 6     # the forehand pushes
    assert jass_sure_mode(params, 0, 1, weak, False) != 6    # the partner must choose


def test_tdmcts_schedule_is_the_papers_example():
    assert scheduled_determinizations(15, 9, 2) == 90     # Section 6.1: the third trick, 6 x 15
    assert scheduled_determinizations(15, 9, 0) == 120
    assert scheduled_determinizations(15, 9, 8) == 15


def test_tdmcts_is_reproducible_and_differs_from_dmcts():
    seats = ["tdmcts:factor=2,iterations=30,bidder=simple", "tdmcts:determinizations=2,iterations=30,bidder=graf"]
    a = evolve.play("jass", seats, 24, seed=4, record=True)
    b = evolve.play("jass", seats, 24, seed=4, record=True, workers=2)
    assert (a.plays == b.plays).all()
    c = evolve.play("jass", ["dmcts:determinizations=2,iterations=30,bidder=simple", seats[1]], 24, seed=4,
                    record=True)
    assert (a.plays != c.plays).any()


@pytest.mark.parametrize("seats", [
    ["jass_rule_based:bidder=graf", "random:bidder=simple_rb"],
    ["dmcts:determinizations=2,iterations=20,bidder=simple", "maxvalue:samples=2,bidder=random"],
])
def test_tables_path_gives_the_engines_deals(seats):
    """A batch played on tables (the path of seats decided in Python) equals the engine's,
    deal for deal: shuffled deals from a start index, and given decks with given dealers."""
    specs = parse_seats(seats, JASS)
    fields = ("hands", "dealer", "trump", "first_leader", "tricks", "points", "score", "calls", "maker", "plays",
              "leaders", "winners", "game_score")
    r = evolve.play("jass", seats, 12, seed=3, start=5, record=True)
    t = _play_on_tables(JASS, specs, 3, 12, 5, None, (5 + np.arange(12)) % 4, True, 1)
    for f in fields:
        assert (getattr(r, f) == getattr(t, f)).all(), f
    decks = np.array([np.random.default_rng(k).permutation(36) for k in range(6)])
    dealers = np.array([2, 2, 0, 1, 3, 3])
    r = evolve.play("jass", seats, seed=8, decks=decks, dealer=dealers, record=True)
    t = _play_on_tables(JASS, specs, 8, 6, 0, decks, dealers, True, 1)
    for f in fields:
        assert (getattr(r, f) == getattr(t, f)).all(), f


def _pyschieber_round(deck, forehand: int):
    """One round of pyschieber's own Game with four ChallengePlayers (ids = our seats) on our
    deck: the trump, who declared, and the cards in play order (ours)."""
    from pyschieber.game import Game
    from pyschieber.player.challenge_player.challenge_player import ChallengePlayer
    from pyschieber.team import Team

    from evolve.agents.external.pyschieber import pyschieber_tables

    ps = pyschieber_tables()
    players = [ChallengePlayer(name=f"p{s}") for s in range(4)]
    for s, p in enumerate(players):
        p.id = s
        for c in sorted(int(x) for x in deck[9 * s:9 * s + 9]):
            p.set_card(ps["cards"][c])
    game = Game(teams=[Team(players=[players[0], players[2]]), Team(players=[players[1], players[3]])],
                use_counting_factor=False)
    game.define_trumpf(start_player_index=forehand)
    plays, start = [], forehand
    for i in range(9):
        stich = game.play_stich(start)
        plays += [ps["back"][str(pc.card)] for pc in stich.played_cards]
        game.count_points(stich, last=(i == 8))
        start = game.players.index(stich.player)
        game.stiche.append(stich)
    return ps["mode_of"][game.trumpf], game.geschoben, plays


class _First:
    """A stand-in for ChallengePlayer's ``random`` module: its fallback takes the first card."""

    @staticmethod
    def choice(cards):
        return cards[0]


def test_pyschieber_seats_play_as_pyschieber_plays_itself(monkeypatch):
    """Four ChallengePlayer seats (their own trump rule) in our engine's tables play every
    card and call of a deal exactly as pyschieber's own Game loop does on the same cards
    (ChallengePlayer's random fallback made the same on both sides)."""
    pytest.importorskip("pyschieber")
    from pyschieber.player.challenge_player import challenge_player

    from evolve.agents.external.pyschieber import PyschieberSeat

    monkeypatch.setattr(challenge_player, "random", _First)
    monkeypatch.setattr(PyschieberSeat, "_rng", lambda self, rngs, seat: _First)
    decks = np.array([np.random.default_rng(100 + k).permutation(36) for k in range(12)])
    dealers = np.arange(12) % 4
    r = evolve.play("jass", ["pyschieber:player=challenge,trump=own"] * 4, seed=1, decks=decks, dealer=dealers,
                    record=True)
    for i in range(12):
        mode, pushed, plays = _pyschieber_round(decks[i], (int(dealers[i]) + 1) % 4)
        assert int(r.trump[i]) == mode and bool(r.calls[i, 0] == 6) == pushed, i
        assert r.plays[i].tolist() == plays, i


def test_pyschieber_seats_in_matrices_and_bad_options():
    pytest.importorskip("pyschieber")
    from evolve.evaluate.matrix import head_to_head

    cell = head_to_head("jass", "pyschieber:player=greedy", "random:bidder=simple", n_deals=6, seed=2, blocks=2)
    assert cell["deals"] == 6 and 0 < cell["percent_points"]["overall"] < 100
    assert cell["bidders"]
    spec = parse_seat("pyschieber:player=challenge,trump=own", JASS)
    assert spec.bidder == "pyschieber challenge's own" and spec.python is not None
    for seat, needle in [("pyschieber:player=bot", "player"), ("pyschieber:trump=mine", "trump"),
                         ("tdmcts:factor=0", "option factor"), ("random:bidder=nope", "bidder")]:
        with pytest.raises(UsageError, match=needle) as e:
            parse_seat(seat, JASS)
        assert "\n" not in str(e.value)
    with pytest.raises(UsageError, match="does not play"):
        parse_seat("pyschieber", make_game("spades"))
    with pytest.raises(UsageError, match="decides only jass"):
        parse_seat("random:bidder=simple_rb", make_game("euchre"))


def _tree(children):
    """Search work memory holding one root whose children are (move, visits, total return)."""
    from evolve.agents.search.card_search import N_TOTAL, N_VISITS, NODE_STRIDE, OFF_TREE, _new_node

    work = np.zeros(OFF_TREE + NODE_STRIDE * (len(children) + 1))
    iw = work.view(np.int64)
    _new_node(iw, work, 0, -1, -1, -1)
    for n, (move, visits, total) in enumerate(children, 1):
        a = _new_node(iw, work, n, move, 0, 0)
        work[a + N_VISITS], work[a + N_TOTAL] = visits, total
    return work, iw


def test_tdmcts_vote_is_mean_times_votes_of_the_most_visited_moves():
    """Each tree votes for its most visited root move (ties: the larger total) with that
    move's mean; a move's score is the sum, mean x votes (Section 6.1). Summing N x Q, as
    DMCTS does, or voting for the best mean would pick another move here."""
    from evolve.agents.search.card_search import OFF_SUM, vote_root

    trees = [
        [(3, 10, 6.0), (5, 10, 8.0), (7, 4, 3.6)],      # a tie on visits: 5 (the larger total), mean 0.8
        [(3, 12, 6.0), (5, 6, 5.4), (7, 2, 1.9)],       # 3 (most visited), mean 0.5, though 7's mean is 0.95
        [(3, 12, 6.6), (5, 8, 6.0)],                    # 3, mean 0.55
    ]
    sums = np.zeros(64)
    for children in trees:
        work, iw = _tree(children)
        vote_root(work, iw)
        sums += work[OFF_SUM:OFF_SUM + 64]
    assert sums[3] == pytest.approx(1.05) and sums[5] == pytest.approx(0.8) and sums[7] == 0.0
    assert int(np.argmax(sums)) == 3
    n_x_q = {m: sum(t for tree in trees for mm, _, t in tree if mm == m) for m in (3, 5, 7)}
    assert max(n_x_q, key=n_x_q.get) != 3       # DMCTS's sum would play 5


def test_tdmcts_fixed_count_is_the_schedule_where_they_meet():
    """``determinizations=8`` grows exactly the trees ``factor=1`` grows in the first trick
    (1 x the 8 tricks after it), so four such seats play every first trick alike; 7 trees
    do not (I-DMCTS, Section 6.2: a fixed count of trees, whatever the trick)."""
    def first_tricks(seat):
        r = evolve.play("jass", [seat + ",iterations=20,bidder=simple"] * 4, 16, seed=6, record=True)
        return r.plays[:, :4]

    scheduled = first_tricks("tdmcts:factor=1")
    assert (first_tricks("tdmcts:determinizations=8") == scheduled).all()
    assert (first_tricks("tdmcts:determinizations=7") != scheduled).any()
    assert (first_tricks("tdmcts:factor=1,determinizations=8") == scheduled).all()
