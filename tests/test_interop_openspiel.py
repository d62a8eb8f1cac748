"""Our agents as OpenSpiel bots (``evolve.interop.openspiel``).

Whole OpenSpiel games are played with ``pyspiel.evaluate_bots``: our bots against
OpenSpiel's uniform random bot and (Euchre; OpenSpiel's spades does not implement the
``ResampleFromInfostate`` it needs) its C++ ``ISMCTSBot``; every action of the history is
then checked against OpenSpiel's legal actions (its Spades does not check legality
itself). The observation must not depend on the other players' hidden cards. The
cross-engine check plays the same match in OpenSpiel and in our engine and requires the
difference to be "no different" at 95%.
"""
from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from evolve.interop.openspiel import OpenSpielBot, compare, observation


def _ismcts(p, seed, sims=30):
    ev = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.ISMCTSBot(seed + p, ev, 2.0, sims, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, True, False)


def _check_legal(game, history):
    state = game.new_initial_state()
    for a in history:
        if not state.is_chance_node():
            assert a in state.legal_actions(), f"illegal action {a} at {state.history()}"
        state.apply_action(a)
    assert state.is_terminal()


@pytest.mark.parametrize("name", ["spades", "euchre"])
def test_whole_games_against_random_and_ismcts(name):
    game = pyspiel.load_game(name)
    # OpenSpiel's ISMCTSBot needs ResampleFromInfostate, which its spades does not implement
    last = _ismcts(3, 9) if name == "euchre" else pyspiel.make_uniform_random_bot(3, 6)
    bots = [OpenSpielBot("highlow:bidder=simple", game, 0, seed=1), pyspiel.make_uniform_random_bot(1, 5),
            OpenSpielBot("ismcts:iterations=30,bidder=search,bid_iterations=16", game, 2, seed=1), last]
    for k in range(3):
        state = game.new_initial_state()
        returns = pyspiel.evaluate_bots(state, bots, 100 + k)
        assert state.is_terminal() and returns == state.returns()
        _check_legal(game, state.history())
        if name == "euchre":
            assert sum(returns) == 0 and returns[0] == returns[2]


def test_reproducible_and_seeded():
    game = pyspiel.load_game("euchre")

    def run(seed):
        bots = [OpenSpielBot("random", game, p, seed=seed) for p in range(4)]
        hs = []
        for k in range(3):
            s = game.new_initial_state()
            pyspiel.evaluate_bots(s, bots, 7 + k)
            hs.append(s.history())
        return hs

    assert run(3) == run(3) and run(3) != run(4)


def _swap_deal(deal, a, b, n):
    """Exchange the cards that the deal order gives to players a and b."""
    out = list(deal)
    ia = [i for i in range(len(deal)) if n(i) == a]
    ib = [i for i in range(len(deal)) if n(i) == b]
    for x, y in zip(ia, ib):
        out[x], out[y] = deal[y], deal[x]
    return out


@pytest.mark.parametrize("name", ["spades", "euchre"])
def test_observation_ignores_other_hands(name):
    """The same public actions and own hand with the other players' hands exchanged give
    the same observation (and decision)."""
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(2)
    for _ in range(5):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        # the first decision of player 1 (a bid) and, in Spades, the first lead
        if name == "spades":
            deal, public = state.history()[:52], []
            owner = lambda i: i % 4                                  # noqa: E731
            for _ in range(4):
                public.append(state.legal_actions()[-3])
                state.apply_action(public[-1])
            hist = [_swap_deal(deal, 2, 3, owner) + public, deal + public]
            player = 0
        else:
            dealer = state.history()[0]
            deal = state.history()[1:21]
            owner = lambda i: (dealer + i) % 4                        # noqa: E731
            a, b = [p for p in range(4) if p != (dealer + 1) % 4][:2]
            hist = [[dealer] + deal + state.history()[21:], [dealer] + _swap_deal(deal, a, b, owner)
                    + state.history()[21:]]
            player = (dealer + 1) % 4
        obs = []
        for h in hist:
            s = game.new_initial_state()
            for x in h:
                s.apply_action(x)
            obs.append(observation(s, player))
        assert obs[0] == obs[1]
        assert OpenSpielBot("random", game, player, seed=1).step(s) in s.legal_actions()


@pytest.mark.parametrize("name,hands", [("spades", 250), ("euchre", 300)])
def test_cross_engine_agreement(name, hands):
    """HighLow (players 0 and 2) against uniform random: points per hand in OpenSpiel and
    in our engine agree within the 95% CI of their difference."""
    res = compare(name, "highlow:bidder=simple", hands, 40000, seed=3)
    d = res["difference"]
    assert d["low"] <= 0 <= d["high"], res
    # and the match is not a trivial one: HighLow wins clearly in both engines
    assert res["openspiel"]["low"] > 0 and res["engine"]["low"] > 0


@pytest.mark.parametrize("name", ["spades", "euchre"])
def test_legal_actions_are_openspiels(name):
    """At every decision of random OpenSpiel games the observation's legal actions, mapped
    to OpenSpiel's, are exactly OpenSpiel's (Spades under ``never_broken``)."""
    from evolve.interop.openspiel import to_os_action

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(6 if name == "spades" else 20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            obs = observation(state, state.current_player())
            assert sorted(to_os_action(obs, a) for a in obs.legal()) == sorted(state.legal_actions()), obs
            seen.add(obs.decision)
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert seen == ({"bid", "card"} if name == "spades" else {"order", "call", "discard", "alone", "card"})
