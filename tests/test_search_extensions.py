"""Policy-guided playouts, value networks and maxvalue: options and their
one-line errors, legality and reproducibility in the engine, the value network's training
reproducibility, storage and its Numba forward pass."""

from __future__ import annotations

import numpy as np
import pytest

import evolve
import evolve.agents.search.register  # noqa: F401  (registers the search agents)
from evolve.agents.registry import parse_seat, split_seats
from evolve.agents.search.value_net import load_value, save_value, value_of
from evolve.core.errors import UsageError
from evolve.games.registry import make_game
from evolve.learn.value import train_value, value_dataset


@pytest.mark.parametrize("game_name", ["spades", "euchre", "sueca", "jass"])
def test_guided_searches_play_legally_and_reproducibly(game_name):
    g = make_game(game_name, **({"stick_the_dealer": True} if game_name == "euchre" else {}))
    agents = ["mc:shuffles=4,playouts=1,rollout=cardcounting", "ismcts:iterations=30,rollout=(markov:tau=0.3)",
              "dmcts:determinizations=2,iterations=20,rollout=high", "maxvalue:samples=4"]
    for agent in agents:
        a = evolve.play(g, [agent, "random:bidder=simple"], 3, seed=4, record=True)
        b = evolve.play(g, [agent, "random:bidder=simple"], 3, seed=4, record=True)
        assert (a.plays == b.plays).all(), agent


def test_rollout_changes_the_playouts_and_nested_seat_strings_parse():
    g = make_game("sueca")
    plain = parse_seat("mc:shuffles=5", g)
    guided = parse_seat("mc:shuffles=5,rollout=(markov:tau=0.3,bidder=simple)", g)
    assert len(plain.play_params) == 6 and len(guided.play_params) > 9      # [variant, S, K, shuffle, ties, ticks]
    assert guided.play_params[6] == parse_seat("markov:tau=0.3", g).play_kind
    assert guided.work_size > plain.work_size
    assert split_seats("mc:rollout=(markov:tau=0.3,bidder=simple),random") == [
        "mc:rollout=(markov:tau=0.3,bidder=simple)", "random"]
    r1 = evolve.play(g, ["mc:shuffles=6,playouts=1", "random"], 6, seed=2, record=True)
    r2 = evolve.play(g, ["mc:shuffles=6,playouts=1,rollout=high", "random"], 6, seed=2, record=True)
    assert (r1.plays != r2.plays).any()


@pytest.mark.parametrize("bad", ["mc:rollout=mc", "ismcts:rollout=perfect_mc", "dmcts:rollout=nobody",
                                 "mc:rollout=(high", "mc:rollout=high)", "maxvalue:net=/no/such/file",
                                 "maxvalue:samples=0", "dmcts:value=/no/such/file", "dmcts:depth=0"])
def test_bad_search_options_are_one_line_errors(bad):
    with pytest.raises(UsageError) as e:
        parse_seat(bad, make_game("jass"))
    assert "\n" not in str(e.value)


def test_value_network_is_reproducible_stored_without_pickle_and_evaluated_alike(tmp_path):
    g = make_game("jass")
    a = train_value(g, "random", deals=60, seed=3, hidden=8, epochs=2)
    b = train_value(g, "random", deals=60, seed=3, hidden=8, epochs=2)
    assert a.w1.tobytes() == b.w1.tobytes() and a.b2 == b.b2
    save_value(tmp_path, a)
    c = load_value(tmp_path, g)
    assert c.w1.tobytes() == a.w1.tobytes() and c.meta["trained_by"] == "random"
    with pytest.raises(UsageError):
        load_value(tmp_path, make_game("sueca"))
    # the Numba forward pass on positions equals numpy's on their feature rows
    X, y, deal = value_dataset(g, "random", 3, seed=5)
    assert X.shape[0] == 3 * 36 and ((y >= 0) & (y <= 1)).all()
    from evolve.games.stepper import TrickState

    r = evolve.play(g, "random", 1, seed=5, record=True)
    hands = [list(r.hands[0, s]) for s in range(4)]
    s = TrickState(g, hands, mode=int(r.trump[0]), leader=int(r.first_leader[0]))
    params = c.params()
    from evolve.games.hooks import result_scale

    scale = result_scale(g.rules, s.mode)
    for k in range(10):
        seat = s.to_move
        v = value_of(params, 0, g.rules, s.mode, seat, np.uint64(s.hands[seat]), s.pub, scale, np.zeros(64))
        assert abs(v - c.predict(X[k:k + 1])[0]) < 1e-9
        s.play(int(r.plays[0, k]))
