"""The generated reference pages (``python -m evolve.manual``): every configuration key has a
description, the committed pages are what the code gives, and every key, command flag,
agent, bidder, parametric kind, game option, route and shipped experiment is on its page."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evolve.manual import reference as ref

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def made() -> dict[str, str]:
    """Every generated page by file name (made once: about a second)."""
    return {path.name: body for path, body in ref.pages().items()}


def section(page: str, heading: str) -> str:
    """The text of ``page`` from the heading line ``heading`` to the next heading of its level
    or above."""
    level = len(heading.split(" ")[0])
    start = page.index("\n" + heading + "\n")
    rest = page[start + len(heading) + 2:]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[:end.start()] if end else rest


# ------------------------------------------------------------------ descriptions of the keys

def missing_docs() -> list[str]:
    """Every configuration key (experiment, strategy, stage, study, level) without a description."""
    from evolve.evaluate.levels import LEVEL_KEYS
    from evolve.evaluate.studies import STUDY_KEYS
    from evolve.evolution.config import SCHEMA, SECTION_DOCS, STAGE_DOCS, STAGE_KEYS, STRATEGY_PARAMS

    missing = [f"[{s}] {k}" for s, keys in SCHEMA.items() for k, spec in keys.items() if not spec.doc.strip()]
    missing += [f"[evolution.{n}] {k}" for n, keys in STRATEGY_PARAMS.items() for k, spec in keys.items()
                if not spec.doc.strip()]
    missing += [f"[{s}]" for s in SCHEMA if not SECTION_DOCS.get(s, "").strip()]
    missing += [f"[[evolution.stages]] {k}" for k in STAGE_KEYS if not STAGE_DOCS.get(k, "").strip()]
    missing += [f"[study] {k}" for k, spec in STUDY_KEYS.items() if not spec.doc.strip()]
    missing += [f"[[level]] {k}" for k, spec in LEVEL_KEYS.items() if not spec.doc.strip()]
    return missing


def test_every_key_has_a_description():
    from evolve.evolution.config import SCHEMA, STRATEGY_PARAMS

    assert sum(len(keys) for keys in SCHEMA.values()) + sum(len(p) for p in STRATEGY_PARAMS.values()) >= 70
    assert missing_docs() == [], "describe these keys (Key(..., doc=...), STAGE_DOCS)"


def test_a_key_without_a_description_is_found(monkeypatch):
    from evolve.evaluate import studies
    from evolve.evolution import config

    monkeypatch.setitem(config.SCHEMA["evolution"], "new_key", config.Key((int,), 1, "a positive integer"))
    monkeypatch.setitem(studies.STUDY_KEYS, "agents", config.Key((list,), None, "a list"))
    monkeypatch.setitem(config.STRATEGY_PARAMS["es"], "new_param", config.Key((int,), 1, "a positive integer"))
    assert missing_docs() == ["[evolution] new_key", "[evolution.es] new_param", "[study] agents"]


def test_descriptions_are_not_the_error_wording():
    """``expect`` says what a value may be (in one-line errors); ``doc`` says what the key does."""
    from evolve.evolution.config import SCHEMA

    same = [f"{s}.{k}" for s, keys in SCHEMA.items() for k, spec in keys.items() if spec.doc == spec.expect]
    assert same == []


# ------------------------------------------------------------------ the pages are current

def test_the_committed_pages_are_current(made):
    stale = ref.stale(ROOT, {ref.REFERENCE / name: body for name, body in made.items()})
    assert stale == [], "regenerate them: python -m evolve.manual"


def test_a_changed_page_is_stale(made, tmp_path):
    pages = {ref.REFERENCE / name: body for name, body in made.items()}
    for path, body in pages.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    assert ref.stale(tmp_path, pages) == []
    edited = tmp_path / ref.REFERENCE / "cli.md"
    edited.write_text(edited.read_text().replace("--resume", "--resume-run", 1))
    (tmp_path / ref.REFERENCE / "agents.md").unlink()
    assert ref.stale(tmp_path, pages) == [ref.REFERENCE / "cli.md", ref.REFERENCE / "agents.md"]


def test_pages_start_with_the_generated_comment(made):
    assert set(made) == {"config.md", "cli.md", "agents.md", "game-options.md", "experiments.md", "server-api.md",
                         "environments.md"}
    for body in made.values():
        first, title, _, intro = body.split("\n")[:4]
        assert first == ref.GENERATED and title.startswith("# ") and intro


def test_table_cells_are_escaped():
    assert ref.text("a|b <game> `x|<y>` *") == "a\\|b &lt;game> `x|<y>` \\*"
    assert ref.table(["a", "b"], [["1", ""]]) == "| a | b |\n|---|---|\n| 1 |   |"


def test_anchors_are_mkdocs_slugs(made):
    toc = pytest.importorskip("markdown.extensions.toc")
    headings = [h for body in made.values() for h in re.findall(r"^#+ (.+)$", body, re.M)]
    assert len(headings) > 80
    for heading in headings:
        assert ref.anchor(heading) == toc.slugify(heading.replace("`", ""), "-"), heading
    assert ref.anchor("[evolution]") == "evolution" and ref.anchor("[[evolution.stages]]") == "evolutionstages"


def test_links_within_the_pages_resolve(made):
    anchors = {name: {ref.anchor(h) for h in re.findall(r"^#+ (.+)$", body, re.M)} for name, body in made.items()}
    for name, body in made.items():
        for target, tag in re.findall(r"\]\(([\w.-]*)#([\w-]+)\)", body):
            assert tag in anchors[target or name], f"{name}: link to {target}#{tag}"
        for target in re.findall(r"\]\(([\w-]+\.md)\)", body):
            assert target in made, f"{name}: link to {target}"


# ------------------------------------------------------------------ everything is on its page

def test_every_configuration_key_is_on_the_config_page(made):
    from evolve.evaluate.levels import LEVEL_KEYS
    from evolve.evaluate.studies import LEVELS_KEYS, STUDY_KEYS
    from evolve.evolution.config import SCHEMA, STAGE_KEYS, STRATEGY_PARAMS

    page = made["config.md"]
    for name, keys in SCHEMA.items():
        text = section(page, f"## [{name}]")
        assert [k for k in keys if f"| `{k}` |" not in text] == [], name
    for name, keys in STRATEGY_PARAMS.items():
        text = section(page, f"## [evolution.{name}]")
        assert [k for k in keys if f"| `{k}` |" not in text] == [], name
    writing = section(page, "## Writing a file")
    assert "`extends" in writing and "`--set" in writing and "`schema = N`" in writing
    assert "(game-options.md)" in section(page, "## [game_options]")
    for heading, keys in (("## [[evolution.stages]]", STAGE_KEYS), ("## [study]", STUDY_KEYS),
                          ("## [study] in a levels study", LEVELS_KEYS), ("## [[level]]", LEVEL_KEYS)):
        text = section(page, heading)
        assert [k for k in keys if f"| `{k}` |" not in text] == [], heading
    assert SCHEMA["evolution"]["patience"].doc.split(".")[0] in section(page, "## [evolution]")


def _mains() -> set[str]:
    """The modules of ``evolve/`` that define a ``main`` building an argument parser."""
    out = set()
    for path in sorted((ROOT / "evolve").rglob("*.py")):
        tree = ast.parse(path.read_text())
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            out.add(module)
    return out


def test_every_command_is_on_the_cli_page():
    covered = {c.module for c in ref.COMMANDS} | {m for c in ref.COMMANDS for m in c.implements}
    assert _mains() - covered == set(), "a new command: add it to evolve.manual.reference.COMMANDS"
    assert len({c.module for c in ref.COMMANDS}) >= 15


def _parsers():
    for command in ref.COMMANDS:
        parser = ref.parser_of(command)
        yield command.name, parser
        for _, _, sub in ref.subcommands(parser):
            yield sub.prog, sub


def test_every_flag_of_every_command_is_on_the_cli_page(made):
    page = made["cli.md"]
    seen = 0
    for name, parser in _parsers():
        levels = [level for level in ("##", "###") if f"\n{level} `{name}`\n" in page]
        assert levels, f"{name} has no section"
        text = section(page, f"{levels[0]} `{name}`")
        help_text = parser.format_help()
        flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", help_text)) - {"-h", "--help"}
        flags |= {o for a in ref.flags(parser) for o in a.option_strings}
        assert [f for f in sorted(flags) if f"`{f}`" not in text and f not in text] == [], name
        positional = [a.metavar or a.dest for a in ref.flags(parser) if not a.option_strings]
        assert [p for p in positional if f"| `{p}` |" not in text] == [], name
        seen += len(ref.flags(parser))
    assert seen > 100


def test_every_agent_bidder_and_kind_is_on_the_agents_page(made):
    import evolve.agents  # noqa: F401  (registers every agent)
    from evolve.agents.bidding.bidders import BIDDER_OPTIONS, BIDDERS
    from evolve.agents.genomes.parametric import PARAMETRIC
    from evolve.agents.registry import AGENTS, RESOLVERS

    page = made["agents.md"]
    for name, agent in AGENTS.items():
        text = section(page, f"### {name}")
        assert [k for k in agent.options if k not in BIDDER_OPTIONS and f"| `{k}` |" not in text] == [], name
    bidders = section(page, "## Bidders")
    assert [b for b in ["default", *BIDDERS] if f"| `{b}` |" not in bidders] == []
    assert all(ref.bidder_descriptions()[b] for b in ["default", *BIDDERS]), "a bidder without a description"
    options = section(page, "## Bidder options")
    assert [k for k in BIDDER_OPTIONS if f"| `{k}` |" not in options] == []
    kinds = section(page, "## Parametric kinds")
    assert [k for k in PARAMETRIC if f"| `{k}` |" not in kinds] == []
    assert all(f"`{usage}`" in section(page, "## Seat strings") for usage, _ in RESOLVERS.values())
    perfect = section(page, "## Perfect-information agents")
    assert ref.perfect_agents() == ["perfect_mc", "perfect_dmcts"] and "`perfect_mc`" in perfect


def test_every_game_option_is_on_its_page(made):
    from evolve.games.registry import GAMES

    page = made["game-options.md"]
    for name, info in GAMES.items():
        text = section(page, f"## {name}")
        assert [k for k in info.options if f"| `{k}` |" not in text] == [], name


def test_every_route_and_experiment_is_on_its_page(made):
    page = made["server-api.md"]
    found = ref.routes()
    assert len(found) >= 10
    for method, path, view in found:
        assert view.__doc__ and f"### `{method} {path}`" in page, path
    page = made["experiments.md"]
    for path in sorted((ROOT / "experiments").glob("*.toml")) + sorted((ROOT / "experiments/studies").glob("*.toml")):
        assert f"| `{path.name}` |" in page, path.name


def test_first_sentence():
    assert ref.first_sentence("A (b. C) d. E f.") == "A (b. C) d."
    assert ref.first_sentence("Uses `x. Y` here, e.g. Spades. 1. Next") == "Uses `x. Y` here, e.g. Spades."
    assert ref.first_sentence("no end") == "no end"


def test_every_game_is_on_the_environments_page(made):
    from evolve.env.spaces import action_space_size, observation_size
    from evolve.games.registry import GAMES

    page = made["environments.md"]
    for name in GAMES:
        text = section(page, f"## {name}")
        assert "| the defaults | " in text and f"| {action_space_size(name)} | {observation_size(name)} |" in text, name
