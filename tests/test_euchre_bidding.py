"""Euchre table bidders (evolve.agents.bidding.euchre_tables) and the bulk tables tool.

Legality of whole deals with every registered bidder is in tests/test_conformance.py
(the ``random`` agent is run with every bidder); here: the Euchre bidding article's figures, the default
linear bidder is the simple bidder bit for bit, honesty (swapping hidden hands changes no
bid), parameter vectors are checked, and ``python -m evolve.tables`` writes consistent
files and rejects bad input with one line and exit code 2.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import evolve
from evolve.agents.bidding import euchre_tables as eb
from evolve.agents.bidding.bidders import BIDDERS
from evolve.agents.registry import AgentSpec, parse_seat
from evolve.core.errors import UsageError
from evolve.games.bits import mask_of
from evolve.games.registry import make_game

TABLE_BIDDERS = ("linear", "group", "profile", "context", "explore", "logic", "logic_profile")
CARD = {f"{f}{s}": i * 6 + r for i, s in enumerate("CDHS") for r, f in enumerate(("9", "10", "J", "Q", "K", "A"))}


def test_every_table_bidder_is_registered_with_a_layout():
    for name in TABLE_BIDDERS:
        assert BIDDERS[name] == eb.KINDS[name] and eb.EUCHRE_TABLE_KINDS[0] <= BIDDERS[name] < eb.EUCHRE_TABLE_KINDS[1]
        layout = eb.LAYOUTS[name]
        for which in eb.start_names(name):
            v = eb.start_vector(name, which)
            assert v.shape == (layout.size,)
            layout.check(v)
        # unused card slots are fixed by their bounds
        if "values" in layout.names:
            a, z = layout.offsets["values"]
            assert np.array_equal(layout.lower[a:z] == layout.upper[a:z], ~eb.USED.ravel())
    assert eb.LAYOUTS["context"].offsets["table"] == (0, 4608)


def test_linear_default_reproduces_spec_expected_tricks():
    # spades trump: right (JS), left (JC), AS, AH (other colour), 9D (other colour)
    hand = mask_of(np.array([CARD["JS"], CARD["JC"], CARD["AS"], CARD["AH"], CARD["9D"]]))
    v = eb.start_vector("linear", "default")
    expected = (32512 + 21129 + 17722 + 15857 + 255) / 32512
    assert eb.hand_value(v, 0, hand, 3) == pytest.approx(expected, abs=1e-12)
    # hearts trump: the same cards are other colour (S, C) and shadow (D): 645 + 645 + 15857 + 359
    # + the trump ace 17722
    assert eb.hand_value(v, 0, hand, 2) == pytest.approx((645 + 645 + 15857 + 17722 + 359) / 32512, abs=1e-12)
    # round 1, the forehand (pos 1) with the 9 of spades turned up: minus half its value
    assert eb.table_round1_value(eb.BID_LINEAR, v, 0, hand, CARD["9S"], 1) == pytest.approx(
        expected - 0.5 * 13833 / 32512, abs=1e-12)


@pytest.mark.parametrize("play", ["random", "cardcounting"])
@pytest.mark.parametrize("options", [{}, {"stick_the_dealer": True, "discard_upcard": False}])
def test_default_linear_bids_exactly_as_simple(play, options):
    a = evolve.play("euchre", f"{play}:bidder=simple", 3000, seed=5, record=True, **options)
    b = evolve.play("euchre", f"{play}:bidder=linear", 3000, seed=5, record=True, **options)
    for f in ("calls", "maker", "alone", "discard", "plays", "score"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


def test_thresholds_by_position_and_options():
    g = make_game("euchre")
    spec = parse_seat("random:bidder=linear,order=150,alone=300", g)
    layout = eb.LAYOUTS["linear"]
    blocks = layout.split(spec.bid_params)
    assert np.allclose(blocks["order_threshold"], 1.5) and np.allclose(blocks["call_threshold"], 2.6)
    assert blocks["alone_threshold"][0] == pytest.approx(3.0)
    # a low order threshold for the dealer only: the dealer orders more often
    p = spec.bid_params.copy()
    a, z = layout.offsets["order_threshold"]
    p[a:z] = [0.0, 5.0, 5.0, 5.0]   # by pos = (seat - dealer) % 4: only the dealer orders
    seat = AgentSpec("x", 0, np.zeros(0), eb.BID_LINEAR, p)
    r = evolve.play("euchre", [seat] * 4, 400, seed=2)
    ordered = r.calls[:, :4] == 5
    assert ordered[:, 3].all() and not ordered[:, :3].any()  # the dealer bids last in round 1
    with pytest.raises(UsageError):
        parse_seat("random:bidder=profile,order=200", g)


@pytest.mark.parametrize("bidder", TABLE_BIDDERS)
def test_bad_parameter_vectors_are_rejected(bidder, tmp_path):
    g = make_game("euchre")
    good = parse_seat(f"random:bidder={bidder}", g).bid_params
    with pytest.raises(UsageError):
        eb.check_params(bidder, good[:-2])
    bad = good.copy()
    bad[-1] = 99.0
    with pytest.raises(UsageError):
        eb.check_params(bidder, bad)
    # the engine refuses a vector of the wrong length
    seat = AgentSpec("x", 0, np.zeros(0), eb.KINDS[bidder], good[:-2] if bidder != "profile" else good[:-1])
    with pytest.raises(ValueError):
        evolve.play("euchre", [seat] * 4, 5, seed=1)
    # bid_genome files: the flat vector or named blocks; wrong sizes are one-line errors
    path = tmp_path / "g.npz"
    np.savez(path, genome=good)
    assert np.array_equal(parse_seat(f"random:bidder={bidder},bid_genome={path}", g).bid_params, good)
    np.savez(path, **eb.LAYOUTS[bidder].split(good)) if bidder != "profile" else np.savez(path, genome=good)
    assert np.array_equal(parse_seat(f"random:bidder={bidder},bid_genome={path}", g).bid_params, good)
    np.savez(path, genome=good[:-2])
    with pytest.raises(UsageError):
        parse_seat(f"random:bidder={bidder},bid_genome={path}", g)


@pytest.mark.parametrize("bidder", ("simple",) + TABLE_BIDDERS)
def test_swapping_hidden_cards_never_changes_a_bid(bidder):
    """The tested seat keeps its hand and the upcard; the other seats' hands and the kitty
    are permuted among themselves. The others bid at random (their streams do not depend
    on their cards), so the public log is the same as long as the tested seat's bids are:
    its order / call / alone decisions and its discard must not change."""
    g = make_game("euchre")
    rng = np.random.default_rng(11)
    seat_str = f"random:bidder={bidder}"
    for tested in range(4):
        seats = ["random:bidder=random"] * 4
        seats[tested] = seat_str
        for _ in range(40):
            deck = rng.permutation(24)
            own = deck[5 * tested:5 * tested + 5]
            up = deck[20]
            hidden = np.concatenate([deck[5 * s:5 * s + 5] for s in range(4) if s != tested] + [deck[21:]])
            results = []
            for k in range(3):
                h = rng.permutation(hidden) if k else hidden
                parts, at = [], 0
                for s in range(4):
                    if s == tested:
                        parts.append(own)
                    else:
                        parts.append(h[at:at + 5])
                        at += 5
                d = np.concatenate(parts + [[up], h[at:]])
                r = evolve.play(g, seats, decks=d[None, :], dealer=3, seed=4)
                mine = int(r.maker[0]) == tested
                results.append((r.calls[0].tolist(), int(r.maker[0]), int(r.alone[0]) if mine else -1,
                                int(r.discard[0]) if tested == 3 else -1))
            assert results[0] == results[1] == results[2], (bidder, tested, results)


def _run_tables(args, cwd):
    return subprocess.run([sys.executable, "-m", "evolve.tables", *args], capture_output=True, text=True, cwd=cwd)


def test_tables_tool_writes_consistent_files(tmp_path):
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = tmp_path / "t.npz"
    p = _run_tables(["euchre", "--play", "cardcounting", "--deals", "20000", "--seed", "3", "--out", str(out)], root)
    assert p.returncode == 0, p.stderr
    with np.load(out, allow_pickle=False) as z:
        t = {k: z[k] for k in z.files}
    meta = json.loads(out.with_suffix(".json").read_text())
    for k in ("command", "play", "bidder", "deals", "seed", "smoothing", "date", "version"):
        assert k in meta
    assert meta["deals"] == 20000 and meta["play"] == "cardcounting" and "--deals 20000" in meta["command"]
    for k in ("group_all", "group_maker"):
        assert t[k].shape == (3, 8)
        assert ((t[k] >= 0) & (t[k] <= 1)).all()
        assert (t[k][~eb.USED] == 0).all() and t[k][2, 7] == 1.0   # the right bower always wins
        assert (t[k + "_n"][eb.USED] > 0).all()
    assert t["context"].shape == eb.CONTEXT_SHAPE and ((t["context"] >= 0) & (t["context"] <= 1)).all()
    assert t["context_n"].sum() == t["group_maker_n"].sum() and (t["context_w"] <= t["context_n"]).all()
    # every played deal: 5 maker cards; all active seats' cards: 20 or 15 per deal
    assert t["group_maker_n"].sum() % 5 == 0
    assert t["profiles"].shape == (eb.K_PROFILES, 3) and t["outcome"].shape == (eb.K_PROFILES, 8, 3)
    assert (np.abs(t["outcome"]) <= 4).all()
    for name in ("linear", "group", "profile", "context"):
        eb.LAYOUTS[name].check(t[f"start_{name}"])
    # the bidders play whole deals from these vectors
    g = make_game("euchre")
    for name in ("linear", "group", "profile", "context"):
        seat = AgentSpec(name, 0, np.zeros(0), eb.KINDS[name], t[f"start_{name}"])
        r = evolve.play(g, [seat, "random", seat, "random"], 200, seed=1)
        assert r.n_deals == 200


@pytest.mark.parametrize("args,needle", [
    (["spades"], "games with them: euchre"),
    (["euchre", "--deals", "0"], "--deals"),
    (["euchre", "--epsilon", "2"], "--epsilon"),
    (["euchre", "--bidder", "nope"], "--bidder"),
    (["euchre", "--play", "nope"], "unknown agent"),
    (["euchre", "--out", "x.txt"], ".npz"),
])
def test_tables_tool_bad_input_is_one_line(args, needle, tmp_path):
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = _run_tables(args, root)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


def _logic_reference(card: int, trump: int, hand: list[int], unseen: list[int], boost: float, near: float) -> float:
    """System 1's probability written out with math.comb (the formula of
    docs/explanation/search-and-learnt-agents.md)."""
    from math import comb

    def suit(c):
        return trump if eb.rel_index(c, trump) >= 16 else c // 6

    n, s = len(unseen), suit(card)
    h = sum(1 for c in unseen if suit(c) == s and eb.rel_index(c, trump) > eb.rel_index(card, trump))
    p = comb(n - h, 10) / comb(n, 10)
    if s != trump:
        n_s = sum(1 for c in unseen if suit(c) == s)
        n_t = sum(1 for c in unseen if suit(c) == trump)
        q = (comb(n - n_s, 5) - comb(n - n_s - n_t, 5)) / comb(n, 5)
        return p * (1 - q) ** 2
    held = [sum(1 for c in hand if suit(c) == x) for x in range(4) if x != trump]
    v = sum(1.0 if k == 0 else near if k == 1 else 0.0 for k in held)
    return p + (1 - p) * (1 - (1 - boost) ** v)


def test_logic_system_1_probabilities_follow_the_formula():
    rng = np.random.default_rng(5)
    for _ in range(30):
        deck = rng.permutation(24)
        hand, up = [int(c) for c in deck[:5]], int(deck[20])
        trump = int(rng.integers(4))
        unseen = [c for c in range(24) if c not in hand and c != up]
        boost, near = float(rng.uniform()), float(rng.uniform())
        params = eb.LAYOUTS["logic"].join({"void_boost": [boost], "near_void": [near], "order_threshold": [2.6] * 4,
                                           "call_threshold": [2.6] * 4, "alone_threshold": [4.2]})
        mask = mask_of(np.array(hand))
        total = 0.0
        for c in hand:
            want = _logic_reference(c, trump, hand, unseen, boost, near)
            got = eb.logic_card_prob(c, trump, mask, mask_of(np.array(unseen)), boost, near)
            assert got == pytest.approx(want, abs=1e-12)
            total += want
        assert eb.logic_hand_value(params, 0, mask, trump, eb.bit(up)) == pytest.approx(total, abs=1e-12)
    # the right bower always wins; a void boosts a low trump, never a side card
    hand = [CARD["JS"], CARD["9S"], CARD["AH"], CARD["KH"], CARD["QH"]]    # void in clubs and diamonds
    unseen = mask_of(np.array([c for c in range(24) if c not in hand]))
    m = mask_of(np.array(hand))
    assert eb.logic_card_prob(CARD["JS"], 3, m, unseen, 0.5, 0.5) == 1.0
    assert eb.logic_card_prob(CARD["9S"], 3, m, unseen, 0.5, 0.5) > eb.logic_card_prob(CARD["9S"], 3, m, unseen, 0.0,
                                                                                         0.5) + 0.5
    assert eb.logic_card_prob(CARD["AH"], 3, m, unseen, 0.5, 0.5) == eb.logic_card_prob(CARD["AH"], 3, m, unseen, 0.0,
                                                                                         0.0)


def test_logic_bidders_ship_bulk_starts_and_bid_by_their_values():
    """System 1's bulk start keeps the logic's boosts with thresholds fitted in bulk play;
    system 2's profiles are system 1's group totals; both bid differently from the others."""
    v = eb.start_vector("logic", "bulk")
    blocks = eb.LAYOUTS["logic"].split(v)
    assert list(blocks["void_boost"]) == [eb.LOGIC_DEFAULTS[0]] and list(blocks["near_void"]) == [eb.LOGIC_DEFAULTS[1]]
    assert not np.allclose(blocks["order_threshold"], eb.SIMPLE_THRESHOLDS[0])
    assert eb.start_vector("logic") .shape == v.shape            # auto = bulk
    p = eb.LAYOUTS["logic_profile"].split(eb.start_vector("logic_profile"))
    assert p["profiles"].shape == (eb.K_PROFILES, 3) and p["profiles"][:, 2].max() <= 5.0
    calls = {b: evolve.play("euchre", f"cardcounting:bidder={b}", 2000, seed=3).calls
             for b in ("logic", "logic_profile", "linear", "profile")}
    for a in calls:
        for b in calls:
            assert a == b or not np.array_equal(calls[a], calls[b]), (a, b)
    # the dealer sheds its least likely winner: a six-card hand's worst card under system 1
    h6 = mask_of(np.array([CARD[c] for c in ("JS", "AS", "9H", "AD", "KC", "9S")]))
    assert eb.logic_worst_card(v, 0, h6, 3) == CARD["9H"]
