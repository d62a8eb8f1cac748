"""Self-check of the OpenSpiel spades referee adapter (tests/referees/openspiel_spades.py).

Plays random hands inside OpenSpiel, extracts deal/bids/plays, replays them
through ``replay_spades`` and checks that everything agrees, plus independent
pure-Python checks of trick winners, legality and scoring.
"""

import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import openspiel_spades as osp  # noqa: E402
import pyspiel  # noqa: E402

N_HANDS = 200


# ---------------------------------------------------------------- independent rules
def ref_trick_winner(cards, leader):
    """Highest spade if any spade played, else highest card of the led suit."""
    suits = [c // 13 for c in cards]
    ranks = [c % 13 for c in cards]
    if 3 in suits:
        cand = [i for i in range(4) if suits[i] == 3]
    else:
        cand = [i for i in range(4) if suits[i] == suits[0]]
    best = max(cand, key=lambda i: ranks[i])
    return (leader + best) % 4


def ref_legal(hand, trick_cards):
    """OpenSpiel's rule: follow suit if able; a leader must lead a non-spade if he has one."""
    hand = sorted(hand)
    if trick_cards:
        follow = [c for c in hand if c // 13 == trick_cards[0] // 13]
        return follow or hand
    non_spades = [c for c in hand if c // 13 != 3]
    return non_spades or hand


def ref_round_score(bids, tricks):
    """Independent restatement of OpenSpiel's single-hand score (current score 0)."""
    out = []
    for p in (0, 1):
        c = bids[p] + bids[p + 2]
        t = tricks[p] + tricks[p + 2]
        nil = sum((100 if tricks[i] == 0 else -100) for i in (p, p + 2) if bids[i] == 0)
        if t < c:
            out.append(-10 * c + nil)
        else:
            bags = t - c
            out.append(10 * c + bags + nil - (100 if bags >= 10 else 0))
    return out


# ---------------------------------------------------------------- random hands in OpenSpiel
def play_random_hand(game, rng, low_bids=False):
    """Random legal hand inside OpenSpiel. Records OpenSpiel's own winners/legal sets."""
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(int(rng.choice(s.legal_actions())))
    for _ in range(4):
        legal = s.legal_actions()
        if low_bids:  # bias towards nil / tiny bids so bags >= 10 and nils occur
            legal = [a for a in legal if a - osp.BID_ACTION_BASE <= 2]
        s.apply_action(int(rng.choice(legal)))
    winners, legal_sets = [], []
    for k in range(52):
        legal = s.legal_actions()
        legal_sets.append(sorted(legal))
        s.apply_action(int(rng.choice(legal)))
        if k % 4 == 3 and k < 51:
            winners.append(s.current_player())
    assert s.is_terminal()
    return s, winners, legal_sets


@pytest.fixture(scope="module")
def random_hands():
    game = pyspiel.load_game("spades")  # all-default parameters
    rng = np.random.default_rng(12345)
    out = []
    for i in range(N_HANDS):
        s, w, ls = play_random_hand(game, rng, low_bids=(i % 2 == 1))
        out.append((s.history(), list(s.returns()), w, ls))
    return out


def test_encoding_identity():
    g = osp.load_spades()
    s = g.new_initial_state()
    for c in range(52):
        assert s.action_to_string(0, osp.our_to_os(c)) == osp.card_str(c)
        assert osp.os_to_our(osp.our_to_os(c)) == c
    for c in range(52):
        s.apply_action(c)
    assert [s.action_to_string(0, osp.BID_ACTION_BASE + b) for b in range(14)] == \
        ["Nil"] + [str(b) for b in range(1, 14)]
    # chance action i -> seat i % 4
    for seat in range(4):
        held = np.flatnonzero(np.asarray(s.private_observation_tensor(seat)))
        assert held.tolist() == list(range(seat, 52, 4))


def test_replay_matches_openspiel(random_hands):
    n_bag_pen = n_nil = 0
    for history, returns, os_winners, os_legal in random_hands:
        hands, bids, plays = osp.hand_from_openspiel_history(history)
        for params in (None, {}):  # DEFAULT_PARAMS (bonus 0) and all-defaults
            r = osp.replay_spades(hands, bids, plays, params=params)
            # OpenSpiel agrees with itself
            assert r["trick_winners"][:12].tolist() == os_winners
            assert np.array_equal(r["returns"], np.asarray(returns))
            assert r["legal"] == [[osp.os_to_our(a) for a in ls] for ls in os_legal]
            assert not r["is_game_over"]
        assert np.array_equal(np.bincount(r["trick_winners"], minlength=4), r["tricks_per_seat"])
        assert r["trick_leaders"][0] == 0
        assert np.array_equal(r["trick_leaders"][1:], r["trick_winners"][:12])

        # independent trick winners, legality and seat order
        hand_sets = [set(h.tolist()) for h in hands]
        leader = 0
        for t in range(13):
            cards = plays[4 * t: 4 * t + 4].tolist()
            for j, c in enumerate(cards):
                seat = (leader + j) % 4
                assert r["players"][4 * t + j] == seat
                assert r["legal"][4 * t + j] == ref_legal(hand_sets[seat], cards[:j])
                hand_sets[seat].remove(c)
            w = ref_trick_winner(cards, leader)
            assert r["trick_winners"][t] == w
            leader = w

        # scoring: OpenSpiel returns vs. formula and vs. independent restatement
        ps = r["partnership_scores"]
        assert np.array_equal(r["returns"], ps[[0, 1, 0, 1]].astype(float))
        assert np.array_equal(r["score_breakdown"]["total"], ps)
        assert ref_round_score(bids.tolist(), r["tricks_per_seat"].tolist()) == ps.tolist()
        n_bag_pen += int((r["score_breakdown"]["bag_penalty"] != 0).any())
        n_nil += int((bids == 0).any())
    # make sure the interesting scoring branches were actually exercised
    assert n_bag_pen >= 1, n_bag_pen
    assert n_nil >= 50, n_nil


def test_score_examples_from_openspiel_tests():
    # spades_test.cc ScoringTests (Score() with explicit current scores)
    f = osp.openspiel_score_breakdown
    assert f([4, 5, 5, 0], [5, 3, 5, 0], (0, 0))["total"][0] == 91
    assert f([13, 5, 0, 1], [4, 6, 1, 2], (0, 0))["total"][0] == -230
    assert f([3, 3, 3, 2], [4, 2, 5, 2], (99, 0))["total"][0] == -37
    assert f([2, 3, 3, 3], [2, 4, 2, 5], (0, 99))["total"][1] == -37


def test_single_hand_score_range_makes_bonus_unreachable():
    lo, hi = 10**9, -10**9
    for a, b in itertools.product(range(14), repeat=2):
        if a + b > 13:
            continue
        for ta in range(14):
            for tb in range(14 - ta):
                v = osp.openspiel_score_breakdown([a, 0, b, 0], [ta, 13 - ta - tb, tb, 0])["total"][0]
                lo, hi = min(lo, v), max(hi, v)
    assert (lo, hi) == (-290, 230)
    assert hi < 500 and lo > -350  # default win_threshold / mercy_threshold never reached


def _all_spades_north_hand():
    """North holds all 13 spades, so he leads spades every trick and wins all 13."""
    hands = np.stack([np.arange(39, 52)] + [np.arange(13 * k, 13 * k + 13) for k in range(3)])
    plays, hs = [], [sorted(h.tolist()) for h in hands]
    for t in range(13):
        plays.append(hs[0].pop())
        for s in (1, 2, 3):
            plays.append(hs[s].pop())
    return hands, np.array(plays)


@pytest.mark.parametrize("bids, expected", [
    # N/S: contract 2, 13 tricks -> 20 + 11 bags - 100; E/W: set 3 (-30) + nil made (+100)
    ((1, 0, 1, 3), (-69, 70)),
    # N/S: nil(N, fails) + nil(S, makes): contract 0, 13 bags -> -100 + 100 + 13 - 100
    ((0, 2, 0, 5), (-87, -70)),
    # N/S: 13 + nil(S makes) = 130 + 100 = max score; E/W nil + nil both made = 200
    ((13, 0, 0, 0), (230, 200)),
])
def test_constructed_scores(bids, expected):
    hands, plays = _all_spades_north_hand()
    r = osp.replay_spades(hands, np.array(bids), plays)
    assert r["tricks_per_seat"].tolist() == [13, 0, 0, 0]
    assert r["trick_winners"].tolist() == [0] * 13
    assert r["returns"].tolist() == [expected[0], expected[1], expected[0], expected[1]]
    assert r["partnership_scores"].tolist() == list(expected)
    r_def = osp.replay_spades(hands, np.array(bids), plays, params={})
    assert r_def["returns"].tolist() == r["returns"].tolist()


def test_rejections(random_hands):
    history = random_hands[0][0]
    hands, bids, plays = osp.hand_from_openspiel_history(history)
    # partnership bid total > 13
    with pytest.raises(osp.OpenSpielRejection, match="bid"):
        osp.replay_spades(hands, np.array([7, 1, 7, 1]), plays)
    # swap two cards of the same trick -> wrong seat holds the card
    bad = plays.copy()
    bad[0], bad[1] = bad[1], bad[0]
    with pytest.raises(osp.OpenSpielRejection):
        osp.replay_spades(hands, bids, bad)
    with pytest.raises(ValueError):
        osp.replay_spades(hands[:, :12], bids, plays)


def test_spade_lead_never_broken():
    # Deal card i to seat i % 4: North holds clubs, diamonds, hearts and spades.
    hands = np.stack([np.arange(s, 52, 4) for s in range(4)])
    g = osp.load_spades()
    st = g.new_initial_state()
    for c in range(52):
        st.apply_action(c)
    for b in (3, 3, 3, 3):
        st.apply_action(osp.BID_ACTION_BASE + b)
    assert all(c // 13 != 3 for c in st.legal_actions())  # cannot lead spades holding non-spades
    # leading a spade is rejected in strict mode, recorded when strict=False
    plays = []
    s2 = g.new_initial_state()
    for c in range(52):
        s2.apply_action(c)
    for b in (3, 3, 3, 3):
        s2.apply_action(osp.BID_ACTION_BASE + b)
    first = [c for c in hands[0] if c // 13 == 3][0]
    s2.apply_action(first)
    plays.append(first)
    while not s2.is_terminal():
        a = s2.legal_actions()[0]
        plays.append(a)
        s2.apply_action(a)
    with pytest.raises(osp.OpenSpielRejection, match="legal set"):
        osp.replay_spades(hands, np.array([3, 3, 3, 3]), np.array(plays))
    r = osp.replay_spades(hands, np.array([3, 3, 3, 3]), np.array(plays), strict=False)
    assert r["illegal_steps"] == [0]
    assert np.array_equal(r["returns"], np.asarray(s2.returns()))


def test_throughput(random_hands):
    items = [osp.hand_from_openspiel_history(h) for h, *_ in random_hands]
    t0 = time.perf_counter()
    for hands, bids, plays in items:
        osp.replay_spades(hands, bids, plays)
    dt = time.perf_counter() - t0
    rate = len(items) / dt
    print(f"\nreplay_spades throughput: {rate:.0f} replays/s")
    assert rate > 50
