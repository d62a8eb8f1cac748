"""README.md and the manual (docs/*.md) stay true: every ```python block runs, and every
``python -m evolve.X ...`` command of the ```bash blocks is accepted by its CLI.

The pages are read when the tests are collected, so blocks added later are checked too.
Python blocks run as written in a fresh interpreter from the repository root. Commands:
the arena runs for real on a few deals (matrix: two games per pairing, written to a
temporary folder); the others, which run for minutes, are parsed by their own argument
parser (stopped right after parsing), and the files they name must exist, with
experiment and study files validated as the CLI would."""

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
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
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


def evolve_commands() -> list[list[str]]:
    """Every ``python -m evolve.X ARGS`` of the shell blocks as ``["evolve.X", *ARGS]``,
    with line continuations joined, comments dropped and ``&&`` chains split."""
    commands = []
    for body in readme_blocks(SHELL):
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
                    commands.append(command[2:])
                command = []
    return commands


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


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c)[:80] for c in COMMANDS])
def test_readme_command_is_accepted(command, monkeypatch, capsys, tmp_path):
    module_name, *args = command
    monkeypatch.chdir(ROOT)
    for name in _named_files(args):
        assert (ROOT / name).is_file() or Path(name).is_file(), f"README command names a missing file: {name}"
    main = importlib.import_module(module_name).main
    if module_name == "evolve.arena" and args[:1] not in (["matrix"], ["agents"]):
        code = main(_capped(args, "--deals", ARENA_DEALS))
        assert code == 0, capsys.readouterr().err
        assert "atpr" in capsys.readouterr().out.lower()   # the report, or its JSON
        return
    if module_name == "evolve.arena" and args[:1] == ["matrix"]:
        code = main([*_capped(args, "--games", MATRIX_GAMES), "--out", str(tmp_path)])
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
