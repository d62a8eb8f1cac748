"""Nothing lost: a run folder is never overwritten unasked, a finished run can be extended,
an interrupted or killed run resumes exactly, and broken files are one clear line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from evolve.agents.genomes.champion import load_champion
from evolve.core.errors import UsageError
from evolve.evolution.checkpoint import load_checkpoint

HERE = Path(__file__).parent
TINY = HERE / "configs" / "tiny_spades.toml"


def run_cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "evolve.run", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_run_folder_is_not_overwritten_unless_asked(tmp_path):
    first = run_cli(TINY, "--out", tmp_path / "r", "--generations", "3", "--no-progress")
    assert first.returncode == 0, first.stderr
    before = files(tmp_path / "r")
    again = run_cli(TINY, "--out", tmp_path / "r", "--generations", "1", "--no-progress")
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert "already holds a run" in again.stderr and "--resume" in again.stderr and "--overwrite" in again.stderr
    assert files(tmp_path / "r") == before
    fresh = run_cli(TINY, "--out", tmp_path / "r", "--generations", "1", "--no-progress", "--overwrite")
    assert fresh.returncode == 0, fresh.stderr
    assert len(json.loads((tmp_path / "r" / "logbook.json").read_text())) == 1


def test_a_finished_run_is_extended_and_the_change_recorded(tmp_path):
    short = run_cli(TINY, "--out", tmp_path / "a", "--generations", "4", "--no-progress", "--no-benchmark")
    assert short.returncode == 0, short.stderr
    longer = run_cli(TINY, "--out", tmp_path / "a", "--generations", "7", "--resume", "--no-progress", "--no-benchmark")
    assert longer.returncode == 0, longer.stderr
    straight = run_cli(TINY, "--out", tmp_path / "b", "--generations", "7", "--no-progress", "--no-benchmark")
    assert straight.returncode == 0, straight.stderr
    log_a = json.loads((tmp_path / "a" / "logbook.json").read_text())
    assert [r["gen"] for r in log_a] == list(range(7))
    changes = json.loads((tmp_path / "a" / "changes.json").read_text())
    assert changes[-1]["generation"] == 4
    assert changes[-1]["changed"]["evolution.generations"] == {"from": 4, "to": 7}
    assert json.loads((tmp_path / "a" / "config.json").read_text())["evolution"]["generations"] == 7
    # the first four generations are those of any run of this config; later ones follow the new annealing span
    log_b = json.loads((tmp_path / "b" / "logbook.json").read_text())
    assert [r["max"] for r in log_a[:2]] == [r["max"] for r in log_b[:2]]


def test_resume_refuses_settings_that_would_change_the_past(tmp_path):
    ok = run_cli(TINY, "--out", tmp_path / "r", "--generations", "2", "--no-progress", "--no-benchmark")
    assert ok.returncode == 0, ok.stderr
    before = files(tmp_path / "r")
    res = run_cli(TINY, "--out", tmp_path / "r", "--generations", "2", "--seed", "9", "--resume", "--no-progress")
    assert res.returncode == 2 and "experiment.seed" in res.stderr and "--overwrite" in res.stderr
    assert files(tmp_path / "r") == before
    # fewer generations than the run has made: the champion would be misdescribed
    res = run_cli(TINY, "--out", tmp_path / "r", "--generations", "1", "--resume", "--no-progress")
    assert res.returncode == 2 and "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "already run 2 generations" in res.stderr and "cannot be cut to 1" in res.stderr
    assert files(tmp_path / "r") == before


def test_ctrl_c_checkpoints_and_says_how_to_continue(tmp_path):
    # long enough (several seconds) that the interrupt 1.5 s in always lands mid-run: a
    # fast idle machine finishes 400 generations before it
    ref = run_cli(TINY, "--out", tmp_path / "ref", "--generations", "1500", "--no-progress", "--no-benchmark")
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "cut"
    # Ctrl-C's default action even when this test runs in the background, where a shell
    # hands children an ignored SIGINT and Python then never raises KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "evolve.run", str(TINY), "--out", str(out), "--generations", "1500",
                             "--no-benchmark"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while time.time() < deadline and not (out / "config.json").exists():
        time.sleep(0.05)
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, "the run must still be going when the interrupt arrives"
    last = err.strip().splitlines()[-1]
    assert "interrupted after" in last and "--resume" in last and str(out) in last
    assert "it/s" not in last and "gen/s" not in last          # the progress bar is closed first
    done = load_checkpoint(out / "checkpoint.npz").generation
    assert 0 < done < 1500
    again = run_cli(TINY, "--out", out, "--generations", "1500", "--resume", "--no-progress", "--no-benchmark")
    assert again.returncode == 0, again.stderr
    assert (out / "champion.npz").read_bytes() == (tmp_path / "ref" / "champion.npz").read_bytes()


def test_kill_9_loses_at_most_the_checkpoint_interval_and_resumes_exactly(tmp_path):
    cfg = tmp_path / "every_second.toml"
    cfg.write_text(TINY.read_text().replace("max_generations = 8", "max_generations = 8\ncheckpoint_seconds = 1"))
    ref = run_cli(cfg, "--out", tmp_path / "ref", "--generations", "1500", "--no-progress", "--no-benchmark")
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "cut"
    ckpt = out / "checkpoint.npz"
    proc = subprocess.Popen([sys.executable, "-m", "evolve.run", str(cfg), "--out", str(out), "--generations", "1500",
                             "--no-progress", "--no-benchmark"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 300
    while time.time() < deadline and not ckpt.exists():
        time.sleep(0.02)
    # long enough after the first checkpoint that a run writing only that one would lose more than the bound
    time.sleep(3.5)
    os.kill(proc.pid, signal.SIGKILL)
    killed_at = time.time()
    proc.wait()
    saved = load_checkpoint(ckpt)
    assert not saved.finished, "the run must still be going when it is killed"
    # at most the interval lost, plus a generation and the scheduling slack of a loaded 2-core machine
    assert killed_at - ckpt.stat().st_mtime < 1.0 + 1.0
    res = run_cli(cfg, "--out", out, "--generations", "1500", "--resume", "--no-progress", "--no-benchmark")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "ref" / "champion.npz").read_bytes() == (out / "champion.npz").read_bytes()


def test_checkpoints_are_written_at_most_every_checkpoint_seconds(tmp_path):
    from evolve.evolution.config import load_config
    from evolve.evolution.runner import Evolution

    cfg = load_config(TINY).with_overrides(evolution={"generations": 40, "max_generations": 40})
    evo = Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)
    saves = []
    original = evo.save
    evo.save = lambda state: (saves.append(state.generation), original(state))
    evo.run()
    assert saves == [40]          # 40 quick generations: no checkpoint before the one at the end


@pytest.mark.parametrize("damage", ["truncated", "random", "empty"])
def test_broken_champion_is_one_clear_line(tmp_path, damage):
    ok = run_cli(TINY, "--out", tmp_path / "r", "--generations", "1", "--no-progress", "--no-benchmark")
    assert ok.returncode == 0, ok.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    data = (tmp_path / "r" / "champion.npz").read_bytes()
    body = {"truncated": data[:500], "random": np.random.default_rng(0).bytes(4000), "empty": b""}[damage]
    (bad / "champion.npz").write_bytes(body)
    (bad / "champion.json").write_text((tmp_path / "r" / "champion.json").read_text())
    with pytest.raises(UsageError, match="corrupt or truncated"):
        load_champion(bad / "champion.npz")
    arena = subprocess.run([sys.executable, "-m", "evolve.arena", "--game", "spades", "--deals", "10", "--seats",
                            f"champion:{bad / 'champion.npz'},random,random,random"], capture_output=True, text=True)
    assert arena.returncode == 2 and "Traceback" not in arena.stderr
    assert len(arena.stderr.strip().splitlines()) == 1 and "allow_pickle" not in arena.stderr


def test_random_bytes_checkpoint_never_suggests_pickles(tmp_path):
    ok = run_cli(TINY, "--out", tmp_path / "r", "--generations", "1", "--no-progress", "--no-benchmark")
    assert ok.returncode == 0, ok.stderr
    (tmp_path / "r" / "checkpoint.npz").write_bytes(np.random.default_rng(1).bytes(5000))
    res = run_cli(TINY, "--out", tmp_path / "r", "--resume", "--no-progress")
    assert res.returncode == 2 and "allow_pickle" not in res.stderr and "pickle" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_the_progress_figure_is_the_generations_best_on_fixed_deals(tmp_path):
    from evolve.evolution.config import load_config
    from evolve.evolution.runner import Evolution

    cfg = load_config(TINY).with_overrides(evolution={"generations": 7, "max_generations": 7, "progress_every": 3,
                                                      "progress_deals": 300})
    evo = Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)
    state = evo.run()
    marked = [r for r in state.logbook if "validation" in r]
    assert [r["gen"] for r in marked] == [0, 3, 6]
    for r in marked:
        assert r["validation_low"] < r["validation"] < r["validation_high"]
        assert 0.0 <= r["validation"] <= 13.0
    # the same figure again from the member itself: fixed deals, fixed opponent
    again = evo.fixed_deal_scores(state.elite[0], 300, state.seed).mean()
    assert again == pytest.approx(marked[-1]["validation"])
    assert (tmp_path / "p" / "fitness.png").stat().st_size > 10_000
