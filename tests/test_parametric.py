"""Parametric agents evolved by the same harness as networks: genome layouts (every
registered kind at the table from each start point is in tests/test_conformance.py), runs with the GA and with CMA-ES
(reproducible, resumable, worker-independent), champion files and their errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evolve
from evolve.agents.genomes.champion import load_champion
from evolve.agents.genomes.evolvable import ParametricAgent, from_unit, to_unit
from evolve.agents.genomes.parametric import PARAMETRIC
from evolve.core.errors import UsageError
from evolve.core.layout import Block, Layout
from evolve.evolution.config import ConfigError, load_config
from evolve.evolution.runner import Evolution
from evolve.games.registry import make_game

HERE = Path(__file__).parent
BIDDER = HERE / "configs" / "tiny_euchre_bidder.toml"
CMA = HERE / "configs" / "tiny_markov_cma.toml"


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "evolve.run", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def test_layout_splits_joins_and_checks_bounds():
    layout = Layout((Block("tau", (1,), 0.0, 2.0), Block("values", (2, 3), 0.0, 1.0), Block("fixed", (1,), 5.0, 5.0)))
    g = np.array([0.5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 5.0])
    parts = layout.split(g)
    assert parts["values"].shape == (2, 3) and parts["values"][1, 2] == 0.6
    assert np.array_equal(layout.join(parts), g)
    with pytest.raises(UsageError, match="has 7 values; expected 8"):
        layout.check(g[:-1])
    with pytest.raises(UsageError, match=r"values\[0, 2\] = 1.5 is out of bounds; expected a value in \[0, 1\]"):
        layout.check(np.where(np.arange(8) == 3, 1.5, g))
    with pytest.raises(UsageError, match="block 'fixed' is missing"):
        layout.join({"tau": [1.0], "values": np.zeros(6)})
    u = to_unit(layout, g[None, :])
    assert np.all(np.abs(u) <= 1) and u[0, -1] == 0.0
    assert np.allclose(from_unit(layout, u)[0], g)


def test_markov_default_genome_plays_as_the_registered_markov():
    for game in ("spades", "euchre", "jass"):
        agent = ParametricAgent(PARAMETRIC["markov"], make_game(game), "random:bidder=simple")
        spec = agent.specs(agent.start("default")[None, :])[0]
        a = evolve.play(game, [spec, "random", "random", "random"], 400, seed=11)
        b = evolve.play(game, ["markov:bidder=simple", "random", "random", "random"], 400, seed=11)
        assert np.array_equal(a.tricks, b.tricks) and np.array_equal(a.points, b.points)


def test_parametric_run_gives_a_champion_with_named_blocks_that_plays_as_a_seat(tmp_path):
    res = run_cli(BIDDER, "--out", tmp_path / "r", "--no-progress")
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "r" / "champion.json").read_text())
    assert meta["kind"] == "euchre_linear_bidder" and meta["agent"]["pair"] == "cardcounting"
    with np.load(tmp_path / "r" / "champion.npz") as data:
        assert sorted(data.files) == ["alone_threshold", "call_threshold", "order_threshold", "values"]
        assert data["values"].shape == (3, 8) and data["order_threshold"].shape == (4,)
    champ = load_champion(tmp_path / "r")
    assert champ.arch is None and champ.genome.shape == (33,)
    seat = f"champion:{tmp_path / 'r' / 'champion.npz'}"
    arena = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "euchre", "--deals", "100", "--seats",
                            f"{seat},random"], capture_output=True, text=True)
    assert arena.returncode == 0, arena.stderr
    paired = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "euchre", "--deals", "100", "--seats",
                             f"{seat}@highlow,random"], capture_output=True, text=True)
    assert paired.returncode == 0, paired.stderr
    wrong = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "jass", "--deals", "10", "--seats", seat],
                           capture_output=True, text=True)
    assert wrong.returncode == 2 and "plays euchre, not jass" in wrong.stderr


def test_parametric_champion_of_wrong_length_or_kind_is_one_line(tmp_path):
    res = run_cli(BIDDER, "--out", tmp_path / "r", "--no-progress", "--no-benchmark")
    assert res.returncode == 0, res.stderr
    path = tmp_path / "r" / "champion.npz"
    good = dict(np.load(path))
    np.savez(path, **{**good, "order_threshold": [2.0, 1.0]})
    with pytest.raises(UsageError, match="block 'order_threshold' has 2 values; expected 4"):
        load_champion(path)
    np.savez(path, **{**good, "order_threshold": [9.0, 2.0, 2.0, 2.0]})
    with pytest.raises(UsageError, match=r"order_threshold\[0\] = 9.0 is out of bounds"):
        load_champion(path)
    meta = json.loads((tmp_path / "r" / "champion.json").read_text())
    meta["agent"]["kind"] = "telepathy"
    (tmp_path / "r" / "champion.json").write_text(json.dumps(meta))
    with pytest.raises(UsageError, match="unknown parametric kind 'telepathy'"):
        load_champion(path)


def test_parametric_run_same_champion_with_1_and_2_workers(tmp_path):
    for w in (1, 2):
        res = run_cli(BIDDER, "--out", tmp_path / f"w{w}", "--workers", w, "--no-progress", "--no-benchmark")
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "w1" / "champion.npz").read_bytes() == (tmp_path / "w2" / "champion.npz").read_bytes()


def test_cma_run_is_reproducible_resumable_and_leaves_numpy_global_state_alone(tmp_path):
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    cfg = load_config(CMA)
    Evolution(cfg, run_dir=tmp_path / "a", plot_dir=tmp_path / "pa", progress=False).run()
    assert np.array_equal(np.random.get_state()[1], before)
    short = cfg.with_overrides(evolution={"generations": 3, "max_generations": 3})
    Evolution(short, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False).run()
    state = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False).run(resume=True)
    log_a = json.loads((tmp_path / "a" / "logbook.json").read_text())
    log_b = json.loads((tmp_path / "b" / "logbook.json").read_text())
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]  # noqa: E731
    assert strip(log_a) == strip(log_b) and len(log_a) == 6
    assert log_a[-1]["sigma"] != log_a[0]["sigma"]           # the strategy adapts
    assert state.strategy is not None


def test_cma_champion_is_the_same_with_2_workers(tmp_path):
    for w in (1, 2):
        res = run_cli(CMA, "--out", tmp_path / f"w{w}", "--workers", w, "--no-progress", "--no-benchmark")
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "w1" / "champion.npz").read_bytes() == (tmp_path / "w2" / "champion.npz").read_bytes()


@pytest.mark.parametrize("change,message", [
    ({"agent": {"kind": "telepathy"}}, "agent.kind: got 'telepathy'; expected network or one of"),
    ({"agent": {"kind": "euchre_linear_bidder"}}, "agent.kind: 'euchre_linear_bidder' does not play spades"),
    ({"agent": {"kind": "markov", "init": "bulk"}}, "agent.init: got 'bulk'; expected one of default, uniform"),
    ({"agent": {"kind": "markov", "init": "champion:populations/jass_trump/champion.npz"}},
     "agent.init: champion 'populations/jass_trump/champion.npz' is a jass_trump agent, not markov"),
    ({"agent": {"kind": "markov", "init": "champion:/nowhere/champion.npz"}}, "agent.init: champion file"),
    ({"agent": {"kind": "markov", "bidder": "psychic"}}, "agent.bidder: bidder 'psychic' is invalid"),
    ({"evolution": {"algorithm": "nelder"}}, "evolution.algorithm: got 'nelder'; expected ga "),
    ({"evolution": {"partner": "ghost"}}, "evolution.partner: got 'ghost'"),
])
def test_bad_agent_settings_are_one_line(tmp_path, change, message):
    data = {"experiment": {"game": "spades", "name": "bad"}, **change}
    from evolve.evolution.config import validate

    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
        validate(data, tmp_path / "bad.toml")


def test_cma_on_a_network_is_refused_with_a_reason(tmp_path):
    from evolve.evolution.config import validate

    cfg = validate(
        {"experiment": {"game": "spades", "name": "big"}, "evolution": {"algorithm": "cma"}}, tmp_path / "x.toml"
    )
    with pytest.raises(ConfigError, match=r"evolution.algorithm: cma on a genome of \d+ values"):
        Evolution(cfg, run_dir=tmp_path / "r", progress=False)


def test_jass_trump_default_genome_chooses_as_the_ranked_bidder_and_graf_as_the_table():
    agent = ParametricAgent(PARAMETRIC["jass_trump"], make_game("jass"), "jass_rule_based")
    ranked = agent.specs(agent.start("default")[None, :])[0]
    a = evolve.play("jass", [ranked, "random", ranked, "random"], 2000, seed=4)
    b = evolve.play("jass", ["jass_rule_based:bidder=simple", "random"], 2000, seed=4)
    assert np.array_equal(a.trump, b.trump) and np.array_equal(a.points, b.points)
    graf = evolve.play("jass", ["jass_rule_based:bidder=graf", "random"], 3000, seed=5)
    # Graf by hand on the forehand's hand (the forehand is the seat after the dealer)
    table = {"trump": [5, 5, 5, 19, 6, 25, 7, 10, 15], "side": [0, 0, 0, 0, 1, 2, 5, 7, 9],
             "obe": [0, 0, 5, 0, 5, 7, 8, 10, 14], "une": [11, 9, 7, 5, 5, 1, 1, 2, 0]}
    checked = 0
    for i in range(3000):
        fore = (int(graf.dealer[i]) + 1) % 4
        if fore % 2:            # the graf bidder sits in seats 0 and 2
            continue
        hand = graf.hands[i, fore]
        scores = [sum(table["trump" if c // 9 == t else "side"][c % 9] for c in hand) for t in range(4)]
        scores += [sum(table["obe"][c % 9] for c in hand), sum(table["une"][c % 9] for c in hand)]
        best = int(np.argmax(scores))
        assert graf.calls[i, 0] == (6 if max(scores) <= 68 else best)       # 6: pushed
        checked += 1
    assert checked > 1000


def test_spades_predictor_default_bids_as_the_rule_of_thumb():
    game = make_game("spades", partnership=True, bidding="standard")
    agent = ParametricAgent(PARAMETRIC["spades_bid_predictor"], game, "highlow")
    spec = agent.specs(agent.start("default")[None, :])[0]
    a = evolve.play(game, [spec, "random"], 3000, seed=8)
    b = evolve.play(game, ["highlow:bidder=simple", "random"], 3000, seed=8)
    assert np.array_equal(a.bids, b.bids) and np.array_equal(a.score, b.score)
    assert (a.bids[:, 0] == 0).any()          # nil bids happen


def test_graf_bidder_is_refused_outside_jass():
    from evolve.agents.registry import parse_seat

    with pytest.raises(UsageError, match="bidder 'graf' decides only jass calls, not euchre"):
        parse_seat("cardcounting:bidder=graf", make_game("euchre"))


# ------------------------------------------------------------------ honesty of every bidder

_BID_GAMES = {"spades": {"partnership": True, "bidding": "standard"}, "euchre": {}, "jass": {}}


def _bidder_cases():
    from evolve.agents.bidding.bidders import BIDDER_GAMES, BIDDERS

    cases = [(g, f"cardcounting:bidder={b}") for g in _BID_GAMES for b in BIDDERS if g in BIDDER_GAMES.get(b, (g,))]
    cases += [(g, f"{name}:{init}") for name, kind in PARAMETRIC.items() if kind.role == "bid"
              for g in kind.games if g in _BID_GAMES for init in kind.starts]
    return [pytest.param(g, seat, id=f"{g}-{seat}") for g, seat in cases]


@pytest.mark.parametrize("game_name,seat", _bidder_cases())
def test_swapping_hidden_hands_never_changes_the_first_bid(game_name, seat):
    """Dealer 3, so seat 0 bids (or calls trump) first: every permutation of the other
    seats' hands gives seat 0 the same observation and so the same first call."""
    import itertools

    g = make_game(game_name, **_BID_GAMES[game_name])
    if ":" in seat and seat.split(":")[0] in PARAMETRIC:
        name, init = seat.split(":")
        agent = ParametricAgent(PARAMETRIC[name], g, "cardcounting")
        spec = agent.specs(agent.initial(np.random.default_rng(1), 2, init, 0.05)[1:])[0]   # a perturbed genome
    else:
        spec = seat
    info = g.info
    rng = np.random.default_rng(7)
    hs = info.hand_size
    column = {"spades": "bids", "euchre": "calls", "jass": "calls"}[game_name]
    # Euchre's forehand rarely orders up: the others always pass, so seat 0 also makes the
    # first call of round 2 (calls[4]) on an observation that depends only on its own hand
    other = "random:bidder=simple,order=900,call=900" if game_name == "euchre" else "random:bidder=random"
    distinct = set()
    for _ in range(400 if game_name == "euchre" else 120):
        deck = rng.permutation(info.n_cards)
        hands = [deck[k * hs:(k + 1) * hs] for k in range(4)]
        firsts = set()
        for perm in itertools.permutations((1, 2, 3)):
            new = [hands[0]] + [hands[p] for p in perm]
            d = np.concatenate(new + [deck[4 * hs:]])
            r = evolve.play(g, [spec, other, other, other], decks=d[None, :], dealer=3, seed=9)
            calls = getattr(r, column)[0]
            firsts.add((int(calls[0]), int(calls[4])) if game_name == "euchre" else int(calls[0]))
        assert len(firsts) == 1, (seat, firsts)
        distinct |= firsts
    assert len(distinct) > 1 or seat.endswith("bidder=random")     # a rule looks at its own hand


def test_a_run_can_start_from_an_evolved_champion(tmp_path):
    first = run_cli(BIDDER, "--out", tmp_path / "a", "--no-progress", "--no-benchmark")
    assert first.returncode == 0, first.stderr
    cfg = tmp_path / "again.toml"
    cfg.write_text(
        BIDDER.read_text().replace('init = "default"', f'init = "champion:{tmp_path / "a" / "champion.npz"}"')
    )
    second = run_cli(cfg, "--out", tmp_path / "b", "--no-progress", "--no-benchmark", "--generations", "1")
    assert second.returncode == 0, second.stderr
    with np.load(tmp_path / "b" / "checkpoint.npz") as data:
        founder = data["founders"][0]
    agent = load_champion(tmp_path / "a").agent
    assert np.allclose(from_unit(agent.layout, founder[None, :])[0], load_champion(tmp_path / "a").genome)


ROOT = Path(__file__).parent.parent


def test_the_network_section_does_not_change_a_parametric_configs_hash():
    markov = load_config(ROOT / "experiments" / "euchre_markov.toml")
    network = load_config(ROOT / "experiments" / "euchre_champion.toml")
    for config, unchanged in ((markov, True), (network, False)):
        other_bidder = {"bidder": "simple" if config.network["bidder"] != "simple" else "context"}
        assert (config.with_overrides(network=other_bidder).hash() == config.hash()) is unchanged


COMMITTED = sorted(p.parent.name for p in (ROOT / "populations").glob("*/champion.json")
                   if (ROOT / "experiments" / f"{p.parent.name}.toml").is_file())


@pytest.mark.parametrize("name", COMMITTED)
def test_a_committed_champion_records_the_hash_its_config_gives(name):
    """A config that no longer gives its champion's hash is no longer the recipe of that champion
    (``--resume`` of its run would be refused, and the champion's origin is unclear)."""
    recorded = json.loads((ROOT / "populations" / name / "champion.json").read_text())["config_hash"]
    assert load_config(ROOT / "experiments" / f"{name}.toml").hash() == recorded
