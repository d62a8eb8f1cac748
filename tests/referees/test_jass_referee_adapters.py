"""Self-tests of the Jass referee adapters (jass-kit, pyschieber) against a plain-Python
reference of our rules.  Number of random deals: env JASS_REFEREE_DEALS (default 500)."""
import os
import sys
import time
from collections import Counter

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jass_referees as jr  # noqa: E402

N_DEALS = int(os.environ.get("JASS_REFEREE_DEALS", "500"))
D, H, S, C = 0, 1, 2, 3


def card(s, name):
    return s * 9 + jr.RANK_NAMES.index(name)


# ---------------------------------------------------------------------------------------
# encodings / mappings
# ---------------------------------------------------------------------------------------
def test_jasskit_card_and_seat_mapping():
    from jass.game.const import OBE_ABE, PUSH, UNE_UFE, card_strings, next_player, team
    for c in range(36):
        assert card_strings[jr.to_jk_card(c)] == jr.card_str(c)
        assert jr.from_jk_card(jr.to_jk_card(c)) == c
    for s in range(4):
        # our next seat (s+1) is jass-kit's next player of our seat's image
        assert jr.to_jk_player((s + 1) % 4) == next_player[jr.to_jk_player(s)]
        assert team[jr.to_jk_player(s)] == s % 2
    assert (OBE_ABE, UNE_UFE, PUSH) == (4, 5, 10)


def test_pyschieber_card_mapping():
    from pyschieber.rules.count_rules import count_stich
    from pyschieber.trumpf import Trumpf
    assert len({str(jr.to_ps_card(c)) for c in range(36)}) == 36
    for c in range(36):
        assert jr.from_ps_card(jr.to_ps_card(c)) == c
    # per-card points agree with ours in every mode
    trumpfs = [Trumpf.BELL, Trumpf.ROSE, Trumpf.SHIELD, Trumpf.ACORN, Trumpf.OBE_ABE, Trumpf.UNDE_UFE]
    for m in range(6):
        for c in range(36):
            assert count_stich([jr.to_ps_card(c)], trumpfs[m]) == jr.card_points(c, m)


def test_points_total_157_per_mode():
    for m in range(6):
        assert sum(jr.card_points(c, m) for c in range(36)) + 5 == 157


# ---------------------------------------------------------------------------------------
# the two known quirks, on hand-made positions (raw referee rule calls)
# ---------------------------------------------------------------------------------------
def test_quirk1_jasskit_undertrump_threshold_is_lowest_by_card_number():
    # hearts trump; D-A led, H10 trumped, HA over-trumped; 4th player holds D6 HK HQ S7
    from jass.game.rule_schieber import RuleSchieber
    mode = H
    trick = [card(D, "A"), card(H, "10"), card(H, "A")]
    hand = [card(D, "6"), card(H, "K"), card(H, "Q"), card(S, "7")]
    assert jr.standard_legal(hand, trick, mode) == [card(D, "6")]
    onehot = np.zeros(36, np.int32)
    onehot[jr.to_jk_card(hand)] = 1
    jk_trick = np.array(list(jr.to_jk_card(trick)) + [-1])
    valid = RuleSchieber().get_valid_cards(onehot, jk_trick, 3, mode)
    got = sorted(int(x) for x in jr.from_jk_card(np.flatnonzero(valid)))
    assert got == sorted([card(D, "6"), card(H, "K"), card(H, "Q")])  # undertrumps allowed
    assert got == jr.jasskit_documented_legal(hand, trick, mode)
    assert jr.expected_legal_deviation_jasskit(hand, trick, mode) == (sorted([card(H, "K"), card(H, "Q")]), [])


def test_quirk2_pyschieber_all_trump_hand_must_overtrump():
    from pyschieber.rules.stich_rules import allowed_cards
    from pyschieber.trumpf import Trumpf
    mode = H
    trick = [card(D, "A"), card(H, "10")]
    hand = [card(H, "6"), card(H, "A")]
    assert jr.standard_legal(hand, trick, mode) == sorted(hand)  # only trumps: anything
    got = sorted(jr.from_ps_card(x) for x in allowed_cards([jr.to_ps_card(c) for c in hand],
                                                           [jr.to_ps_card(c) for c in trick], Trumpf.ROSE))
    assert got == [card(H, "A")]
    assert got == jr.pyschieber_documented_legal(hand, trick, mode)
    assert jr.expected_legal_deviation_pyschieber(hand, trick, mode) == ([], [card(H, "6")])


def test_standard_rule_spot_checks():
    # Buur alone need not follow trump
    assert jr.standard_legal([card(C, "J"), card(D, "6")], [card(C, "6")], C) == sorted([card(C, "J"), card(D, "6")])
    # Buur + another trump: must play a trump (either)
    assert jr.standard_legal([card(C, "J"), card(C, "7"), card(D, "6")], [card(C, "6")], C) == \
        sorted([card(C, "J"), card(C, "7")])
    # side suit led: follow or any trump (no trump in the trick)
    assert jr.standard_legal([card(D, "6"), card(C, "7"), card(S, "A")], [card(D, "A")], C) == \
        sorted([card(D, "6"), card(C, "7")])
    # Une-ufe winner: lowest of the led suit
    assert jr.standard_trick_winner_pos([card(D, "A"), card(D, "6"), card(H, "6"), card(D, "7")], 5) == 1
    # Obe-abe winner: highest of the led suit
    assert jr.standard_trick_winner_pos([card(D, "K"), card(D, "6"), card(H, "A"), card(D, "A")], 4) == 3
    # trump order J > 9 > A
    assert jr.standard_trick_winner_pos([card(S, "A"), card(S, "9"), card(S, "J"), card(D, "A")], S) == 2


# ---------------------------------------------------------------------------------------
# random deals: agreement of everything, legal sets differ only by the known quirks
# ---------------------------------------------------------------------------------------
def _diff(ref, std):
    r, s = set(ref), set(std)
    return sorted(r - s), sorted(s - r)


def test_random_deals_against_both_referees(capsys):
    rng = np.random.default_rng(12345)
    stats = Counter()
    t_jk = t_ps = t_std = 0.0
    for i in range(N_DEALS):
        mode = i % 6
        # every 3rd trump-mode deal: one seat gets 5..9 trumps (stresses the undertrump rules)
        heavy = int(rng.integers(5, 10)) if (mode < 4 and (i // 6) % 3 == 0) else None
        stats["heavy_deals"] += heavy is not None
        hands, mode, forehand, plays = jr.random_game(rng, mode=mode, heavy_trumps=heavy)
        pushed = bool(rng.integers(2))
        t0 = time.perf_counter()
        std = jr.standard_replay(hands, mode, forehand, plays)
        t1 = time.perf_counter()
        jk = jr.jasskit_replay(hands, mode, forehand, plays, pushed=pushed)
        t2 = time.perf_counter()
        ps = jr.pyschieber_replay(hands, mode, forehand, plays)
        t3 = time.perf_counter()
        t_std += t1 - t0
        t_jk += t2 - t1
        t_ps += t3 - t2

        assert std["illegal"] == []
        for ref in (jk, ps):
            np.testing.assert_array_equal(ref["seats"], std["seats"])
            np.testing.assert_array_equal(ref["trick_winners"], std["trick_winners"])
            np.testing.assert_array_equal(ref["trick_points"], std["trick_points"])
            np.testing.assert_array_equal(ref["team_points"], std["team_points"])
        assert int(std["trick_points"].sum()) == 157 and int(std["team_points"].sum()) == 157
        assert std["trick_points"][-1] >= 5

        for k in range(36):
            hand, trick = std["states"][k]
            s_leg = std["legal"][k]
            stats["positions"] += 1
            stats[f"positions_mode{mode}"] += 1
            # jass-kit
            dev = _diff(jk["legal"][k], s_leg)
            assert dev == jr.expected_legal_deviation_jasskit(hand, trick, mode), (i, k, hand, trick, mode)
            assert jk["legal"][k] == jr.jasskit_documented_legal(hand, trick, mode)
            if dev != ([], []):
                stats["jasskit_quirk1"] += 1
                stats["jasskit_quirk1_extra_cards"] += len(dev[0])
            # pyschieber
            dev = _diff(ps["legal"][k], s_leg)
            assert dev == jr.expected_legal_deviation_pyschieber(hand, trick, mode), (i, k, hand, trick, mode)
            assert ps["legal"][k] == jr.pyschieber_documented_legal(hand, trick, mode)
            if dev != ([], []):
                stats["pyschieber_quirk2"] += 1
                stats["pyschieber_quirk2_missing_cards"] += len(dev[1])
                if plays[k] in dev[1]:
                    stats["pyschieber_quirk2_played_card_rejected"] += 1
        # jass-kit only ever widens the legal set; pyschieber rejects exactly the quirk plays
        assert jk["illegal"] == []
        assert ps["illegal"] == [k for k in range(36)
                                 if plays[k] in jr.expected_legal_deviation_pyschieber(*std["states"][k], mode)[1]]
        stats["deals_with_q1"] += any(_diff(jk["legal"][k], std["legal"][k]) != ([], []) for k in range(36))
        stats["deals_with_q2"] += any(_diff(ps["legal"][k], std["legal"][k]) != ([], []) for k in range(36))

    with capsys.disabled():
        print(f"\n[jass referees] {N_DEALS} deals ({stats['heavy_deals']} trump-heavy), "
              f"{stats['positions']} positions")
        print(f"  quirk1 jass-kit undertrump threshold: {stats['jasskit_quirk1']} positions "
              f"({stats['deals_with_q1']} deals), {stats['jasskit_quirk1_extra_cards']} extra legal cards")
        print(f"  quirk2 pyschieber forced overtrump : {stats['pyschieber_quirk2']} positions "
              f"({stats['deals_with_q2']} deals), {stats['pyschieber_quirk2_missing_cards']} cards forbidden, "
              f"{stats['pyschieber_quirk2_played_card_rejected']} random plays rejected")
        print(f"  replays/s: plain-python {N_DEALS / t_std:.0f}, jass-kit {N_DEALS / t_jk:.0f}, "
              f"pyschieber {N_DEALS / t_ps:.0f}")
    if N_DEALS >= 500:
        assert stats["jasskit_quirk1"] > 0


def test_adapters_reject_inconsistent_plays():
    rng = np.random.default_rng(7)
    hands, mode, forehand, plays = jr.random_game(rng, mode=2)
    bad = plays.copy()
    bad[[0, 1]] = bad[[1, 0]]  # card now played by the wrong seat
    for fn in (jr.standard_replay, jr.jasskit_replay, jr.pyschieber_replay):
        with pytest.raises(ValueError):
            fn(hands, mode, forehand, bad)
        with pytest.raises(ValueError):
            fn(hands, mode, (forehand + 1) % 4, plays)


def test_jasskit_own_random_loop_smoke():
    pts = jr.jasskit_random_rounds(20, seed=1)
    assert pts.shape == (20, 2) and (pts.sum(axis=1) == 157).all()


def _random_position(rng):
    """Random (hand, trick, mode), biased towards side-suit tricks containing trumps and
    all-trump hands, where the undertrump rules (and both quirks) live.  Played tricks are
    made consistent with our rules (each trick card legal for some completion)."""
    mode = int(rng.integers(6))
    n_trick = int(rng.integers(0, 4))
    n_hand = int(rng.integers(1, 10))
    deck = [int(c) for c in rng.permutation(36)]
    if mode < 4 and rng.random() < 0.5:
        # side-suit lead followed by trumps
        led = [c for c in deck if jr.suit_of(c) != mode][0]
        deck.remove(led)
        tr = [c for c in deck if jr.suit_of(c) == mode]
        k = min(int(rng.integers(0, 3)), n_trick - 1) if n_trick >= 1 else 0
        trick = [led] + tr[:max(k, 0)]
        trick = trick[:max(n_trick, 1)]
        for c in trick:
            if c in deck:
                deck.remove(c)
    else:
        trick = deck[:n_trick]
        deck = deck[n_trick:]
    if mode < 4 and rng.random() < 0.4:
        pool = [c for c in deck if jr.suit_of(c) == mode]
        hand = pool[:n_hand] or deck[:1]
    else:
        hand = deck[:n_hand]
    return sorted(hand), trick, mode


def test_random_positions_raw_rules(capsys):
    """Position-level fuzz of the raw referee rule functions: any legal-set difference
    from standard_legal must be exactly the predicted quirk deviation."""
    rng = np.random.default_rng(2024)
    n = int(os.environ.get("JASS_REFEREE_POSITIONS", "50000"))
    stats = Counter()
    for _ in range(n):
        hand, trick, mode = _random_position(rng)
        std = jr.standard_legal(hand, trick, mode)
        jk = jr.jasskit_legal(hand, trick, mode)
        ps = jr.pyschieber_legal(hand, trick, mode)
        d = _diff(jk, std)
        assert d == jr.expected_legal_deviation_jasskit(hand, trick, mode), (hand, trick, mode, jk, std)
        assert jk == jr.jasskit_documented_legal(hand, trick, mode)
        stats["q1"] += d != ([], [])
        d = _diff(ps, std)
        assert d == jr.expected_legal_deviation_pyschieber(hand, trick, mode), (hand, trick, mode, ps, std)
        assert ps == jr.pyschieber_documented_legal(hand, trick, mode)
        stats["q2"] += d != ([], [])
    with capsys.disabled():
        print(f"\n[jass referees] {n} fuzz positions: quirk1 (jass-kit) {stats['q1']}, "
              f"quirk2 (pyschieber) {stats['q2']}")
    assert stats["q1"] > 0 and stats["q2"] > 0
