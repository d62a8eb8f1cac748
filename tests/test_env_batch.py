"""The batched environment (``evolve.env.batch``): N tables in one Numba kernel.

Its deals are the engine's (table t's k-th deal is deal t + n k of ``evolve.play`` with the
same seed) and so are the scores; its masks, seats to act and observations are those of a
table (``evolve.runtime.session.Table``, whose observation holds only what the seat may see)
walking the same deal; steps are deterministic, bad actions move nothing, and the ended
episodes start over as Gymnasium's autoreset modes say."""

from __future__ import annotations

import numpy as np
import pytest

import evolve
from evolve.core.errors import UsageError
from evolve.env.batch import BatchEnv
from evolve.env.spaces import observation_layout, observe
from evolve.games.match import accumulate_games
from evolve.games.rules import STRENGTH, table
from evolve.games.state import PLAYED_BY
from evolve.runtime.decide import agent
from evolve.runtime.session import HUMAN, Player, Table, agent_player

GAMES = [("spades", {}), ("euchre", {}), ("sueca", {}), ("jass", {}),
         ("spades", {"partnership": True, "bidding": "standard"}), ("hearts", {})]
IDS = ["spades", "euchre", "sueca", "jass", "spades-standard", "hearts"]
RULES = ("rules",)          # every environment here compiles the one kernel of its game with the rule agents
OPPONENTS = ["cardcounting", "random", "highlow"]


def segment(env: BatchEnv, name: str) -> slice:
    (start, size), = [(s, k) for n, s, k in observation_layout(env.game) if n == name]
    return slice(start, start + size)


def low_cards(env: BatchEnv, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The card the rule agent ``low`` plays at every table (the weakest legal card under the
    trump mode, ties to the lowest id), read from the observation's trump segment and the mask."""
    n_cards = env.game.info.n_cards
    mode = np.argmax(obs[:, segment(env, "trump")], axis=1)
    key = table(env.game.rules, STRENGTH)[mode] * 64 + np.arange(n_cards)
    return np.argmin(np.where(mask[:, :n_cards] == 1, key, 1 << 40), axis=1)


def play_low(env: BatchEnv, steps: int) -> dict[int, np.ndarray]:
    """Step with ``low``'s cards; the rewards of every reported deal by its engine index."""
    obs, info = env.reset()
    got = {}
    for _ in range(steps):
        if env.mine != [0, 1, 2, 3]:
            assert np.isin(info["to_act"], env.mine).all()
        obs, rewards, terminated, truncated, info = env.step(low_cards(env, obs, info["action_mask"]))
        assert not truncated.any()
        for t in np.flatnonzero(terminated):
            d = int(info["final_deal"][t])
            assert d % env.n == t and d not in got
            got[d] = rewards[t].copy()
        assert (rewards[~terminated] == 0).all()
    return got


@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_the_deals_and_scores_are_the_engines(game, options):
    # the caller plays low at seat 1 against rule agents inside the kernel; then every seat
    # is the caller's (self-play): each reported deal scores as evolve.play's deal of that index
    for seat, opponents in ((1, OPPONENTS), (0, None)):
        n = 6
        env = BatchEnv(game, n, opponents=opponents, seat=seat, seed=3, engine_families=RULES, **options)
        got = play_low(env, 90 if opponents else 160)
        seats = ["low"] * 4
        if opponents:
            for k, o in enumerate(opponents):
                seats[(seat + 1 + k) % 4] = o
        top = int(env._deal.max()) + 1
        r = evolve.play(game, seats, top, seed=3, **options)
        side = [s % 2 if r.game.partnership else s for s in range(4)]
        for d, rewards in got.items():
            assert list(rewards) == [r.score[d, side[s]] for s in range(4)], (game, seat, d)
        # no deal lost: each deal a table has passed was reported, passed out, or sat out by the caller
        for d in range(top):
            if d not in got and d < env._deal[d % n]:
                sat_out = opponents is not None and r.alone[d] and (r.maker[d] + 2) % 4 == seat
                assert r.trump[d] < 0 or sat_out, (game, d)
        assert len(got) >= n


def test_any_registered_agent_plays_inside_the_kernel():
    # a network champion, a search (through its callback slot) and the Jass rule-based player
    opponents = ["champion:populations/jass_champion", "ismcts:iterations=8", "jass_rule_based"]
    env = BatchEnv("jass", 3, opponents=opponents, seed=11)
    got = play_low(env, 24)
    r = evolve.play("jass", ["low", *opponents], max(got) + 1, seed=11)
    assert len(got) >= 3
    for d, rewards in got.items():
        assert list(rewards) == [r.score[d, s % 2] for s in range(4)]


def _table(env: BatchEnv, j: int) -> Table:
    """A table dealing engine deal ``j`` with the environment's seats (humans at the
    caller's; agents of their own, with the engine's random streams, at the others), run to
    the caller's first card: its calls by the caller's bidder, as in the kernel."""
    g = env.game
    players = [Player(HUMAN, None) if s in env.mine else agent_player(env.specs[s].name, g) for s in range(4)]
    t = Table(g, players, env.seed, deals=1, dealer=j % 4, start=j)
    bidder = agent("random:bidder=default", g.name, **g.options).new_deal(j, seed=env.seed)
    t.advance()
    while not t.over and t.step != "card":
        t.act(t.to_act, bidder.act(t.observation()))
        t.advance()
    return t


@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_masks_seats_and_observations_are_a_tables(game, options):
    # every decision of a few deals at three tables, against tables walking the same deals:
    # the seat to act, its legal cards, the observation (rebuilt from the seat's view
    # alone, so no hidden card reaches it) and the scores
    for opponents, partner in ((None, None), (OPPONENTS, "self")):
        env = BatchEnv(game, 3, opponents=opponents, seat=2, partner=partner, seed=7, engine_families=RULES,
                       **options)
        obs, info = env.reset()
        rng = np.random.default_rng(5)
        tables = {}
        for _ in range(2 * env.game.info.n_cards // (4 if opponents else 1)):
            for t in range(env.n):
                j = int(info["deal"][t])
                if tables.get(t, (None, -1))[1] != j:
                    tables[t] = (_table(env, j), j)
                tab = tables[t][0]
                assert int(info["to_act"][t]) == tab.to_act and tab.to_act in env.mine
                assert list(np.flatnonzero(info["action_mask"][t])) == tab.legal()
                assert np.array_equal(obs[t], observe(tab)), (game, t, j)
            actions = env.sample(rng)
            for t in range(env.n):
                tables[t][0].act(int(info["to_act"][t]), int(actions[t]))
                tables[t][0].advance()
            obs, rewards, terminated, _, info = env.step(actions)
            for t in range(env.n):
                tab = tables[t][0]
                assert tab.over == bool(terminated[t])
                if tab.over:
                    score = tab.results[0]["score"]
                    assert list(rewards[t]) == [score[s % 2] if env.game.partnership else score[s] for s in range(4)]
                    assert info["final_deal"][t] == tables[t][1]


@pytest.mark.parametrize("game,options", GAMES[:4], ids=IDS[:4])
def test_the_hand_and_may_hold_segments(game, options):
    # the hand segment is the seat's hand; no may-hold input marks the seat's own cards or a played card
    env = BatchEnv(game, 64, opponents=None, seed=2, engine_families=RULES, **options)
    obs, info = env.reset()
    rng = np.random.default_rng(1)
    n_cards = env.game.info.n_cards
    seat_part = segment(env, "seat")
    for _ in range(30):
        hands, pub = env.hands(), env.pub()
        rows = obs[:, seat_part].reshape(env.n, n_cards, 8)
        bits = (1 << np.arange(n_cards, dtype=np.uint64))
        to_act = info["to_act"]
        own = hands[np.arange(env.n), to_act]
        played = np.bitwise_or.reduce(pub[:, PLAYED_BY:PLAYED_BY + 4].astype(np.uint64), axis=1)
        held = (own[:, None] & bits) != 0
        gone = (played[:, None] & bits) != 0
        assert np.array_equal(rows[:, :, 0] == 1, held)
        assert not (rows[:, :, 5:] == 1)[held | gone].any()
        assert (info["action_mask"][:, :n_cards] <= held).all() and info["action_mask"].sum(1).min() >= 1
        assert (info["action_mask"][:, n_cards:] == 0).all()
        obs, _, _, _, info = env.step(env.sample(rng))


def test_same_seed_same_arrays_and_another_seed_other_deals():
    def run(seed):
        env = BatchEnv("euchre", 16, opponents="random", seed=seed, engine_families=RULES)
        out = [env.reset()[0].copy()]
        rng = np.random.default_rng(0)
        for _ in range(40):
            obs, rewards, terminated, _, info = env.step(env.sample(rng))
            out += [obs.copy(), rewards.copy(), terminated.copy(), info["action_mask"].copy(), info["deal"].copy()]
        out.append(env.hands())
        # reset(seed) starts over: the same first observation
        assert np.array_equal(env.reset(seed=seed)[0], out[0])
        return out

    a, b, c = run(4), run(4), run(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[-1], c[-1])


def test_autoreset_modes_and_final_info():
    n = 8
    same = BatchEnv("sueca", n, opponents="random", seed=1, engine_families=RULES)
    nxt = BatchEnv("sueca", n, opponents="random", seed=1, autoreset="next_step", engine_families=RULES)
    off = BatchEnv("sueca", n, opponents="random", seed=1, autoreset="disabled", engine_families=RULES)
    so, si = same.reset()
    no, ni = nxt.reset()
    off.reset()
    for _ in range(10):     # ten cards: every Sueca deal ends at the tenth
        a = low_cards(same, so, si["action_mask"])
        so, sr, st, _, si = same.step(a)
        no, nr, nt, _, ni = nxt.step(a)
        off.step(a)
    assert st.all() and nt.all() and np.array_equal(sr, nr)
    assert si["_final_deal"].all() and list(si["final_deal"]) == list(range(n))
    assert list(si["deal"]) == list(range(n, 2 * n)) and (si["to_act"] == 0).all()
    # next step: the ended deal's observation and mask are zero; the next step ignores the action
    assert not no.any() and not ni["action_mask"].any() and (ni["to_act"] == -1).all()
    no, nr, nt, _, ni = nxt.step(np.full(n, -1))
    assert not nr.any() and not nt.any() and np.array_equal(no, so) and list(ni["deal"]) == list(si["deal"])
    # disabled: the tables wait until reset(tables=...)
    assert not off.waiting.any()
    o2, r2, t2, _, i2 = off.step(np.full(n, -1))
    assert not r2.any() and not t2.any() and not o2.any()
    o3, i3 = off.reset(tables=np.arange(n) < 3)
    assert list(off.waiting) == [True] * 3 + [False] * 5 and np.array_equal(o3[:3], so[:3])
    so, sr, st, _, si = same.step(low_cards(same, so, si["action_mask"]))
    assert not st.any() and "final_deal" not in si


@pytest.mark.parametrize("game,options", [("euchre", {"target": 5}),
                                          ("spades", {"partnership": True, "bidding": "standard", "target": 150})],
                         ids=["euchre", "spades-bags"])
def test_a_match_is_one_episode(game, options):
    # with the target given an episode is a match of the table's deals: rewards at every
    # deal (also one the caller sits out), terminated at the deal that wins the game, as
    # evolve.games.match.accumulate_games sums the same deals (Spades: with the bag penalty)
    n = 4
    env = BatchEnv(game, n, opponents="cardcounting", seed=2, engine_families=RULES, **options)
    obs, info = env.reset()
    total = np.zeros((n, 4))
    ends, seen_score = {t: [] for t in range(n)}, False
    for _ in range(260):
        seen_score |= bool(obs[:, segment(env, "game_score")].any())
        obs, rewards, terminated, _, info = env.step(low_cards(env, obs, info["action_mask"]))
        total += rewards
        for t in np.flatnonzero(terminated):
            ends[t].append(int(info["final_deal"][t]))
            total[t] = 0
    r = evolve.play(game, ["low", "cardcounting", "cardcounting", "cardcounting"], int(env._deal.max()) + 1, seed=2,
                    **options)
    g = r.game
    for t in range(n):
        done = np.arange(t, env._deal[t], n)     # the table's finished deals
        _, _, winner = accumulate_games(r.score[done], r.bags[done], g.n_sides, g.target, g.bag_limit)
        assert ends[t] == list(done[winner >= 0]) and ends[t], (game, t)
    assert seen_score


def test_forced_cards_inside_the_kernel():
    # auto_forced: a lone legal card is played without asking; the deals are still the engine's
    env = BatchEnv("sueca", 6, opponents=OPPONENTS, seed=8, auto_forced=True, engine_families=RULES)
    obs, info = env.reset()
    got = {}
    for _ in range(60):
        assert (info["action_mask"].sum(1) >= 2).all()
        obs, rewards, terminated, _, info = env.step(low_cards(env, obs, info["action_mask"]))
        got.update({int(info["final_deal"][t]): rewards[t].copy() for t in np.flatnonzero(terminated)})
    r = evolve.play("sueca", ["low", *OPPONENTS], max(got) + 1, seed=8)
    assert len(got) >= 6 and all(list(v) == [r.score[d, s % 2] for s in range(4)] for d, v in got.items())


def test_a_bad_action_raises_and_moves_nothing():
    env = BatchEnv("spades", 6, opponents="random", seed=9, engine_families=RULES)
    twin = BatchEnv("spades", 6, opponents="random", seed=9, engine_families=RULES)
    obs, info = env.reset()
    twin.reset()
    good = low_cards(env, obs, info["action_mask"])
    before = [obs.copy(), info["action_mask"].copy(), env.hands(), env.pub()]
    illegal = int(np.flatnonzero(info["action_mask"][3] == 0)[0])
    for bad, what in ((illegal, f"table 3: action {illegal}"), (env.n_actions, "table 3"), (-1, "table 3")):
        actions = good.copy()
        actions[3] = bad
        with pytest.raises(ValueError, match=what) as e:
            env.step(actions)
        assert "\n" not in str(e.value) and "1 illegal" in str(e.value)
    with pytest.raises(ValueError, match="6 integers"):
        env.step(good[:5])
    with pytest.raises(ValueError, match="6 integers"):
        env.step(good.astype(float))
    assert all(np.array_equal(x, y) for x, y in zip(before, [obs, info["action_mask"], env.hands(), env.pub()]))
    a = env.step(good)
    b = twin.step(good)
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))


def test_usage_errors_are_one_line():
    for kwargs, what in ((dict(opponents=["random"] * 4), "1, 2 or 3"), (dict(seat=4), "seat=4"),
                         (dict(partner="self"), "partner= needs opponents"), (dict(obs_dtype=np.int32), "obs_dtype"),
                         (dict(autoreset="never"), "autoreset"), (dict(opponents="nobody"), "unknown agent")):
        with pytest.raises(UsageError, match=what):
            BatchEnv("jass", 2, **kwargs)
    with pytest.raises(UsageError, match="reset"):
        BatchEnv("jass", 2, engine_families=RULES).step(np.zeros(2, np.int64))


def test_the_vector_env():
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.vector import AutoresetMode, VectorEnv

    from evolve.env import BatchVectorEnv
    from evolve.env.spaces import action_space_size, observation_size

    env = BatchVectorEnv("jass", 5, opponents="random", engine_families=RULES)
    assert isinstance(env, VectorEnv) and env.num_envs == 5
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    d, a = observation_size("jass"), action_space_size("jass")
    assert env.single_observation_space == gymnasium.spaces.Box(0, 1, (d,), np.float32)
    assert env.single_action_space == gymnasium.spaces.Discrete(a)
    assert env.observation_space.shape == (5, d) and env.action_space.shape == (5,)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs) and info["action_mask"].shape == (5, a)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    wrapped.reset(seed=1)
    episodes = 0
    for _ in range(12):         # nine cards a deal: every sub-environment ends, then starts over
        obs, reward, terminated, truncated, info = wrapped.step(env.sample())
        assert env.observation_space.contains(obs) and reward.shape == (5,) and reward.dtype == np.float64
        assert terminated.dtype == np.bool_ and truncated.shape == (5,)
        if "episode" in info:
            episodes += int(info["_episode"].sum())
            assert (obs[info["_episode"]] == 0).all()
    assert episodes == 5
    same = BatchVectorEnv("jass", 5, opponents="random", autoreset_mode="SameStep", engine_families=RULES)
    same.reset(seed=1)
    for _ in range(9):
        obs, reward, terminated, _, info = same.step(same.sample())
    assert terminated.all() and info["_final_obs"].all() and not info["final_obs"][0].any() and obs.any()
    assert list(info["final_info"]["deal"]) == list(range(5))


@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_the_same_deals_score_the_same_in_the_aec_env_the_batched_env_and_the_engine(game, options):
    """Every seat plays ``low`` (its bidder the game's rule-based one): in the batched
    environment on its observations and masks, in the AEC environment through ``evolve.agent``
    on the AEC's own observations, and in ``evolve.play``. Deal by deal, the three score alike."""
    from evolve.env.aec import aec_env
    from evolve.env.spaces import action_index

    n, seed = 4, 5
    env = BatchEnv(game, n, seed=seed, engine_families=RULES, **options)
    batched = play_low(env, 4 * env.game.info.n_cards)     # at least two deals per table
    r = evolve.play(game, "low", 2 * n, seed=seed, **options)
    aec = aec_env(game, **options)
    low = agent("low", game, **options)
    aec_scores = []
    for d in range(2 * n):
        aec.reset(seed=seed) if d == 0 else aec.reset()
        low.new_deal(d, seed=seed)
        for name in aec.agent_iter():
            observation, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            o = aec.engine_observation(name)
            a = action_index(aec.game, o.decision, low.act(o))
            assert observation["action_mask"][a] == 1
            aec.step(a)
        aec_scores.append(aec.table.results[-1]["score"])
    assert np.array_equal(aec_scores, r.score[:2 * n]), game
    side = [s % 2 if r.game.partnership else s for s in range(4)]
    compared = [d for d in batched if d < 2 * n]
    assert len(compared) >= n        # a passed-out Euchre deal is not reported by the batched env
    for d in compared:
        assert list(batched[d]) == [aec_scores[d][side[s]] for s in range(4)], (game, d)
