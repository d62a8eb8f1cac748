"""Evolution: operators, config validation, tournament layout, checkpoints, determinism
across workers and backends, crash-and-resume, champion files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evolve
from evolve.agents.genomes.champion import load_champion
from evolve.evolution.config import ConfigError, load_config
from evolve.evolution.runner import Evolution
from evolve.evolution.strategies.ga import (
    annealed_mutation,
    gaussian_mutation,
    make_toolbox,
    mutation_rate,
    next_generation,
    truncation,
    uniform_recombination,
)
from evolve.evolution.tournament import rotated_decks, seat_tables
from evolve.games.registry import make_game

HERE = Path(__file__).parent
TINY = HERE / "configs" / "tiny_spades.toml"
BAD = sorted((HERE / "configs" / "bad").glob("*.toml"))
EXPECTED = {
    "unknown_key.toml": "evolution.populaton: unknown key; valid keys:",
    "wrong_type.toml": "evolution.population: got 'sixty' (str); expected an integer >= 4",
    "too_small.toml": "evolution.population: got 2; expected an integer >= 4",
    "unknown_game.toml": "experiment.game: got 'chess'; expected one of spades, euchre, sueca, jass",
    "missing_game.toml": "experiment.game: missing; expected one of spades, euchre, sueca, jass",
    "bad_encoding.toml": "network.encoding: got 'pixels'; expected card, hand or seat",
    "bad_layer2.toml": "network.layer2: got 'int8'; expected float32 or int16",
    "bad_suits.toml": "network.suits: got 'trump_last'; expected as_dealt or trump_first",
    "side_fitness_cutthroat.toml": "evolution.fitness: got 'side_points'; side fitness needs a partnership game",
    "bad_game_option.toml": "game_options: euchre: option setup='fixed_hearts' is invalid; valid values: standard, "
                            "fixed_spades",
    "unknown_section.toml": "extras: unknown section; valid sections:",
    "not_toml.toml": "invalid TOML",
    "mutation_out_of_range.toml": "evolution.ga.mutation_start: got 1.5; expected a number in [0, 1]",
    "schema_1_name.toml": "evolution.es_sigma: a schema version 1 name; write it as [evolution.es] sigma",
    "removed_option.toml": "evolution.mutation_schedule: got 'exponential'; the option was removed in schema version 2",
    "bad_schema.toml": "schema: got 7; expected a schema version 1..2",
    "unknown_strategy_key.toml": "evolution.es.sigmaa: unknown key; valid keys: sigma, learning_rate, weight_decay",
    "extends_missing.toml": "extends: 'no_such_recipe.toml' is not a file",
    "extends_cycle.toml": "extends_cycle_2.toml: extends: 'extends_cycle.toml' is in the chain already",
    "extends_cycle_2.toml": "extends_cycle.toml: extends: 'extends_cycle_2.toml' is in the chain already",
    "unknown_opponent.toml": "benchmark.opponents: seat 'rando': unknown agent 'rando'",
    "bad_hidden.toml": "network.hidden: got [10]; expected a list of two positive integers",
    "bad_backend.toml": "parallel.backend: got 'mpi'; expected loky, threads or dask",
    "share_without_opponents.toml": "evolution.opponent_share: is > 0 but evolution.opponents is empty",
    "unknown_teacher.toml": "imitation.teacher: seat 'grandmaster': unknown agent 'grandmaster'",
    "members_left_out.toml": "evolution.games_per_generation: got 2; only 8 of the 60 members would play each "
                             "generation (2 population tables x 4 seats); expected at least 15",
}


def run_cli(*args, cwd=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "evolve.run", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


# ---------------------------------------------------------------- operators

def test_uniform_recombination_takes_each_weight_from_a_parent():
    rng = np.random.default_rng(0)
    a, b = np.zeros(10_000), np.ones(10_000)
    child = uniform_recombination(a, b, rng)
    assert set(np.unique(child)) == {0.0, 1.0}
    assert 0.47 < child.mean() < 0.53


def test_recombination_coins_are_fair_and_independent():
    a, b = np.zeros(200_000), np.ones(200_000)
    coins = np.stack([uniform_recombination(a, b, np.random.default_rng(s)) for s in range(20)])
    assert abs(coins.mean() - 0.5) < 0.002
    for lag in (1, 63, 64, 65):                   # within and across the 64-coin draws
        assert abs(np.corrcoef(coins[:, :-lag].ravel(), coins[:, lag:].ravel())[0, 1]) < 0.005, lag
    assert abs(np.corrcoef(coins[0], coins[1])[0, 1]) < 0.01            # calls draw new streams


def test_operators_reproducible_and_in_place():
    g = np.random.default_rng(3).uniform(-1, 1, 5_000)
    for op in (lambda x, r, out=None: annealed_mutation(x, 1.0, r, out=out),
               lambda x, r, out=None: gaussian_mutation(x, 1.0, r, sigma=0.2, out=out),
               lambda x, r, out=None: uniform_recombination(x, -x, r, out=out)):
        first = op(g, np.random.default_rng(7))
        assert np.array_equal(first, op(g, np.random.default_rng(7))) and not np.array_equal(first, g)
        same = g.copy()
        assert op(same, np.random.default_rng(7), out=same) is same and np.array_equal(same, first)


def test_mutation_draws_follow_their_distributions():
    g = np.full(400_000, 0.25)
    fresh = annealed_mutation(g, 1.0, np.random.default_rng(4))
    new = fresh[fresh != 0.25]
    assert abs(new.size / g.size - 0.5) < 0.005
    assert new.min() >= -1.0 and new.max() < 1.0
    assert abs(new.mean()) < 0.005 and abs(new.var() - 1 / 3) < 0.005                 # U(-1, 1)
    assert abs((new < -0.5).mean() - 0.25) < 0.005
    g = np.zeros(400_000)
    moved = gaussian_mutation(g, 1.0, np.random.default_rng(5), sigma=0.1)
    step = moved[moved != 0]
    assert abs(step.size / g.size - 0.5) < 0.005
    assert abs(step.mean()) < 0.001 and abs(step.std() - 0.1) < 0.001                  # N(0, 0.1)
    assert abs((np.abs(step) > 0.196).mean() - 0.05) < 0.003                            # two-sided 5% at 1.96 sigma
    wide = gaussian_mutation(np.full(100_000, 0.9), 1.0, np.random.default_rng(6), sigma=1.0)
    assert wide.max() == 1.0 and wide.min() >= -1.0                                     # clamped


def test_annealed_mutation_rates_and_bounds():
    rng = np.random.default_rng(1)
    g = np.full(20_000, 0.5)
    mutated = [annealed_mutation(g, 0.6, rng) for _ in range(400)]
    changed = np.array([(m != g).mean() for m in mutated])
    # a member mutates with probability m; a mutating member replaces each weight w.p. m/2
    assert 0.52 < (changed > 0).mean() < 0.68
    assert abs(changed[changed > 0].mean() - 0.3) < 0.01
    assert all(np.all(np.abs(m) <= 1.0) for m in mutated)
    assert mutation_rate(0, 200) == 0.8 and mutation_rate(199, 200) == pytest.approx(0.2)
    assert mutation_rate(500, 200) == pytest.approx(0.2)


def test_truncation_and_next_generation():
    fit = np.array([1.0, 5.0, 3.0, 5.0, 0.0, 2.0])
    assert truncation(fit, 0.5).tolist() == [1, 3, 2]
    rng = np.random.default_rng(2)
    pop = np.arange(6, dtype=float)[:, None] * np.ones((6, 50)) / 10
    nxt = next_generation(pop, fit, 0.0, make_toolbox(0.5), rng)
    assert nxt.shape == pop.shape
    assert np.array_equal(nxt[:3], pop[[1, 3, 2]])  # parents kept (no mutation at m = 0)
    for child in nxt[3:]:  # children mix two different parents' weights
        assert set(np.unique(child)) <= {0.1, 0.3, 0.2} and len(np.unique(child)) == 2


# ---------------------------------------------------------------- config

@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_malformed_configs_get_one_line_errors(path):
    with pytest.raises(ConfigError) as e:
        load_config(path)
    msg = str(e.value)
    assert str(path) in msg and "\n" not in msg
    assert EXPECTED[path.name] in msg, msg


def test_every_bad_config_has_an_expectation():
    assert {p.name for p in BAD} == set(EXPECTED)


def test_cli_config_error_exit_2(tmp_path):
    proc = run_cli(HERE / "configs" / "bad" / "unknown_key.toml", "--out", tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "evolution.populaton" in proc.stderr


def test_shipped_experiments_are_valid():
    files = sorted((HERE.parent / "experiments").glob("*.toml"))
    assert files
    for f in files:
        load_config(f)


# ---------------------------------------------------------------- tournament

def test_balanced_seating_and_rotating_hands():
    rng = np.random.default_rng(5)
    seating = seat_tables(60, 15, 0, 0.0, rng)
    assert sorted(seating.tables.ravel().tolist()) == list(range(60))
    assert all(len(set(row)) == 4 for row in seating.tables)
    g = make_game("euchre")
    decks, dealers = rotated_decks(g, 3, 8, True, np.random.default_rng(6))
    h = g.info.hand_size
    for t in range(3):
        for r in range(8):
            d = decks[t * 8 + r]
            base = decks[(r // 4) * 4]
            for s in range(4):  # hand of seat s in round r was seat (s - r) % 4's hand in round 0 of the block
                assert np.array_equal(d[s * h:(s + 1) * h], base[((s - r) % 4) * h:((s - r) % 4 + 1) * h])
            assert np.array_equal(d[4 * h:], base[4 * h:])  # upcard and kitty stay
            assert dealers[t * 8 + r] == (dealers[(r // 4) * 4] + r % 4) % 4
        assert np.array_equal(decks[t * 8:(t + 1) * 8], decks[:8])  # shared deals


def test_opponent_tables_seat_one_member():
    seating = seat_tables(8, 10, 2, 0.5, np.random.default_rng(7))
    vs = seating.tables[5:]
    assert all((row >= 0).sum() == 1 for row in vs) and (vs < 0).sum() == 15
    assert set((-1 - vs[vs < 0]).tolist()) <= {0, 1}


# ---------------------------------------------------------------- runs

def _evolve(tmp_path, name, workers=1, backend="loky", generations=None):
    cfg = load_config(TINY)
    over = {"generations": generations, "max_generations": generations} if generations else {}
    cfg = cfg.with_overrides(evolution=over, parallel={"workers": workers, "backend": backend})
    evo = Evolution(cfg, run_dir=tmp_path / name, plot_dir=tmp_path / name / "plots", progress=False)
    state = evo.run()
    evo.export_champion(state)
    return evo, state


def test_same_seed_same_champion_with_1_and_2_workers(tmp_path):
    _, s1 = _evolve(tmp_path, "w1", workers=1)
    _, s2 = _evolve(tmp_path, "w2", workers=2)
    a = (tmp_path / "w1" / "champion.npz").read_bytes()
    b = (tmp_path / "w2" / "champion.npz").read_bytes()
    assert a == b
    assert s1.logbook == [{**r, "seconds": s1.logbook[i]["seconds"]} for i, r in enumerate(s2.logbook)]
    assert (tmp_path / "w1" / "plots" / "fitness.png").stat().st_size > 10_000
    champ = load_champion(tmp_path / "w1" / "champion.npz")
    meta = json.loads((tmp_path / "w1" / "champion.json").read_text())
    for key in ("game", "encoding", "layers", "fitness_kind", "generation", "seed", "config_hash", "version"):
        assert key in meta
    assert champ.arch.n_h1 == 12 and champ.arch.game == "spades"


def test_seat_encoding_evolves_and_its_champion_round_trips(tmp_path):
    """``network.encoding = "seat"`` end to end: a run, its exported champion loaded again
    (same genome and architecture) and played by ``evolve.play`` as the run's networks."""
    encoding, n_in = "seat", 416
    cfg = load_config(TINY).with_overrides(network={"encoding": encoding},
                                           evolution={"generations": 2, "max_generations": 2})
    evo = Evolution(cfg, run_dir=tmp_path / "seat", plot_dir=tmp_path / "seat" / "plots", progress=False)
    assert (evo.arch.encoding, evo.arch.n_in, evo.arch.n_out) == (encoding, n_in, 52)
    state = evo.run()
    evo.export_champion(state)
    champ = load_champion(tmp_path / "seat" / "champion.npz")
    assert champ.arch == evo.arch
    assert json.loads((tmp_path / "seat" / "champion.json").read_text())["architecture"]["encoding"] == encoding
    r = evolve.play("spades", [f"champion:{tmp_path / 'seat'}", "random", "random", "random"], 200, seed=1)
    assert r.tricks[:, 0].mean() > 0


def test_patience_rule_extends_the_run(tmp_path):
    _, state = _evolve(tmp_path, "patience")
    gens = len(state.logbook)
    assert 6 <= gens <= 8
    assert gens == 8 or gens - 1 - state.best_generation >= 2


def test_threads_backend_gives_the_same_champion(tmp_path):
    _evolve(tmp_path, "loky", workers=1, generations=3)
    _evolve(tmp_path, "threads", workers=2, backend="threads", generations=3)
    assert (tmp_path / "loky" / "champion.npz").read_bytes() == (tmp_path / "threads" / "champion.npz").read_bytes()


def test_dask_local_cluster_gives_the_same_champion(tmp_path):
    pytest.importorskip("dask.distributed")
    _evolve(tmp_path, "loky", workers=1, generations=3)
    _evolve(tmp_path, "dask", workers=2, backend="dask", generations=3)
    assert (tmp_path / "loky" / "champion.npz").read_bytes() == (tmp_path / "dask" / "champion.npz").read_bytes()


def test_truncated_checkpoint_is_a_clear_error_and_nothing_is_overwritten(tmp_path):
    ok = run_cli(TINY, "--out", tmp_path / "r", "--no-benchmark", "--no-progress", "--generations", "2")
    assert ok.returncode == 0, ok.stderr
    ckpt = tmp_path / "r" / "checkpoint.npz"
    data = ckpt.read_bytes()
    ckpt.write_bytes(data[: len(data) // 2])
    before = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir() if p.is_file()}
    res = run_cli(TINY, "--out", tmp_path / "r", "--resume", "--generations", "2", "--no-progress")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "corrupt or truncated file" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    after = {p.name: p.read_bytes() for p in (tmp_path / "r").iterdir() if p.is_file()}
    assert before == after


def test_run_prints_benchmark_and_champion_plays_in_the_arena(tmp_path):
    res = run_cli(TINY, "--out", tmp_path / "b", "--generations", "2", "--no-progress")
    assert res.returncode == 0, res.stderr
    assert "champion vs baselines" in res.stdout and "random" in res.stdout
    arena = subprocess.run(
        [
            sys.executable,
            "-m",
            "evolve.arena",
            "--game",
            "spades",
            "--deals",
            "200",
            "--seats",
            f"champion:{tmp_path / 'b' / 'champion.npz'},random,random,random",
        ],
        capture_output=True,
        text=True,
    )
    assert arena.returncode == 0, arena.stderr
    bad = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "euchre", "--deals", "10", "--seats",
                          f"champion:{tmp_path / 'b' / 'champion.npz'}"], capture_output=True, text=True)
    assert bad.returncode == 2 and "plays spades, not euchre" in bad.stderr
    redraw = subprocess.run([sys.executable, "-m", "evolve.plot", str(tmp_path / "b"), "--out", str(tmp_path / "p")],
                            capture_output=True, text=True)
    assert redraw.returncode == 0 and (tmp_path / "p" / "fitness.png").exists()


def test_local_share_writes_each_large_array_once_reuses_its_file_and_cleans_up():
    from evolve.evolution.parallel import LocalShare, SharedArray, _resolve

    share = LocalShare()
    big = np.arange(300_000, dtype=np.float64)
    small = np.arange(10)
    tasks = share.tasks([(big, small, 1), (big, small, 2)])
    assert isinstance(tasks[0][0], SharedArray) and tasks[0][0] == tasks[1][0] and tasks[0][1] is small
    mapped = _resolve(tasks[0][0])
    assert type(mapped) is np.ndarray and np.array_equal(mapped, big) and mapped.flags.writeable
    first = tasks[0][0]
    # next call, same shape: the same file is rewritten and a kept map sees the new values
    again = share.tasks([(big[::-1].copy(), small, 3)])
    assert again[0][0] == first and np.array_equal(_resolve(again[0][0]), big[::-1])
    assert np.array_equal(mapped, big[::-1])                # the worker plays from the kept map
    # another type: a new file replaces the old one
    other = share.tasks([(big.astype(np.float32), small, 4)])
    assert other[0][0] != first and not Path(first.path).exists() and len(list(share.folder.iterdir())) == 1
    assert np.array_equal(_resolve(other[0][0]), big.astype(np.float32))
    # two distinct large arrays in one call get two files
    two = share.tasks([(big, big + 1, 5)])
    assert two[0][0] != two[0][1] and np.array_equal(_resolve(two[0][1]), big + 1)
    share.close()
    assert not share.folder.exists()


def test_local_share_buffer_is_handed_over_without_a_copy():
    from evolve.evolution.parallel import LocalShare, SharedArray, _resolve

    share = LocalShare()
    buf = share.buffer(300_000)
    buf[:] = np.arange(300_000)
    ref = share.tasks([(buf, 1)])[0][0]
    assert isinstance(ref, SharedArray) and type(buf) is np.ndarray
    mapped = _resolve(ref)
    assert np.array_equal(mapped, buf)
    buf[0] = -5                                   # the same pages: a worker sees the parent's writes
    assert mapped[0] == -5
    assert share.buffer(300_000) is buf and share.tasks([(buf,)])[0][0] == ref
    other = share.buffer(10)                      # another size: a new file replaces it
    assert other is not buf and not Path(ref.path).exists()
    share.close()
    assert not share.folder.exists()


def test_parent_chunk_is_sized_to_finish_with_the_workers():
    from evolve.evolution.parallel import ParentAndWorkers

    runner = ParentAndWorkers(None, None)
    assert runner.split(240, 2).tolist() == [0, 120, 240]            # no timings yet: equal chunks
    runner.hand_off, runner.parent_rate, runner.worker_rate = 0.0, 1000.0, 1000.0
    assert runner.split(240, 2).tolist() == [0, 120, 240]
    runner.hand_off = 0.01                                            # workers finish 10 ms late
    assert runner.split(240, 2).tolist() == [0, 125, 240]
    runner.hand_off, runner.worker_rate = 0.0, 500.0                  # a worker plays at half speed
    assert runner.split(240, 2).tolist() == [0, 160, 240]
    three = runner.split(240, 3)
    assert three[0] == 0 and three[-1] == 240 and (np.diff(three) > 0).all() and len(three) == 4
    assert runner.split(3, 5).tolist() == [0, 1, 2, 3]
    runner.thread.shutdown()


def test_parent_and_workers_give_the_in_process_records():
    from evolve.evolution.parallel import make_runner

    cfg = load_config(TINY).with_overrides(evolution={"games_per_generation": 400, "rounds_per_game": 8})
    evo = Evolution(cfg, progress=False)
    specs = evo.member_specs(evo.initial_state().population)
    alone = evo.tournament.evaluate(specs, 3, 1)
    shares = []
    with make_runner("loky", 2) as runner:
        for generation in range(4):                 # who plays what differs from call to call
            together = evo.tournament.evaluate(specs, 3, 1, runner, 2)
            assert all(np.array_equal(a, b) for a, b in zip(alone, together))
            shares.append(runner.split(400, 2)[1])
    assert len(set(shares)) > 1, shares


def test_cold_kernel_cache_is_detected(tmp_path, monkeypatch):
    import numba

    from evolve.core.numba_cache import kernels_cached

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    assert not kernels_cached()
    (tmp_path / "evolve_x").mkdir()
    (tmp_path / "evolve_x" / "batch.play_batch_kernel__random_0a1b2c3d-41.py311.1.nbc").write_bytes(b"")
    assert kernels_cached()
