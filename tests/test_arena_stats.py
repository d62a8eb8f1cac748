"""The arena CLI (figures, JSON, one-line errors) and the statistics helpers."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from evolve.arena import main as arena_main
from evolve.core.cli import run
from evolve.core.stats import mean_ci, one_sample_t, paired_difference, t_quantile, wilson
from evolve.evaluate.figures import fair_share, fair_share_test, study_normal_p
from evolve.games.registry import make_game


def test_t_quantiles_match_tables():
    # two-sided 95% critical values from standard t tables
    for df, expected in [(3, 3.1824), (5, 2.5706), (10, 2.2281), (30, 2.0423), (1000, 1.9623)]:
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=5e-3)


def test_mean_ci_covers_the_mean_at_the_nominal_rate():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(2000):
        ci = mean_ci(rng.normal(3.0, 2.0, 20))
        covered += ci.low <= 3.0 <= ci.high
    assert 0.93 <= covered / 2000 <= 0.97, covered


def test_wilson_interval_known_value():
    # Wilson 95% interval for 8/10: (0.4902, 0.9433)
    p, lo, hi = wilson(8, 10)
    assert (p, round(lo, 4), round(hi, 4)) == (0.8, 0.4902, 0.9433)


def test_one_sample_and_paired_tests():
    rng = np.random.default_rng(1)
    same = one_sample_t(rng.normal(3.25, 1.5, 5000), 3.25)
    shifted = one_sample_t(rng.normal(3.40, 1.5, 5000), 3.25)
    assert same.p_value > 0.001 and shifted.p_value < 1e-6
    ci, test = paired_difference(np.arange(10.0) + 1, np.arange(10.0))
    assert ci.mean == 1 and test.p_value == 0.0


def test_fair_share_and_the_study_normal_figure():
    spades = make_game("spades")
    assert fair_share(spades) == 3.25 and fair_share(make_game("spades", partnership=True)) is None
    assert study_normal_p(spades, 3.25) == pytest.approx(0.5)
    assert study_normal_p(spades, 3.25 + 1.5612) == pytest.approx(1 - 0.8413, abs=1e-3)
    assert fair_share_test(make_game("jass"), np.ones(10)) is None
    test = fair_share_test(spades, np.array([3.0, 4.0, 5.0, 4.0]))
    assert test["difference"]["mean"] == pytest.approx(0.75) and test["verdict"] == "no different"


def test_arena_json_has_every_figure(capsys):
    assert run(arena_main, ["--game", "euchre", "--seats", "random:bidder=simple,random:bidder=random",
                            "--deals", "3000", "--json", "--option", "stick_the_dealer=true"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == 3000 and len(out["per_seat"]) == 4 and len(out["per_side"]) == 2
    atpr = out["per_seat"][0]["atpr"]
    assert atpr["low"] < atpr["mean"] < atpr["high"] and atpr["n"] == 3000
    games = out["games"]
    assert games["target"] == 10 and sum(w["wins"] for w in games["won"]) == games["completed"] > 0
    # the simple bidder beats random bidding: its side wins clearly more games
    assert games["won"][0]["low"] > 0.5


def test_arena_text_report(capsys):
    assert run(arena_main, ["--game", "spades", "--seats", "random", "--deals", "2000", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "ATpR" in text and "vs 3.25: " in text and "study normal p = " in text
    seat_rows = [line for line in text.splitlines() if "vs 3.25: " in line and line.strip()[0].isdigit()]
    assert len(seat_rows) == 4
    for line in seat_rows:  # the signed difference, its CI, the p-value and a verdict on every comparison
        assert re.search(r"vs 3\.25: [+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\], p (= \S+|< 1e-16): "
                         r"(better|no different|worse);", line), line


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--game", "chess", "--seats", "random"], "unknown game 'chess'; valid games: spades, euchre, sueca, jass"),
        (["--game", "jass", "--seats", "rando"], "unknown agent 'rando'; valid agents:"),
        (["--game", "jass", "--seats", "random", "--option", "foo=1"], "unknown option 'foo' for jass; valid options:"),
        (["--game", "jass", "--seats", "random", "--option", "match_bonus=maybe"], "expected true or false"),
        (["--game", "sueca", "--seats", "random", "--option", "setup=x"], "valid values: standard, study"),
        (["--game", "spades", "--seats", "random", "--option", "bidding=standard"], "needs partnership=true"),
        (["--game", "spades", "--seats", "random,random,random"], "expected 4 seats"),
        (["--game", "spades", "--seats", "random:bidder=clever"], "valid values: default, random, simple"),
        (["--game", "spades", "--seats", "random", "--deals", "0"], "--deals 0 is invalid"),
        (["--game", "spades", "--seats", "random", "--deals", "ten"], "invalid int value"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    proc = subprocess.run([sys.executable, "-m", "evolve.arena", *args, "--deals", "10"] if "--deals" not in args else
                          [sys.executable, "-m", "evolve.arena", *args], capture_output=True, text=True)
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert needle in lines[0], lines[0]
