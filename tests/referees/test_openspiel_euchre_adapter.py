"""Self-test of the OpenSpiel Euchre referee adapter.

Random hands are played *inside* OpenSpiel (random legal actions), translated
to our neutral form (dealer, deck, actions) with code independent of the
adapter, replayed with ``replay_euchre`` and compared.  A few pure-Python rule
checks (trick winner, follow-suit, scoring formula, lead, turn order) written
in *our* card encoding make sure the card mapping is right, and the documented
scoring / phase quirks are pinned down against the installed binary.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyspiel  # noqa: E402
from openspiel_euchre import (  # noqa: E402
    RefereeIllegalAction,
    card_name,
    deal_state,
    load_game,
    openspiel_score,
    replay_euchre,
    to_os_card,
    to_our_card,
)

EU = pyspiel.euchre


# ---------------------------------------------------------------- helpers ---
def os2ours(c):
    # OpenSpiel: rank*4+suit; ours: suit*6+rank (independent of the adapter).
    return (c % 4) * 6 + c // 4


def same_color(s):
    return {0: 3, 3: 0, 1: 2, 2: 1}[s]


def eff_suit(card, trump):
    s, r = divmod(card, 6)
    if r == 2 and s == same_color(trump):
        return trump
    return s


def power(card, trump, led):
    """Larger wins; 0 for cards that can't win (off-suit, non-trump)."""
    s, r = divmod(card, 6)
    if r == 2 and s == trump:
        return 200
    if r == 2 and s == same_color(trump):
        return 199
    if eff_suit(card, trump) == trump:
        return 100 + r
    if s == led:
        return 1 + r
    return 0


def trick_winner(leader, cards, trump, active):
    led = eff_suit(cards[0], trump)
    seats, p = [], leader
    for _ in cards:
        seats.append(p)
        p = (p + 1) % 4
        while not active[p]:
            p = (p + 1) % 4
    best = max(range(len(cards)), key=lambda i: power(cards[i], trump, led))
    return seats[best]


def legal_follow(hand, led_card, trump):
    if led_card is None:
        return sorted(hand)
    led = eff_suit(led_card, trump)
    follow = [c for c in hand if eff_suit(c, trump) == led]
    return sorted(follow) if follow else sorted(hand)


def play_random_os_hand(rng, stick, lone_def, pass_bias=0.6, prefix=None, dealer=None):
    """Play one hand in OpenSpiel with random legal actions.

    Returns (neutral record, terminal state, legal-before-play list in our ids).
    ``prefix`` optionally forces the first few *player* actions (OpenSpiel ids).
    """
    game = load_game(stick, lone_def)
    st = game.new_initial_state()
    st.apply_action(int(rng.integers(4)) if dealer is None else dealer)
    while st.is_chance_node():
        outs = [a for a, _ in st.chance_outcomes()]
        st.apply_action(int(rng.choice(outs)))
    hist = st.history()
    d = hist[0]
    hands = [[] for _ in range(4)]
    for i, c in enumerate(hist[1:21]):
        hands[(d + i) % 4].append(os2ours(c))
    upcard = os2ours(hist[21])
    kitty = [c for c in range(24) if c not in sum(hands, []) and c != upcard]
    deck = []
    for h in hands:
        deck += list(rng.permutation(h))        # hand order must not matter
    deck += [upcard] + list(rng.permutation(kitty))

    actions, legal_plays, actors = [], [], []
    prefix = list(prefix or [])
    while not st.is_terminal():
        legal = st.legal_actions()
        ph = st.current_phase()
        if prefix:
            a = prefix.pop(0)
            assert a in legal, (a, legal)
        elif ph == EU.Phase.BIDDING and 24 in legal and rng.random() < pass_bias:
            a = 24
        else:
            a = int(rng.choice(legal))
        actors.append(st.current_player())
        if ph == EU.Phase.BIDDING:
            if a == 24:
                actions.append(("pass",))
            elif st.num_passes() < 4:
                actions.append(("order",))
            else:
                actions.append(("call", a - 25))
        elif ph == EU.Phase.DISCARD:
            actions.append(("discard", os2ours(a)))
        elif ph == EU.Phase.GO_ALONE:
            kind = "alone" if st.declarer_go_alone() is None else "defend_alone"
            actions.append((kind, a == 29))
        elif ph == EU.Phase.PLAY:
            actions.append(("play", os2ours(a)))
            legal_plays.append(sorted(os2ours(x) for x in legal))
        else:
            raise AssertionError(ph)
        st.apply_action(a)
    rec = dict(dealer=d, deck=deck, actions=actions, actors=actors)
    return rec, st, legal_plays


def expected_from_state(st, legal_plays):
    played = [t for t in st.tricks() if t.leader() >= 0]
    winners = [t.winner() for t in played]
    tps = [0] * 4
    for w in winners:
        tps[w] += 1
    return dict(
        trick_winners=winners,
        tricks_per_seat=tps,
        returns=list(st.returns()),
        trump=st.trump_suit() if st.trump_suit() >= 0 else None,
        declarer=st.declarer() if st.declarer() >= 0 else None,
        alone=bool(st.declarer_go_alone()),
        legal=legal_plays,
    )


def independent_checks(rec, res, lone_def_allowed):
    """Rule checks in our own encoding (catch mapping errors in both paths)."""
    d, deck, actions = rec["dealer"], rec["deck"], rec["actions"]
    # bidding turn order: forehand first, increasing seat ids
    n_bid = 0
    for a in actions:
        if a[0] in ("pass", "order", "call"):
            n_bid += 1
    assert res["actors"][:n_bid] == [(d + 1 + i) % 4 for i in range(n_bid)]
    if res["declarer"] is None:
        assert res["returns"] == [0.0] * 4 and res["trick_winners"] == []
        assert all(a == ("pass",) for a in actions) and len(actions) == 8
        return
    trump = res["trump"]
    decl = res["declarer"]
    if any(a[0] == "order" for a in actions):
        assert trump == deck[20] // 6
        i = [a[0] for a in actions].index("discard")
        assert res["actors"][i] == d
        assert actions[i][1] != deck[20]             # upcard can't be discarded
    else:
        assert "discard" not in [a[0] for a in actions]
    # go-alone order: declarer, then (optional) defenders from the forehand on
    alone_actors = [p for p, a in zip(res["actors"], actions)
                    if a[0] in ("alone", "defend_alone")]
    assert alone_actors[0] == decl
    defenders = [p for p in ((d + 1 + i) % 4 for i in range(4)) if (p - decl) % 2]
    n_def = len(alone_actors) - 1
    assert alone_actors[1:] == defenders[:n_def]
    if lone_def_allowed:
        lone = [a[1] for a in actions if a[0] == "defend_alone"]
        assert lone in ([True], [False, True], [False, False])
        if lone[-1]:
            assert res["lone_defender"] == defenders[len(lone) - 1]
    else:
        assert n_def == 0
    hands = [set(deck[5 * s:5 * s + 5]) for s in range(4)]
    for a in actions:
        if a[0] == "order":
            hands[d].add(deck[20])
        if a[0] == "discard":
            hands[d].remove(a[1])
    active = [True] * 4
    if res["alone"]:
        active[(decl + 2) % 4] = False
    if res["lone_defender"] is not None:
        assert lone_def_allowed
        active[(res["lone_defender"] + 2) % 4] = False
    n_active = sum(active)
    plays = [a[1] for a in actions if a[0] == "play"]
    play_actors = [p for p, a in zip(res["actors"], actions) if a[0] == "play"]
    assert len(plays) == 5 * n_active
    lead = (d + 1) % 4
    while not active[lead]:
        lead = (lead + 1) % 4
    k = 0
    for t in range(5):
        assert res["trick_leaders"][t] == lead
        cards = plays[k:k + n_active]
        assert res["trick_cards"][t] == cards
        p = lead
        for j, c in enumerate(cards):
            assert play_actors[k + j] == p
            led_card = cards[0] if j else None
            assert res["legal"][k + j] == legal_follow(hands[p], led_card, trump)
            hands[p].remove(c)
            p = (p + 1) % 4
            while not active[p]:
                p = (p + 1) % 4
        w = trick_winner(lead, cards, trump, active)
        assert res["trick_winners"][t] == w
        lead = w
        k += n_active
    makers = res["tricks_per_seat"][decl] + res["tricks_per_seat"][(decl + 2) % 4]
    sc = openspiel_score(makers, res["alone"], res["lone_defender"] is not None)
    exp = [float(sc if (p - decl) % 2 == 0 else -sc) for p in range(4)]
    assert res["returns"] == exp


# ------------------------------------------------------------------ tests ---
def test_card_mapping_roundtrip_and_names():
    for c in range(24):
        assert to_our_card(to_os_card(c)) == c
        assert EU.card_string(to_os_card(c)) == card_name(c)
    assert card_name(0) == "C9" and card_name(23) == "SA" and card_name(14) == "HJ"


@pytest.mark.parametrize("dealer", range(4))
def test_deal_layout(dealer):
    rng = np.random.default_rng(dealer)
    deck = [int(x) for x in rng.permutation(24)]
    st = deal_state(dealer, deck)
    holder = st.card_holder()
    for s in range(4):
        assert sorted(to_our_card(c) for c in range(24) if holder[c] == s) == \
            sorted(deck[5 * s:5 * s + 5])
    assert to_our_card(st.upcard()) == deck[20]
    for c in deck[21:]:
        assert holder[to_os_card(c)] is None
    assert st.current_player() == (dealer + 1) % 4
    assert st.current_phase() == EU.Phase.BIDDING


CONFIGS = [  # (stick_the_dealer, allow_lone_defender, n_hands, pass_bias)
    (True, False, 110, 0.6),
    (False, False, 110, 0.75),
    (True, True, 50, 0.6),
    (False, True, 30, 0.75),
]


@pytest.mark.parametrize("stick,lone_def,n,pass_bias", CONFIGS)
def test_random_hands_replay_identically(stick, lone_def, n, pass_bias):
    rng = np.random.default_rng(1000 + 10 * stick + lone_def)
    seen = dict(round1=0, round2=0, alone=0, lone_def=0, allpass=0)
    for _ in range(n):
        rec, st, legal_plays = play_random_os_hand(rng, stick, lone_def, pass_bias)
        res = replay_euchre(rec["dealer"], np.array(rec["deck"]), rec["actions"],
                            stick_the_dealer=stick, allow_lone_defender=lone_def)
        exp = expected_from_state(st, legal_plays)
        for key, val in exp.items():
            assert res[key] == val, (key, res[key], val, rec)
        assert res["actors"] == rec["actors"]
        assert res["terminal"]
        independent_checks(rec, res, lone_def)
        kinds = [a[0] for a in rec["actions"]]
        seen["round1"] += "order" in kinds
        seen["round2"] += "call" in kinds
        seen["alone"] += res["alone"]
        seen["lone_def"] += res["lone_defender"] is not None
        seen["allpass"] += res["declarer"] is None
    assert seen["round1"] > 0 and seen["round2"] > 0 and seen["alone"] > 0
    if lone_def:
        assert seen["lone_def"] > 0
    if stick:
        assert seen["allpass"] == 0


def _random_deck(seed):
    return [int(x) for x in np.random.default_rng(seed).permutation(24)]


def test_all_pass_without_stick_the_dealer_scores_zero():
    deck = _random_deck(1)
    res = replay_euchre(2, deck, [("pass",)] * 8, stick_the_dealer=False)
    assert res["terminal"] and res["returns"] == [0.0] * 4
    assert res["trump"] is None and res["declarer"] is None and not res["alone"]
    assert res["trick_winners"] == [] and res["tricks_per_seat"] == [0] * 4
    assert res["actors"] == [3, 0, 1, 2, 3, 0, 1, 2]
    # 8th decision (dealer, round 2) offers pass and the 3 non-upcard suits
    up = deck[20] // 6
    assert res["legal_by_step"][7] == [("call", s) for s in range(4) if s != up] + [("pass",)]


def test_stick_the_dealer_forbids_last_pass():
    deck = _random_deck(2)
    with pytest.raises(RefereeIllegalAction):
        replay_euchre(0, deck, [("pass",)] * 8)
    res = replay_euchre(0, deck, [("pass",)] * 7, require_terminal=False)
    up = deck[20] // 6
    assert res["legal_by_step"][0] == [("order",), ("pass",)]
    assert res["legal_by_step"][4] == [("call", s) for s in range(4) if s != up] + [("pass",)]


def test_dealer_cannot_discard_upcard():
    deck = _random_deck(3)
    with pytest.raises(RefereeIllegalAction):
        replay_euchre(1, deck, [("order",), ("discard", deck[20])],
                      require_terminal=False)
    res = replay_euchre(1, deck, [("order",), ("discard", deck[5])],
                        require_terminal=False)
    assert res["actors"] == [2, 1]
    assert res["legal_by_step"][1] == [("discard", c) for c in sorted(deck[5:10])]


def test_wrong_kind_of_action_raises():
    deck = _random_deck(4)
    with pytest.raises(RefereeIllegalAction):
        replay_euchre(0, deck, [("call", 0)], require_terminal=False)
    with pytest.raises(RefereeIllegalAction):
        replay_euchre(0, deck, [("pass",)] * 4 + [("order",)], require_terminal=False)
    with pytest.raises(RefereeIllegalAction):       # hand not finished
        replay_euchre(0, deck, [("order",)])


@pytest.mark.parametrize("dealer", range(4))
def test_dealer_partner_alone_dealer_still_discards(dealer):
    """Dealer's partner orders up and goes alone: discard happens first, by the
    dealer, who then sits out; forehand leads."""
    deck = _random_deck(60 + dealer)
    up_suit = deck[20] // 6
    actions = [("pass",), ("order",)]
    base = replay_euchre(dealer, deck, actions, require_terminal=False)
    assert base["actors"] == [(dealer + 1) % 4, (dealer + 2) % 4]
    disc = sorted(deck[5 * dealer:5 * dealer + 5])[0]
    actions += [("discard", disc), ("alone", True)]
    res = replay_euchre(dealer, deck, actions, require_terminal=False)
    assert res["actors"][2:] == [dealer, (dealer + 2) % 4]
    assert res["trump"] == up_suit and res["declarer"] == (dealer + 2) % 4
    while not res["terminal"]:                      # finish: first legal card
        actions.append(_legal_now(dealer, deck, actions)[0])
        res = replay_euchre(dealer, deck, actions, require_terminal=False)
    assert res["alone"] and len([a for a in actions if a[0] == "play"]) == 15
    assert res["trick_leaders"][0] == (dealer + 1) % 4
    assert dealer not in [p for p, a in zip(res["actors"], actions) if a[0] == "play"]
    independent_checks(dict(dealer=dealer, deck=deck, actions=actions), res, False)


def _legal_now(dealer, deck, actions, **kw):
    """Legal neutral actions after ``actions`` (via the adapter's helpers)."""
    from openspiel_euchre import _neutral_of, _os_of
    st = deal_state(dealer, deck, **kw)
    for i, a in enumerate(actions):
        st.apply_action(_os_of(st, a, i))
    return sorted(_neutral_of(st, x) for x in st.legal_actions())


@pytest.mark.parametrize("dealer", range(4))
def test_lead_skips_forehand_when_it_sits_out(dealer):
    """Forehand's partner (seat dealer+3) calls alone: the forehand sits out and
    the dealer's partner, seat dealer+2, leads the first trick."""
    deck = _random_deck(70 + dealer)
    up = deck[20] // 6
    other = (up + 1) % 4
    actions = [("pass",)] * 6 + [("call", other), ("alone", True)]
    res = replay_euchre(dealer, deck, actions, require_terminal=False)
    assert res["declarer"] == (dealer + 3) % 4 and res["alone"]
    while not res["terminal"]:
        actions.append(_legal_now(dealer, deck, actions)[-1])
        res = replay_euchre(dealer, deck, actions, require_terminal=False)
    assert res["trick_leaders"][0] == (dealer + 2) % 4
    independent_checks(dict(dealer=dealer, deck=deck, actions=actions), res, False)


def test_scoring_table_is_what_the_binary_does():
    """Search random hands until every scoring case has been seen, and check each
    against the documented formula (independent_checks does the arithmetic)."""
    rng = np.random.default_rng(7)
    seen = set()
    for i in range(4000):
        lone_def = i % 2 == 1
        rec, st, lp = play_random_os_hand(rng, True, lone_def, pass_bias=0.5)
        res = replay_euchre(rec["dealer"], rec["deck"], rec["actions"],
                            allow_lone_defender=lone_def)
        independent_checks(rec, res, lone_def)
        d = res["declarer"]
        m = res["tricks_per_seat"][d] + res["tricks_per_seat"][(d + 2) % 4]
        seen.add((min(m, 3) if m < 5 else 5, res["alone"], res["lone_defender"] is not None,
                  res["returns"][d]))
        if len(seen) >= 12:
            break
    # makers' score per (tricks bucket, alone, lone defender)
    assert (0, False, False, -2.0) in seen or (1, False, False, -2.0) in seen \
        or (2, False, False, -2.0) in seen
    for key in seen:
        m, alone, lone, score = key
        assert score == openspiel_score(m, alone, lone)
    assert any(k[1] and k[0] <= 2 and not k[2] for k in seen)   # euchred lone declarer
    assert any(k[2] and k[0] <= 2 for k in seen)                # lone defender euchre


def test_zero_trick_euchre_is_minus_two():
    """No super-euchre: find a hand where the makers take 0 tricks."""
    rng = np.random.default_rng(11)
    for _ in range(5000):
        rec, st, lp = play_random_os_hand(rng, True, False, pass_bias=0.5)
        res = replay_euchre(rec["dealer"], rec["deck"], rec["actions"])
        d = res["declarer"]
        if res["tricks_per_seat"][d] + res["tricks_per_seat"][(d + 2) % 4] == 0:
            assert res["returns"][d] == -2.0 and res["returns"][(d + 1) % 4] == 2.0
            return
    pytest.fail("no zero-trick hand found")
