"""Head-to-head on paired deals, the strategy matrix CLI and the study configs."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from evolve.agents.registry import AGENTS, PERFECT_NOTE
from evolve.arena import main as arena_main
from evolve.core.cli import run
from evolve.evaluate.matrix import head_to_head, seatings
from evolve.evaluate.paired import make_decks
from evolve.evaluate.studies import EARLIER_NAMES, LAYOUTS, load_study
from evolve.games.registry import make_game
from evolve.runtime.play import play
from evolve.studies import main as studies_main

STUDIES = Path(__file__).resolve().parent.parent / "experiments" / "studies"
EUCHRE = {"setup": "fixed_spades"}


def test_self_play_difference_contains_zero():
    c = head_to_head("euchre", "random", "random", n_deals=1500, seed=4, **EUCHRE)
    d = c["diff_points"]
    assert d["low"] <= 0 <= d["high"]
    assert c["games"]["completed"] > 0
    s = head_to_head("spades", "high", "high", n_deals=800, seed=4)
    assert s["diff_points"]["low"] <= 0 <= s["diff_points"]["high"]
    assert s["a_atpr"]["mean"] == pytest.approx(3.25)


def test_strong_beats_weak_significantly():
    c = head_to_head("euchre", "highlow", "random", n_deals=1500, seed=5, **EUCHRE)
    assert c["diff_points"]["low"] > 0 and c["diff_points"]["p"] < 1e-6
    assert c["games"]["low"] > 0.5 and c["percent_points"]["overall"] > 50
    s = head_to_head("spades", "highlow", "random", n_deals=800, seed=5)
    assert s["a_atpr"]["low"] > 3.25 and s["a_atpr"]["p_vs_3.25"] < 1e-6
    assert 0 < s["a_atpr"]["study_normal_p"] < 0.5 and s["rounds"] == 4 * 800


def test_seat_exchange_uses_identical_decks():
    g = make_game("euchre", **EUCHRE)
    decks = make_decks(g, 300, seed=9)
    assert np.array_equal(decks, make_decks(g, 300, seed=9))
    assert np.array_equal(decks[100:250], make_decks(g, 150, seed=9, start=100))  # deal i from (seed, i) alone
    dealers = np.arange(300) % 4
    (s1, side1), (s2, side2) = seatings(g, "highlow", "random")
    assert (s1, side1, s2, side2) == (["highlow", "random"] * 2, 0, ["random", "highlow"] * 2, 1)
    r1 = play(g, s1, seed=9, decks=decks, dealer=dealers)
    r2 = play(g, s2, seed=9, decks=decks, dealer=dealers)
    assert np.array_equal(r1.hands, r2.hands) and np.array_equal(r1.rest, r2.rest)
    assert np.array_equal(r1.trump, r2.trump) and np.array_equal(r1.dealer, r2.dealer)
    # the head-to-head itself replays those decks
    c = head_to_head(g, "highlow", "random", n_deals=300, seed=9, keep_decks=True)
    assert np.array_equal(c["_decks"], decks)
    # cut-throat Spades: a in every seat
    sp = make_game("spades")
    assert [side for _, side in seatings(sp, "a", "b")] == [0, 1, 2, 3]
    assert seatings(sp, "a", "b")[2][0] == ["b", "b", "a", "b"]


def test_games_to_target_counting():
    c = head_to_head("euchre", "highlow", "random", n_games=101, seed=2, **EUCHRE)
    gm = c["games"]
    assert gm["completed"] == gm["requested"] == 101 and gm["a_wins"] + gm["b_wins"] == 101
    # deterministic, and stops at the deal that completed the 101st game
    again = head_to_head("euchre", "highlow", "random", n_games=101, seed=2, **EUCHRE)
    assert again["deals"] == c["deals"] and again["games"] == gm
    fewer = head_to_head("euchre", "highlow", "random", n_deals=c["deals"] - 1, seed=2, **EUCHRE)
    assert fewer["games"]["completed"] < 101
    # sueca rubbers to 4
    s = head_to_head("sueca", "always_high", "random", n_games=20, seed=2, setup="study")
    assert s["games"]["target"] == 4 and s["games"]["completed"] == 20
    with pytest.raises(Exception, match="no game target"):
        head_to_head("spades", "random", "random", n_games=5, seed=1)


def test_matrix_cli_writes_all_outputs(tmp_path, capsys):
    agents = ["random", "low", "highlow"]
    assert (
        run(
            arena_main,
            [
                "matrix",
                "--game",
                "euchre",
                "--option",
                "setup=fixed_spades",
                "--agents",
                ",".join(agents),
                "--games",
                "21",
                "--seed",
                "3",
                "--out",
                str(tmp_path),
            ],
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "| row \\ column | random | low | highlow |" in text and "games won by row %" in text
    for ext in ("md", "csv", "json", "png"):
        assert (tmp_path / f"matrix.{ext}").stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "matrix.csv").open()))
    assert len(rows) == 9 and {r["row"] for r in rows} == set(agents)
    data = json.loads((tmp_path / "matrix.json").read_text())
    assert len(data["cells"]) == 3 and all(len(r) == 3 for r in data["cells"])
    assert all(c["games"]["completed"] == 21 for r in data["cells"] for c in r)
    # the mirror cell is the same comparison seen from the other side
    assert data["cells"][0][2]["diff_points"]["mean"] == pytest.approx(-data["cells"][2][0]["diff_points"]["mean"])
    assert (tmp_path / "matrix.png").read_bytes()[:4] == b"\x89PNG"


def test_matrix_cli_json_and_deals(tmp_path, capsys):
    assert run(arena_main, ["matrix", "--game", "spades", "--agents", "random,highlow", "--games", "200",
                            "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unit"] == "deals" and data["cells"][1][0]["deals"] == 200  # cut-throat: all 4 cells played


@pytest.mark.parametrize("args, needle", [
    (["--game", "euchre", "--agents", "random,bogus"], "unknown agent 'bogus'; valid agents:"),
    (["--game", "chess", "--agents", "random"], "unknown game 'chess'; valid games:"),
    (["--game", "euchre", "--agents", "random", "--games", "0"], "--games 0 is invalid"),
    (["--game", "euchre", "--agents", "random", "--option", "setup=x"], "valid values"),
])
def test_matrix_cli_errors(args, needle, capsys):
    assert run(arena_main, ["matrix", *args], prog="evolve.arena") == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_flat_arena_cli_still_works(capsys):
    assert run(arena_main, ["--game", "spades", "--seats", "random", "--deals", "200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["deals"] == 200


def test_euchre_study_quick(capsys, tmp_path):
    cfg = tmp_path / "e.toml"
    text = (STUDIES / "euchre_cooperative.toml").read_text()
    cfg.write_text(
        text.replace(
            'agents = ["random", "low", "high", "highlow", "coophighlow", "cardcounting", '
            '"markov", "markov2", "hybrid", "hybrid2"]',
            'agents = ["random", "highlow", "coophighlow"]',
        ).replace("quick = 100", "quick = 500")
    )
    assert run(studies_main, [str(cfg), "--quick", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "games won A-B" in out and "tricks won A-B" in out and "total score A-B" in out
    assert "| random | highlow |" in out and "rule=study" in out
    data = json.loads((tmp_path / "out" / "result.json").read_text())
    assert data["count"] == 20 and data["result"]["agents"][1] == "highlow:rule=study"
    # the full config parses with every agent
    assert "hybrid2" in (STUDIES / "euchre_cooperative.toml").read_text()


def test_spades_study_quick(capsys):
    assert run(studies_main, [str(STUDIES / "spades_random.toml"), "--quick"]) == 0
    out = capsys.readouterr().out
    assert "ATpR (95% CI)" in out and "study normal p" in out and "| highlow | 4." in out


def test_search_studies_run_when_registered(capsys, tmp_path):
    if "dmcts" not in AGENTS:
        pytest.skip("dmcts not registered")
    cfg = tmp_path / "j.toml"
    text = (STUDIES / "jass_dmcts.toml").read_text()
    # every agent of the study, with small search budgets
    small = re.sub(r"iterations=\d+", "iterations=8", text).replace("samples=20", "samples=3")
    small = small.replace("determinizations=5", "determinizations=2").replace("quick = 50", "quick = 100")
    assert small.count("iterations=8") == 4 and "samples=3" in small and "quick = 100" in small
    cfg.write_text(small)
    assert run(studies_main, [str(cfg), "--quick"]) == 0
    out = capsys.readouterr().out
    assert "% of points" in out and PERFECT_NOTE in out
    assert out.count("| 10 |") == 21      # every pairing of the 7 agents, 10 double rounds each


@pytest.mark.parametrize("body, needle", [
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\ngames=5\ncolour="red"\n',
     "study.colour: unknown key; valid keys:"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\ngames="many"\n',
     "study.games: got 'many' (str); expected a positive integer"),
    ('[study]\nname="x"\nlayout="poker"\ngame="euchre"\nagents=["random"]\ngames=5\n', "study.layout: got 'poker'; "
                                                                                       "expected one of"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\n', "expected exactly one of them"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\ngames=5\n', "study.agents: missing"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\ngames=5\n[extra]\n',
     "extra: unknown key"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\ngames=5\n[options]\nsetup="x"\n',
     "valid values"),
    ('[study]\nname="x"\nlayout="spades"\ngame="spades"\nagents=["random"]\ngames=5\nopponent="random"\n',
     "no game target"),
    ('[study]\nname="x"\nlayout="euchre"\ngame="euchre"\nagents=["random"]\ngames=5\nrule="maybe"\n',
     "study.rule: got 'maybe'"),
    ('[study\n', "invalid TOML"),
    ('[study]\nname="x"\nlayout="levels"\n', "expected one or more [[level]] tables"),
    ('[study]\nname="x"\nlayout="levels"\ngame="jass"\n[[level]]\ngame="jass"\nagents=["random"]\n'
     'opponents=["random"]\ndeals=5\n', "study.game: the levels layout does not take it"),
    ('[study]\nname="x"\nlayout="levels"\n[[level]]\ngame="jass"\nagents=["random"]\nopponents=["random"]\n',
     "level[0].deals: missing"),
    ('[study]\nname="x"\nlayout="levels"\n[[level]]\ngame="jass"\nagents=["random"]\nopponents=[]\ndeals=5\n',
     "level[0].opponents: got []; expected a non-empty list"),
    ('[study]\nname="x"\nlayout="levels"\n[[level]]\ngame="chess"\nagents=["random"]\nopponents=["random"]\n'
     'deals=5\n', "level[0].game: "),
    ('[study]\nname="x"\nlayout="levels"\n[[level]]\ngame="jass"\nagents=["random"]\nopponents=["random"]\n'
     'deals=5\nbudget=3\n', "level[0].budget: unknown key"),
    ('[study]\nname="x"\nlayout="jass"\ngame="jass"\nagents=["random"]\ndeals=5\n[[level]]\ngame="jass"\n',
     "only a study with layout"),
    ('[study]\nname="x"\nlayout="levels"\n[[level]]\ngame="jass"\nagents=["champion:populations/nowhere"]\n'
     'opponents=["random"]\ndeals=5\n', "level[0].agents: "),
])
def test_malformed_study_configs(body, needle, tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(body)
    assert run(studies_main, [str(cfg)], prog="evolve.studies") == 2
    err = capsys.readouterr().err
    assert needle in err and str(cfg) in err and len(err.strip().splitlines()) == 1


def test_levels_study_plays_every_pairing_and_times_every_agent(capsys, tmp_path):
    cfg = tmp_path / "levels.toml"
    cfg.write_text('[study]\nname="levels"\nlayout="levels"\nseed=2\nquick=10\n'
                   '[[level]]\ngame="jass"\nagents=["jass_rule_based:bidder=simple","random:bidder=simple"]\n'
                   'opponents=["ismcts:iterations=20,bidder=simple"]\ndeals=300\n'
                   '[[level]]\ngame="spades"\nagents=["highlow"]\nopponents=["random","ismcts:iterations=10"]\n'
                   'deals=200\n')
    assert run(studies_main, [str(cfg), "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    jass, spades = out["result"]["levels"]
    assert jass["deals"] == 30 and spades["deals"] == 20
    assert [(c["row"], c["col"]) for c in jass["cells"]] == [
        ("jass_rule_based:bidder=simple", "ismcts:iterations=20,bidder=simple"),
        ("random:bidder=simple", "ismcts:iterations=20,bidder=simple")]
    rule, rand = jass["cells"]
    # random card play against a search loses most of the points; the share is the agent side's
    assert rand["points_share"]["high"] < 0.45 < rule["points_share"]["mean"]
    assert rand["points_share"]["mean"] == pytest.approx(rand["a_points"]["mean"] / (
        rand["a_points"]["mean"] + rand["b_points"]["mean"]))
    assert set(jass["cost"]) == {"jass_rule_based:bidder=simple", "random:bidder=simple",
                                 "ismcts:iterations=20,bidder=simple"}
    assert all(c["api"]["decisions"] > 50 and c["api"]["median_us"] > 0 for c in jass["cost"].values())
    assert all(c["cards"] == 36 * c["deals"] for c in jass["cost"].values())
    # a search decision costs more than a rule's, through the API and in the engine
    search, rule = jass["cost"]["ismcts:iterations=20,bidder=simple"], jass["cost"]["jass_rule_based:bidder=simple"]
    assert search["api"]["median_us"] > rule["api"]["median_us"]
    assert search["us_per_decision"] > 5 * rule["us_per_decision"]
    assert spades["cells"][0]["a_atpr"]["mean"] > 3.25          # highlow vs three random seats
    table = out["table"]
    assert "agent's % of points (95% CI)" in table and "ATpR (95% CI)" in table and "decisions/s" in table
    assert "× faster than ismcts:iterations=10" in table


def test_levels_study_games_plays_some_levels_and_keeps_the_others_only_as_the_study_names_them(capsys, tmp_path):
    """--games plays the levels of some games; with --out every other level is taken from
    the folder's result.json, and only when it is the level the study names now: a seat
    changed, or a champion rewritten under the same path, is refused with the --games
    that plays it again."""
    import shutil

    champ = tmp_path / "jass_net"
    shutil.copytree("populations/jass_strong", champ)
    cfg = tmp_path / "levels.toml"

    def write(jass_opponent):
        cfg.write_text('[study]\nname="levels"\nlayout="levels"\nseed=3\n'
                       f'[[level]]\ngame="jass"\nagents=["champion:{champ}"]\nopponents=["{jass_opponent}"]\n'
                       'deals=12\n[[level]]\ngame="spades"\nagents=["highlow"]\nopponents=["random"]\ndeals=12\n')

    write("highlow")
    out = tmp_path / "out"
    assert run(studies_main, [str(cfg), "--out", str(out)]) == 0
    whole = json.loads((out / "result.json").read_text())["result"]["levels"]
    capsys.readouterr()
    assert run(studies_main, [str(cfg), "--games", "spades", "--out", str(out), "--json"]) == 0
    jass, spades = json.loads(capsys.readouterr().out)["result"]["levels"]
    assert jass == whole[0]                                   # kept as it was, costs and all
    assert spades["cells"] == whole[1]["cells"]           # played again: the same, from the study's seed alone
    table = (out / "table.md").read_text()
    assert table.count("Kept from an earlier run") == 1 and table.index("Kept") < table.index("## spades")
    # without --out only the chosen levels are played and printed
    assert run(studies_main, [str(cfg), "--games", "spades", "--json"]) == 0
    assert [lv["game"] for lv in json.loads(capsys.readouterr().out)["result"]["levels"]] == ["spades"]
    # the jass level's opponent changed: it is not in the earlier result
    write("random:bidder=simple")
    assert run(studies_main, [str(cfg), "--games", "spades", "--out", str(out)]) == 2
    assert "the jass level is not in the earlier result" in capsys.readouterr().err
    # the champion rewritten under the same path: its parameters differ, so the level is refused too
    write("highlow")
    weights = dict(np.load(champ / "champion.npz"))
    weights["b3"] = weights["b3"] + 0.01
    np.savez(champ / "champion.npz", **weights)
    assert run(studies_main, [str(cfg), "--games", "spades", "--out", str(out)]) == 2
    assert "--games spades,jass" in capsys.readouterr().err
    # wrong inputs: one line, exit 2
    for argv, message in (
            ([str(cfg), "--games", "euchre"], "no level of game euchre; its games: jass, spades"),
            ([str(cfg), "--games", " , "], "--games is empty"),
            ([str(cfg), "--games", "spades", "--out", str(tmp_path / "new")], "missing; --games with --out keeps"),
            ([str(STUDIES / "sueca_strategies.toml"), "--games", "sueca"], 'only a study with layout = "levels"'),
            ([str(STUDIES / "sueca_strategies.toml"), "--games", "sueca", "--out", str(tmp_path / "new")],
             'only a study with layout = "levels"')):
        assert run(studies_main, argv) == 2
        assert message in capsys.readouterr().err
    old = json.loads((out / "result.json").read_text())
    for level in old["result"]["levels"]:
        del level["fingerprints"]
    (out / "result.json").write_text(json.dumps(old))
    assert run(studies_main, [str(cfg), "--games", "spades", "--out", str(out)]) == 2
    assert "run the whole study once without --games" in capsys.readouterr().err
    (out / "result.json").write_text("[1]")
    assert run(studies_main, [str(cfg), "--games", "spades", "--out", str(out)]) == 2
    assert "not the result of a levels study" in capsys.readouterr().err


def test_a_level_played_with_more_columns_is_kept_with_the_named_ones(capsys, tmp_path, monkeypatch):
    """A whole run with --out keeps every level its result.json holds as the study names it
    now and plays nothing for it; a level played with more columns than the study names
    now is kept with the named ones only (cells, costs, bidders and digests of the named
    seats, in the study's order). Other rows, deals or seat parameters are not that level."""
    import evolve.evaluate.levels as levels

    cfg = tmp_path / "levels.toml"

    def write(opponents, game="spades", deals=12):
        cfg.write_text('[study]\nname="levels"\nlayout="levels"\nseed=3\n'
                       f'[[level]]\ngame="{game}"\nagents=["highlow"]\nopponents={json.dumps(opponents)}\n'
                       f'deals={deals}\n')

    write(["random", "low", "highlow"])
    out = tmp_path / "out"
    assert run(studies_main, [str(cfg), "--out", str(out)]) == 0
    whole = json.loads((out / "result.json").read_text())["result"]["levels"][0]
    assert [c["col"] for c in whole["cells"]] == ["random", "low", "highlow"]

    def played(*args, **kwargs):
        raise AssertionError("a kept level was played")

    monkeypatch.setattr(levels, "head_to_head", played)
    monkeypatch.setattr(levels, "decision_costs", played)
    write(["highlow", "random"])           # one column fewer, the others in another order
    assert run(studies_main, [str(cfg), "--out", str(out)]) == 0
    kept = json.loads((out / "result.json").read_text())["result"]["levels"][0]
    cells = {c["col"]: c for c in whole["cells"]}
    assert kept["cells"] == [cells["highlow"], cells["random"]]
    assert kept["cost"] == {"highlow": whole["cost"]["highlow"], "random": whole["cost"]["random"]}
    assert list(kept["fingerprints"]) == ["highlow", "random"] and kept["bidders"] == {}
    assert {k: v for k, v in kept.items() if k not in ("cells", "cost", "fingerprints")} == \
        {k: v for k, v in whole.items() if k not in ("cells", "cost", "fingerprints")}
    table = (out / "table.md").read_text()
    assert "Kept from an earlier run" in table and "| highlow | low |" not in table and "than low" not in table
    # the cut level is kept as it stands on the next run, byte for byte
    first = (out / "result.json").read_bytes()
    assert run(studies_main, [str(cfg), "--out", str(out)]) == 0
    assert (out / "result.json").read_bytes() == first
    # not that level: a column it did not play, another row, other deals, another game
    g = make_game("spades")
    previous = [whole]
    assert levels._kept(previous, g, {"agents": ["highlow"], "opponents": ["low"]}, 12, 3)["cells"] == [cells["low"]]
    for level, n, seed in (({"agents": ["highlow"], "opponents": ["low", "ismcts:iterations=5"]}, 12, 3),
                           ({"agents": ["low"], "opponents": ["random"]}, 12, 3),
                           ({"agents": ["highlow", "low"], "opponents": ["random"]}, 12, 3),
                           ({"agents": ["highlow"], "opponents": ["random"]}, 13, 3),
                           ({"agents": ["highlow"], "opponents": ["random"]}, 12, 4)):
        assert levels._kept(previous, g, level, n, seed) is None, (level, n, seed)
    assert levels._kept(previous, make_game("spades", break_spades=True), {"agents": ["highlow"],
                                                                           "opponents": ["random"]}, 12, 3) is None
    # a named seat whose parameters changed under the same seat string is not kept either
    changed = {**whole, "fingerprints": {**whole["fingerprints"], "random": "0" * 20}}
    assert levels._kept([changed], g, {"agents": ["highlow"], "opponents": ["highlow"]}, 12, 3) is not None
    assert levels._kept([changed], g, {"agents": ["highlow"], "opponents": ["random"]}, 12, 3) is None


def test_the_published_search_level_result_is_the_study_as_it_stands():
    """docs/search_level/result.json holds every level of the study as the study names it
    now: the same rows and columns, deals and seed, and every seat's parameters those it
    was played with (so the committed champions are the networks its cells measured)."""
    from evolve.evaluate.levels import _kept
    from evolve.evaluate.studies import load_study

    study = load_study(STUDIES / "search_level.toml")
    data = json.loads((STUDIES.parent.parent / "docs" / "search_level" / "result.json").read_text())
    recorded = data["result"]["levels"]
    assert [lv["game"] for lv in recorded] == [lv["game"] for lv in study["levels"]]
    for level, entry in zip(study["levels"], recorded):
        assert _kept(recorded, level["_game"], level, level["deals"], data["seed"]) == entry, level["game"]


def test_a_network_digest_leaves_out_the_base_sum_derived_from_its_first_layer():
    """The search-level digests cover a seat network's parameters without its base sum
    (``without_base``): what the network was packed as before it carried one, so levels
    played then are still recognised. A card network has no base sum."""
    from evolve.agents.network.architecture import Architecture, without_base
    from evolve.agents.network.play import H_BASE, HEADER

    rng = np.random.default_rng(1)
    for encoding, has_base in (("seat", True), ("card", False)):
        arch = Architecture.for_game(make_game("sueca"), encoding, (16, 8))
        packed = arch.pack(rng.normal(0, 0.1, arch.genome_size))
        cut = without_base(packed)
        if not has_base:
            assert cut is packed or np.array_equal(cut, packed)
            continue
        base = int(packed[H_BASE])
        assert base > 0 and cut[H_BASE] == 0 and cut.size == HEADER + (base + 1) // 2 < packed.size
        assert np.array_equal(np.delete(cut[:HEADER], H_BASE), np.delete(packed[:HEADER], H_BASE))
        assert not cut[HEADER:].view(np.uint32)[base:].any()
        words = packed[HEADER:].view(np.uint32)
        assert np.array_equal(cut[HEADER:].view(np.uint32)[:base], words[:base])


def test_missing_study_config(capsys):
    assert run(studies_main, ["/nonexistent/x.toml"]) == 2
    assert "/nonexistent/x.toml: file not found" in capsys.readouterr().err


def test_search_level_study_names_each_champion_against_the_searches():
    from evolve.evaluate.studies import load_study

    study = load_study(STUDIES / "search_level.toml")      # parses every seat: the champions exist
    levels = {lv["game"]: lv for lv in study["levels"]}
    assert set(levels) == {"jass", "sueca", "euchre", "spades"}
    for game, lv in levels.items():
        assert lv["agents"] == [f"champion:populations/{game}_champion"]
        searches = [o for o in lv["opponents"] if o.startswith(("ismcts", "dmcts"))]
        assert searches and any(o.startswith("champion:") for o in lv["opponents"])
        strong = "spades_cardbased_strong" if game == "spades" else f"{game}_strong"
        assert f"champion:populations/{strong}" in lv["opponents"]                 # the game's strong setup
        if game != "spades":
            assert lv["deals"] == 20000 and any(o.startswith("ismcts:iterations=500") for o in searches)
    assert levels["euchre"]["_game"].options["stick_the_dealer"] is True
    assert "ismcts:iterations=200" in levels["spades"]["opponents"] and "highlow" in levels["spades"]["opponents"]


def test_euchre_level_study_is_the_search_level_pairing_on_new_deals():
    from evolve.evaluate.studies import load_study

    level = load_study(STUDIES / "euchre_level.toml")
    search = load_study(STUDIES / "search_level.toml")
    (lv,) = level["levels"]
    euchre = next(x for x in search["levels"] if x["game"] == "euchre")
    assert lv["agents"] == euchre["agents"] and lv["opponents"][0] == euchre["opponents"][0]
    assert lv["_game"].options == euchre["_game"].options
    assert lv["deals"] == 5 * euchre["deals"] and level["seed"] != search["seed"]     # new deals, five times as many


def test_cost_table_shows_an_agent_as_cheap_as_random_without_failing():
    """A rule-based agent can time at 0 µs after Random's time is taken off (and its rate is
    kept as null in result.json): the table says it is below the resolution instead of
    failing on the missing rate."""
    from evolve.evaluate.levels import cost_table

    cost = {"net": {"us_per_decision": 1.2, "per_second": 833333.3, "api": {"median_us": 6.0, "p90_us": 7.0}},
            "highlow": {"us_per_decision": 0.0, "per_second": None, "api": {"median_us": 4.5, "p90_us": 5.1}}}
    lines = cost_table(cost, ["highlow", "net"])
    assert lines[-2].startswith("| net | 1.20 | 833,333 | - | 1.0 |")
    assert lines[-1] == "| highlow | < 0.01 | - | - | - | 4.5 (5.1) |"


@pytest.mark.parametrize("earlier, name", sorted(EARLIER_NAMES.items()))
def test_a_study_naming_a_layout_by_its_papers_game_reads_as_that_layout(earlier, name, tmp_path):
    cfg = tmp_path / "old.toml"
    extra = 'opponent="random"\n' if "opponent" in LAYOUTS[name].needs else ""
    cfg.write_text(f'[study]\nname="x"\nlayout="{earlier}"\ngame="{earlier}"\nagents=["random"]\ndeals=5\n{extra}')
    assert load_study(cfg)["layout"] == name
    assert earlier not in LAYOUTS and len(EARLIER_NAMES) == 4
