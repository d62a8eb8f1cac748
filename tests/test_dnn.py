"""The three-head network (``python -m evolve.dnn``) and the agents on its heads: P-DMCTS /
P-ISMCTS (determinizations drawn through the card-distribution head), ``dnn`` (the policy
head) and ``maxvalue`` on its value head."""

from __future__ import annotations

import numpy as np
import pytest

import evolve
import evolve.agents.search.register  # noqa: F401
from evolve.agents.registry import parse_seat
from evolve.agents.search.card_search import drawn_deals
from evolve.agents.search.value_net import (
    N_HOLDERS,
    N_KNOWN,
    ValueNet,
    features_into,
    load_value,
    n_features,
    n_known_features,
    policy_card,
    save_value,
    value_of,
)
from evolve.core.errors import UsageError
from evolve.games.hooks import legal_cards, result_scale
from evolve.games.registry import make_game
from evolve.games.state import VOIDS
from evolve.games.stepper import TrickState
from evolve.learn.dnn import train_dnn
from evolve.learn.value import recorded_positions


@pytest.fixture(scope="module")
def small_net():
    """A small three-head Jass network trained on rule-based deals."""
    return train_dnn(make_game("jass"), "jass_rule_based", 600, seed=4, hidden=16, epochs=6, lr=0.01)


def test_training_is_reproducible_from_its_seed(small_net):
    again = train_dnn(make_game("jass"), "jass_rule_based", 600, seed=4, hidden=16, epochs=6, lr=0.01)
    for key in ("w1", "b1", "w2", "wc", "bc", "wp", "bp"):
        assert np.array_equal(getattr(small_net, key), getattr(again, key)), key
    other = train_dnn(make_game("jass"), "jass_rule_based", 600, seed=5, hidden=16, epochs=6, lr=0.01)
    assert not np.array_equal(small_net.w1, other.w1)


def test_training_does_not_depend_on_the_workers():
    g = make_game("sueca")
    one = train_dnn(g, "random", 40, seed=2, hidden=8, epochs=1, workers=1)
    two = train_dnn(g, "random", 40, seed=2, hidden=8, epochs=1, workers=2)
    assert np.array_equal(one.wc, two.wc) and np.array_equal(one.w1, two.w1)


def test_the_heads_learn_something(small_net):
    """On held-out deals the card head beats guessing uniformly among the places and the
    policy head predicts the rule-based player's card far above chance."""
    m = small_net.meta
    assert m["held_out"]["card_accuracy"] > m["card_accuracy_uniform"] + 0.02
    assert m["held_out"]["policy_accuracy"] > 0.5


@pytest.mark.parametrize("game_name", ["jass", "euchre", "spades", "sueca"])
def test_replayed_targets_are_the_true_holders(game_name):
    """Every unseen card's target is the place that really held it, seen cards are masked,
    and the actions are legal cards of the seat's hand."""
    g = make_game(game_name)
    r = evolve.play(g, "random", 12, seed=8, record=True)
    d = recorded_positions(g, "random", 12, 8, int(n_known_features(g.rules)), targets=True)
    n_cards = g.info.n_cards
    row = 0
    for i in range(12):
        if r.trump[i] < 0:
            continue
        out = (int(r.maker[i]) + 2) % 4 if r.alone[i] else -1
        n_active = 3 if out >= 0 else 4
        plays = r.plays[i, :n_active * g.info.n_tricks].astype(int)
        start = [set() for _ in range(4)]
        # who played each card is who held it (cards never played are out of play)
        seats = []
        for t in range(g.info.n_tricks):
            seat = int(r.leaders[i, t])
            for q in range(n_active):
                seats.append(seat)
                start[seat].add(int(plays[t * n_active + q]))
                seat = (seat + 1) % 4
                if seat == out:
                    seat = (seat + 1) % 4
        played = set()
        for k, c in enumerate(plays):
            s = seats[k]
            hand = start[s] - played
            targets = d["holders"][row]
            for card in range(n_cards):
                if card in hand or card in played:
                    assert targets[card] == -1
                else:
                    where = [r_ for r_ in range(1, 4) if card in start[(s + r_) % 4]]
                    assert targets[card] == (where[0] - 1 if where else N_HOLDERS - 1)
            assert d["actions"][row] == c and int(d["legals"][row]) & (1 << int(c))
            assert int(d["legals"][row]) & ~sum(1 << x for x in hand) == 0
            played.add(int(c))
            row += 1
    assert row == len(d["y"])


def test_known_features_and_forward_passes_match_numpy(small_net):
    """The Numba trunk, value and policy heads equal the numpy forward pass on the
    features written by ``features_into`` (known features included), and the known
    features show the voids the engine recorded."""
    g = make_game("jass")
    params = small_net.params()
    rng = np.random.default_rng(1)
    for _ in range(10):
        deck = rng.permutation(36)
        hands = [sorted(deck[k * 9:(k + 1) * 9]) for k in range(4)]
        s = TrickState(g, hands, mode=int(rng.integers(6)), leader=0)
        for _ in range(int(rng.integers(0, 30))):
            s.play(int(rng.choice(s.legal())))
        seat = s.to_move
        scale = result_scale(g.rules, s.mode)
        x = np.zeros(n_known_features(g.rules))
        features_into(g.rules, s.mode, seat, s.hands[seat], s.pub, scale, x)
        d0 = int(n_features(g.rules))
        for r in range(1, 4):
            v = s.pub[VOIDS + (seat + r) % 4]
            assert list(x[d0 + 6 + 4 * (r - 1):d0 + 10 + 4 * (r - 1)]) == [float((v >> su) & 1) for su in range(4)]
        h = np.zeros(small_net.n_hidden + N_KNOWN + 10)
        t = np.tanh(x @ small_net.w1 + small_net.b1)
        assert value_of(params, 0, g.rules, s.mode, seat, s.hands[seat], s.pub, scale, h) == pytest.approx(
            t @ small_net.w2 + small_net.b2, abs=1e-9)
        legal = legal_cards(g.rules, s.mode, s.hands[seat], s.pub)
        logits = t @ small_net.wp + small_net.bp
        cards = [c for c in range(36) if int(legal) >> c & 1]
        assert policy_card(params, 0, g.rules, s.mode, seat, s.hands[seat], legal, s.pub, scale, h) == \
            max(cards, key=lambda c: (logits[c], -c))


def _biased_net(game, card: int, place: int, strength: float = 8.0) -> ValueNet:
    """A zero network whose card head puts ``card`` at ``place`` (0..2: seat +1..+3) with
    logit ``strength`` over the others."""
    n_in, nh, n = int(n_known_features(game.rules)), 4, game.info.n_cards
    bc = np.zeros(N_HOLDERS * n)
    bc[N_HOLDERS * card + place] = strength
    return ValueNet(game.name, {}, np.zeros((n_in, nh)), np.zeros(nh), np.zeros(nh), 0.0,
                    wc=np.zeros((nh, N_HOLDERS * n)), bc=bc, wp=np.zeros((nh, n)), bp=np.zeros(n))


def test_drawn_deals_follow_the_card_head_and_stay_consistent():
    """With many candidates the drawn deals put the card where the head says (about 3 in 4
    draws for logit 8 over two rivals with 16 candidates, against 1 in 3 uniformly); with
    one candidate the draw is uniform; every deal deals exactly the unseen cards, with the
    right hand sizes and a revealed void respected."""
    g = make_game("jass")
    rng = np.random.default_rng(0)
    deck = rng.permutation(36)
    hands = [sorted(deck[k * 9:(k + 1) * 9]) for k in range(4)]
    s = TrickState(g, hands, mode=0, leader=0)
    seat = s.to_move
    card = next(c for c in range(36) if c not in hands[seat])
    net = _biased_net(g, card, 1)
    shares = {}
    for k in (1, 16):
        deals, logp = drawn_deals(net, g.rules, s.mode, seat, s.hands[seat], s.pub, 3000, k, seed=5)
        partner = (seat + 2) % 4
        shares[k] = float(np.mean([(int(d[partner]) >> card) & 1 for d in deals]))
        for d in deals[:200]:
            assert int(d[seat]) == int(s.hands[seat])
            others = [int(d[(seat + r) % 4]) for r in range(1, 4)]
            assert all(bin(m).count("1") == 9 for m in others)
            assert sum(others) | int(s.hands[seat]) == (1 << 36) - 1
    assert np.exp(logp[N_HOLDERS * card + 1]) > 0.99
    assert abs(shares[1] - 1 / 3) < 0.04
    assert shares[16] > 0.7


def test_pdmcts_with_one_candidate_plays_like_dmcts():
    """One candidate per determinization is the uniform draw: the same random stream, so
    the very same cards as DMCTS (with ``vote``: as the I-DMCTS of ``tdmcts``)."""
    a = evolve.play("jass", ["pdmcts:candidates=1,determinizations=2,iterations=20", "random"], 6, seed=3,
                    record=True)
    b = evolve.play("jass", ["dmcts:determinizations=2,iterations=20", "random"], 6, seed=3, record=True)
    assert np.array_equal(a.plays, b.plays)
    c = evolve.play("jass", ["pdmcts:candidates=16,determinizations=2,iterations=20", "random"], 6, seed=3,
                    record=True)
    assert not np.array_equal(a.plays, c.plays)
    voted = evolve.play("jass", ["pdmcts:candidates=1,determinizations=3,iterations=20,vote=true", "random"], 6,
                        seed=3, record=True)
    i_dmcts = evolve.play("jass", ["tdmcts:determinizations=3,iterations=20", "random"], 6, seed=3, record=True)
    assert np.array_equal(voted.plays, i_dmcts.plays)


def test_files_round_trip_and_errors_are_one_line(tmp_path, small_net):
    g = make_game("jass")
    path = save_value(tmp_path / "net", small_net)
    assert path.name == "dnn.npz"
    back = load_value(tmp_path / "net", g, heads=True)
    assert np.array_equal(back.params(), small_net.params())
    for seat in ("pdmcts", "pismcts", "dnn", "maxvalue"):
        parse_seat(f"{seat}:net={tmp_path / 'net'}", g)
    shipped = load_value("evolve/agents/data/dnn_jass.npz", g, heads=True)
    on_value_head = parse_seat("maxvalue:net=dnn", g).play_params
    assert np.isin(shipped.params()[:shipped.n_in * shipped.n_hidden], on_value_head).all()
    errors = {
        f"pdmcts:net={tmp_path / 'nothing'}": "not found",
        "pdmcts:net=evolve/agents/data/value_jass.npz": "has no card-distribution or policy head",
        "pdmcts:candidates=0": "candidates",
        "dnn:net=evolve/agents/data/dnn_sueca.npz": "trained for sueca",
    }
    for seat, words in errors.items():
        with pytest.raises(UsageError) as e:
            parse_seat(seat, g)
        assert words in str(e.value) and "\n" not in str(e.value), seat


def test_the_shipped_networks_load_for_every_game():
    for name in ("spades", "euchre", "sueca", "jass"):
        g = make_game(name)
        net = load_value(f"evolve/agents/data/dnn_{name}.npz", g, heads=True)
        assert net.n_in == n_known_features(g.rules) and net.bp.shape == (g.info.n_cards,)
        assert net.meta["held_out"]["card_accuracy"] > net.meta["card_accuracy_uniform"]



def test_the_command_trains_saves_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    from evolve.core.cli import run
    from evolve.dnn import main

    out = tmp_path / "net"
    assert run(main, ["--game", "sueca", "--deals", "20", "--hidden", "4", "--epochs", "1", "--out", str(out)]) == 0
    net = load_value(out, make_game("sueca"), heads=True)
    assert net.meta["deals"] == 20 and "card places" in capsys.readouterr().out
    (tmp_path / "file").write_text("x")
    for argv, words in (
        (["--game", "sueca", "--deals", "5", "--out", str(out)], "--deals 5 is invalid"),
        (["--game", "sueca", "--workers", "0", "--out", str(out)], "--workers 0 is invalid"),
        (["--game", "sueca", "--agent", "bogus", "--out", str(out)], "unknown agent 'bogus'"),
        (["--game", "sueca", "--out", str(tmp_path / "file")], "is a file; expected a folder"),
    ):
        assert run(main, argv) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err, err
