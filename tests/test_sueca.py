"""Sueca: hand-worked deals (every trick reasoned out in the comments) and invariants over
many random deals.

Rules (``docs/reference/games.md``): 40 cards (no 8, 9, 10), rank high to low A 7 K J Q 6 5 4 3 2, points
A 11, 7 10, K 4, J 3, Q 2 (120 in all); follow suit if you can, otherwise anything (no
obligation to trump); the highest trump wins, else the highest card of the led suit.
Game points of a deal: > 60 -> 1, > 90 -> 2, all ten tricks -> 4, 60-60 -> a draw (0).

Card ids (evolve/games/sueca/game.py): suit * 10 + face, suits C D H S, faces 2 3 4 5 6 7 J Q K A.
"""
from __future__ import annotations

import numpy as np
import pytest

import evolve
from evolve.games.registry import make_game
from evolve.games.stepper import TrickState
from evolve.games.sueca.game import game_points

FACES = "2 3 4 5 6 7 J Q K A".split()
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
POINTS = {"A": 11, "7": 10, "K": 4, "J": 3, "Q": 2}


def cid(name):
    return SUITS.index(name[-1]) * 10 + FACES.index(name[:-1])


def hand(text):
    return [cid(n) for n in text.split()]


def run_deal(hands, trump, leader, tricks):
    """Play ``tricks`` (lists of card names in play order) through TrickState; check after
    each trick that it was complete and return the state and the points of each trick."""
    s = TrickState(make_game("sueca"), [hand(h) for h in hands], mode=trump, leader=leader)
    per_trick = []
    for t, trick in enumerate(tricks):
        before = sum(s.side_points)
        for name in trick.split():
            s.play(cid(name))  # raises ValueError on an illegal card
        assert len(s.trick_winners) == t + 1
        per_trick.append(sum(s.side_points) - before)
    assert s.done
    return s, per_trick


# Hands shared by deals 1 and 3 (seat: clubs | diamonds | hearts | spades)
HANDS_A = [
    "AC 7C KC  AD 2D  2H 3H  AS 7S KS",      # seat 0
    "JC QC 6C  7D KD JD  AH 7H  QS 6S",      # seat 1
    "5C 4C  QD 6D 5D  KH JH QH  JS 5S",      # seat 2
    "3C 2C  4D 3D  6H 5H 4H  4S 3S 2S",      # seat 3
]


def test_deal_1_hearts_trump_85_35_one_game_point():
    """Hearts trump, seat 0 leads (dealer 3). Side 0 = seats 0 and 2."""
    tricks = [
        # T1 seat 0 leads AC; all follow clubs. AC is the highest club -> seat 0. 11 pts.
        "AC 6C 4C 2C",
        # T2 seat 0: 7C, QC, 5C, 3C. 7 ranks above Q -> seat 0. 10 + 2 = 12 pts.
        "7C QC 5C 3C",
        # T3 seat 0: KC, JC; seat 2 is void in clubs and discards 5D; seat 3 is void and
        # ruffs with 4H (no obligation, but allowed). The only trump wins -> seat 3.
        # K 4 + J 3 = 7 pts.
        "KC JC 5D 4H",
        # T4 seat 3 leads 4S; seat 0 AS, seat 1 6S, seat 2 5S. AS highest -> seat 0. 11 pts.
        "4S AS 6S 5S",
        # T5 seat 0: 7S, QS, JS, 3S. 7 > Q > J -> seat 0. 10 + 2 + 3 = 15 pts.
        "7S QS JS 3S",
        # T6 seat 0: KS; seat 1 (void in spades) trumps 7H; seat 2 (void) discards 6D
        # (its KH would not beat the 7H: A 7 K ...); seat 3 follows 2S. 7H -> seat 1.
        # K 4 + 7 10 = 14 pts.
        "KS 7H 6D 2S",
        # T7 seat 1 leads AH (trump); seat 2 HJ, seat 3 5H, seat 0 2H follow. AH -> seat 1.
        # 11 + 3 = 14 pts.
        "AH JH 5H 2H",
        # T8 seat 1 leads KD; seat 2 QD, seat 3 3D, seat 0 AD. AD -> seat 0. 4+2+11 = 17 pts.
        "KD QD 3D AD",
        # T9 seat 0 leads 2D; seat 1 7D; seat 2 is void in diamonds (QD, 6D, 5D gone) and
        # trumps QH; seat 3 4D. The trump wins -> seat 2. 7 10 + Q 2 = 12 pts.
        "2D 7D QH 4D",
        # T10 seat 2 leads KH; seat 3 6H, seat 0 3H; seat 1 has only JD left. KH -> seat 2.
        # K 4 + J 3 = 7 pts.
        "KH 6H 3H JD",
    ]
    s, pts = run_deal(HANDS_A, HEARTS, 0, tricks)
    assert s.trick_winners == [0, 0, 3, 0, 0, 1, 1, 0, 2, 2]
    assert pts == [11, 12, 7, 11, 15, 14, 14, 17, 12, 7]
    assert s.tricks_won == [5, 2, 2, 1]
    # side 0: T1 T2 T4 T5 T8 (seat 0) + T9 T10 (seat 2) = 11+12+11+15+17+12+7 = 85
    # side 1: T3 (seat 3) + T6 T7 (seat 1) = 7+14+14 = 35
    assert s.side_points == [85, 35] and sum(s.side_points) == 120
    # 85 > 60 but not > 90: one game point; the other side none
    assert game_points(85, 7) == 1 and game_points(35, 3) == 0


HANDS_B = [
    "QC 6C 5C  QD 6D  6H 5H 4H  4S 3S",      # seat 0
    "AC 7C  AD 7D  AH  AS 7S KS JS QS",      # seat 1
    "4C 3C 2C  5D 4D 3D 2D  3H 2H  2S",      # seat 2
    "KC JC  KD JD  KH 7H JH QH  6S 5S",      # seat 3
]


def test_deal_2_spades_trump_capot_four_game_points():
    """Spades trump, dealer 0, so seat 1 leads; side 1 (seats 1 and 3) takes all ten."""
    tricks = [
        # T1 seat 1 draws trumps: AS; seat 2 2S, seat 3 5S, seat 0 3S. AS -> seat 1. 11.
        "AS 2S 5S 3S",
        # T2 seat 1 7S; seat 2 is void in spades, discards 2C; seat 3 6S; seat 0 4S.
        # 7S -> seat 1. 10 pts.
        "7S 2C 6S 4S",
        # T3 seat 1 KS; seats 2, 3 and 0 are all void in spades now: 3C, QH, 4H.
        # The only trump -> seat 1. K 4 + Q 2 = 6 pts. Side 0 has no trump left.
        "KS 3C QH 4H",
        # T4 seat 1 AC; seat 2 4C, seat 3 JC, seat 0 5C. AC -> seat 1. 11 + 3 = 14.
        "AC 4C JC 5C",
        # T5 seat 1 7C; seat 2 (void in clubs) discards 2D; seat 3 KC; seat 0 6C.
        # 7 ranks above K -> seat 1. 10 + 4 = 14 pts.
        "7C 2D KC 6C",
        # T6 seat 1 AD; seat 2 3D, seat 3 JD, seat 0 6D. AD -> seat 1. 11 + 3 = 14.
        "AD 3D JD 6D",
        # T7 seat 1 7D; seat 2 4D, seat 3 KD, seat 0 QD. 7 > K > Q -> seat 1. 10+4+2 = 16.
        "7D 4D KD QD",
        # T8 seat 1 AH; seat 2 2H, seat 3 7H, seat 0 5H. AH -> seat 1. 11 + 10 = 21.
        "AH 2H 7H 5H",
        # T9 seat 1 JS (trump lead); nobody else has a spade: 5D, KH, QC. JS -> seat 1.
        # J 3 + K 4 + Q 2 = 9 pts.
        "JS 5D KH QC",
        # T10 seat 1 QS; 3H, JH, 6H. QS -> seat 1. Q 2 + J 3 = 5 pts.
        "QS 3H JH 6H",
    ]
    s, pts = run_deal(HANDS_B, SPADES, 1, tricks)
    assert s.trick_winners == [1] * 10
    assert pts == [11, 10, 6, 14, 14, 14, 16, 21, 9, 5]
    assert s.tricks_won == [0, 10, 0, 0]
    assert s.side_points == [0, 120]
    # all ten tricks: 4 game points (the whole rubber at once)
    assert game_points(120, 10) == 4 and game_points(0, 0) == 0


def test_deal_3_diamonds_trump_60_60_draw():
    """The hands of deal 1 with diamonds trump: seat 0 leads; the deal ends 60-60."""
    tricks = [
        # T1 seat 0 AS; 6S, 5S, 2S follow. AS -> seat 0. 11 pts.
        "AS 6S 5S 2S",
        # T2 seat 0 7S; QS, JS, 4S. 7 > Q > J -> seat 0. 10 + 2 + 3 = 15 pts.
        "7S QS JS 4S",
        # T3 seat 0 leads trump 2D; 7D, 6D, 3D follow. 7D -> seat 1. 10 pts.
        "2D 7D 6D 3D",
        # T4 seat 1 KD; seat 2 QD, seat 3 4D, seat 0 AD. AD -> seat 0. 4 + 2 + 11 = 17.
        "KD QD 4D AD",
        # T5 seat 0 KC; 6C, 4C, 3C. KC -> seat 0. 4 pts.
        "KC 6C 4C 3C",
        # T6 seat 0 7C; JC, 5C, 2C. 7 > J -> seat 0. 10 + 3 = 13 pts.
        # Side 0 now has 11 + 15 + 17 + 4 + 13 = 60 and takes nothing more.
        "7C JC 5C 2C",
        # T7 seat 0 2H; 7H, KH, 6H. 7 > K -> seat 1. 10 + 4 = 14 pts.
        "2H 7H KH 6H",
        # T8 seat 1 AH; JH, 4H, 3H. AH -> seat 1. 11 + 3 = 14 pts.
        "AH JH 4H 3H",
        # T9 seat 1 JD (trump); seat 2 5D (lower trump); seats 3 and 0 are void in
        # diamonds and discard 3S and AC. JD is the highest trump -> seat 1.
        # J 3 + A 11 = 14 pts.
        "JD 5D 3S AC",
        # T10 seat 1 QC; seat 2 QH, seat 3 5H, seat 0 KS (all void in clubs). QC -> seat 1.
        # Q 2 + Q 2 + K 4 = 8 pts. Side 1: 10 + 14 + 14 + 14 + 8 = 60.
        "QC QH 5H KS",
    ]
    s, pts = run_deal(HANDS_A, DIAMONDS, 0, tricks)
    assert s.trick_winners == [0, 0, 1, 0, 0, 0, 1, 1, 1, 1]
    assert pts == [11, 15, 10, 17, 4, 13, 14, 14, 14, 8]
    assert s.tricks_won == [5, 5, 0, 0]
    assert s.side_points == [60, 60]
    # 60-60 is a draw: neither side scores
    assert game_points(60, 5) == 0


def test_illegal_card_is_rejected():
    s = TrickState(make_game("sueca"), [hand(h) for h in HANDS_A], mode=HEARTS, leader=0)
    s.play(cid("AC"))
    with pytest.raises(ValueError):
        s.play(cid("AH"))  # seat 1 holds clubs and must follow


@pytest.mark.parametrize("points,tricks,expected", [
    (120, 10, 4), (120, 9, 2), (91, 6, 2), (90, 6, 1), (61, 5, 1), (60, 5, 0), (60, 4, 0),
    (59, 6, 0), (30, 2, 0), (0, 0, 0), (0, 1, 0),
])
def test_game_points_thresholds(points, tricks, expected):
    assert game_points(points, tricks) == expected


def test_trump_from_the_dealers_card_with_explicit_hands():
    hands = np.array([hand(h) for h in HANDS_A])
    # dealer 3: the last card dealt to seat 3 is 2S (spades), the first 3C (clubs)
    r = evolve.play("sueca", "random", None, 0, hands=hands, dealer=3, record=True)
    assert r.trump.tolist() == [SPADES] and r.first_leader.tolist() == [0] and r.leaders[0, 0] == 0
    r = evolve.play("sueca", "random", None, 0, hands=hands, dealer=3, trump_card="first")
    assert r.trump.tolist() == [CLUBS]
    # dealer 1: last card 6S, first JC
    r = evolve.play("sueca", "random", None, 0, hands=hands, dealer=1)
    assert r.trump.tolist() == [SPADES] and r.first_leader.tolist() == [2]
    r = evolve.play("sueca", "random", None, 0, hands=hands, dealer=1, trump_card="first")
    assert r.trump.tolist() == [CLUBS]
    r = evolve.play("sueca", "random", None, 0, hands=hands, dealer=2, record=True)
    assert r.trump.tolist() == [SPADES] and r.first_leader.tolist() == [3]


# ======================================================================================
# invariants over many random deals
# ======================================================================================


def _rank(c):
    return "2 3 4 5 6 Q J K 7 A".split().index(FACES[c % 10])


@pytest.mark.parametrize("options", [{}, {"trump_card": "first"}, {"setup": "study"}])
def test_invariants_over_random_deals(options):
    n = 500
    r = evolve.play("sueca", "random", n, seed=21, record=True, dealer=1, **options)
    assert (r.points.sum(axis=1) == 120).all(), "120 card points per deal"
    assert (r.tricks.sum(axis=1) == 10).all(), "ten tricks per deal"
    dealers = np.arange(n) + 1
    assert (r.dealer == dealers % 4).all(), "the dealer rotates"
    idx = np.arange(n)
    if options.get("setup") == "study":
        assert (r.first_leader == 0).all() and (r.leaders[:, 0] == 0).all(), "study: seat 0 leads"
        assert set(r.trump.tolist()) == {0, 1, 2, 3}
        # the trump is a random card's suit, not tied to the dealer's card
        last = r.hands[idx, r.dealer, 9] // 10
        assert (r.trump != last).any()
    else:
        pos = 0 if options.get("trump_card") == "first" else 9
        shown = r.hands[idx, r.dealer, pos]
        assert (r.trump == shown // 10).all(), "trump = suit of the dealer's first/last card"
        fh = (r.dealer.astype(int) + 1) % 4
        assert (r.first_leader == fh).all() and (r.leaders[:, 0] == fh).all(), "the forehand leads"
    side_tricks = np.stack([r.tricks[:, 0] + r.tricks[:, 2], r.tricks[:, 1] + r.tricks[:, 3]], axis=1)
    for i in range(n):
        # replay card points and winners with a plain ranking
        pts = [0, 0]
        for t in range(10):
            cs = [int(c) for c in r.plays[i, 4 * t:4 * t + 4]]
            lead = int(r.leaders[i, t])
            tr = int(r.trump[i])
            keys = [(2 if c // 10 == tr else 1 if c // 10 == cs[0] // 10 else 0, _rank(c)) for c in cs]
            keys = [k if k[0] else (0, 0) for k in keys]
            w = (lead + keys.index(max(keys))) % 4
            assert w == r.winners[i, t]
            pts[w % 2] += sum(POINTS.get(FACES[c % 10], 0) for c in cs)
        assert pts == r.points[i].tolist()
        for side in (0, 1):
            assert r.score[i, side] == game_points(int(r.points[i, side]), int(side_tricks[i, side]))
    assert set(np.unique(r.score)) <= {0, 1, 2, 4}
    assert (r.score.min(axis=1) == 0).all(), "at most one side scores"
    # rubbers: first side to 4 game points
    cur = [0, 0]
    for i in range(n):
        cur = [cur[0] + int(r.score[i, 0]), cur[1] + int(r.score[i, 1])]
        assert r.game_score[i].tolist() == cur
        if max(cur) >= 4:
            assert r.game_winner[i] == int(np.argmax(cur))
            cur = [0, 0]
        else:
            assert r.game_winner[i] == -1
    assert (r.game_winner >= 0).sum() > 20
