"""A first run that respects the user's time: kernels compiled side by side, progress that
reads line by line in a log, both cores by default with the same champion, and fair
default bidders named in every table."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evolve  # noqa: F401  (configures the Numba cache before any kernel module)
from evolve.agents.bidding.bidders import BIDDERS, GAME_DEFAULT_BIDDERS, resolve_bidder
from evolve.agents.callback_slot import SLOTS, compiles_deferred
from evolve.agents.kinds import BID_RANDOM
from evolve.agents.registry import AGENTS, bidder_label, parse_seat
from evolve.core.cores import available_cores, resolve_workers
from evolve.core.progress import Progress, progress_mode
from evolve.evolution.checkpoint import load_checkpoint
from evolve.games.registry import make_game

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- progress
def test_progress_off_a_terminal_is_plain_lines_with_the_figures():
    out = io.StringIO()
    bar = Progress(10, "demo: evolving", "gen", stream=out, every=0.0)
    assert bar.mode == "lines"
    for k in range(10):
        bar.update(1, best=f"{k / 10:.3f}")
    bar.close()
    text = out.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == 11          # one per update (every=0) and the closing one
    assert re.fullmatch(r"demo: evolving: 10/10 gen \(100%\), \d+ s, .*best=0\.900", lines[-1]), lines[-1]


def test_progress_mode_follows_the_stream_and_the_override(monkeypatch):
    monkeypatch.delenv("EVOLVE_PROGRESS", raising=False)
    assert progress_mode(io.StringIO()) == "lines"
    monkeypatch.setenv("EVOLVE_PROGRESS", "off")
    out = io.StringIO()
    with Progress(3, "quiet", stream=out) as bar:
        bar.update(3)
    assert out.getvalue() == ""
    out = io.StringIO()
    with Progress(3, "disabled", stream=out, enabled=False) as bar:
        bar.update(3)
    assert out.getvalue() == "" and bar.n == 3


def test_zero_workers_means_every_core():
    assert resolve_workers(0) == available_cores() >= 1
    assert resolve_workers(3) == 3


# ----------------------------------------------------------------------------- compiling
def test_parsing_inside_compiles_deferred_compiles_nothing_and_names_the_callbacks():
    game = make_game("jass")
    with compiles_deferred() as wanted:
        parse_seat("ismcts:iterations=10", game)
        parse_seat("random:bidder=search", game)
        parse_seat("jass_rule_based", game)
    from evolve.agents.search.card_search import SEARCH_WHAT

    assert {SLOTS[s].what for s in wanted} == {SEARCH_WHAT, "the search bidder"}


PRECOMPILE = """
import sys
from numba.core import event
import evolve
from evolve.games.registry import make_game
from evolve.runtime.precompile import engine_job, missing, precompile
g = make_game("euchre")
jobs = [engine_job(g, ()), engine_job(g, ("rules",))]
print("missing", len(missing(jobs)))
precompile(jobs, workers=2)
print("missing after", len(missing(jobs)))
with event.install_recorder("numba:compile") as rec:
    evolve.play("euchre", ["cardcounting", "random"], 20, seed=1)
    evolve.play("euchre", "random", 20, seed=1)
print("engine compiles", sum(1 for _, ev in rec.buffer if ev.is_start
                             and "play_batch_kernel" in ev.data["dispatcher"].py_func.__qualname__))
"""


def test_precompile_compiles_the_missing_kernels_side_by_side_then_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    first = subprocess.run([sys.executable, "-c", PRECOMPILE], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=900)
    assert first.returncode == 0, first.stderr
    assert "missing 2" in first.stdout and "missing after 0" in first.stdout, first.stdout
    assert "in 2 processes" in first.stderr and "compiled 2 kernels in" in first.stderr, first.stderr
    # the kernels were compiled in the workers: this process only loads them
    assert "engine compiles 0" in first.stdout, first.stdout
    second = subprocess.run([sys.executable, "-c", PRECOMPILE], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=900)
    assert second.returncode == 0 and "missing 0" in second.stdout, second.stdout + second.stderr
    assert second.stderr == "", second.stderr      # a warm cache: not a word


# ----------------------------------------------------------------------------- the main job
def _main_job(out: Path, workers: int) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "EVOLVE_PROGRESS"}
    log = out.with_suffix(".log")
    with open(log, "w") as stderr:
        p = subprocess.run([sys.executable, "-m", "evolve.run", "experiments/spades_cardbased.toml", "--generations",
                            "3", "--no-benchmark", "--workers", str(workers), "--out", str(out)], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=1200)
    assert p.returncode == 0, log.read_text()
    return p


def test_main_job_log_reads_line_by_line_and_two_workers_give_the_same_champion(tmp_path):
    _main_job(tmp_path / "two", 2)
    log = (tmp_path / "two.log").read_text()
    assert "\r" not in log and "\x1b" not in log, log[:500]
    lines = log.splitlines()
    for phase in ("imitation: teacher deals: 8000/8000 deal (100%)", "imitation: training: 12/12 epoch (100%)",
                  "spades_cardbased: evolving: 3/3 gen (100%)", "spades_cardbased: validating candidates"):
        assert any(line.startswith(phase) for line in lines), (phase, log)
    training = next(line for line in lines if line.startswith("imitation: training: 12/12"))
    assert re.search(r"loss=\d\.\d{4} accuracy=0\.\d{3}$", training), training
    evolving = next(line for line in lines if line.startswith("spades_cardbased: evolving: 3/3"))
    assert re.search(r"best=\d\.\d{3} mean=\d\.\d{3} hof=\d\.\d{3}", evolving), evolving

    _main_job(tmp_path / "one", 1)
    assert (tmp_path / "two" / "champion.npz").read_bytes() == (tmp_path / "one" / "champion.npz").read_bytes()
    two, one = (load_checkpoint(tmp_path / run / "checkpoint.npz") for run in ("two", "one"))
    assert np.array_equal(two.population, one.population) and np.array_equal(two.hof_genome, one.hof_genome)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in two.logbook] == \
        [{k: v for k, v in r.items() if k != "seconds"} for r in one.logbook]


# ----------------------------------------------------------------------------- fair bidders
GAMES_WITH_CALLS = [("euchre", {}), ("jass", {}), ("spades", {"partnership": True, "bidding": "standard"})]


@pytest.mark.parametrize("game, options", GAMES_WITH_CALLS)
def test_every_agent_bids_with_its_games_rule_unless_told(game, options):
    g = make_game(game, **options)
    default = GAME_DEFAULT_BIDDERS[game]
    assert default not in ("random", "search")
    with compiles_deferred():
        for name, agent in AGENTS.items():
            if game not in agent.games or "bidder" not in agent.options:
                continue
            spec = parse_seat(name, g)
            assert bidder_label(spec) == default, name
            assert spec.bid_kind == BIDDERS[default], name
            told = parse_seat(f"{name}:bidder=random", g)
            assert told.bid_kind == BID_RANDOM and bidder_label(told) == "random", name


def test_bidder_default_resolves_per_game_and_names_itself():
    assert resolve_bidder("default", make_game("euchre")) == "context"
    assert resolve_bidder("default", "jass") == "simple"
    assert resolve_bidder("graf", "jass") == "graf"


def test_tables_name_each_seats_bidder_where_the_game_has_calls(capsys):
    from evolve.arena import main as arena_main
    from evolve.core.cli import run
    from evolve.evaluate.matrix import markdown_tables, strategy_matrix

    assert run(arena_main, ["--game", "euchre", "--seats", "cardcounting,random:bidder=random", "--deals", "200"]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("seat"))
    assert "bids" in header
    rows = [line for line in text.splitlines() if re.match(r"\s+[0-3]\s", line)]
    assert "context" in rows[0] and "random" in rows[1].split("random:bidder=random", 1)[1], rows

    assert run(arena_main, ["--game", "spades", "--seats", "cardcounting,random", "--deals", "200"]) == 0
    text = capsys.readouterr().out
    assert "bids" not in text                      # cut-throat Spades has no calls

    matrix = strategy_matrix("jass", ["jass_rule_based", "random:bidder=random"], 20, seed=1)
    md = markdown_tables(matrix)
    assert "bids and trump calls: jass_rule_based: simple; random:bidder=random: random" in md


def test_evolved_configs_record_the_bidder_they_resolved():
    from evolve.core.errors import UsageError
    from evolve.evolution.config import validate

    cfg = validate({"experiment": {"game": "euchre", "name": "x"}, "evolution": {"population": 8}})
    assert cfg.network["bidder"] == "context"
    cfg = validate({"experiment": {"game": "euchre", "name": "x"}, "network": {"bidder": "simple"},
                    "evolution": {"population": 8}})
    assert cfg.network["bidder"] == "simple"
    with pytest.raises(UsageError, match="network.bidder: bidder 'graf' decides only jass calls"):
        validate({"experiment": {"game": "euchre", "name": "x"}, "network": {"bidder": "graf"},
                  "evolution": {"population": 8}})
