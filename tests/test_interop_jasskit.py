"""Our agents as jass-kit agents (``evolve.interop.jasskit``).

jass-kit's ``Arena`` (which checks every card against its own rules) plays our
``jass_rule_based`` and our Jass trump champion against jass-kit's random agent; the % of
points must agree with the same match in our engine within the 95% CI of the
difference. The player service is jass-kit's own Flask app: requested directly, and
played through jass-kit's ``AgentByNetwork`` over a real local HTTP server.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest
from jass.agents.agent_by_network import AgentByNetwork
from jass.agents.agent_random_schieber import AgentRandomSchieber
from jass.arena.arena import Arena
from jass.game.const import card_strings
from jass.game.game_observation import GameObservation
from jass.game.game_sim import GameSim
from jass.game.game_util import deal_random_hand
from jass.game.rule_schieber import RuleSchieber

from evolve.interop.jasskit import JassKitAgent, compare, observation, player_service, to_jk_card


@pytest.mark.parametrize("seat", ["jass_rule_based:bidder=simple", "champion:populations/jass_trump"])
def test_arena_against_random_agrees_with_engine(seat):
    res = compare(seat, 200, 40000, seed=2)
    d = res["difference"]
    assert d["low"] <= 0 <= d["high"], res
    assert res["jasskit"]["low"] > 55 and res["engine"]["low"] > 55    # clearly above random's 50%


def test_observation_matches_jasskit():
    """At every decision of a few jass-kit games: our observation holds the player's hand,
    its legal cards are jass-kit's valid cards (jass-kit allows more only in its
    undertrump quirk) and the points so far are jass-kit's."""
    rule = RuleSchieber()
    np.random.seed(5)
    agent = JassKitAgent("random", seed=1)
    for g in range(4):
        sim = GameSim(rule=rule)
        sim.init_from_cards(dealer=g % 4, hands=deal_random_hand())
        sim.action_trump(agent.action_trump(sim.get_observation()))
        if sim.state.trump < 0:
            sim.action_trump(agent.action_trump(sim.get_observation()))
        while sim.state.nr_played_cards < 36:
            jk = sim.get_observation()
            obs = observation(jk)
            assert sorted(to_jk_card(c) for c in obs.hand) == np.flatnonzero(jk.hand).tolist()
            assert {to_jk_card(c) for c in obs.legal()} <= set(np.flatnonzero(rule.get_valid_cards_from_obs(jk)))
            assert list(obs.score) == jk.points.tolist()
            sim.action_play_card(agent.action_play_card(jk))


def test_player_service_requests():
    app = player_service({"rule": "jass_rule_based:bidder=graf"})
    client = app.test_client()
    np.random.seed(3)
    sim = GameSim(rule=RuleSchieber())
    sim.init_from_cards(dealer=0, hands=deal_random_hand())
    r = client.post("/rule/action_trump", json=sim.get_observation().to_json())
    assert r.status_code == 200 and r.get_json()["trump"] in (0, 1, 2, 3, 4, 5, 10)
    sim.action_trump(0 if r.get_json()["trump"] == 10 else r.get_json()["trump"])
    if sim.state.trump < 0:
        sim.action_trump(4)
    obs = sim.get_observation()
    r = client.post("/rule/action_play_card", json=obs.to_json())
    valid = [card_strings[c] for c in np.flatnonzero(RuleSchieber().get_valid_cards_from_obs(obs))]
    assert r.status_code == 200 and r.get_json()["card"] in valid
    assert client.post("/nobody/action_play_card", json=obs.to_json()).status_code == 400


def test_arena_through_the_network_service():
    """jass-kit's AgentByNetwork plays our agent over HTTP (its random stand-in must never
    be needed)."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, player_service({"rule": "jass_rule_based"}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        class Fail(AgentRandomSchieber):
            def action_trump(self, obs: GameObservation) -> int:
                raise AssertionError("the service did not answer")

            action_play_card = action_trump

        url = f"http://127.0.0.1:{server.server_port}/rule"
        remote = [AgentByNetwork(url), AgentByNetwork(url)]
        for r in remote:
            r._standin_player = Fail()
        np.random.seed(4)
        arena = Arena(nr_games_to_play=2, print_every_x_games=10)
        arena.set_players(remote[0], AgentRandomSchieber(), remote[1], AgentRandomSchieber())
        arena.play_all_games()
        assert arena.nr_games_played == 2
        assert (arena.points_team_0 + arena.points_team_1 == 157).all()
    finally:
        server.shutdown()
