"""Output that says what it means: p-values and verdicts, the game target in
reports and champion files, table columns with long seat names, the arena's help and its
listing of agents and games."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evolve.arena import main as arena_main
from evolve.core.cli import run
from evolve.core.stats import format_comparison, format_p, p_clause, signed_ci, verdict
from evolve.evaluate.benchmark import render as benchmark_render
from evolve.evaluate.summary import render, summarize
from evolve.games.registry import GAMES, make_game
from evolve.runtime.play import options_text, played_options

ROOT = Path(__file__).resolve().parent.parent
CHAMPION = ROOT / "populations" / "spades_cardbased_strong" / "champion.npz"


# ---------------------------------------------------------------- p-values and verdicts

@pytest.mark.parametrize("p, text", [
    (0.0, "< 1e-16"), (1e-300, "< 1e-16"), (9.9e-17, "< 1e-16"), (1e-16, "1e-16"), (2.345e-9, "2.35e-09"),
    (0.000123, "0.000123"), (0.03, "0.03"), (0.0312345, "0.0312"), (0.5, "0.5"), (1.0, "1"),
    (float("nan"), "n/a"), (None, "n/a"),
])
def test_format_p_never_prints_zero(p, text):
    assert format_p(p) == text


def test_p_clause_reads_as_a_phrase():
    assert p_clause(0.0) == "p < 1e-16"
    assert p_clause(0.03) == "p = 0.03"


@pytest.mark.parametrize("low, high, word", [
    (0.01, 0.4, "better"), (-0.4, -0.01, "worse"), (-0.1, 0.2, "no different"), (0.0, 0.2, "no different"),
    (float("nan"), float("nan"), "no different"),
])
def test_verdict_follows_the_confidence_interval(low, high, word):
    assert verdict({"mean": (low + high) / 2, "low": low, "high": high}) == word


def test_comparison_has_sign_interval_p_and_verdict():
    assert (
        format_comparison({"mean": 0.21, "low": 0.02, "high": 0.4}, 0.03) == "+0.210 [+0.020, +0.400], p = 0.03: better"
    )
    assert (
        format_comparison({"mean": -1.5, "low": -1.6, "high": -1.4}, 0.0, 2) == "-1.50 [-1.60, -1.40], p < 1e-16: worse"
    )
    assert signed_ci({"mean": 0.0, "low": -0.1, "high": 0.1}, 1) == "+0.0 [-0.1, +0.1]"


def test_benchmark_table_prints_comparisons_not_bare_p_values():
    ci = {"mean": 4.6, "low": 4.57, "high": 4.63, "sd": 1.8, "n": 20000}
    row = {
        "opponent": "random",
        "deals": 20000,
        "atpr": ci,
        "opponent_atpr": ci,
        "t_test_p": 0.0,
        "study_normal_p": 0.19,
    }
    text = benchmark_render([row], make_game("spades"))
    assert "+1.350 [+1.320, +1.380], p < 1e-16: better; study normal p = 0.19" in text
    assert " 0 " not in text.splitlines()[1]


# ---------------------------------------------------------------- the game target

def test_spades_target_reads_the_same_in_arena_and_champion(tmp_path):
    """Spades' target option is -1 ("500 with standard bidding, else none"); reports and
    champion files record the effective target, 0 meaning no games, and headers say none."""
    g = make_game("spades")
    assert g.options["target"] == -1 and played_options(g)["target"] == 0
    assert "target=none" in options_text(played_options(g))
    assert played_options(make_game("spades", partnership=True, bidding="standard"))["target"] == 500
    assert "target=10" in options_text(played_options(make_game("euchre")))
    # the champion written by a run records the effective options
    from evolve.evolution.config import load_config
    from evolve.evolution.runner import Evolution

    cfg = load_config(ROOT / "tests" / "configs" / "tiny_spades.toml")
    evo = Evolution(cfg, run_dir=tmp_path / "run", plot_dir=tmp_path / "plots", progress=False)
    meta = evo.champion(evo.initial_state()).meta
    assert meta["game_options"] == played_options(evo.game) and meta["game_options"]["target"] == 0
    # and a champion loaded from those options plays the same game
    assert make_game("spades", **meta["game_options"]).target == g.target


def test_arena_header_and_json_agree_on_the_target(capsys):
    assert run(arena_main, ["--game", "spades", "--seats", "random", "--deals", "50", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["target"] == 0
    assert run(arena_main, ["--game", "spades", "--seats", "random", "--deals", "50"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "target=none" in header and "target=0" not in header and "target=-1" not in header


# ---------------------------------------------------------------- long seat names

def test_arena_columns_hold_long_champion_paths(tmp_path):
    if not CHAMPION.is_file():
        pytest.skip("no committed champion")
    deep = tmp_path / ("a_rather_long_folder_name_" * 3) / "and_another_level_of_nesting"
    deep.mkdir(parents=True)
    for suffix in (".npz", ".json"):
        (deep / f"champion{suffix}").write_bytes(CHAMPION.with_suffix(suffix).read_bytes())
    seat = f"champion:{deep / 'champion.npz'}"
    from evolve.runtime.play import play

    text = render(summarize(play("spades", [seat, "random", "random", "random"], 200, seed=1)))
    rows = [line for line in text.splitlines() if re.match(r"\s+\d  ", line)]
    assert len(rows) == 4 and seat in rows[0]
    starts = {line.index("[") for line in rows}                       # the CI column lines up
    assert len(starts) == 1
    header = next(line for line in text.splitlines() if line.startswith("seat"))
    assert header.index("ATpR") + len("ATpR") == rows[0].index("[") - 2   # under the mean's last digit
    long_row = {"opponent": seat, "deals": 10, "atpr": {"mean": 3.0, "low": 2.0, "high": 4.0}}
    short_row = {**long_row, "opponent": "random"}
    lines = benchmark_render([long_row, short_row], make_game("spades")).splitlines()
    assert lines[1].index(" 10 ") == lines[2].index(" 10 ")


# ---------------------------------------------------------------- help and listing

def test_arena_help_names_matrix_agents_games_and_two_seats():
    proc = subprocess.run([sys.executable, "-m", "evolve.arena", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0
    text = proc.stdout
    assert "matrix" in text and "python -m evolve.arena agents" in text and "a,b,a,b" in text
    import evolve.agents  # noqa: F401
    from evolve.agents.registry import AGENTS

    for name in [*AGENTS, *GAMES]:
        assert re.search(rf"\b{re.escape(name)}\b", text), name


def test_agents_listing_has_every_agent_and_game_with_options(capsys):
    assert run(arena_main, ["agents"]) == 0
    text = capsys.readouterr().out
    import evolve.agents  # noqa: F401
    from evolve.agents.bidding.bidders import BIDDER_OPTIONS
    from evolve.agents.registry import AGENTS

    assert "champion:PATH" in text
    for name, agent in AGENTS.items():
        assert re.search(rf"^  {re.escape(name)}: ", text, re.M), name
        for key, option in agent.options.items():
            if key not in BIDDER_OPTIONS:
                default = str(option.default).lower() if isinstance(option.default, bool) else str(option.default)
                assert f"    {key}={default}  " in text, (name, key)
    for name, info in GAMES.items():
        assert re.search(rf"^  {name}: ", text, re.M), name
        section = text[text.index(f"  {name}: "):]
        for key in info.options:
            assert f"    {key}=" in section, (name, key)


def test_agents_listing_rejects_arguments():
    proc = subprocess.run([sys.executable, "-m", "evolve.arena", "agents", "--bogus"], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "--bogus" in proc.stderr


# ---------------------------------------------------------------- who plays in a generation

def test_member_seats_counts_who_seat_tables_seats():
    """``member_seats`` (which the config check uses) is exactly how many distinct members
    ``seat_tables`` seats, when there are fewer seats than members; with enough seats
    everyone plays, and play counts differ by at most one table."""
    import numpy as np

    from evolve.evolution.tournament import member_seats, seat_tables

    for population in (4, 5, 7, 8, 13, 60):
        for games in (1, 2, 3, 5, 7, 15, 16):
            for opponents, share in ((0, 0.0), (1, 0.0), (2, 0.5), (1, 1.0), (3, 0.3)):
                for seed in range(2):
                    tables = seat_tables(population, games, opponents, share, np.random.default_rng(seed)).tables
                    counts = np.bincount(tables[tables >= 0], minlength=population)
                    seats = member_seats(games, opponents, share)
                    assert counts.sum() == seats
                    assert (counts > 0).sum() == min(seats, population), (population, games, opponents, share)
                    if seats >= population:
                        assert counts.max() - counts.min() <= 1
    # a population of 7 at four-seat tables: everyone plays, equally when 4 x games is a multiple of 7
    counts = np.bincount(seat_tables(7, 7, 0, 0.0, np.random.default_rng(1)).tables.ravel(), minlength=7)
    assert counts.tolist() == [4] * 7


@pytest.mark.parametrize("evolution, message", [
    ({"population": 60, "games_per_generation": 2},
     "evolution.games_per_generation: got 2; only 8 of the 60 members would play each generation "
     "(2 population tables x 4 seats); expected at least 15 for population 60"),
    ({"population": 100, "games_per_generation": 39, "opponents": ["random"], "opponent_share": 0.5},
     "only 96 of the 100 members would play each generation (19 population tables x 4 seats + 20 opponent tables "
     "x 1 seat); expected at least 40"),
    ({"population": 10, "games_per_generation": 9, "opponents": ["random"], "opponent_share": 1.0},
     "only 9 of the 10 members would play"),
])
def test_config_rejects_generations_that_leave_members_out(evolution, message):
    from evolve.evolution.config import ConfigError, validate

    with pytest.raises(ConfigError) as e:
        validate({"experiment": {"game": "spades"}, "evolution": {"algorithm": "ga", **evolution}}, Path("x.toml"))
    assert str(e.value).startswith("x.toml: ") and message in str(e.value) and "\n" not in str(e.value)
    fixed = dict(evolution, algorithm="ga",
                 games_per_generation=int(re.search(r"at least (\d+)", str(e.value)).group(1)))
    validate({"experiment": {"game": "spades"}, "evolution": fixed}, Path("x.toml"))   # the suggested value is enough
    validate(
        {"experiment": {"game": "spades"},
         "evolution": {"algorithm": "ga", "population": 7, "games_per_generation": 2}}, Path("x.toml")
    )


# ---------------------------------------------------------------- python -m evolve.plot

def test_plot_of_a_folder_without_a_run_says_what_is_wrong(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "evolve.plot", str(tmp_path)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (f"evolve.plot: error: {tmp_path}: no logbook.json or checkpoint.npz; "
                                   f"expected a run folder written by python -m evolve.run")


def test_plot_draws_the_runs_title_where_the_run_draws(tmp_path, monkeypatch):
    import evolve.evolution.reporters as plots
    from evolve.evolution.config import load_config
    from evolve.evolution.runner import Evolution
    from evolve.plot import main as plot_main

    drawn = []
    monkeypatch.setattr(
        plots,
        "plot_fitness",
        lambda logbook, path, title="", validation_label="": drawn.append((Path(path), title)) or path,
    )
    cfg = load_config(ROOT / "tests" / "configs" / "tiny_spades.toml").with_overrides(evolution={"fitness": "advanced"})
    run_dir = tmp_path / "run"
    evo = Evolution(cfg, run_dir=run_dir, plot_dir=run_dir / "plots", progress=False)   # as python -m evolve.run --out
    state = evo.initial_state()
    state.logbook = [{"gen": 0, "max": 1.0, "mean": 0.5, "std": 0.1, "min": 0.0, "mutation": 0.8}]
    run_dir.mkdir()
    (run_dir / "config.json").write_text(json.dumps(cfg.as_dict(), default=str))
    (run_dir / "logbook.json").write_text(json.dumps(state.logbook))
    (run_dir / "plots").mkdir()
    evo.plot(state)
    assert run(plot_main, [str(run_dir)]) == 0
    (run_path, run_title), (redrawn_path, redrawn_title) = drawn
    assert redrawn_title == run_title == "tiny_spades: spades card-based, fitness advanced"
    assert redrawn_path == run_path == run_dir / "plots" / "fitness.png"


# ---------------------------------------------------------------- Dask scratch space

def test_local_dask_cluster_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    """The local cluster of ``parallel.backend = "dask"`` keeps its workers' scratch space
    in a folder of its own and removes it on close (no dask-scratch-space left behind)."""
    pytest.importorskip("dask.distributed")
    import tempfile

    from evolve.evolution.parallel import make_runner

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))          # the worker processes' temporary folder
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    with make_runner("dask", workers=2) as runner:
        assert runner is not None
        during = sorted(p.name for p in tmp.iterdir())
        assert len(during) == 1 and during[0].startswith("trick-evolve-dask-"), during   # the scratch space is ours
    assert list(tmp.iterdir()) == []
