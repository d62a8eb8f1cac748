"""``python -m evolve.reproduce``: verdicts and kinds, the registry of every paper's tables,
resume, outputs, rebuilding published pages, the command line, and every paper's tables on
the quick budget."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evolve.reproduce.cells import KINDS, Cell, from_row, markdown, proportion_se, tally
from evolve.reproduce.documents import DOCUMENTS, REPRODUCTIONS
from evolve.reproduce.runner import Context

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"      # the papers' texts, where they lie beside the repository


def test_verdict_combines_both_sampling_errors_and_the_stated_tolerance():
    c = Cell("t", "A", "games won", "%", paper=50.0, ours=52.0, low=51.0, high=53.0)
    assert c.verdict == "differs"               # our CI alone excludes the paper's 50
    c.paper_se = proportion_se(50.0, 1000)      # 1.58 pp of the paper's own sampling error
    assert c.verdict == "reproduced"
    c = Cell("t", "A", "games won", "%", paper=50.0, ours=52.0, low=51.0, high=53.0, tolerance=1.5)
    assert c.verdict == "reproduced" and abs(c.difference - 2.0) < 1e-12
    assert Cell("t", "A", "time", "ms", paper=477.0).verdict == "not compared"
    assert Cell("t", "A", "x", "%", paper=None, ours=1.0, low=0.5, high=1.5).verdict == "not compared"


def test_a_lower_bound_of_the_paper_is_reproduced_unless_ours_is_clearly_below_it():
    """"More than 70%": ours above it, or below it within the bound, reproduces; clearly below
    differs; the table shows the bound as "> 70.00"."""
    above = Cell("t", "A", "share", "%", paper=70.0, ours=80.0, low=79.0, high=81.0, at_least=True)
    near = Cell("t", "A", "share", "%", paper=70.0, ours=65.0, low=56.0, high=74.0, at_least=True)
    below = Cell("t", "A", "share", "%", paper=70.0, ours=60.0, low=59.0, high=61.0, at_least=True)
    assert [c.verdict for c in (above, near, below)] == ["reproduced", "reproduced", "differs"]
    assert Cell("t", "A", "share", "%", paper=70.0, ours=80.0, low=79.0, high=81.0).verdict == "differs"
    assert "| > 70.00 |" in markdown([above]) and above.as_row("d")["at_least"] is True
    assert "at_least" not in Cell("t", "A", "x", "%", paper=1.0).as_row("d")


def test_a_cell_says_its_kind_and_the_tally_counts_measured_cells_apart():
    with pytest.raises(ValueError, match="cell kind"):
        Cell("t", "A", "x", "%", paper=1.0, kind="guessed")
    fitted = Cell("t", "A", "x", "%", paper=1.0, ours=1.0, low=1.0, high=1.0, kind="fitted")
    measured = Cell("t", "B", "x", "%", paper=1.0, ours=3.0, low=2.9, high=3.1)
    assert "| reproduced (fitted) |" in markdown([fitted]) and "| differs |" in markdown([measured])
    rows = [c.as_row("d") for c in (fitted, measured, Cell("t", "C", "x", "%", paper=None))]
    assert [r["kind"] for r in rows] == ["fitted", "measured", "measured"] and set(KINDS) >= {r["kind"] for r in rows}
    assert tally(rows) == {"measured reproduced": 0, "measured differs": 1, "computed reproduced": 1,
                           "computed differs": 0, "not compared": 1}


def test_a_row_reads_back_as_its_cell_and_the_first_format_is_accepted():
    c = Cell("t", "A", "x", "%", paper=2.0, ours=2.5, low=2.0, high=3.0, n=7, paper_se=0.1, reason="r",
             kind="arithmetic", extra={"version": "mc"})
    assert from_row(c.as_row("d")) == c
    old = {"document": "d", "table": "t", "row": "A", "column": "x", "unit": "%", "seed": 2.0, "ours": 2.5, "n": 7,
           "seed_se": 0.1, "tolerance": 0.0, "reason": "r", "ci": [2.0, 3.0], "verdict": "reproduced",
           "seed_sd": 3.0}
    back = from_row(old)
    assert (back.paper, back.paper_se, back.kind, back.extra) == (2.0, 0.1, "measured", {"paper_sd": 3.0})


def test_every_reproduction_is_registered_with_its_source_and_can_run_or_says_why_not():
    assert set(DOCUMENTS) == {"spades", "euchre", "sueca", "jass", "bidding"}
    for name, doc in DOCUMENTS.items():
        assert (PAPERS / doc.text_file).is_file() or not PAPERS.is_dir(), doc
        keys = [r.key for r in REPRODUCTIONS[name]]
        assert len(keys) == len(set(keys)), name
        for rep in REPRODUCTIONS[name]:
            assert rep.source and rep.title, rep
            assert (rep.run is None) == bool(rep.unavailable), rep


def test_a_unit_of_work_is_computed_once_and_then_resumed(tmp_path):
    ctx = Context(work=tmp_path / "work")
    calls = []

    def compute():
        calls.append(1)
        return {"x": 1.5, "n": 3}

    assert ctx.memo({"k": 1}, compute) == {"x": 1.5, "n": 3}
    again = Context(work=tmp_path / "work")
    assert again.memo({"k": 1}, compute) == {"x": 1.5, "n": 3} and len(calls) == 1 and again.units_loaded == 1
    assert again.memo({"k": 2}, compute) and len(calls) == 2          # another key: computed
    quick = Context(work=tmp_path / "work", quick=True)
    quick.memo({"k": 1}, compute)
    assert len(calls) == 3                                               # another budget: computed
    fresh = Context(work=tmp_path / "work", fresh=True)
    fresh.memo({"k": 1}, compute)
    assert len(calls) == 4
    assert fresh.memo({"k": 1}, compute) == {"x": 1.5, "n": 3} and len(calls) == 4   # this run's own: reused


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "evolve.reproduce", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1800)


@pytest.mark.parametrize("args, needle", [
    (["chess"], "unknown paper 'chess'; expected one of"),
    (["rebuild", "chess"], "rebuild: unknown paper 'chess'"),
    (["euchre", "--tables", "table99"], "--tables: unknown table(s) table99 of euchre"),
    (["all", "--tables", "table1"], "--tables needs one paper"),
    (["euchre", "--workers", "-1"], "--workers -1 is invalid"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    p = _cli(*args)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr, p.stderr


def test_list_names_every_document_and_table():
    p = _cli("list")
    assert p.returncode == 0, p.stderr
    for name in DOCUMENTS:
        assert f"{name}: " in p.stdout
    assert "table1" in p.stdout
    usage = _cli("--help")
    assert usage.returncode == 0 and "PAPER" in usage.stdout and "rebuild" in usage.stdout


def test_all_quick_writes_every_document_and_json_rows(tmp_path):
    """Every table of every paper on the quick budget (what CI runs): JSON rows with the
    paper's figure, ours, the CI, the verdict, the kind and the reason; markdown, PNGs and
    cells.json per paper; a second run resumes every unit."""
    p = _cli("all", "--quick", "--json", "--no-progress", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr[-2000:]
    report = json.loads(p.stdout)
    assert report["quick"] is True
    rows = report["rows"]
    assert {r["document"] for r in rows} <= set(DOCUMENTS) and rows
    for r in rows:
        assert {"paper", "ours", "ci", "verdict", "reason"} <= set(r) and "seed" not in r, r
        assert r["verdict"] == "cannot be reproduced" or r["kind"] in KINDS, r
        assert r["verdict"] in ("reproduced", "differs", "not compared", "cannot be reproduced"), r
        if r["verdict"] in ("reproduced", "differs"):
            assert r["ci"][0] <= r["ours"] <= r["ci"][1], r
    for name in {r["document"] for r in rows}:
        folder = tmp_path / name
        assert (folder / "reproduce.md").is_file() and (folder / "cells.json").is_file()
        assert any(folder.glob("*.png")), name
    again = _cli("euchre", "--quick", "--json", "--no-progress", "--out", str(tmp_path))
    assert json.loads(again.stdout)["rows"] == [r for r in rows if r["document"] == "euchre"]


def test_the_committed_summaries_are_generated_from_the_published_runs():
    """The README's and docs/reproductions/index.md's tables are exactly what `summary`
    writes from the published cells.json files (edit a published run or the registry, and
    this fails until `python -m evolve.reproduce summary` is run)."""
    from evolve.reproduce.publish import BEGIN, END, overview, summary

    docs = ROOT / "docs" / "reproductions"
    for path, text, prefix in ((docs / "index.md", summary(docs), ""),
                               (ROOT / "README.md", overview(docs), "docs/reproductions/")):
        body = path.read_text()
        committed = body[body.index(BEGIN) + len(BEGIN):body.index(END)].strip()
        expected = re.sub(r"\]\((?!https?:)", f"]({prefix}", text) if prefix else text
        assert committed == expected.strip(), f"{path.name}: run python -m evolve.reproduce summary"
    for name in DOCUMENTS:
        published = ROOT / "docs" / "reproductions" / name / "cells.json"
        if published.is_file():
            rows = json.loads(published.read_text())
            assert rows and all(r["budget"] == "full" for r in rows), name
            assert all("seed" not in r and "seed_se" not in r for r in rows), name


def test_the_published_cells_say_their_kind_and_sueca_counts_each_mc_version_apart():
    """The published runs: the Spades thesis's formula and model cells are not counted as
    measured, the bidding article's right bower is certain, every Sueca MC cell names its
    version and the summary gives each version its own rows; the thesis's "more than 70%"
    (Figure 6.7) is compared as a lower bound."""
    from evolve.reproduce.publish import document_table, overview

    docs = ROOT / "docs" / "reproductions"
    spades = json.loads((docs / "spades" / "cells.json").read_text())
    assert tally(spades)["measured reproduced"] == 9 and tally(spades)["computed reproduced"] == 188
    bidding = json.loads((docs / "bidding" / "cells.json").read_text())
    assert {r["kind"] for r in bidding if r.get("row") == "trump right"} == {"certain"}
    sueca = json.loads((docs / "sueca" / "cells.json").read_text())
    for r in sueca:
        if r.get("column", "").endswith((", mc", ", perfect_mc")):
            assert r["version"] == r["column"].rsplit(", ", 1)[1], r
    share = next(r for r in sueca if r.get("row") == "2 or 3 prohibited suits")
    assert share["paper"] == 70.0 and share["at_least"] and share["verdict"] != "not compared"
    table = document_table("sueca", docs)
    assert "| **all**: MC seats, honest `mc` |" in table and "| **all**: MC seats, `perfect_mc`" in table
    assert overview(docs).count("[Lopes Carreiro 2016]") == 3


def test_rebuild_writes_a_published_run_again_from_its_cells(tmp_path):
    """``rebuild`` plays nothing and writes the same reproduce.md and cells.json a second
    time; a plot that needs the run (the Spades thesis's table1) is kept as it was."""
    import shutil

    from evolve.reproduce.publish import rebuild
    from evolve.reproduce.runner import outcomes_from

    docs = tmp_path / "reproductions"
    shutil.copytree(ROOT / "docs" / "reproductions" / "jass", docs / "jass")
    before = {f: (docs / "jass" / f).read_bytes() for f in ("reproduce.md", "cells.json")}
    rebuild("jass", docs)
    assert {f: (docs / "jass" / f).read_bytes() for f in before} == before
    assert [o.reproduction.key for o in outcomes_from("jass", docs / "jass")] == \
        [r.key for r in REPRODUCTIONS["jass"]]
    assert any(r.plot_needs_run for r in REPRODUCTIONS["spades"])


def test_publish_takes_a_full_run_only_and_the_summary_counts_its_verdicts(tmp_path):
    from evolve.core.errors import UsageError
    from evolve.reproduce.publish import document_table, publish, table_seconds

    runs, docs = tmp_path / "runs", tmp_path / "docs" / "reproductions"
    rep = REPRODUCTIONS["euchre"][0]
    rows = [{"document": "euchre", "reproduction": rep.key, "budget": "quick", "verdict": v}
            for v in ("reproduced", "differs", "differs")]
    (runs / "euchre").mkdir(parents=True)
    (runs / "euchre" / "cells.json").write_text(json.dumps(rows))
    (runs / "euchre" / "reproduce.md").write_text(f"## {rep.key}\n\n{rep.source}: x (quick budget, 12 s)\n")
    with pytest.raises(UsageError, match="was --quick"):
        publish("euchre", runs, docs)
    for r in rows:
        r["budget"] = "full"
    (runs / "euchre" / "cells.json").write_text(json.dumps(rows))
    (runs / "euchre" / "reproduce.md").write_text(f"## {rep.key}\n\n{rep.source}: x (full budget, 300 s)\n")
    assert table_seconds((runs / "euchre" / "reproduce.md").read_text()) == {rep.key: ("full", 300)}
    # a table that cannot be reproduced has no budget line: the next table's is not taken for it
    assert table_seconds("## figure2\n\nFigure 2: x\n\ncannot be reproduced here: y\n\n## figure3\n\n"
                         "Figure 3: bots (DNN = ours) (full budget, 862 s)\n") == {"figure3": ("full", 862)}
    publish("euchre", runs, docs)
    table = document_table("euchre", docs)
    assert f"| {rep.source} | {rep.title} | full, 5 min | 1 | 2 | 0 | 0 | 0 |" in table
    assert "| **all** | | 5 min | **1** | **2** | **0** | **0** | **0** |" in table
    assert "no full run published" in document_table("jass", docs)
    with pytest.raises(UsageError, match="no run of sueca"):
        publish("sueca", runs, docs)


def test_euchre_paper_has_every_table_and_names_the_table_36_erratum():
    """Tables 1-45 transcribed (10,001 games each), every one registered with pinned seats
    (Section 3.3's tau and values, Markov2 leading as Markov); Table 36 repeats Table 35's
    figures and every cell of it says so; Section 3.6 is listed as having no figure."""
    from evolve.reproduce import euchre

    tables = euchre.DATA["tables"]
    assert sorted(map(int, tables)) == list(range(1, 46))
    for number, t in tables.items():
        assert sum(t["games_won"]) == 10001, number
    keys = [r.key for r in REPRODUCTIONS["euchre"]]
    assert keys[:45] == [f"table{n}" for n in range(1, 46)] and "section3.6" in keys
    t35, t36 = tables["35"], tables["36"]
    assert [t35[k] for k in ("games_won", "tricks_won", "total_score")] == \
        [t36[k] for k in ("games_won", "tricks_won", "total_score")]
    assert t36["agents"] == ["Hybrid", "CardCounting"] and t36["copy_of"] == "35"
    assert "lead=markov" in euchre.SEATS["Markov2"] and "tau=0.25" in euchre.SEATS["Markov"]
    fake = {"games": {"a_wins": 5000, "completed": 10001}, "a_points": {"mean": 2.5, "low": 2.4, "high": 2.6},
            "a_points_rounds": {"sd": 1.0}, "score_share": {"mean": 0.5, "low": 0.49, "high": 0.51, "sd": 0.3},
            "score_share_rounds": {"sd": 0.6},
            "deals": 50000, "seconds": 1.0}
    cells = euchre._cells("table36", t36, fake)
    assert all(c.reason == euchre.ERRATUM for c in cells if c.verdict == "differs")
    assert any(c.verdict == "differs" for c in cells)
    assert [c.verdict for c in cells if c.column == "time"] == ["not compared"] * 2
    rep = next(r for r in REPRODUCTIONS["euchre"] if r.key == "table36")
    assert any("Table 35's" in n for n in rep.notes)


def test_bidding_article_table_is_transcribed_and_every_figure_is_registered():
    """KCardWinRate's values agree with the article's own (truncated) percentage comments and
    with the table the linear bidder ships; the structure cells recompute the article's
    4608 entries, 192 contexts and 20 years exactly; the systems map to their bidders."""
    from evolve.agents.bidding import euchre_tables as eb
    from evolve.agents.bidding.bidders import BIDDERS
    from evolve.reproduce import bidding

    entries = bidding.DATA["kcardwinrate"]["entries"]
    assert len(entries) == int(eb.USED.sum()) == 18
    for group, card, value, pct in entries:
        assert int(100 * value / 32512) == pct, (group, card)
        assert eb.SPEC_TABLE[bidding.GROUP[group], bidding.SLOT[card]] == value
    keys = {r.key for r in REPRODUCTIONS["bidding"]}
    assert {"kcardwinrate", "kcardwinrate_ismcts", "structure", "systems", "ismcts_tables", "engine"} <= keys
    assert all(b in BIDDERS for b in bidding.SYSTEMS.values())
    cells = bidding._structure(Context())
    assert [c.verdict for c in cells] == ["reproduced"] * 3
    assert [c.paper for c in cells] == [4608, 192, 20] and {c.kind for c in cells} == {"arithmetic"}


def test_euchre_table_plot_shows_the_three_shares(tmp_path):
    """A table's PNG is one panel of its three shares (the times, never compared, left out);
    a table without a share still draws."""
    from evolve.reproduce import euchre

    fake = {"games": {"a_wins": 5000, "completed": 10001}, "a_points": {"mean": 2.5, "low": 2.4, "high": 2.6},
            "a_points_rounds": {"sd": 1.0}, "score_share": {"mean": 0.5, "low": 0.49, "high": 0.51, "sd": 0.3},
            "score_share_rounds": {"sd": 0.6}, "deals": 50000, "seconds": 1.0}
    cells = euchre._cells("table1", euchre.DATA["tables"]["1"], fake)
    assert [c.column for c in cells if c.unit.startswith("%")] == ["games won", "tricks won", "total score"]
    path = euchre._plot(cells, tmp_path / "table1.png", "Table 1")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert euchre._plot([c for c in cells if c.column == "time"], tmp_path / "times.png", "t").is_file()
    assert all(r.plot is euchre._plot for r in REPRODUCTIONS["euchre"] if r.key.startswith("table"))


@pytest.mark.parametrize("play", ["cardcounting", "ismcts:iterations=100"])
def test_bidding_rate_that_differs_says_which_card_play_measured_it(play):
    """A per-card rate far from the article's gets the reason of the card play that measured
    it (CardCounting: not the article's ISMCTS); one on the article's figure gets none; the
    right bower's certain 100% says why it is certain."""
    import numpy as np

    from evolve.reproduce import bidding

    rate = np.zeros((3, 8))
    n = np.full((3, 8), 100_000)
    for group, card, value, _pct in bidding.DATA["kcardwinrate"]["entries"]:
        rate[bidding.GROUP[group], bidding.SLOT[card]] = value / 32512
    rate[0, 5] += 0.1                                      # other A, ten points off
    cells = bidding._winrate_cells("k", {"group_maker": rate, "group_maker_n": n}, play)
    differing = [c for c in cells if c.verdict == "differs"]
    assert [c.row for c in differing] == ["other A"]
    assert differing[0].reason == bidding.WHY_RATE[play]
    assert ("CardCounting" in differing[0].reason) == (play == "cardcounting")
    assert all(not c.reason for c in cells if c.verdict == "reproduced" and c.kind == "measured")
    right = next(c for c in cells if c.row == "trump right")
    assert right.kind == "certain" and "highest card" in right.reason
