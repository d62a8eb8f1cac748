"""evolve.env: the games as PettingZoo and Gymnasium environments.

The spaces and the observation encoder against a reference written here from the
specification (numpy, from a seat's view: its hand, the calls, the tricks), on positions of
every game, bidding and discards included; PettingZoo's api, seed and render tests and
Gymnasium's env checker for every registered game and the options that change the spaces;
pickling mid-deal; no hidden card in the observation (other seats' hands swapped); the
engine's own agents playing through the environment score as in ``evolve.play``; bad
actions refused with the table unchanged. PettingZoo's ``max_cycles_test`` does not apply:
it needs a parallel environment with a ``max_cycles`` argument, and a deal ends by itself.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import evolve
from evolve.core.errors import UsageError
from evolve.env import spaces
from evolve.env.spaces import (
    DECISIONS,
    SHARED_SLOTS,
    action_index,
    action_mask,
    action_of,
    action_space_size,
    decision_slot,
    observation_layout,
    observation_size,
    observe,
)
from evolve.games.bits import N_STREAMS, seed_key
from evolve.games.dealing import deal_cards
from evolve.games.registry import GAMES, make_game
from evolve.games.rules import rank_of, suit_of, trump_of
from evolve.runtime.session import Player, Table

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from evolve.env.aec import aec_env  # noqa: E402
from evolve.env.gym import gym_env  # noqa: E402

ROOT = __file__.rsplit("/tests/", 1)[0]

# every registered game with its defaults, then the options that change the spaces or the episode
CONFIGS = [(g, {}) for g in GAMES] + [
    ("spades", {"partnership": True, "bidding": "standard"}),
    ("euchre", {"stick_the_dealer": True}),
    ("euchre", {"target": 3}),                  # a match to 3 points
]
# more positions for the encoder: other bidding, setups and legality, and game scores
ENCODER_CONFIGS = CONFIGS + [
    ("spades", {"bidding": "exact"}),
    ("spades", {"partnership": True, "bidding": "standard", "never_broken": True, "target": 150}),
    ("spades", {"break_spades": True}),
    ("euchre", {"discard_upcard": False}),
    ("euchre", {"setup": "fixed_spades"}),
    ("sueca", {"setup": "study"}),
    ("sueca", {"target": 2}),
    ("jass", {"target": 300}),
]
PZ_NOISE = ("Observation is not a NumPy array", "all zeros", "probably should be gymnasium.spaces.box")


def _id(config):
    game, options = config
    return game + "".join(f"-{k}={v}" for k, v in options.items())


def humans() -> list[Player]:
    return [Player(f"player_{s}", None) for s in range(4)]


def random_walk(table: Table, rng, steps: int | None = None):
    """Random legal actions until the table is over (or ``steps`` actions); yields before each."""
    k = 0
    while not table.over and (steps is None or k < steps):
        yield k
        table.act(table.to_act, int(rng.choice(table.legal())))
        k += 1


# ----------------------------------------------------------------------------- the reference encoder


def expected_calls(g) -> int:
    """The number of call values, from the specification of the action space."""
    o = g.options
    return {"spades": 14 if o.get("bidding") != "none" else 0,
            "euchre": 0 if o.get("setup") == "fixed_spades" else 8,
            "jass": 7}.get(g.name, 0)


def reference(g, view: dict, decision: str | None) -> np.ndarray:
    """The observation of ``view`` (a seat's ``Table.view``: its hand, the calls, the tricks)
    written from the specification, without the engine's public-state array."""
    info, rules = g.info, g.rules
    n, seat, hs = info.n_cards, view["seat"], info.hand_size
    mode = view["trump"] if info.n_modes > 1 else 0

    def off(s):
        return (s - seat) % 4

    def suit(c):
        return int(suit_of(rules, mode, c))

    hand = set(view["hand"])
    tricks = [list(map(tuple, t)) for t in view["tricks"]]
    trick = list(map(tuple, view["trick"]))
    in_trick = {c for _, c in trick}
    played = {c for t in tricks for _, c in t} | in_trick
    up, dealer = view["upcard"], view["dealer"]
    ordered = g.name == "euchre" and any(a == 5 for _, a in view["calls"])
    enc = np.zeros((n, 8))
    for c in hand:
        enc[c, 0] = 1
    mine = {c for s, c in trick if s == seat}      # a seat not to act may have played to this trick
    for s, c in trick:
        if s != seat:
            enc[c, off(s)] = 1
    seen = played - (in_trick - mine) - hand
    if g.name == "euchre" and up >= 0 and up not in hand and up not in in_trick - mine:
        seen.add(up)
    for c in seen:
        enc[c, 4] = 1
    unseen = set(range(n)) - hand - played
    only_dealer = False     # the shown card can be in the dealer's hand only
    if up >= 0 and up in unseen:
        if g.name == "euchre":
            if not ordered or seat == dealer:
                unseen.discard(up)
            only_dealer = ordered
        elif g.name == "sueca" and g.options["setup"] == "standard":
            only_dealer = True
    # what the plays showed: no card of the led suit (Jass: trumps may be played instead;
    # a trump not followed may hide the Buur; an undertrump comes from a hand of trumps)
    void = {s: set() for s in range(4)}
    buur_only = {s: set() for s in range(4)}
    tr = int(trump_of(rules, mode)) if mode >= 0 else -1
    for t in tricks + [trick]:
        if not t:
            continue
        led = suit(t[0][1])
        for q, (s, c) in enumerate(t[1:], start=1):
            if suit(c) == led:
                continue
            if g.name != "jass":
                void[s].add(led)
            elif led == tr:
                buur_only[s].add(led)
            elif suit(c) != tr:
                void[s].add(led)
            else:
                best = max((int(rank_of(rules, mode, x)) for _, x in t[:q] if suit(x) == tr), default=-1)
                if int(rank_of(rules, mode, c)) < best:
                    void[s] |= {k for k in range(4) if k != tr}
    jack = info.faces.index("J") if g.name == "jass" else -1
    for k in (1, 2, 3):
        s = (seat + k) % 4
        for c in unseen:
            if only_dealer and c == up and s != dealer:
                continue
            if suit(c) in void[s]:
                continue
            if suit(c) in buur_only[s] and c != suit(c) * len(info.faces) + jack:
                continue
            enc[c, 4 + k] = 1
    parts = [enc.reshape(-1)]
    trump = np.zeros(info.n_modes)
    if mode >= 0:
        trump[mode] = 1
    parts.append(trump)
    parts.append(np.eye(len(DECISIONS))[decision_slot(decision)] if decision else np.zeros(len(DECISIONS)))
    parts.append(np.eye(4)[off(dealer)])
    parts.append(np.eye(4)[off(view["maker"])] if view["maker"] >= 0 else np.zeros(4))
    parts.append([1.0 if view["out_seat"] >= 0 else 0.0])
    nc = expected_calls(g)
    calls = np.zeros((4, nc))
    latest = {}
    for s, a in view["calls"]:
        latest[s] = a
    for s, a in latest.items():
        calls[off(s), a] = 1
    parts.append(calls.reshape(-1))
    # a trick's winner leads the next one; the last one's leads the trick in progress
    leaders = [t[0][0] for t in tricks[1:]] + [trick[0][0] if trick else view["to_act"]] if tricks else []
    won = np.zeros((4, hs))
    for s in range(4):
        won[off(s), :leaders.count(s)] = 1
    parts.append(won.reshape(-1))
    gs = list(view["game_score"])
    target = g.target
    bins = np.zeros((2, 10))
    if target > 0 and any(gs):
        own = seat % 2 if g.partnership else seat
        mine, other = (gs[own], gs[1 - own]) if g.partnership else (gs[own], max(gs[:own] + gs[own + 1:]))
        for side, v in enumerate((mine, other)):
            bins[side] = [v * 10 >= k * target for k in range(1, 11)]
    parts.append(bins.reshape(-1))
    return np.concatenate([np.asarray(p, np.float64).reshape(-1) for p in parts]).astype(np.float32)


@pytest.mark.parametrize("config", ENCODER_CONFIGS, ids=_id)
def test_the_encoder_matches_the_reference(config):
    """At every decision of random deals, every seat's vector (the seat to act's from its
    Observation and from the table, the others' from the table) equals the reference; uint8
    and float32 rows agree; the layout covers the vector; the mask marks exactly the legal
    actions."""
    game, options = config
    g = make_game(game, **options)
    rng = np.random.default_rng(len(_id(config)))
    layout = observation_layout(g)
    assert layout[0][1] == 0 and sum(size for _, _, size in layout) == observation_size(g)
    assert all(a[1] + a[2] == b[1] for a, b in zip(layout, layout[1:]))
    decisions, n_pos, score_bins = set(), 0, 0
    for seed in range(3, 10):           # deals on to the step limit, or matches to the target
        if n_pos >= 200:
            break
        t = Table(g, humans(), seed=seed, deals=0)
        for _ in random_walk(t, rng, steps=300):
            obs = t.observation()
            decisions.add(obs.decision)
            v = observe(obs)
            assert v.dtype == np.float32 and v.shape == (observation_size(g),)
            np.testing.assert_array_equal(v, reference(g, t.view(obs.seat), obs.decision), err_msg=str(obs))
            np.testing.assert_array_equal(observe(t), v)
            np.testing.assert_array_equal(observe(obs, dtype=np.uint8), v.astype(np.uint8))
            for s in range(4):
                if s != obs.seat:
                    np.testing.assert_array_equal(observe(t, s), reference(g, t.view(s), None), err_msg=f"seat {s}")
            mask = action_mask(obs)
            legal = [action_index(g, obs.decision, a) for a in obs.legal()]
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(legal)
            assert [action_of(g, i) for i in legal] == obs.legal()
            score_bins += int(v[layout[-1][1]:].sum())
            n_pos += 1
    assert n_pos >= 200
    if g.protocol.has_calls:
        assert len(decisions) > 1, decisions       # bidding positions were encoded too
    if "target" in options:
        assert score_bins > 0                       # the match reached game scores


def test_the_spaces_per_game_and_options():
    expected = {("spades", ()): 52, ("spades", (("bidding", "exact"),)): 66, ("euchre", ()): 32,
                ("euchre", (("setup", "fixed_spades"),)): 24, ("sueca", ()): 40, ("jass", ()): 43}
    for (game, options), size in expected.items():
        assert action_space_size(game, **dict(options)) == size
    assert action_space_size("spades", partnership=True, bidding="standard") == 66
    for game in GAMES:
        g = make_game(game)
        assert action_space_size(g) == g.info.n_cards + expected_calls(g)
    with pytest.raises(ValueError, match="out of range"):
        action_of("jass", 43)
    with pytest.raises(ValueError, match="no calls"):
        action_index("sueca", "bid", 0)
    with pytest.raises(ValueError, match="decision='deal' is invalid"):
        action_index("jass", "deal", 0)
    with pytest.raises(UsageError, match="unknown game"):
        observation_size("bridge")


# ----------------------------------------------------------------------------- PettingZoo


def _quiet():
    for text in PZ_NOISE:
        warnings.filterwarnings("ignore", message=f".*{text}.*")


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_pettingzoo_api_seed_and_render(config):
    game, options = config
    with warnings.catch_warnings():
        _quiet()
        api_test(aec_env(game, **options), num_cycles=150)
        seed_test(lambda: aec_env(game, **options), num_cycles=150)
        render_test(lambda render_mode=None: aec_env(game, render_mode=render_mode, **options))


def test_the_pettingzoo_registry_makes_the_games():
    import pettingzoo

    env = pettingzoo.make("aec", "evolve/jass-v0", target=300)
    assert env.unwrapped.game.name == "jass" and env.unwrapped.match


def test_episodes_rewards_and_rendering():
    """One deal by default; with ``target`` a match to the target, each deal's score the
    reward of its end; ansi text names the seat to act and its legal actions."""
    env = aec_env("euchre", render_mode="ansi", target=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert (info["decision"] in DECISIONS or info["decision"] in SHARED_SLOTS) and obs["action_mask"].any()
        others = [a for a in env.agents if a != agent]
        assert not any(env.observe(a)["action_mask"].any() for a in others)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    t = env.table
    assert len(t.results) > 1 and t.winner >= 0 and not env.agents
    for s in range(4):
        assert total[f"player_{s}"] == sum(r["score"][s % 2] for r in t.results)
    text = env.render()
    assert "The table is over" in text and f"Side {t.winner} won" in text
    env.reset()              # the next deals of the same seed
    assert env.table.start == t.start + len(t.results)
    assert "legal actions" in env.render()


def test_a_deal_of_the_engines_agents_scores_as_evolve_play():
    """Every seat asks the engine's agent for its action on the environment's observation; the
    deals' scores equal evolve.play's with the same seed, deal after deal (reset() goes on
    with the next deals), random play included (the agents draw from the engine's streams)."""
    cases = [("jass", {}, ["jass_rule_based"] * 4), ("euchre", {}, ["random"] * 4),
             ("spades", {"partnership": True, "bidding": "standard"}, ["random"] * 4), ("sueca", {}, ["random"] * 4),
             ("euchre", {"target": 3}, ["random:bidder=simple"] * 4)]
    for game, options, seats in cases:
        env = aec_env(game, **options)
        agents = [evolve.agent(s, game, **options) for s in seats]
        scores, rewards = [], np.zeros(4)
        for episode in range(3 if "target" not in options else 1):
            env.reset(seed=11) if episode == 0 else env.reset()
            deal = -1
            for name in env.agent_iter():
                _, reward, term, trunc, _ = env.last()
                rewards[env.seat_of(name)] += reward
                if term or trunc:
                    env.step(None)
                    continue
                t = env.table
                if t.start + t.deal_index != deal:
                    deal = t.start + t.deal_index
                    for a in agents:
                        a.new_deal(deal, seed=11)
                o = env.engine_observation(name)
                env.step(action_index(env.game, o.decision, agents[o.seat].act(o)))
            scores += [r["score"] for r in env.table.results]
        r = evolve.play(game, seats, len(scores), seed=11, **options)
        assert np.array_equal(scores, r.score), (game, options)
        assert np.array_equal(rewards, [r.score[:, s % 2].sum() for s in range(4)])
        if "target" in options:
            assert int(r.game_winner[-1]) == env.table.winner >= 0


def test_bad_actions_are_one_line_errors_and_change_nothing():
    env = aec_env("spades", partnership=True, bidding="standard")
    env.reset(seed=2)
    before = (len(env.table.actions), env.agent_selection, env.observe(env.agent_selection)["observation"].copy())
    n = env.action_space(env.agent_selection).n
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad, text in [(n, "out of range"), (-1, "out of range"), (1.5, "not an action index"),
                      (None, "not an action index"), (illegal, "is not legal for player_1 at its bid decision")]:
        with pytest.raises(ValueError, match=text) as e:
            env.step(bad)
        assert "\n" not in str(e.value)
    assert (len(env.table.actions), env.agent_selection) == before[:2]
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before[2])
    with pytest.raises(UsageError, match="render_mode"):
        aec_env("jass", render_mode="rgb_array")
    with pytest.raises(UsageError, match="unknown option"):
        aec_env("jass", trumps=3)


def test_the_environments_pickle_mid_deal():
    """A pickled environment goes on exactly as the original: the same observations, masks,
    rewards and (Gym) the same agents' decisions from the same random streams."""
    rng = np.random.default_rng(1)
    env = aec_env("euchre", target=3)
    env.reset(seed=5)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(30):
        a = env.agent_selection
        assert copy.agent_selection == a
        o, oc = env.observe(a), copy.observe(a)
        np.testing.assert_array_equal(o["observation"], oc["observation"])
        np.testing.assert_array_equal(o["action_mask"], oc["action_mask"])
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        env.step(action)
        copy.step(action)
        assert env.rewards == copy.rewards and env._cumulative_rewards == copy._cumulative_rewards
    genv = gym_env("jass", opponents=["random", "jass_rule_based"], target=300)
    genv.reset(seed=3)
    genv.step(int(rng.choice(np.flatnonzero(genv.action_masks()))))
    gcopy = pickle.loads(pickle.dumps(genv))
    for _ in range(12):
        action = int(rng.choice(np.flatnonzero(genv.action_masks())))
        a, b = genv.step(action), gcopy.step(action)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4] and genv.table.actions == gcopy.table.actions


# ----------------------------------------------------------------------------- no hidden card


def _deck(t: Table) -> np.ndarray:
    """The deck of the table's deal, as the table deals it."""
    deck = np.empty(t.info.n_cards, np.int64)
    deal_cards(seed_key(t.seed), np.int64(t.start + t.deal_index), np.empty(N_STREAMS, np.uint64), deck,
               np.empty((0, t.info.n_cards), np.int64), 0)
    return deck


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_swapping_the_other_hands_never_changes_the_observation(config):
    """Two tables whose other seats' hands differ (two unplayed cards swapped between two
    other seats; of one suit once cards are played, so the same plays stay legal) and which
    took the same actions give the seat to act the same vector."""
    game, options = config
    g = make_game(game, **options)
    rng = np.random.default_rng(7)
    n_checked = 0
    for seed in range(12):
        probe = Table(g, humans(), seed=seed, deals=1)
        deck = _deck(probe)
        a_table = Table(g, humans(), seed=seed, deals=1, decks=deck[None])
        steps = int(rng.integers(0, 4 * g.info.hand_size))
        list(random_walk(a_table, rng, steps))
        if a_table.over:
            continue
        seat = a_table.to_act
        hands = [set(a_table.view(s)["hand"]) for s in range(4)]
        mode = a_table.trump
        played = a_table.state is not None and (a_table.state.trick_pairs() or a_table.state.trick())
        x, y = [s for s in range(4) if s != seat][:2] if rng.random() < 0.5 else [s for s in range(4) if s != seat][1:]
        # and the cards of private decisions (the Hearts pass): they moved to another hand
        keep = {a_table.upcard, a_table.discard, *a_table.deal.private}
        if game == "jass" and mode >= 0 and int(trump_of(g.rules, mode)) >= 0:
            faces = g.info.faces                                   # the Buur decides what may be held back
            keep.add(int(trump_of(g.rules, mode)) * len(faces) + faces.index("J"))
        pairs = [(c, d) for c in sorted(hands[x] - keep) for d in sorted(hands[y] - keep)
                 if not played or suit_of(g.rules, mode, c) == suit_of(g.rules, mode, d)]
        if not pairs:
            continue
        c, d = pairs[int(rng.integers(len(pairs)))]
        swapped = deck.copy()
        i, j = int(np.flatnonzero(deck == c)[0]), int(np.flatnonzero(deck == d)[0])
        swapped[i], swapped[j] = d, c
        b_table = Table(g, humans(), seed=seed, deals=1, decks=swapped[None])
        for act in a_table.actions:
            b_table.act(act["seat"], act["action"])
        assert b_table.to_act == seat and set(b_table.view(x)["hand"]) != hands[x]
        np.testing.assert_array_equal(observe(a_table), observe(b_table))
        for s in range(4):          # the other seats too: each sees its own hand, nothing else
            same = s not in (x, y)
            assert np.array_equal(observe(a_table, s), observe(b_table, s)) == same, (s, x, y)
        n_checked += 1
    assert n_checked >= 6


# ----------------------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize("game", list(GAMES))
def test_gymnasium_env_checker(game):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*spec.*")
        check_env(gym_env(game, illegal="ignore"))


def test_gymnasium_registry_and_render_modes():
    import gymnasium

    env = gymnasium.make("evolve/euchre-v0", opponents="random:bidder=simple", illegal="ignore",
                         stick_the_dealer=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped.*")
        check_env(env.unwrapped)         # with a spec: determinism of reset() and every render mode
    assert env.unwrapped.game.options["stick_the_dealer"]


def test_the_gym_seat_partner_and_rewards():
    """The caller decides its seat's actions (and its partner's with partner='self'); the
    agents the other seats'; the reward is its side's deal score; illegal actions raise by
    default and change nothing with illegal='ignore'."""
    rng = np.random.default_rng(2)
    for partner, mine in [(None, {1}), ("self", {1, 3})]:
        env = gym_env("sueca", seat=1, opponents=["cardcounting", "random"], partner=partner, target=2,
                      render_mode="ansi")
        obs, info = env.reset(seed=8)
        assert env.seat_strings == ["random", "human", "cardcounting", "cardcounting" if partner is None else "human"]
        seats, total, terminated = set(), 0.0, False
        while not terminated:
            seats.add(info["seat"])
            assert obs.shape == (observation_size("sueca"),) and info["decision"] == "card"
            np.testing.assert_array_equal(obs, observe(env.table, info["seat"]))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += reward
        assert seats == mine and not obs.any() and not info["action_mask"].any()
        assert total == sum(r["score"][1] for r in env.table.results) and env.table.winner >= 0
        assert "you" in env.render()
    env = gym_env("jass", opponents="jass_rule_based")
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="is not legal for seat 0"):
        env.step(bad)
    n = len(env.table.actions)
    quiet = gym_env("jass", opponents="jass_rule_based", illegal="ignore")
    obs, info = quiet.reset(seed=1)
    again, reward, terminated, truncated, info2 = quiet.step(bad)
    assert info2["illegal_action"] and reward == 0.0 and len(quiet.table.actions) == n
    np.testing.assert_array_equal(again, obs)
    # a deal where the caller never decides (its partner orders up and goes alone) is skipped
    env = gym_env("euchre", seat=0, opponents="random:bidder=random")
    env.reset(seed=0)
    skipped = 0
    for _ in range(60):
        start = env.table.start
        obs, info = env.reset()
        assert info["seat"] == 0 and info["action_mask"].any() and obs.any()
        skipped += env.table.start - start - 1
    assert skipped > 0
    for kwargs, text in [({"opponents": ["random"] * 4}, "1, 2 or 3"), ({"opponents": "human"}, "are agents"),
                         ({"illegal": "punish"}, "illegal="), ({"seat": 4}, "seat=4")]:
        with pytest.raises(UsageError, match=text):
            gym_env("jass", **kwargs)


def test_importing_evolve_env_loads_no_optional_package():
    """``import evolve.env`` imports neither PettingZoo nor Gymnasium; without them the
    environments say what to install, in one line."""
    code = ("import sys; import evolve.env, evolve.env.spaces; "
            "assert not {'pettingzoo', 'gymnasium'} & set(sys.modules), sorted(sys.modules); "
            "sys.modules['pettingzoo'] = None; sys.modules['gymnasium'] = None\n"
            "try:\n    import evolve.env.aec\nexcept Exception as e:\n    print(type(e).__name__, e)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'UsageError evolve.env.aec needs PettingZoo and Gymnasium: pip install ' \
                                 '"trick-evolve[env]"'
    assert spaces.encode_observation is evolve.env.encode_observation
