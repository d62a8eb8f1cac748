"""Lockstep evaluation (``evolve.runtime.lockstep``): many deals at once, network decisions batched.
It must give the batch kernel's results bit for bit, whatever the number of deals in play,
and evolution with ``evaluation = "lockstep"`` must be the same run, on 1 or 2 workers and
after a resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import evolve
from evolve.agents.genomes.champion import Champion
from evolve.agents.network.architecture import Architecture
from evolve.agents.registry import pack_seats, parse_seats
from evolve.evolution.config import ConfigError, load_config
from evolve.evolution.runner import Evolution
from evolve.games.bits import seed_key
from evolve.games.card_play import new_record, record_shape
from evolve.games.registry import make_game
from evolve.runtime.batch import play_batch
from evolve.runtime.lockstep import networks_of, play_lockstep

TINY = Path(__file__).parent / "configs" / "tiny_spades.toml"


def _nets(game, rng, *encodings):
    """Random networks; an encoding ending in "+direct" has direct connections, one ending
    in "+int16" an int16 second layer, one ending in "+trump_first" its suits renumbered."""
    out = []
    for k, enc in enumerate(encodings):
        arch = Architecture.for_game(game, enc.split("+")[0], direct=enc.endswith("+direct"),
                                     layer2="int16" if enc.endswith("+int16") else "float32",
                                     suits="trump_first" if enc.endswith("+trump_first") else "as_dealt")
        out.append(Champion(arch, arch.random_genome(rng)).spec(f"net{k}"))
    return out


def _same(a, b):
    fields = a._fields if hasattr(a, "_fields") else [k for k, v in vars(a).items() if isinstance(v, np.ndarray)]
    assert len(fields) >= 15
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray) or x is None:
            assert (x is None and y is None) or np.array_equal(x, y), f
    return True


def test_spades_with_bidding_and_mixed_networks_is_the_batch_kernel_bit_for_bit():
    # three networks (card-based, hand-based, seat-based with direct connections) and a
    # random seat; standard bidding exercises the bidders before the play
    g = make_game("spades", partnership=True, bidding="standard")
    rng = np.random.default_rng(1)
    seats = [*_nets(g, rng, "card", "hand+int16", "seat+direct"), "random"]
    a = evolve.play(g, seats, 1500, seed=4, record=True)
    b = evolve.play(g, seats, 1500, seed=4, record=True, lockstep=True)
    assert _same(a, b) and (b.score != 0).any()
    # given deals, a few deals in play at once (queues of 1..GEMM_M deals, every tail)
    specs = parse_seats(seats, g)
    ints, params = pack_seats(specs)
    info = g.info
    decks = np.array([np.random.default_rng(i).permutation(52) for i in range(300)], np.int64)
    dealers = np.arange(300, dtype=np.int64) % 4
    work = np.zeros(max(s.work_size for s in specs))
    recs = []
    for slots in (1, 3, 7, 300):
        rec = new_record(300, *record_shape(info), True)
        play_lockstep(g.rules, ints[None, :], 300, params, seed_key(2), 10, 300, decks, dealers, rec, work, slots=slots)
        recs.append(rec)
    ref = new_record(300, *record_shape(info), True)
    play_batch(g.rules, ints[None, :], 300, params, seed_key(2), 10, 300, decks, dealers, ref, work)
    assert all(_same(ref, r) for r in recs)


def test_euchre_with_passed_out_deals_and_lone_hands_is_the_batch_kernel_bit_for_bit():
    g = make_game("euchre")
    rng = np.random.default_rng(2)
    seats = [*_nets(g, rng, "card+trump_first", "hand", "seat+int16"), "random"]    # the networks bid simply
    a = evolve.play(g, seats, 3000, seed=1, record=True)
    b = evolve.play(g, seats, 3000, seed=1, record=True, lockstep=True)
    assert _same(a, b)
    assert (b.trump < 0).any() and (b.alone > 0).any()      # passed-out deals and lone hands happen


def test_networks_of_gives_one_queue_per_network():
    tables = np.zeros((3, 24), np.int64)
    tables[:, 0:4] = [[1, 1, 0, 2], [1, 12, 1, 1], [0, 0, 0, 0]]
    tables[:, 8:12] = [[100, 50, 0, 900], [50, 3, 100, 100], [0, 0, 0, 0]]
    lo, of = networks_of(tables)
    assert lo.tolist() == [50, 100, 900]
    assert of.tolist() == [[1, 0, -1, 2], [0, -1, 1, 1], [-1, -1, -1, -1]]


def _evolve(tmp_path, name, workers=1, evaluation="lockstep", generations=3, resume=False):
    cfg = load_config(TINY).with_overrides(evolution={"generations": generations, "max_generations": generations,
                                                      "evaluation": evaluation},
                                           parallel={"workers": workers})
    evo = Evolution(cfg, run_dir=tmp_path / name, plot_dir=tmp_path / name / "plots", progress=False)
    state = evo.run(resume=resume)
    evo.export_champion(state)
    return state


def test_lockstep_evolution_is_the_same_run_on_1_and_2_workers_and_after_a_resume(tmp_path):
    base = _evolve(tmp_path, "seq", evaluation="sequential")
    one = _evolve(tmp_path, "ls1")
    two = _evolve(tmp_path, "ls2", workers=2)
    strip = lambda s: [{k: v for k, v in r.items() if k != "seconds"} for r in s.logbook]  # noqa: E731
    assert strip(base) == strip(one) == strip(two) and len(base.logbook) == 3
    champion = (tmp_path / "seq" / "champion.npz").read_bytes()
    for name in ("ls1", "ls2"):
        assert (tmp_path / name / "champion.npz").read_bytes() == champion, name
    # resumed runs (2 generations, then one more): lockstep throughout, or switched on at the resume
    _evolve(tmp_path, "cut_ls", generations=2)
    _evolve(tmp_path, "cut_seq", generations=2, evaluation="sequential")
    a = _evolve(tmp_path, "cut_ls", resume=True)
    b = _evolve(tmp_path, "cut_seq", resume=True)
    assert strip(a) == strip(b) and len(a.logbook) == 3
    assert (tmp_path / "cut_ls" / "champion.npz").read_bytes() == (tmp_path / "cut_seq" / "champion.npz").read_bytes()
    cfg = json.loads((tmp_path / "ls1" / "config.json").read_text())
    assert "lockstep" in json.dumps(cfg)


def test_evaluation_key_is_checked_and_leaves_the_config_hash_alone(tmp_path):
    cfg = load_config(TINY)
    assert cfg.evolution["evaluation"] == "sequential"
    assert cfg.with_overrides(evolution={"evaluation": "lockstep"}).hash() == cfg.hash()
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.read_text().replace("[evolution]", '[evolution]\nevaluation = "fast"'))
    with pytest.raises(ConfigError, match=r"evolution.evaluation: got 'fast'; expected sequential \(one deal"):
        load_config(bad)


def test_common_random_numbers_tournament_is_the_same_in_lockstep():
    cfg = load_config(TINY).with_overrides(evolution={"common_random_numbers": True, "opponents": ["random"],
                                                      "opponent_share": 1.0})
    evo = Evolution(cfg, progress=False)
    specs = evo.member_specs(evo.initial_state().population)
    a = evo.tournament.evaluate(specs, 3, 1)
    evo.tournament.lockstep = True
    b = evo.tournament.evaluate(specs, 3, 1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and np.isfinite(a[0]).all()
