"""Config files that say only what differs: ``extends``, ``--set`` and schema versions give
the same run, hash and champion as the file written out; an old run folder resumes; every
mistake in them is one line (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evolve.core.errors import UsageError
from evolve.evaluate.studies import load_study
from evolve.evolution import migrations
from evolve.evolution.config import ConfigError, load_config

HERE = Path(__file__).parent
ROOT = HERE.parent
ES = HERE / "configs" / "tiny_spades_es.toml"


def run_cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "evolve.run", *map(str, args), "--no-progress"], capture_output=True,
                          text=True, timeout=timeout)


def _written_out(tmp_path: Path) -> Path:
    """tiny_spades_es.toml with two keys changed, written out in full."""
    text = ES.read_text().replace('seed = 5', 'seed = 5\nname = "same"').replace("sigma = 0.05", "sigma = 0.02")
    text = text.replace("generations = 6\n", "generations = 4\n").replace("max_generations = 6", "max_generations = 4")
    path = tmp_path / "written.toml"
    path.write_text(text)
    return path


def _extending(tmp_path: Path) -> Path:
    path = tmp_path / "sub" / "extending.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'extends = "{ES}"\n\n[experiment]\nname = "same"\n\n[evolution]\ngenerations = 4\n'
                    'max_generations = 4\n\n[evolution.es]\nsigma = 0.02\n')
    return path


SETS = ["experiment.name=same", "evolution.es.sigma=0.02", "evolution.generations=4", "evolution.max_generations=4"]


def test_extends_and_set_give_the_hash_of_the_written_out_file(tmp_path):
    written = load_config(_written_out(tmp_path))
    extending = load_config(_extending(tmp_path))
    overridden = load_config(ES, SETS)
    assert written.hash() == extending.hash() == overridden.hash() != load_config(ES).hash()
    assert written.as_dict() == extending.as_dict() == overridden.as_dict()
    assert overridden.sets == tuple(SETS) and written.sets == ()


def test_extends_and_set_give_the_champion_of_the_written_out_file(tmp_path):
    runs = {"written": [_written_out(tmp_path)], "extending": [_extending(tmp_path)],
            "set": [ES, *(a for s in SETS for a in ("--set", s))]}
    for name, args in runs.items():
        proc = run_cli(*args, "--out", tmp_path / name, "--no-benchmark")
        assert proc.returncode == 0, proc.stderr
    champions = {name: (tmp_path / name / "champion.npz").read_bytes() for name in runs}
    assert champions["written"] == champions["extending"] == champions["set"]
    hashes = {json.loads((tmp_path / name / "champion.json").read_text())["config_hash"] for name in runs}
    assert len(hashes) == 1
    recorded = json.loads((tmp_path / "set" / "config.json").read_text())
    assert recorded["set"] == SETS and recorded["schema"] == migrations.SCHEMA_VERSION
    assert recorded["evolution"]["es"]["sigma"] == 0.02 and "extends" not in recorded


def test_resume_reuses_the_overrides_the_run_was_made_with(tmp_path):
    out = tmp_path / "r"
    first = run_cli(ES, "--set", "evolution.es.sigma=0.02", "--generations", "2", "--out", out, "--no-benchmark")
    assert first.returncode == 0, first.stderr
    again = run_cli(ES, "--resume", "--generations", "4", "--out", out, "--no-benchmark")
    assert again.returncode == 0, again.stderr
    straight = run_cli(ES, "--set", "evolution.es.sigma=0.02", "--generations", "4", "--out", tmp_path / "s",
                       "--no-benchmark")
    assert straight.returncode == 0, straight.stderr
    assert (out / "champion.npz").read_bytes() == (tmp_path / "s" / "champion.npz").read_bytes()
    other = run_cli(ES, "--resume", "--set", "evolution.es.sigma=0.03", "--generations", "5", "--out", out)
    assert other.returncode == 2 and "evolution.es.sigma" in other.stderr and "Traceback" not in other.stderr


def _as_version_1(config: dict) -> dict:
    """A run folder's config.json as it was written before schema versions: the algorithms'
    keys flat in [evolution], the removed keys at their values, no schema marker."""
    old = json.loads(json.dumps(config))
    old.pop("schema", None)
    old.pop("set", None)
    ev = old["evolution"]
    tables = {name: ev.pop(name) for name in ("ga", "es", "cma")}
    for name, (table, key, _) in migrations.RENAMED.items():
        ev[name] = tables[table][key]
    ev.update(mutation_schedule="linear", mutate_parents=True, deals="shared", es_antithetic=True,
              opponent_hall=0, opponent_hall_every=25)
    return old


def test_a_run_folder_written_in_schema_version_1_resumes(tmp_path):
    out = tmp_path / "old"
    first = run_cli(ES, "--generations", "2", "--out", out, "--no-benchmark")
    assert first.returncode == 0, first.stderr
    path = out / "config.json"
    path.write_text(json.dumps(_as_version_1(json.loads(path.read_text())), indent=2))
    again = run_cli(ES, "--resume", "--generations", "4", "--out", out, "--no-benchmark")
    assert again.returncode == 0, again.stderr
    straight = run_cli(ES, "--generations", "4", "--out", tmp_path / "new", "--no-benchmark")
    assert straight.returncode == 0, straight.stderr
    assert (out / "champion.npz").read_bytes() == (tmp_path / "new" / "champion.npz").read_bytes()


def test_a_schema_1_file_reads_with_its_old_defaults(tmp_path):
    path = tmp_path / "old.toml"
    path.write_text('schema = 1\n[experiment]\ngame = "spades"\n[evolution]\nes_sigma = 0.02\n')
    old = load_config(path)
    assert old.evolution["algorithm"] == "ga" and old.evolution["patience"] == 200
    assert old.evolution["es"]["sigma"] == 0.02 and old.network["encoding"] == "card"
    current = tmp_path / "new.toml"
    current.write_text('[experiment]\ngame = "spades"\n')
    new = load_config(current)
    assert new.evolution["algorithm"] == "es" and new.imitation["init"] == "fan_in"


def test_every_committed_champion_keeps_its_hash_in_the_new_layout():
    """The experiments are written as differences in schema version 2; every champion they
    made records the hash they give (the layout of version 1 is what the hash covers)."""
    checked = 0
    for folder in sorted((ROOT / "populations").iterdir()):
        recorded = folder / "champion.json"
        config = ROOT / "experiments" / f"{folder.name}.toml"
        if recorded.is_file() and config.is_file():
            assert load_config(config).hash() == json.loads(recorded.read_text())["config_hash"], folder.name
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("sets,message", [
    (["evolution.populaton=8"], "--set evolution.populaton=8: evolution.populaton: unknown key"),
    (["evolution.population=eight"], "--set evolution.population=eight: evolution.population: got 'eight' (str)"),
    (["evolution.es.sigma=-1"], "--set evolution.es.sigma=-1: evolution.es.sigma: got -1; expected a positive number"),
    (["generations=4"], "--set 'generations=4': expected section.key=value"),
    (["evolution.population"], "--set 'evolution.population': expected section.key=value"),
    (["experiment.game.x=1"], "--set 'experiment.game.x=1': experiment.game is not a table"),
])
def test_bad_sets_are_one_line(sets, message):
    with pytest.raises(ConfigError) as e:
        load_config(ES, sets)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_bad_set_on_the_command_line_exits_2(tmp_path):
    proc = run_cli(ES, "--set", "evolution.population=eight", "--out", tmp_path / "x")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "--set evolution.population=eight" in proc.stderr


def test_a_study_extends_another_and_takes_sets(tmp_path):
    base = ROOT / "experiments" / "studies" / "euchre_cooperative.toml"
    path = tmp_path / "study.toml"
    path.write_text(f'extends = "{base}"\n[study]\nseed = 99\n')
    study = load_study(path)
    assert study["seed"] == 99 and study["agents"] == load_study(base)["agents"]
    assert load_study(base, ["study.seed=7"])["seed"] == 7
    with pytest.raises(UsageError, match="study.seed: got -1"):
        load_study(base, ["study.seed=-1"])
    with pytest.raises(UsageError, match="study.sed: unknown key"):
        load_study(base, ["study.sed=1"])
