"""The Spades thesis's tournament (``[evolution] tournament = "thesis"``) and its
reproduction (``python -m evolve.reproduce spades``): seating, shared and rotated deals,
60 rounds per member, config errors, bit-for-bit runs for any number of workers and on
resume, older configs' hashes, and the Table 1 cells' verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_strategies import StopAfter, _strip  # tests/ is on sys.path (rootdir-relative imports)

from evolve.agents.registry import parse_seat
from evolve.evolution.config import ConfigError, load_config, validate
from evolve.evolution.runner import Evolution, RunInterrupted
from evolve.evolution.tournament import Tournament, expand_deals, thesis_tables
from evolve.games.registry import make_game

HERE = Path(__file__).parent
ROOT = HERE.parent
TINY = HERE / "configs" / "tiny_spades.toml"


def _tiny(**evolution):
    """The tiny test config with the thesis's tournament (8 members, 3 games of 4 rounds)."""
    over = {"tournament": "thesis", "games_per_generation": 3, "generations": 4, "max_generations": 4,
            "patience": 0, **evolution}
    return load_config(TINY).with_overrides(evolution=over)


# ---------------------------------------------------------------- the tournament

def test_every_member_plays_every_game_in_fresh_groups_of_four():
    seating = thesis_tables(12, 5, np.random.default_rng(3))
    tables = seating.tables
    assert tables.shape == (15, 4)
    games = tables.reshape(5, 12)            # game g: tables 3g .. 3g+2
    for g in range(5):
        assert sorted(games[g].tolist()) == list(range(12))
    groups = [{frozenset(row) for row in game.reshape(3, 4).tolist()} for game in games]
    assert len({frozenset(g) for g in groups}) > 1          # the groups are drawn afresh


def test_a_game_shares_its_deal_among_its_groups_and_rotates_the_hands():
    game = make_game("spades")
    t = Tournament(game, "simple", 3, 4, procedure="thesis")
    seating, base, base_dealer, _ = t.plan(8, 5, 2)
    assert seating.n_tables == 6
    decks, dealers = expand_deals(base, base_dealer, 13, 4, 0, 6)
    decks = decks.reshape(6, 4, 52)
    dealers = dealers.reshape(6, 4)
    for g in range(3):
        assert np.array_equal(decks[2 * g], decks[2 * g + 1]) and np.array_equal(dealers[2 * g], dealers[2 * g + 1])
    assert not np.array_equal(decks[0], decks[2]) and not np.array_equal(decks[2], decks[4])
    for r in range(4):                       # seat s of round r holds the hand seat s - r held in round 0
        for s in range(4):
            source = (s - r) % 4
            assert np.array_equal(decks[0, r, 13 * s:13 * s + 13], decks[0, 0, 13 * source:13 * source + 13])
        assert dealers[0, r] == (dealers[0, 0] + r) % 4


def test_sixty_rounds_each_and_identical_players_take_exactly_their_share():
    """Every member plays 15 games x 4 rounds. Four identical deterministic players at a
    table each play every hand from the same position relative to the dealer, so each takes
    exactly 13 tricks a game: the rotation gives every network 'a fair shot' (Section 2.5)."""
    game = make_game("spades")
    t = Tournament(game, "advanced", 15, 4, procedure="thesis")
    highlow = parse_seat("highlow", game)
    fitness, counts, tricks = t.evaluate([highlow] * 8, 1, 0, with_tricks=True)
    assert counts.tolist() == [60.0] * 8
    assert np.allclose(tricks, 3.25)
    # and as every group of a game plays its deal, every member's cards win the same tricks
    assert np.allclose(fitness, fitness[0]) and fitness[0] > 0
    random = parse_seat("random", game)
    _, counts, tricks = t.evaluate([random] * 8, 1, 0, with_tricks=True)
    assert counts.tolist() == [60.0] * 8 and abs(tricks.mean() - 3.25) < 1e-12 and tricks.std() > 0
    simple = Tournament(game, "simple", 15, 4, procedure="thesis")
    fitness, _, tricks = simple.evaluate([random] * 8, 1, 0, with_tricks=True)
    assert np.array_equal(fitness, tricks)


def test_the_tables_procedure_is_unchanged_by_the_option():
    game = make_game("spades")
    a = Tournament(game, "simple", 15, 4).plan(60, 1, 3)
    b = Tournament(game, "simple", 15, 4, procedure="tables").plan(60, 1, 3)
    assert all(np.array_equal(x, y) for x, y in zip((a[0].tables, *a[1:]), (b[0].tables, *b[1:])))
    assert a[0].n_tables == 15


@pytest.mark.parametrize("name", ["spades_cardbased_strong", "spades_cardbased_scratch", "spades_seat_scratch",
                                  "spades_markov"])
def test_configs_without_the_key_keep_their_hashes(name):
    meta = json.loads((ROOT / "populations" / name / "champion.json").read_text())
    cfg = load_config(ROOT / "experiments" / f"{name}.toml")
    assert cfg.evolution["tournament"] == "tables" and cfg.hash() == meta["config_hash"]


# ---------------------------------------------------------------- config

@pytest.mark.parametrize("over, needle", [
    ({"tournament": "swiss"}, "evolution.tournament: got 'swiss'; expected tables"),
    ({"tournament": "thesis", "population": 10}, "evolution.population: got 10; expected a multiple of 4"),
    ({"tournament": "thesis", "opponents": ["random"], "opponent_share": 0.5},
     "evolution.opponent_share: got 0.5; tournament = thesis seats members only"),
    ({"tournament": "thesis", "opponents": ["random"], "common_random_numbers": True},
     "evolution.common_random_numbers: got True; tournament = thesis seats members only"),
])
def test_bad_tournament_settings_are_one_line_errors(over, needle):
    data = load_config(TINY).as_dict()
    data["evolution"].update(over)
    with pytest.raises(ConfigError) as e:
        validate(data, TINY)
    assert needle in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_bad_tournament_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TINY.read_text().replace("[evolution]\n", '[evolution]\ntournament = "thesis"\n')
                   .replace("population = 8", "population = 6"))
    p = subprocess.run([sys.executable, "-m", "evolve.run", str(bad), "--out", str(tmp_path / "r")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "evolution.population: got 6; expected a multiple of 4" in p.stderr


def test_the_study_configs_run_the_thesis_tournament():
    for name in ("spades_cardbased_study", "spades_handbased", "spades_cardbased_study_advanced",
                 "spades_handbased_advanced"):
        ev = load_config(ROOT / "experiments" / f"{name}.toml").evolution
        assert ev["tournament"] == "thesis" and ev["games_per_generation"] == 15 and ev["rounds_per_game"] == 4
        assert ev["fitness"] == ("advanced" if name.endswith("advanced") else "simple")


# ---------------------------------------------------------------- runs

@pytest.mark.parametrize("fitness", ["simple", "advanced"])
def test_a_thesis_run_is_the_same_on_1_and_2_workers_and_resumes_bit_for_bit(fitness, tmp_path):
    cfg = _tiny(fitness=fitness)
    straight = Evolution(cfg, run_dir=tmp_path / "a", plot_dir=tmp_path / "pa", progress=False, workers=1).run()
    stopped = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False, workers=1)
    stopped.reporters.append(StopAfter(2))
    with pytest.raises(RunInterrupted):
        stopped.run()
    resumed = Evolution(cfg, run_dir=tmp_path / "b", plot_dir=tmp_path / "pb", progress=False, workers=1).run(
        resume=True)
    two = Evolution(cfg, run_dir=tmp_path / "c", plot_dir=tmp_path / "pc", progress=False, workers=2).run()
    log = _strip(tmp_path / "a")
    assert len(log) == 4 and log == _strip(tmp_path / "b") == _strip(tmp_path / "c")
    assert all(r["rounds"] == 8 * 3 * 4 for r in log)              # 8 members x 3 games x 4 rounds
    for other in (resumed, two):
        assert np.array_equal(straight.population, other.population)
        assert np.array_equal(straight.hof_genome, other.hof_genome)
    assert all(("tricks" in r) == (fitness == "advanced") for r in log)


def test_the_advanced_logbook_holds_the_best_members_tricks(tmp_path):
    cfg = _tiny(fitness="advanced", generations=1, max_generations=1)
    evo = Evolution(cfg, run_dir=tmp_path / "a", plot_dir=tmp_path / "pa", progress=False, workers=1)
    first = evo.initial_state()
    fitness, _, tricks = evo.tournament.evaluate(evo.member_specs(first.population), first.seed, 0, with_tricks=True)
    state = evo.run()
    best = int(np.argmax(fitness))
    assert state.logbook[0]["tricks"] == tricks[best] and state.logbook[0]["max"] == fitness[best]
    assert state.hof_fitness == fitness[best]


# ---------------------------------------------------------------- the reproduction

def test_printed_rounding_and_transcription():
    from evolve.reproduce import spades

    assert spades._printed_tolerance("0.0234") == pytest.approx(5e-5)
    assert spades._printed_tolerance("4.6602e-3") == pytest.approx(5e-8)
    assert spades._printed_tolerance("3.9") == pytest.approx(0.05)
    for row in spades.DATA["table1"]["cells"].values():       # Table 1's ATpR is its tricks over 60 rounds
        assert abs(row["tricks"] / 60 - float(row["atpr"])) <= spades._printed_tolerance(row["atpr"])
    assert spades.DATA["procedure"]["games"] * spades.DATA["procedure"]["rounds_per_game"] == spades.ROUNDS


def _fake_run(hof_tricks: float, random: float, generation: int = 10) -> dict:
    ci = {"mean": random, "low": random - 0.02, "high": random + 0.02, "sd": 1.5, "n": 20000}
    return {"generations": 300, "hof_generation": generation, "hof_fitness": hof_tricks, "hof_tricks": hof_tricks,
            "out_of_sample": {"random": {"atpr": ci}, "highlow": {"atpr": ci}},
            # the run's record comes after the thesis's 200 generations; before them its best was 0.1 lower
            "logbook": [{"gen": 0, "max": 3.0}, {"gen": 150, "max": hof_tricks - 0.1},
                        {"gen": 199, "max": hof_tricks - 0.2}, {"gen": 250, "max": hof_tricks}]}


def test_table1_cells_take_the_papers_se_from_the_run_to_run_spread():
    from evolve.reproduce import spades

    null = {"best_atpr": [3.6] * 400, "tricks_of_best": [3.6] * 400, "best_fitness": [140.0] * 400}
    near = spades._table1_cells("card_simple", [_fake_run(x, 3.3) for x in (3.70, 3.80, 3.90, 3.75)], null, False)
    cell = {c.column: c for c in near}
    assert cell["ATpR in sample"].paper == 3.9 and cell["ATpR in sample"].verdict == "reproduced"
    assert cell["ATpR in sample"].paper_se > 0 and cell["tricks in its 60 rounds"].ours == pytest.approx(227.25)
    assert cell["ATpR vs 3 random, out of sample"].verdict == "not compared"
    assert cell["generation of the best"].verdict == "not compared"
    assert "0 of 1 reach" in cell["null: 60 Random players, best ATpR in sample"].reason
    assert cell["ATpR in sample, best of generations 0-199"].ours == pytest.approx(3.7875 - 0.1)
    far = spades._table1_cells("card_simple", [_fake_run(x, 3.3) for x in (3.50, 3.51, 3.52, 3.50)], null, False)
    assert {c.column: c for c in far}["ATpR in sample"].verdict == "differs"
