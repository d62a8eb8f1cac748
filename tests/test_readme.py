"""README.md and every page of the manual (docs/**/*.md, the pages the docs site is built
from) stay true: every ```python block runs, and every ``python -m evolve.X ...`` command
of the ```bash blocks is accepted by its CLI.

The pages are read when the tests are collected, so blocks added later are checked too.
Python blocks run as written in a fresh interpreter from the repository root. Commands:
the arena runs for real on a few deals (matrix: two games per pairing, written to a
temporary folder); the others, which run for minutes, are parsed by their own argument
parser (stopped right after parsing), and the files they name must exist, with
experiment and study files validated as the CLI would. A file may also be one that an
earlier command of the same page makes (a run's folder, a matrix's ``--out``): such a
command is parsed, not run, since the file exists only once the page has been followed."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^[ \t]*```(\w*)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)   # list items indent theirs
SHELL = {"bash", "sh", "shell", "console"}
OPERATORS = {"&&", "||", ";", "|", "&"}
ARENA_DEALS = 200       # deals for an arena command run from the README
MATRIX_GAMES = 2        # games (or deals) per pairing for a matrix command


def doc_blocks(language: set[str]) -> list[tuple[str, str]]:
    """``(page, body)`` of every fenced code block in ``language`` of the README and the docs."""
    return [(page.relative_to(ROOT).as_posix(), textwrap.dedent(body)) for page in PAGES
            for lang, body in FENCE.findall(page.read_text()) if lang in language]


def readme_blocks(language: set[str]) -> list[str]:
    """The bodies of the fenced code blocks in ``language`` of the README and the docs."""
    return [body for _, body in doc_blocks(language)]


def page_commands() -> list[tuple[str, list[str]]]:
    """``(page, ["evolve.X", *ARGS])`` for every ``python -m evolve.X ARGS`` of the shell
    blocks, with line continuations joined, comments dropped and ``&&`` chains split."""
    commands = []
    for page, body in doc_blocks(SHELL):
        for line in body.replace("\\\n", " ").splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            lexer.commenters = "#"
            command: list[str] = []
            for word in [*lexer, ";"]:
                if word not in OPERATORS:
                    command.append(word)
                    continue
                if len(command) >= 3 and command[0] in ("python", "python3") and command[1] == "-m" \
                        and command[2].startswith("evolve."):
                    commands.append((page, command[2:]))
                command = []
    return commands


def evolve_commands() -> list[list[str]]:
    """Every documented ``python -m evolve.X ARGS`` as ``["evolve.X", *ARGS]``."""
    return [command for _, command in PAGE_COMMANDS]


def _option(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


def made_by(command: list[str]) -> list[str]:
    """The folders a documented command writes, as the later commands of its page name
    them: a run's folder (``--out``, else ``populations/<experiment>``) and ``--out``."""
    module, *args = command
    out = _option(args, "--out")
    made = [out] if out else []
    if module == "evolve.run" and not out and args and args[0].endswith(".toml"):
        made.append(f"populations/{Path(args[0]).stem}")
    return [m.rstrip("/") for m in made]


PAGE_COMMANDS = page_commands()
MADE_ON_PAGE = {page: [m for p, c in PAGE_COMMANDS if p == page for m in made_by(c)] for page, _ in PAGE_COMMANDS}


def made_on_page(page: str, name: str) -> bool:
    """Whether ``name`` is (inside) a folder that a command of ``page`` writes."""
    return any(name == m or name.startswith(m + "/") for m in MADE_ON_PAGE.get(page, []))


PYTHON = doc_blocks({"python"})
PYTHON_BLOCKS = [body for _, body in PYTHON]
COMMANDS = evolve_commands()


def test_the_pages_have_blocks_to_check():
    """The extraction itself works: an empty list here would make the tests below vacuous."""
    assert len(PAGES) >= 8 and len(PYTHON_BLOCKS) >= 5
    modules = {c[0] for c in COMMANDS}
    assert {"evolve.run", "evolve.arena", "evolve.plot", "evolve.bench", "evolve.studies", "evolve.serve",
            "evolve.human", "evolve.tables", "evolve.value"} <= modules, modules
    assert any(c[:2] == ["evolve.arena", "matrix"] for c in COMMANDS)


def test_links_between_pages_resolve():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", page.read_text()):
            assert (page.parent / target).is_file(), f"{page.name} links to a missing page {target}"


@pytest.mark.parametrize("index", range(len(PYTHON)),
                         ids=[f"{page}:python{i + 1}" for i, (page, _) in enumerate(PYTHON)])
def test_python_block_runs(index):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", PYTHON_BLOCKS[index]], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"{PYTHON[index][0]}: python block failed:\n{PYTHON_BLOCKS[index]}\n{proc.stderr}"


class Parsed(Exception):
    """Raised right after a CLI's argument parser accepted its command line."""

    def __init__(self, namespace, extra):
        super().__init__("parsed")
        self.namespace, self.extra = namespace, extra


def parse_only(monkeypatch):
    """Make the outermost ``parse_known_args`` (which ``parse_args`` and subcommands go
    through) raise ``Parsed`` once it has accepted the command line."""
    real = argparse.ArgumentParser.parse_known_args
    depth = [0]

    def spy(self, args=None, namespace=None):
        depth[0] += 1
        try:
            result = real(self, args, namespace)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            raise Parsed(*result)
        return result

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", spy)


def _capped(args: list[str], flag: str, cap: int) -> list[str]:
    out = list(args)
    if flag in out:
        i = out.index(flag) + 1
        out[i] = str(min(int(out[i]), cap))
    else:
        out += [flag, str(cap)]
    return out


#: flags whose value a command writes (or keeps as a cache it fills when absent), so it need not exist
WRITTEN = ("--out", "--examples", "--log")


def _named_files(args: list[str]) -> list[str]:
    # champion seats are found below (also inside NAME=SEAT arguments)
    written = {i + 1 for i, a in enumerate(args) if a in WRITTEN}
    files = [a for i, a in enumerate(args)
             if a.endswith((".toml", ".npz")) and "champion:" not in a and i not in written]
    for a in args:
        files += re.findall(r"champion:([^,@\s]+)", a)
    return files


def _here(args: list[str]) -> list[str]:
    """``args`` without a ``--scheduler`` of the docs' placeholder host: the command is played
    here (its flags are still parsed, with the placeholder, by the commands checked by
    parsing only)."""
    out = list(args)
    while "--scheduler" in out and "SCHEDULER_HOST" in out[out.index("--scheduler") + 1]:
        at = out.index("--scheduler")
        del out[at:at + 2]
    return out


@pytest.mark.parametrize("page,command", PAGE_COMMANDS, ids=[f"{p}: {' '.join(c)}"[:100] for p, c in PAGE_COMMANDS])
def test_readme_command_is_accepted(page, command, monkeypatch, capsys, tmp_path):
    module_name, *args = command
    monkeypatch.chdir(ROOT)
    made_earlier = False
    for name in _named_files(args):
        if made_on_page(page, name):
            made_earlier = made_earlier or not (ROOT / name).exists()
            continue
        # a champion may be named by its folder, which holds champion.npz
        assert any(p.is_file() for p in (ROOT / name, Path(name), ROOT / name / "champion.npz")), \
            f"{page} names a missing file: {name}"
    main = importlib.import_module(module_name).main
    if module_name == "evolve.arena" and args[:1] not in (["matrix"], ["agents"]) and not made_earlier:
        code = main(_capped(_here(args), "--deals", ARENA_DEALS))
        assert code == 0, capsys.readouterr().err
        assert "atpr" in capsys.readouterr().out.lower()   # the report, or its JSON
        return
    if module_name == "evolve.arena" and args[:1] == ["matrix"] and not made_earlier:
        code = main([*_capped(_here(args), "--games", MATRIX_GAMES), "--out", str(tmp_path)])
        assert code == 0, capsys.readouterr().err
        assert (tmp_path / "matrix.md").is_file()
        return
    parse_only(monkeypatch)
    try:
        code = main(args)
    except Parsed as parsed:
        assert parsed.extra == [], f"{' '.join(command)}: unrecognized arguments {parsed.extra}"
        namespace = parsed.namespace
    except SystemExit as e:
        pytest.fail(f"{' '.join(command)}: rejected (exit {e.code}): {capsys.readouterr().err}")
    else:
        pytest.fail(f"{' '.join(command)}: returned {code} before parsing: {capsys.readouterr().err}")
    monkeypatch.undo()
    if module_name == "evolve.run":
        from evolve.evolution.config import load_config

        load_config(namespace.config)
    if module_name == "evolve.studies":
        from evolve.evaluate.studies import load_study

        load_study(namespace.config)


def test_files_made_on_a_page_are_recognised():
    """The rule above is not vacuous: the first tutorial's arena command names the run
    folder its run command makes, and a file no command makes is not excused."""
    page = "docs/tutorials/first-run.md"
    assert made_on_page(page, "populations/spades_cardbased/champion.npz")
    assert not made_on_page(page, "populations/spades_cardbasedX/champion.npz")
    assert not made_on_page("README.md", "populations/nowhere/champion.npz")
