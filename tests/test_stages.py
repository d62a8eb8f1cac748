"""Opponent schedules and growing evaluation budgets (``[[evolution.stages]]``): each
generation plays what its stage says, and a resumed run is the same run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evolve.evolution.config import ConfigError, load_config, stage_settings
from evolve.evolution.runner import Evolution

TINY = Path(__file__).parent / "configs" / "tiny_spades.toml"
STAGES = [{"until": 2, "opponents": ["random"], "rounds_per_game": 4}, {"until": 3, "opponents": ["random", "low"]}]


def _evolve(tmp_path, name, generations=5, resume=False, workers=1, **evolution):
    settings = {"algorithm": "es", "population": 6, "common_random_numbers": True, "opponents": ["highlow"],
                "rounds_per_game": 8, "stages": STAGES,
                "generations": generations, "max_generations": generations, "patience": 0, **evolution}
    cfg = load_config(TINY).with_overrides(evolution=settings, parallel={"workers": workers})
    evo = Evolution(cfg, run_dir=tmp_path / name, plot_dir=tmp_path / name / "plots", progress=False)
    return evo, evo.run(resume=resume)


def test_stage_settings_pick_the_first_stage_not_yet_over():
    ev = {"opponents": ["highlow"], "rounds_per_game": 8, "stages": STAGES}
    assert [stage_settings(ev, g) for g in range(4)] == [
        (0, ["random"], 4), (0, ["random"], 4), (1, ["random", "low"], 8), (2, ["highlow"], 8)]
    assert stage_settings({"opponents": [], "rounds_per_game": 4}, 7) == (0, [], 4)


def test_each_generation_plays_its_stage(tmp_path):
    evo, state = _evolve(tmp_path, "run")
    log = state.logbook
    assert [r["stage"] for r in log] == [0, 0, 1, 2, 2]
    assert [r["rounds_per_game"] for r in log] == [4, 4, 8, 8, 8]
    assert [r["opponents"] for r in log] == [1, 1, 2, 1, 1]
    # each member plays 4 rotations of every opponent's table: rounds follow the budget and the table count
    assert [r["rounds"] for r in log] == [6 * 4 * 1, 6 * 4 * 1, 6 * 8 * 2, 6 * 8 * 1, 6 * 8 * 1]


def test_a_staged_run_is_the_same_on_2_workers_and_after_a_resume(tmp_path):
    strip = lambda s: [{k: v for k, v in r.items() if k != "seconds"} for r in s.logbook]  # noqa: E731
    _, whole = _evolve(tmp_path, "whole")
    _, two = _evolve(tmp_path, "two", workers=2)
    _evolve(tmp_path, "cut", generations=3)
    _, resumed = _evolve(tmp_path, "cut", generations=5, resume=True)
    assert strip(whole) == strip(two) == strip(resumed)
    assert np.array_equal(whole.population, resumed.population)


@pytest.mark.parametrize("stages,extra,message", [
    ('[{until = 0, opponents = ["random"]}]', "", r"evolution.stages\[0\].until: got 0; expected an integer"),
    ('[{until = 5, opponents = ["random"]}, {until = 5, rounds_per_game = 8}]', "",
     r"evolution.stages\[1\].until: got 5; expected an integer generation above 5"),
    ('[{until = 5, opponent = ["random"]}]', "", r"evolution.stages\[0\].opponent: unknown key"),
    ('[{until = 5}]', "", r"evolution.stages\[0\]: changes nothing"),
    ('[{until = 5, opponents = "random"}]', "", r"evolution.stages\[0\].opponents: got 'random'; expected a non-empty"),
    ('[{until = 5, opponents = ["nobody"]}]', "", r"evolution.stages\[0\].opponents: seat 'nobody'"),
    ('[{until = 5, rounds_per_game = 0}]', "", r"evolution.stages\[0\].rounds_per_game: got 0"),
    ('[{until = 5, opponents = ["random"]}]', "common_random_numbers = false\n",
     r"evolution.stages\[0\].opponents: no table seats opponents"),
    ('[5]', "", r"evolution.stages: .*a list of tables"),
])
def test_stage_keys_are_checked(tmp_path, stages, extra, message):
    bad = tmp_path / "bad.toml"
    tables = "" if extra else 'common_random_numbers = true\nopponents = ["highlow"]\n'
    bad.write_text(TINY.read_text().replace("[evolution]", f"[evolution]\nstages = {stages}\n{tables}{extra}"))
    with pytest.raises(ConfigError, match=rf"bad.toml: {message}"):
        load_config(bad)
