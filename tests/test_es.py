"""The OpenAI-style evolution strategy (``algorithm = "es"``) and common random numbers:
the strategy's steps, runs that are reproducible, resumable and worker-independent, and
the variance reduction that common random numbers promise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evolve.agents.genomes.evolvable import NetworkAgent
from evolve.agents.network.architecture import Architecture
from evolve.evolution.config import ConfigError, load_config, validate
from evolve.evolution.runner import Evolution
from evolve.evolution.strategies import es
from evolve.evolution.tournament import Tournament
from evolve.games.registry import make_game

HERE = Path(__file__).parent
ES = HERE / "configs" / "tiny_spades_es.toml"
SETTINGS = {"es": {"sigma": 0.1, "learning_rate": 0.05, "weight_decay": 0.0}}


def test_antithetic_members_are_mirrored_and_ranks_are_centered():
    s = es.from_config(np.full(5, 0.2), 6, SETTINGS)
    pop = es.sample(s, seed=1, generation=3)
    assert pop.shape == (6, 5)
    assert np.allclose(pop[:3] - 0.2, -(pop[3:] - 0.2))
    assert np.array_equal(pop, es.sample(s, 1, 3)) and not np.array_equal(pop, es.sample(s, 1, 4))
    assert np.allclose(es.centered_ranks(np.array([10.0, -3.0, 7.0, 1e9])), [1 / 6, -0.5, -1 / 6, 0.5])


def test_the_mean_climbs_a_known_hill():
    target = np.linspace(-0.5, 0.5, 20)
    s = es.from_config(np.zeros(20), 40, SETTINGS)
    start = np.linalg.norm(s.centroid - target)
    for g in range(150):
        pop = es.sample(s, 7, g)
        es.update(s, pop, -np.sum((pop - target) ** 2, axis=1))
    assert np.linalg.norm(s.centroid - target) < 0.2 * start


def test_state_round_trips_through_arrays():
    s = es.from_config(np.zeros(4), 4, SETTINGS)
    pop = es.sample(s, 1, 0)
    es.update(s, pop, np.arange(4.0))
    t = es.from_arrays(s.to_arrays())
    assert t.t == 1 and np.array_equal(t.centroid, s.centroid) and np.array_equal(t.v, s.v) and t.antithetic


def _fitness_of_copies(common: bool) -> np.ndarray:
    game = make_game("spades")
    agent = NetworkAgent(Architecture.for_game(game, "card", (12, 10)))
    genome = np.random.default_rng(0).uniform(-1, 1, agent.layout.size)
    t = Tournament(game, "simple", 8, 16, ("random",), 1.0, False, common)
    fitness, counts = t.evaluate(agent.specs(np.stack([genome] * 8)), seed=3, generation=0)
    assert np.all(counts == 16)
    return fitness


def test_common_random_numbers_give_identical_members_identical_fitness():
    assert np.ptp(_fitness_of_copies(True)) == 0.0
    assert np.ptp(_fitness_of_copies(False)) > 0.0    # without them, luck separates equal members


def test_es_run_is_reproducible_resumable_and_worker_independent(tmp_path):
    cfg = load_config(ES)
    Evolution(cfg, run_dir=tmp_path / "a", plot_dir=tmp_path / "pa", progress=False).run()
    short = cfg.with_overrides(evolution={"generations": 3, "max_generations": 3})
    Evolution(short, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False).run()
    state = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False).run(resume=True)
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]  # noqa: E731
    log_a = json.loads((tmp_path / "a" / "logbook.json").read_text())
    assert strip(log_a) == strip(json.loads((tmp_path / "b" / "logbook.json").read_text())) and len(log_a) == 6
    assert [r["gen"] for r in log_a if "validation" in r] == [0, 2, 4]
    assert set(state.strategy) >= {"es_centroid", "es_m", "es_v", "es_scalars"}
    for w in (1, 2):
        res = subprocess.run(
            [
                sys.executable,
                "-m",
                "evolve.run",
                str(ES),
                "--out",
                str(tmp_path / f"w{w}"),
                "--workers",
                str(w),
                "--no-progress",
                "--no-benchmark",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "w1" / "champion.npz").read_bytes() == (tmp_path / "w2" / "champion.npz").read_bytes()
    assert strip(json.loads((tmp_path / "w2" / "logbook.json").read_text())) == strip(log_a)


@pytest.mark.parametrize("evolution,message", [
    ({"common_random_numbers": True}, "evolution.common_random_numbers: is true but evolution.opponents is empty"),
    ({"algorithm": "es", "population": 7}, "evolution.population: got 7; expected an even number"),
    ({"es": {"sigma": 0}}, "evolution.es.sigma: got 0; expected a positive number"),
    ({"validation_opponents": ["telepath"]}, "evolution.validation_opponents: seat 'telepath'"),
])
def test_bad_es_settings_are_one_line(tmp_path, evolution, message):
    with pytest.raises(ConfigError, match=message):
        validate({"experiment": {"game": "spades", "name": "x"}, "evolution": evolution}, tmp_path / "x.toml")
