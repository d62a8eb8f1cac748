"""First use: a compile is announced once on stderr; a warm cache is silent, and it is
shared by every install location of the same version (checkout and site-packages)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import evolve  # noqa: F401  (configures the Numba cache before any kernel module)

ROOT = Path(__file__).resolve().parents[1]
CODE = (
    "from numba.core import event\n"
    "with event.install_recorder('numba:compile') as rec:\n"
    "    import evolve\n"
    "    evolve.play('spades', 'random', n_deals=10, seed=1)\n"
    "print(sum(1 for _, ev in rec.buffer if ev.is_start))\n"
)


def _run(cache: Path, where: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(cache)
    env["PYTHONPATH"] = str(where)
    p = subprocess.run([sys.executable, "-c", CODE], cwd=where, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p


def test_compile_is_announced_once_and_cache_is_shared_across_installs(tmp_path):
    cache = tmp_path / "cache"
    first = _run(cache, ROOT)
    lines = first.stderr.strip().splitlines()
    assert len(lines) == 1, first.stderr
    assert lines[0].startswith("compiling the game kernels for spades with agents random (first use of this version, "
                               "about")
    assert int(first.stdout.split()[-1]) > 0

    second = _run(cache, ROOT)
    assert second.stderr == "" and int(second.stdout.split()[-1]) == 0, second.stderr

    # another install location of the same sources (fresh paths and time stamps)
    other = tmp_path / "site"
    shutil.copytree(ROOT / "evolve", other / "evolve", ignore=shutil.ignore_patterns("__pycache__"))
    third = _run(cache, other)
    assert third.stderr == "" and int(third.stdout.split()[-1]) == 0, third.stderr


def test_engine_compiles_only_the_families_seated():
    from evolve.agents.dispatch import absent_family, card_bindings, families_of
    from evolve.agents.rulebased.play import KIND_HIGHLOW

    assert families_of([0, 0, 0, 0]) == ()
    assert families_of([1, 0, KIND_HIGHLOW, 0]) == ("network", "rules")
    b = card_bindings(())
    assert b["play_network"] is absent_family and b["play_rules"] is absent_family and b["play_search"] is absent_family
