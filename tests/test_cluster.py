"""Every parallel step on a real Dask cluster on this machine: ``dask scheduler`` and two
``dask worker`` processes on loopback, each a process of its own.

The main job's first generations, with a small recipe (teacher data, one DAgger round, a few
generations, validation), run through ``--scheduler`` give the same files as a local run on
two workers; so does a run during which a worker is killed while it holds tasks. A worker
whose package source differs is refused in one line, and so is an address where no
scheduler answers.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from evolve.bench.cluster import Loopback, format_cluster, project

distributed = pytest.importorskip("distributed", reason="the cluster tests need dask.distributed (the [dask] extra)")

ROOT = Path(__file__).resolve().parent.parent
# the main job's recipe made small: teacher data, one DAgger round, three generations
SMALL = ["--generations", "3", "--no-benchmark", "--no-progress",
         "--set", "imitation.deals=1500", "--set", 'imitation.teacher="ismcts:iterations=40"',
         "--set", "imitation.dagger_rounds=1", "--set", "imitation.dagger_deals=400",
         "--set", "evolution.rounds_per_game=64", "--set", "evolution.validation_deals=1000"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Loopback(tmp_path_factory.mktemp("cluster"), cwd=ROOT)
    try:
        c.add_worker()
        c.add_worker()
        yield c
    finally:
        c.close()


def _run(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evolve.run", "experiments/spades_cardbased.toml", *SMALL,
                             "--out", str(out), *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _finished(p: subprocess.Popen) -> str:
    out, err = p.communicate(timeout=900)
    assert p.returncode == 0, err[-3000:]
    return out


def _same_run(a: Path, b: Path) -> None:
    assert (a / "champion.npz").read_bytes() == (b / "champion.npz").read_bytes()
    with np.load(a / "checkpoint.npz") as x, np.load(b / "checkpoint.npz") as y:
        assert x.files == y.files
        for key in x.files:
            if key != "logbook":        # the same but for the seconds: compared below
                assert np.array_equal(x[key], y[key]), key
    strip = [{k: v for k, v in r.items() if "second" not in k} for r in json.loads((a / "logbook.json").read_text())]
    other = [{k: v for k, v in r.items() if "second" not in k} for r in json.loads((b / "logbook.json").read_text())]
    assert strip == other and len(strip) == 3
    ca, cb = (json.loads((d / "champion.json").read_text()) for d in (a, b))
    assert ca["config_hash"] == cb["config_hash"] and ca.get("validation") == cb.get("validation")


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    _finished(_run(out, "--workers", "2"))       # also fills the kernel cache the workers load from
    return out


def test_a_small_recipe_on_the_cluster_gives_the_local_files(cluster, local_run, tmp_path):
    out = tmp_path / "run"
    text = _finished(_run(out, "--scheduler", cluster.address))
    assert "3 generations" in text
    _same_run(local_run, out)
    assert json.loads((out / "config.json").read_text())["parallel"] == {"workers": 0, "backend": "dask",
                                                                          "scheduler": cluster.address}


def test_a_worker_killed_while_it_holds_tasks_changes_no_file(cluster, local_run, tmp_path):
    out = tmp_path / "run"
    pids = cluster.pids()
    run = _run(out, "--scheduler", cluster.address)
    killed = None
    deadline = time.time() + 600
    while killed is None and run.poll() is None and time.time() < deadline:
        busy = [w for w, keys in cluster.client.processing().items() if keys and w in pids]
        if busy:
            killed = busy[0]
            os.kill(pids[killed], signal.SIGKILL)
        else:
            time.sleep(0.05)
    assert killed is not None, "the run finished before any worker held a task"
    cluster.workers = [w for w in cluster.workers if w.pid != pids[killed]]    # already dead
    _finished(run)
    _same_run(local_run, out)
    cluster.add_worker()        # two workers again for the tests after this one


def test_a_worker_with_another_source_is_refused(cluster, tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(ROOT / "evolve", copy / "evolve", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(ROOT / "evolve" / "agents" / "data", copy / "evolve" / "agents" / "data")
    (copy / "evolve" / "core" / "errors.py").write_text((ROOT / "evolve/core/errors.py").read_text() + "\n# edited\n")
    odd = cluster.add_worker(cwd=copy)
    try:
        p = subprocess.run([sys.executable, "-m", "evolve.arena", "matrix", "--game", "sueca", "--agents",
                            "random,highlow", "--games", "20", "--scheduler", cluster.address],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert p.returncode == 2
        line = p.stderr.strip()
        assert "evolve source" in line and "every worker needs the same versions" in line and "\n" not in line
    finally:
        cluster.kill(odd)


def test_a_string_that_is_no_address_is_one_line():
    p = subprocess.run([sys.executable, "-m", "evolve.arena", "matrix", "--game", "jass", "--agents", "random,highlow",
                        "--games", "5", "--scheduler", "notanaddress"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2
    assert "expected an address such as tcp://host:8786" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_an_address_without_a_scheduler_is_one_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "evolve.studies", "experiments/studies/spades_random.toml", "--quick",
                        "--scheduler", "tcp://127.0.0.1:9"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "no Dask scheduler answers there" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_the_matrix_on_the_cluster_equals_the_local_matrix(cluster, tmp_path):
    args = [sys.executable, "-m", "evolve.arena", "matrix", "--game", "jass", "--agents", "random,jass_rule_based",
            "--games", "200", "--json"]
    here = subprocess.run(args + ["--workers", "2"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    there = subprocess.run(args + ["--scheduler", cluster.address], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
    assert here.returncode == 0 and there.returncode == 0, there.stderr[-2000:]
    a, b = json.loads(here.stdout), json.loads(there.stdout)
    a.pop("seconds", None), b.pop("seconds", None)
    assert a == b and a["cells"]


def test_the_projection_model():
    # one round of 100 s in 10 tasks: 10 cores take a tenth plus the overhead; more cores no less
    assert project(100.0, 10, 1, 0.5, 0.0, 1) == 100.0
    assert project(100.0, 10, 1, 0.5, 0.0, 10) == pytest.approx(10.5)
    assert project(100.0, 10, 1, 0.5, 0.0, 512) == project(100.0, 10, 1, 0.5, 0.0, 10)
    # many short rounds stop at their overhead; the serial part stays
    assert project(30.0, 100, 300, 0.07, 5.0, 64) == pytest.approx(5.0 + 300 * (30.0 / 300 / 64 + 0.07))
    r = {"overhead": {"dask": {"seconds_per_task": 0.003, "latency_seconds": 0.01}},
         "steps": {"s": {"tasks": 8, "1 local": 2.0, "2 local": 1.0, "2 dask": 1.1, "overhead_per_task": 0.025}},
         "model": "T", "projection": {"r": {"1": 60.0, "2": 30.0}}, "serial": {"r": 6.0}}
    text = format_cluster(r)
    assert "25.0" in text and "1 cores" in text and "0.1" in text


def test_a_tasks_own_error_is_raised_as_itself_not_as_a_lost_scheduler(cluster):
    from evolve.core import pool

    pool.use_scheduler(cluster.address)
    try:
        assert pool.cluster_workers() >= 2
        assert list(pool.map_ordered(os.path.join, [("a", "b"), ("c", "d")], 2)) == ["a/b", "c/d"]
        with pytest.raises(FileNotFoundError):
            list(pool.map_ordered(os.stat, [("/no/such/file",), ("/no/such/other",)], 2))
    finally:
        pool.use_scheduler("")
    assert pool.scheduler() == "" and pool.cluster_workers() == 0
