"""Every registered evolution strategy (``evolve.evolution.strategies.STRATEGIES``) through
the same checks: it climbs a known hill, its state round-trips through the checkpoint
arrays, and a tiny run of it is reproducible, resumes bit for bit and gives the same
champion on 1 and 2 workers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evolve.evolution.config import load_config
from evolve.evolution.reporters import Reporter
from evolve.evolution.runner import Evolution, RunInterrupted
from evolve.evolution.strategies import STRATEGIES, make_strategy

HERE = Path(__file__).parent
TINY = HERE / "configs" / "tiny_spades.toml"

# the [evolution] keys each strategy reads (its own table under its name), at settings that
# move fast on a toy problem
SETTINGS = {
    "generations": 60,
    "ga": {"selection": 0.5, "mutation_operator": "gaussian", "mutation_sigma": 0.05, "mutation_start": 0.8,
           "mutation_end": 0.2},
    "cma": {"sigma": 0.3},
    "es": {"sigma": 0.1, "learning_rate": 0.05, "weight_decay": 0.0},
}
# the tiny run's settings per strategy (CMA-ES needs a small genome: a 12 x 10 network has 2,698 values)
RUN = {"ga": {}, "cma": {}, "es": {"es": {"sigma": 0.05, "learning_rate": 0.01}}}


def test_every_strategy_describes_its_own_settings():
    """Each strategy's table of settings: every key typed, defaulted and described."""
    for name, strategy in STRATEGIES.items():
        assert strategy.PARAMS, name
        for key, spec in strategy.PARAMS.items():
            assert spec.doc and spec.expect and spec.default is not None, (name, key)


def test_every_strategy_is_checked():
    assert set(RUN) == set(STRATEGIES) and set(STRATEGIES) == {"ga", "cma", "es"}


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategy_climbs_a_known_hill(name):
    target = np.linspace(-0.5, 0.5, 10)
    rng = np.random.default_rng(0)
    strategy = make_strategy({**SETTINGS, "algorithm": name})
    population = strategy.first(rng.uniform(-1, 1, (20, 10)) * 0.1, seed=1)
    distance = lambda pop: np.linalg.norm(pop - target, axis=1)  # noqa: E731
    start = distance(population).mean()
    for g in range(60):
        fitness = -distance(population)
        population, figures = strategy.next(population, fitness, 1, g, np.random.default_rng([1, g, 2]))
        assert isinstance(figures, dict)
        population = np.clip(population, -1, 1)
    assert distance(population).min() < 0.5 * start, name
    assert strategy.rate(0) >= 0.0 and (strategy.mean() is None) == (name == "ga")


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategy_state_round_trips(name):
    a = make_strategy({**SETTINGS, "algorithm": name})
    pop = a.first(np.random.default_rng(0).uniform(-0.1, 0.1, (8, 5)), seed=2)
    pop, _ = a.next(pop, np.arange(8.0), 2, 0, np.random.default_rng([2, 0, 2]))
    b = make_strategy({**SETTINGS, "algorithm": name})
    b.restore(a.to_arrays())
    next_a, _ = a.next(pop, -np.arange(8.0), 2, 1, np.random.default_rng([2, 1, 2]))
    next_b, _ = b.next(pop, -np.arange(8.0), 2, 1, np.random.default_rng([2, 1, 2]))
    assert np.array_equal(next_a, next_b)


class StopAfter(Reporter):
    """Interrupts a run (as Ctrl-C does) once ``n`` generations are done."""

    def __init__(self, n: int):
        self.n = n

    def generation(self, run, state, record):
        if state.generation == self.n:
            raise KeyboardInterrupt


def _strip(path: Path) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads((path / "logbook.json").read_text())]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_run_resumes_bit_for_bit_and_is_worker_independent(name, tmp_path):
    base = load_config(TINY)
    if name == "cma":
        base = base.with_overrides(network={"hidden": [3, 3]})
    cfg = base.with_overrides(evolution={"algorithm": name, "generations": 4, "max_generations": 4, "patience": 0,
                                         **RUN[name]})
    evolution = Evolution(cfg, run_dir=tmp_path / "a", plot_dir=tmp_path / "pa", progress=False)
    straight = evolution.run()
    stopped = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False)
    stopped.reporters.append(StopAfter(2))
    with pytest.raises(RunInterrupted):
        stopped.run()
    resumed = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False).run(resume=True)
    assert _strip(tmp_path / "a") == _strip(tmp_path / "b") and len(_strip(tmp_path / "a")) == 4
    assert np.array_equal(straight.population, resumed.population)
    assert np.array_equal(straight.hof_genome, resumed.hof_genome)
    assert (straight.strategy is None) == (name == "ga")
    on_two = Evolution(cfg, run_dir=tmp_path / "c", plot_dir=tmp_path / "pc", progress=False, workers=2)
    two = on_two.run()
    assert np.array_equal(straight.population, two.population) and _strip(tmp_path / "c") == _strip(tmp_path / "a")
    assert np.array_equal(evolution.champion(straight).genome, on_two.champion(two).genome)
