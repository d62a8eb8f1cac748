"""Our Jass (Schieber) engine checked against two independent referees.

Deals are played by the Numba engine (``evolve.play("jass", ..., record=True)``) and every
deal is replayed, card by card, through

* jass-kit 2.0.5 (``jass`` package; primary referee): ``GameSim`` + ``RuleSchieber``;
* pyschieber 1.3.2 (second opinion): ``stich_rules``, ``allowed_cards``, ``count_stich``;

via the adapters in ``tests/referees/jass_referees.py`` (encodings and seat maps are
documented and self-tested there).  Per deal we require exact agreement of trick winners,
points of every trick, points per side (157, or 257 when a side takes all nine tricks and
``match_bonus`` is on -- neither referee implements the match bonus, so the +100 is checked
against the referee's trick winners), tricks per seat, the hand score (``multipliers``), and
the trump-choice flow (calls, push, declarer, forehand) against jass-kit's ``action_trump``.

Legal-move sets
---------------
At every one of the 36 plays of every deal our legal set (``TrickState.legal()``, i.e. the
engine's ``hooks.legal_cards``) is compared with jass-kit's and pyschieber's legal sets, and
with the adapters' plain-Python ``standard_legal`` (the rule as we specify it).  The two
referees deviate from the standard rule in two known, documented ways, and a difference
between us and a referee is accepted ONLY if it is exactly that referee's quirk:

1. jass-kit, ``jass/game/rule_schieber.py:83-103`` (used at lines 135-147): in a trick led
   with a side suit that already contains trumps, the undertrump threshold
   ``lowest_trump_played`` is the trump with the *largest card index* (line 98:
   ``if lowest_trump_played < current_trick[2]``), i.e. the trump lowest in plain A..6 order,
   not the highest trump of the trick by trump order.  With two trumps in the trick where
   the plain-lower one is not the winning trump (e.g. T10 then TA), jass-kit lets the 4th
   player undertrump with trumps ranking between the two.  It only ever ALLOWS extra cards.
2. pyschieber, ``pyschieber/rules/stich_rules.py:76-87`` (``does_under_trumpf``, called
   from ``card_allowed`` at lines 65-67): when the hand holds only trumps it still forbids
   every trump that does not beat the trick as long as some trump in hand could beat it,
   i.e. an all-trump hand is FORCED TO OVERTRUMP, whereas the standard rule lets it play any
   trump.  It only ever FORBIDS cards.

For each difference we require: referee set == ``jasskit_documented_legal`` /
``pyschieber_documented_legal`` (the adapters' re-implementation of the buggy rule) AND the
(extra, missing) cards == ``expected_legal_deviation_jasskit`` / ``_pyschieber`` (closed-form
predictions written independently), with the sign above (jass-kit: only extra cards;
pyschieber: only missing cards).  Where we agree with a referee, the predicted deviation
must be empty.  Any other difference fails.  Random plays rarely reach the all-trump
case, so ``test_legality_fuzz_single_trick`` also compares our legality on many random
single-trick positions (biased toward trump-heavy hands) against both referees.

Deal counts are the constants below; the quirk counts are printed (run with ``-s``).
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter

import numpy as np
import pytest

import evolve
from evolve.games.stepper import TrickState

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "referees"))
import jass_referees as jr  # noqa: E402

pytest.importorskip("jass.game.game_sim")
pytest.importorskip("pyschieber.rules.stich_rules")

# ---------------------------------------------------------------------------------------
# sizes (the main corpus is replayed in full through BOTH referees)
# ---------------------------------------------------------------------------------------
# (label, seats, n_deals, seed, first dealer, options)
RANDOM = ["random:bidder=random"] * 4
SIMPLE = ["random:bidder=simple"] * 4
MIXED = ["random:bidder=simple", "random:bidder=random", "random:bidder=simple", "random:bidder=random"]
BATCHES = [
    ("random", RANDOM, 3000, 101, 0, dict()),
    ("random+match", RANDOM, 3000, 102, 1, dict(match_bonus=True)),
    ("random+match+mult", RANDOM, 2000, 103, 2, dict(match_bonus=True, multipliers=True)),
    ("mixed+mult", MIXED, 1000, 104, 3, dict(multipliers=True)),
    ("simple+match", SIMPLE, 1000, 105, 0, dict(match_bonus=True)),
]
N_MAIN_DEALS = sum(b[2] for b in BATCHES)  # 10,000
MIN_DEALS_PER_MODE = 1000
# extra deals where the forehand holds a whole suit (many nine-trick sweeps -> 257)
N_SWEEP_DEALS = 400
MIN_SWEEPS = 100
# random single-trick positions for the legality fuzz test
N_FUZZ_POSITIONS = 30_000
MIN_FUZZ_QUIRKS = 200  # each referee quirk must actually be exercised by the fuzz

PUSH = 6
MULT = (1, 1, 2, 2, 3, 3)
GAME = evolve.make_game("jass")


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _check_legal_vs_referee(name, ours, ref, hand, trick, mode, stats, where):
    """Accept a difference only if it is exactly the referee's documented quirk."""
    if name == "jass-kit":
        documented, expected = jr.jasskit_documented_legal, jr.expected_legal_deviation_jasskit
    else:
        documented, expected = jr.pyschieber_documented_legal, jr.expected_legal_deviation_pyschieber
    pred_extra, pred_missing = expected(hand, trick, mode)
    if ours == ref:
        assert not pred_extra and not pred_missing, (
            f"{where}: {name} agrees with us but its quirk predicts a deviation "
            f"(extra {pred_extra}, missing {pred_missing}); hand {hand} trick {trick} mode {mode}")
        return
    extra = sorted(set(ref) - set(ours))
    missing = sorted(set(ours) - set(ref))
    ctx = (f"{where}: legal sets differ, mode {mode}, hand {[jr.card_str(c) for c in hand]}, "
           f"trick {[jr.card_str(c) for c in trick]}: ours {ours}, {name} {ref}")
    assert ref == documented(hand, trick, mode), ctx + " (not the documented quirk)"
    assert (extra, missing) == (pred_extra, pred_missing), ctx + " (deviation not as predicted)"
    if name == "jass-kit":
        assert extra and not missing, ctx + " (jass-kit's quirk only allows extra cards)"
        stats["jk quirk positions"] += 1
        stats["jk quirk extra cards"] += len(extra)
    else:
        assert missing and not extra, ctx + " (pyschieber's quirk only forbids cards)"
        stats["ps quirk positions"] += 1
        stats["ps quirk forbidden cards"] += len(missing)


def _replay_ours(r, i):
    """Replay deal i with TrickState: legal sets, (hand, trick) per play, trick winners and
    per-trick points (from the engine's side-point counters)."""
    mode, fh = int(r.trump[i]), int(r.first_leader[i])
    s = TrickState(GAME, r.hands[i], mode, fh, dealer=int(r.dealer[i]))
    held = [set(h.tolist()) for h in r.hands[i]]
    legal, states, seats, tpoints = [], [], [], []
    prev = 0
    for k, c in enumerate(r.plays[i]):
        seat = s.to_move
        states.append((sorted(held[seat]), [x for _, x in s.trick()]))
        legal.append(s.legal())
        seats.append(seat)
        s.play(int(c))  # raises if the engine played a card our own rule forbids
        held[seat].remove(int(c))
        if k % 4 == 3:
            tot = sum(s.side_points)
            tpoints.append(tot - prev)
            prev = tot
    assert s.done
    return dict(legal=legal, states=states, seats=np.array(seats), winners=np.array(s.trick_winners),
                trick_points=np.array(tpoints), side_points=np.array(s.side_points),
                history=s.history())


def _check_trump_flow(r, i):
    """calls / maker / forehand consistent with our rules AND with jass-kit's trump flow
    (GameSim.action_trump, game_sim.py:67-86), starting from our dealer."""
    from jass.game.const import PUSH as JK_PUSH
    from jass.game.const import next_player
    from jass.game.game_sim import GameSim
    from jass.game.rule_schieber import RuleSchieber

    dealer, fh, mode, maker = int(r.dealer[i]), int(r.first_leader[i]), int(r.trump[i]), int(r.maker[i])
    c0, c1 = int(r.calls[i, 0]), int(r.calls[i, 1])
    assert fh == (dealer + 1) % 4, f"deal {i}: forehand {fh} is not the seat after dealer {dealer}"
    assert 0 <= c0 <= PUSH and 0 <= mode <= 5
    assert (r.calls[i, 2:] == -1).all()
    pushed = c0 == PUSH
    if pushed:
        assert 0 <= c1 <= 5 and mode == c1 and maker == (fh + 2) % 4, f"deal {i}: push flow {r.calls[i]} maker {maker}"
    else:
        assert c1 == -1 and mode == c0 and maker == fh, f"deal {i}: direct call {r.calls[i]} maker {maker}"
    assert r.leaders[i, 0] == fh, f"deal {i}: the forehand must lead trick 1 (pushed={pushed})"

    sim = GameSim(rule=RuleSchieber())
    hands = np.zeros((4, 36), np.int32)
    for s in range(4):
        hands[int(jr.to_jk_player(s)), jr.to_jk_card(r.hands[i, s])] = 1
    jk_dealer = int(jr.to_jk_player(dealer))
    sim.init_from_cards(hands, jk_dealer)
    assert int(jr.from_jk_player(sim.state.player)) == fh  # jass-kit: forehand = next_player[dealer]
    if pushed:
        sim.action_trump(JK_PUSH)
        assert int(jr.from_jk_player(sim.state.player)) == maker  # partner declares
    sim.action_trump(mode)
    st = sim.state
    assert int(jr.from_jk_player(st.declared_trump)) == maker, f"deal {i}: declarer differs from jass-kit"
    assert int(st.forehand) == (0 if pushed else 1)
    assert int(jr.from_jk_player(st.player)) == fh == int(jr.from_jk_player(st.trick_first_player[0]))
    assert st.player == next_player[jk_dealer]
    return pushed


def _check_deal(r, i, opts, stats, with_ps=True):
    mode, fh = int(r.trump[i]), int(r.first_leader[i])
    hands, plays = r.hands[i], r.plays[i]
    where = f"deal {i} (seed {r.seed}, mode {mode}, forehand {fh})"
    assert sorted(hands.ravel().tolist()) == list(range(36)), where
    pushed = _check_trump_flow(r, i)
    ours = _replay_ours(r, i)
    jk = jr.jasskit_replay(hands, mode, fh, plays, pushed=pushed)
    refs = [("jass-kit", jk)]
    if with_ps:
        refs.append(("pyschieber", jr.pyschieber_replay(hands, mode, fh, plays)))

    # engine record vs step-by-step replay on the same Numba rules
    assert (r.winners[i] == ours["winners"]).all(), where
    assert r.leaders[i, 0] == fh and (r.leaders[i, 1:] == r.winners[i, :-1]).all(), where
    assert [h[0] for h in ours["history"]] == r.leaders[i].tolist(), where

    for name, ref in refs:
        assert (ref["seats"] == ours["seats"]).all(), f"{where}: seat order differs from {name}"
        assert (ref["trick_winners"] == r.winners[i]).all(), (
            f"{where}: trick winners ours {r.winners[i].tolist()} {name} {ref['trick_winners'].tolist()}")
        assert (ref["trick_points"] == ours["trick_points"]).all(), (
            f"{where}: trick points ours {ours['trick_points'].tolist()} {name} {ref['trick_points'].tolist()}")
        assert (ref["team_points"] == ours["side_points"]).all(), where
    base = jk["team_points"]
    assert base.sum() == 157, where
    tricks_seat = np.bincount(jk["trick_winners"], minlength=4)
    assert (r.tricks[i] == tricks_seat).all(), f"{where}: tricks per seat {r.tricks[i]} vs {tricks_seat}"
    side_tricks = tricks_seat[[0, 1]] + tricks_seat[[2, 3]]
    expect = base.copy()
    if opts.get("match_bonus"):
        expect[side_tricks == 9] += 100
    if (side_tricks == 9).any():
        stats["sweeps"] += 1
    assert (r.points[i] == expect).all(), f"{where}: points {r.points[i]} expected {expect} (tricks {side_tricks})"
    assert r.points[i].sum() == (257 if opts.get("match_bonus") and (side_tricks == 9).any() else 157), where
    mult = MULT[mode] if opts.get("multipliers") else 1
    assert (r.score[i] == r.points[i] * mult).all(), f"{where}: score {r.score[i]} points {r.points[i]} x{mult}"

    # legality at every play: our engine never played a card illegal under the standard rule;
    # jass-kit's quirk only allows more, so it must accept every play of ours.
    assert jk["illegal"] == [], f"{where}: jass-kit rejects plays {jk['illegal']}"
    for k in range(36):
        hand, trick = ours["states"][k]
        lg = ours["legal"][k]
        assert lg == jr.standard_legal(hand, trick, mode), f"{where}, play {k}: ours {lg} vs standard"
        for name, ref in refs:
            _check_legal_vs_referee(name, lg, ref["legal"][k], hand, trick, mode, stats, f"{where}, play {k}")
        stats["positions"] += 1
    if with_ps:
        ps = refs[1][1]
        for k in ps["illegal"]:
            # pyschieber would reject our play: only allowed where its quirk forbids that card
            hand, trick = ours["states"][k]
            assert int(plays[k]) in jr.expected_legal_deviation_pyschieber(hand, trick, mode)[1], where
            stats["ps quirk: our play rejected"] += 1
    stats["deals"] += 1
    stats[f"deals mode {mode}"] += 1
    stats["pushed deals"] += pushed


# ---------------------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def main_corpus():
    out = []
    for label, seats, n, seed, d0, opts in BATCHES:
        r = evolve.play("jass", seats, n, seed=seed, record=True, dealer=d0, **opts)
        assert (r.dealer == (d0 + np.arange(n)) % 4).all(), f"{label}: dealers do not rotate"
        out.append((label, r, opts))
    return out


def _sweep_hands(rng, n, d0):
    """Deals where the forehand of each deal holds one complete suit."""
    hands = np.empty((n, 4, 9), np.int64)
    for i in range(n):
        fh = (d0 + i + 1) % 4
        s = int(rng.integers(4))
        rest = rng.permutation([c for c in range(36) if c // 9 != s])
        others = [s2 for s2 in range(4) if s2 != fh]
        hands[i, fh] = np.arange(9 * s, 9 * s + 9)
        for j, seat in enumerate(others):
            hands[i, seat] = np.sort(rest[9 * j:9 * j + 9])
    return hands


# ---------------------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------------------
def test_modes_and_push_coverage(main_corpus):
    trump = np.concatenate([r.trump for _, r, _ in main_corpus])
    per_mode = np.bincount(trump, minlength=6)
    print(f"\n[jass referee] deals per mode D,H,S,C,Obe,Une: {per_mode.tolist()} (total {trump.size})")
    assert trump.size == N_MAIN_DEALS >= 10_000
    assert (per_mode >= MIN_DEALS_PER_MODE).all(), per_mode
    for label, r, _ in main_corpus:
        pushed = r.calls[:, 0] == PUSH
        assert pushed.any() and (~pushed).any(), f"{label}: push never/always chosen"
        assert set(np.unique(r.dealer).tolist()) == {0, 1, 2, 3}


def test_engine_matches_referees(main_corpus):
    """All N_MAIN_DEALS deals through jass-kit and pyschieber, every trick and every play."""
    t0 = time.perf_counter()
    stats: Counter = Counter()
    for label, r, opts in main_corpus:
        for i in range(r.n_deals):
            _check_deal(r, i, opts, stats)
    dt = time.perf_counter() - t0
    print(f"\n[jass referee] {stats['deals']} deals ({stats['pushed deals']} pushed, {stats['sweeps']} sweeps), "
          f"{stats['positions']} positions through jass-kit + pyschieber in {dt:.1f}s")
    print(f"[jass referee] per mode: {[stats[f'deals mode {m}'] for m in range(6)]}")
    print(f"[jass referee] quirks in play: jass-kit {stats['jk quirk positions']} positions "
          f"(+{stats['jk quirk extra cards']} cards), pyschieber {stats['ps quirk positions']} positions "
          f"(-{stats['ps quirk forbidden cards']} cards, {stats['ps quirk: our play rejected']} of our plays rejected)")
    assert stats["deals"] == N_MAIN_DEALS
    assert stats["positions"] == 36 * N_MAIN_DEALS
    # random play in 10k deals reaches jass-kit's quirk (two trumps in a side-suit trick)
    assert stats["jk quirk positions"] > 0


def test_match_bonus_sweeps():
    """Forehand holds a whole suit: in its suit's trump mode, Obe and Une it takes all nine
    tricks (257 with match_bonus); other modes are whatever play gives.  Both referees."""
    rng = np.random.default_rng(7)
    d0 = 2
    hands = _sweep_hands(rng, N_SWEEP_DEALS, d0)
    opts = dict(match_bonus=True, multipliers=True)
    r = evolve.play("jass", RANDOM, seed=9, hands=hands, dealer=d0, record=True, **opts)
    assert (r.hands == hands).all()
    stats: Counter = Counter()
    forced = 0
    for i in range(r.n_deals):
        _check_deal(r, i, opts, stats)
        fh, mode = int(r.first_leader[i]), int(r.trump[i])
        suit = int(hands[i, fh, 0]) // 9
        if mode in (suit, 4, 5):
            forced += 1
            assert r.tricks[i, fh] == 9 and r.points[i, fh % 2] == 257 and r.points[i, 1 - fh % 2] == 0
    print(f"\n[jass referee] sweep deals: {r.n_deals}, sweeps {stats['sweeps']} ({forced} forced)")
    assert stats["sweeps"] >= MIN_SWEEPS


def _random_position(rng):
    """A random single-trick position biased toward trump-heavy hands and trumped tricks.
    Returns (mode, trick cards, hand)."""
    mode = int(rng.integers(4)) if rng.random() < 0.85 else int(rng.integers(4, 6))
    n_trick = int(rng.choice(4, p=[0.1, 0.25, 0.3, 0.35]))
    avail = set(range(36))

    def pick(pred):
        pool = sorted(c for c in avail if pred(c))
        if not pool:
            return None
        c = int(pool[int(rng.integers(len(pool)))])
        avail.discard(c)
        return c

    trick = []
    if n_trick:
        if mode < 4 and rng.random() < 0.75:
            lead = pick(lambda c: c // 9 != mode)
        else:
            lead = pick(lambda c: True)
        trick.append(lead)
        for _ in range(n_trick - 1):
            if mode < 4 and rng.random() < 0.6:
                c = pick(lambda c: c // 9 == mode)
            else:
                c = None
            trick.append(c if c is not None else pick(lambda c: True))
    k = int(rng.integers(1, 10))
    u = rng.random()
    p_trump = 1.0 if u < 0.4 else (0.8 if u < 0.6 else 0.4)
    hand = []
    for _ in range(k):
        c = None
        if mode < 4 and rng.random() < p_trump:
            c = pick(lambda c: c // 9 == mode)
        if c is None and trick and rng.random() < 0.3:
            c = pick(lambda c: c // 9 == trick[0] // 9)
        if c is None and (mode >= 4 or p_trump < 1.0):
            c = pick(lambda c: c // 9 != mode)
        if c is None:
            continue
        hand.append(c)
    if not hand:
        hand.append(pick(lambda c: True))
    return mode, trick, sorted(hand)


def _our_legal(mode, trick, hand, leader):
    """Our legality through TrickState (hooks.legal_cards): the trick cards are played from
    one-card hands (always legal), then the mover's legal set is read."""
    hands = [[] for _ in range(4)]
    for q, c in enumerate(trick):
        hands[(leader + q) % 4] = [c]
    mover = (leader + len(trick)) % 4
    hands[mover] = hand
    s = TrickState(GAME, hands, mode, leader)
    for c in trick:
        s.play(c)
    assert s.to_move == mover and [x for _, x in s.trick()] == trick
    return s.legal()


def test_legality_fuzz_single_trick():
    rng = np.random.default_rng(2024)
    stats: Counter = Counter()
    t0 = time.perf_counter()
    for n in range(N_FUZZ_POSITIONS):
        mode, trick, hand = _random_position(rng)
        ours = _our_legal(mode, trick, hand, int(rng.integers(4)))
        where = f"fuzz position {n}"
        assert ours == jr.standard_legal(hand, trick, mode), (
            f"{where}: ours {ours} standard {jr.standard_legal(hand, trick, mode)}; mode {mode} trick {trick} hand "
            f"{hand}")
        assert ours and set(ours) <= set(hand)
        _check_legal_vs_referee("jass-kit", ours, jr.jasskit_legal(hand, trick, mode), hand, trick, mode, stats, where)
        _check_legal_vs_referee("pyschieber", ours, jr.pyschieber_legal(hand, trick, mode), hand, trick, mode,
                                stats, where)
        stats["positions"] += 1
        if mode < 4 and hand and all(c // 9 == mode for c in hand):
            stats["all-trump hands"] += 1
    dt = time.perf_counter() - t0
    print(f"\n[jass referee] fuzz: {stats['positions']} positions ({stats['all-trump hands']} all-trump hands) "
          f"in {dt:.1f}s; jass-kit quirk {stats['jk quirk positions']} positions "
          f"(+{stats['jk quirk extra cards']} cards), pyschieber quirk {stats['ps quirk positions']} positions "
          f"(-{stats['ps quirk forbidden cards']} cards)")
    assert stats["jk quirk positions"] >= MIN_FUZZ_QUIRKS
    assert stats["ps quirk positions"] >= MIN_FUZZ_QUIRKS
