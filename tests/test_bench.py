"""Smoke tests of ``python -m evolve.bench`` (tiny runs; nothing here is timed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evolve.bench import cli as bench
from evolve.bench.engine import THREAD_VARS


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evolve.bench", *args], capture_output=True, text=True, timeout=600, env=env
    )


def test_engine_json_smoke():
    # without the BLAS thread variables the bench sets them to 1 (for itself and its workers)
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    p = _run("engine", "--deals", "2000", "--games", "spades", "--json", "--repeats", "1", "--seconds", "0.05", env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1, "stdout must hold exactly one JSON object"
    res = json.loads(lines[0])
    assert res["bench"] == "engine"
    assert set(res["games"]) == {"spades"}
    assert res["env"] == {var: "1" for var in THREAD_VARS}
    g = res["games"]["spades"]
    assert g["deals"] == 2000
    for key in ("one_core", "end_to_end", "parallel"):
        assert g[key]["rounds_per_s"] > 0, key
        assert g[key]["seconds"] > 0, key
    assert g["parallel"]["workers"] == 2
    assert g["parallel"]["speedup"] > 0
    peer = g["peer"]
    if peer is not None and peer.get("installed"):
        assert peer["rounds_per_s"] > 0 and peer["ratio"] > 0
    targets = {t["name"]: t for t in g["targets"]}
    rate = targets["spades 1-core rounds/s"]
    assert rate["value"] == g["one_core"]["rounds_per_s"] and rate["pass"] == (rate["value"] >= rate["threshold"])
    for t in targets.values():
        assert t["pass"] == (None if t["value"] is None else t["value"] >= t["threshold"]), t
    lat = res["first_call_latency"]
    assert len(lat) == 2
    for row in lat:
        assert "error" not in row, row
        assert 0 < row["first_play_s"] < row["total_s"]
    # whatever the first fresh process compiled (evolve.play's own helpers), the second loads from the cache
    assert lat[1]["compiled"] == 0, lat


def test_networks_table_in_process(capsys):
    # Spades hand-based: no target line, and the kernels are those of the card-based call
    # below (each game's lockstep kernel is a compilation of its own)
    assert (
        bench.main(["networks", "--games", "spades", "--encodings", "hand", "--seconds", "0.05", "--repeats", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "spades" in out and "hand" in out and "rounds/s" in out and "lockstep" in out and "target" not in out
    assert bench.main(["networks", "--games", "spades", "--encodings", "card", "--seconds", "0.05", "--repeats", "1",
                       "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    row = res["spades"]["card"]
    assert row["architecture"]["n_h1"] == 156 and row["rounds_per_s"] > 0 and row["played_share"] == 1.0
    assert res["target"]["threshold"] == 15_000 and res["target"]["pass"] == (row["rounds_per_s"] >= 15_000)
    ls = row["lockstep"]
    assert ls["rounds_per_s"] > 0 and row["ratio"] == ls["rounds_per_s"] / row["rounds_per_s"]
    assert res["lockstep_target"]["threshold"] == 30_000
    assert res["lockstep_target"]["pass"] == (ls["rounds_per_s"] >= 30_000)
    # the seat encoding with the card encoding's hidden sizes: no target (another architecture)
    assert bench.main(["networks", "--games", "spades", "--encodings", "seat", "--hidden", "16,16", "--seconds", "0.05",
                       "--repeats", "1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    arch = res["spades"]["seat"]["architecture"]
    assert (arch["n_in"], arch["n_h1"], arch["n_h2"]) == (416, 16, 16) and res["target"]["value"] is None
    # an int16 second layer: named in the table, no target (another architecture)
    assert bench.main(["networks", "--games", "spades", "--encodings", "card", "--layer2", "int16", "--seconds",
                       "0.05", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "156-156-156-52  int16" in out and "target" not in out


def test_evolution_json_smoke():
    p = _run("evolution", "--games", "8", "--rounds", "4", "--repeats", "2", "--backend", "threads", "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.strip().splitlines()[-1])
    # the study's thesis tournament: 8 games, each at 15 tables of its 60 members, of 4 rounds
    assert res["backend"] == "threads" and res["rounds_per_generation"] == 8 * 15 * 4
    for w in ("workers_1", "workers_2"):
        row = res[w]
        assert 0 < row["seconds_per_generation"] <= row["median_seconds_per_generation"], row
    speedup = res["workers_2"]["rounds_per_second"] / res["workers_1"]["rounds_per_second"]
    assert res["speedup_2_vs_1"] == speedup and res["pass"] == (speedup >= res["target_speedup"])


def test_engine_table_in_process(capsys):
    code = bench.main(["engine", "--deals", "1000", "--games", "euchre", "--repeats", "1",
                       "--workers", "1", "--no-peers", "--no-latency"])
    assert code == 0
    out = capsys.readouterr().out
    assert "euchre" in out and "1-core kernel/s" in out


def test_env_times_every_environment_and_the_openspiel_peers(capsys):
    """A tiny run of ``evolve.bench env`` on Euchre: every figure is there, the peers play
    OpenSpiel's rules, and the ratios are the figures' quotients."""
    pytest.importorskip("shimmy")
    code = bench.main(["env", "--games", "euchre", "--tables", "32", "--seconds", "0.05", "--repeats", "1", "--json"])
    assert code == 0
    res = json.loads(capsys.readouterr().out)
    g = res["games"]["euchre"]
    assert g["options"] == {"stick_the_dealer": True, "discard_upcard": False} and g["peer_rules"]
    rates = {k: g[k]["decisions_per_s"] for k in ("aec", "gym", "batch_self_play", "batch_vs_random", "shimmy",
                                                    "openspiel")}
    assert all(r > 0 for r in rates.values())
    assert g["ratios"]["batch_over_shimmy"] == pytest.approx(rates["batch_self_play"] / rates["shimmy"])
    assert g["ratios"]["aec_over_shimmy"] == pytest.approx(rates["aec"] / rates["shimmy"])
    assert [t["pass"] for t in g["thresholds"]] == [rates["batch_self_play"] >= 2e6,
                                                    rates["batch_self_play"] / rates["shimmy"] >= 100]
    text = bench.format_env(res)
    assert "batched/Shimmy" in text and "euchre: stick_the_dealer=True, discard_upcard=False" in text


@pytest.mark.parametrize(
    "args, needle",
    [
        (["bogus"], "'bogus'"),
        ([], "subcommand"),
        (["engine", "--games", "spades,poker"], "'poker'"),
        (["engine", "--deals", "0"], "'0'"),
        (["engine", "--nope"], "'--nope'"),
        (["networks", "--encodings", "card,deep"], "'deep'"),
        (["networks", "--layer2", "int8"], "'int8'"),
        (["env", "--tables", "0"], "'0'"),
        (["env", "--games", "sueca,poker"], "'poker'"),
    ],
)
def test_bad_arguments_exit_2(args, needle, capsys):
    assert bench.main(args) == 2
    err = capsys.readouterr()
    assert err.out == ""
    lines = err.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_bad_subcommand_cli():
    p = _run("bogus")
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "'bogus'" in lines[0] and "engine" in lines[0] and "Traceback" not in p.stderr


def test_decisions_latency_in_process(capsys):
    from evolve.bench.decisions import bench_decisions, format_decisions

    res = bench_decisions(
        n=6, agents=(("rule-based", "jass_rule_based", "jass", {}), ("random", "random", "sueca", {}))
    )
    for row in res.values():
        assert row["decisions"] == 6 and 0 < row["act_us"]["median"] <= row["act_us"]["p90"]
        assert row["from_json_us"]["median"] > 0
    assert "rule-based" in format_decisions(res) and "from JSON" in format_decisions(res)
    assert bench.main(["decisions", "--decisions", "0"]) == 2
    assert "--decisions" in capsys.readouterr().err


def test_decisions_champions_times_the_agents_and_searches_of_a_levels_study(tmp_path, capsys):
    """--champions reads the champions and the searches from a levels study: the search
    opponents are timed and compared with, the rule-based one is left out."""
    from evolve.bench.decisions import bench_champions, format_champions

    study = tmp_path / "levels.toml"
    study.write_text('[study]\nname = "t"\nlayout = "levels"\nseed = 1\n\n[[level]]\ngame = "sueca"\n'
                     'agents = ["cardcounting"]\nopponents = ["ismcts:iterations=20", "highlow"]\ndeals = 10\n\n'
                     '[[level]]\ngame = "jass"\nagents = ["random"]\nopponents = ["highlow"]\ndeals = 10\n')
    res = bench_champions(str(study), ["sueca"], n=20)
    assert [r["game"] for r in res["levels"]] == ["sueca"] and res["machine"]
    r = res["levels"][0]
    assert r["searches"] == ["ismcts:iterations=20"] and list(r["cost"]) == ["cardcounting", "ismcts:iterations=20"]
    # an agent's cost in the engine is the difference of two timings (it may round to 0)
    assert r["cost"]["ismcts:iterations=20"]["us_per_decision"] > 0
    assert all(c["api"]["median_us"] > 0 and c["api"]["decisions"] == 20 for c in r["cost"].values())
    text = format_champions(res)
    assert "× faster than ismcts:iterations=20" in text and "highlow" not in text and res["machine"] in text
    assert bench.main(["decisions", "--champions", str(study), "--games", "euchre"]) == 2
    assert "no level of game euchre" in capsys.readouterr().err
    assert bench.main(["decisions", "--champions", "experiments/studies/euchre_bidding.toml"]) == 2
    assert 'layout = "levels"' in capsys.readouterr().err
    assert bench.main(["decisions", "--games", "jass"]) == 2
    assert "only with --champions" in capsys.readouterr().err


def test_serve_load_kill_and_restart_json():
    """A tiny load run: people and a remote bot play, the server is killed with SIGKILL in the
    middle and restarted; no answered action is lost or taken twice, every table comes back."""
    p = _run("serve", "--clients", "3", "--bots", "1", "--seconds", "5", "--rate", "30", "--games", "jass,euchre",
             "--json")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1, "stdout must hold exactly one JSON object"
    res = json.loads(lines[0])
    assert res["bench"] == "serve" and res["clients"] == 3 and res["bot_clients"] == 1
    assert res["actions"] > 20 and res["actions_per_second"] > 0 and res["bot_decisions"] > 0
    assert 0 < res["latency_ms"]["p50"] <= res["latency_ms"]["p99"] <= res["latency_ms"]["max"]
    assert res["errors"] == 0, res["error_samples"]
    assert res["lost_actions"] == 0 and res["repeated_actions"] == 0
    kill = res["kill"]
    assert kill["tables_open"] >= 3 and kill["tables_recovered"] == kill["tables_open"], kill
    assert 0 < kill["restart_seconds"] < kill["recovery_seconds"]
    assert res["targets"]["applies"] is False and set(res["targets"]["checks"]) >= {"0 errors", "p99 <= 100 ms"}
    assert bench.main(["serve", "--bots", "9", "--clients", "2"]) == 2


def test_evolution_times_a_champion_config(tmp_path):
    # a recipe with a teacher on visit shares and a founder-kept champion times random
    # members: the warm start is dropped whole, so what depends on it must not fail
    from evolve.bench.evolution import bench_generation

    cfg = tmp_path / "recipe.toml"
    tiny = Path(__file__).parent / "configs" / "tiny_spades_es.toml"    # from any working directory
    text = tiny.read_text().replace('champion = "validated"',
                                    'champion = "founder_unless_better"')
    cfg.write_text(text + '\n[imitation]\nteacher = "ismcts:iterations=20"\ntargets = "visits"\ndeals = 10\n')
    res = bench_generation(cfg, repeats=1, generations=1, backend="threads")
    assert res["population"] == 8 and res["rounds_per_generation"] == 2 * 8 * 8   # member x opponent tables
    assert res["workers_2"]["seconds_per_generation"] > 0
