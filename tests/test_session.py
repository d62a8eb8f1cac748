"""evolve.runtime.session.Table: the same deals and scores as evolve.play, legality from the rules
layer, illegal actions refused with the table unchanged, logs that replay."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import evolve
from evolve.core.errors import UsageError
from evolve.runtime.session import IllegalAction, Player, Table, TableError, replay


@pytest.mark.parametrize("game,options,seat,n", [
    ("jass", {}, "random", 8),
    ("euchre", {}, "random", 10),
    ("euchre", {"stick_the_dealer": True}, "random:bidder=simple", 10),
    ("spades", {"partnership": True, "bidding": "standard"}, "random", 6),
    ("sueca", {}, "random", 8),
])
def test_a_table_of_agents_reproduces_evolve_play(game, options, seat, n):
    """Deal by deal: the hands, every call and the scores and game scores equal the engine's
    (the agents draw from the engine's per-deal streams, so random play agrees too)."""
    t = Table(game, [seat] * 4, seed=7, deals=n, **options)
    t.advance()
    r = evolve.play(game, seat, n, seed=7, **options)
    k = len(t.results)                        # a game won to the target ends the table early
    assert k == n or t.winner >= 0
    assert [x["hands"] for x in t.results] == [[sorted(h) for h in d] for d in r.hands[:k].tolist()]
    assert np.array_equal([x["trump"] for x in t.results], r.trump[:k])
    assert np.array_equal([x["score"] for x in t.results], r.score[:k])
    assert np.array_equal([x["game_score"] for x in t.results], r.game_score[:k])
    assert np.array_equal([x["tricks"] for x in t.results], r.tricks[:k])


def first_legal(obs):
    return obs.legal()[0]


@pytest.mark.parametrize("game,options", [
    ("jass", {"match_bonus": True, "multipliers": True}), ("euchre", {"discard_upcard": False}),
    ("euchre", {"setup": "fixed_spades"}), ("spades", {"bidding": "exact"}), ("spades", {}),
    ("sueca", {"setup": "study"}),
])
def test_log_replays_to_the_same_scores(game, options):
    rng = random.Random(3)
    bot = Player("py", lambda obs: rng.choice(obs.legal()))
    t = Table(game, [bot] * 4, seed=11, deals=5, **options)
    t.advance()
    log = json.loads(json.dumps(t.log()))        # through JSON, as downloaded
    assert log["over"] and len(log["results"]) == 5
    again = replay(log).log()
    assert again["results"] == log["results"] and again["game_score"] == log["game_score"]
    # a log with a wrong action does not replay
    bad = json.loads(json.dumps(log))
    bad["actions"][3]["action"] = 999
    with pytest.raises(UsageError, match="action 3 does not replay"):
        replay(bad)


def test_illegal_actions_leave_the_table_unchanged():
    t = Table("jass", ["human", "random", "random", "random"], seed=2, deals=1, dealer=3)
    t.advance()
    assert t.to_act == 0 and t.step == "trump"
    before = json.dumps(t.view(0))
    with pytest.raises(TableError, match="seat 0's turn"):
        t.act(1, 0)
    with pytest.raises(IllegalAction, match="legal: 0 .*6 \\(push\\)"):
        t.act(0, 9)
    with pytest.raises(IllegalAction):
        t.act(0, "3")
    with pytest.raises(IllegalAction):
        t.act(0, True)
    assert json.dumps(t.view(0)) == before and t.actions == []
    t.act(0, 6)                                   # push: the partner (seat 2, random) declares
    t.advance()
    v = t.view(0)
    assert v["decision"] == "card" and v["calls"][0] == [0, 6] and v["maker"] == 2
    obs = t.observation(0)
    assert isinstance(obs, evolve.Observation) and obs.legal() == t.legal()
    with pytest.raises(IllegalAction, match="not legal"):
        t.act(0, next(c for c in range(36) if c not in obs.legal()))


def test_bad_tables_are_one_line_errors():
    with pytest.raises(UsageError, match="unknown game"):
        Table("poker", ["random"] * 4)
    with pytest.raises(UsageError, match="4 seats"):
        Table("jass", ["random"] * 3)
    with pytest.raises(UsageError, match="unknown agent"):
        Table("jass", ["human", "nobody", "random", "random"])
    with pytest.raises(UsageError, match="seed"):
        Table("jass", ["random"] * 4, seed=-1)
    with pytest.raises(UsageError, match="not a table log"):
        replay({"actions": []})
