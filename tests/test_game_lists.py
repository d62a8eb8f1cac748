"""No list of the games is written out outside the games package: every list of games is
derived from the game registry, so a new game is offered by every seat, command and
benchmark that can play it without an edit there.

A literal that names one or two games says what a piece of code is for (Graf's trump
table is Jass's; OpenSpiel has Spades and Euchre). A literal that names three or more is
a list of "the games", which a new game would fall out of. ``evolve/games`` is where each
game lives; ``evolve/reproduce`` reproduces named papers, one per game.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evolve.games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evolve"
OWN_PLACES = ("games", "reproduce")
MOST_NAMED = 2


def game_lists(source: str, names=frozenset(GAMES)) -> list[tuple[int, list[str]]]:
    """(line, the games named) of every tuple, list, set or dict literal in ``source`` (and
    string, word by word) that names more than ``MOST_NAMED`` games."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # "spades,euchre,jass", "spades | euchre | jass", "spades, euchre or jass"
            items = [ast.Constant(word) for word in re.split(r"[\s,|]+", node.value)]
        else:
            continue
        named = sorted({i.value for i in items if isinstance(i, ast.Constant) and i.value in names})
        if len(named) > MOST_NAMED:
            found.append((node.lineno, named))
    return found


def _outside_the_games():
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] not in OWN_PLACES]


def test_the_scan_finds_a_list_of_games_in_each_form():
    names = sorted(GAMES)
    assert len(names) > MOST_NAMED
    some = names[:MOST_NAMED + 1]
    for form in (f"GAMES = {tuple(some)!r}", f"x = {list(some)!r}", f"x = {set(some)!r}",
                 "x = {" + ", ".join(f"{g!r}: 1" for g in some) + "}", f"f(default={','.join(some)!r})",
                 f"f(help={' | '.join(some)!r})", f"f(help={', '.join(some[:-1]) + ' or ' + some[-1]!r})",
                 f"if game in {tuple(some)!r}: pass"):
        assert game_lists(form), form
    for form in (f"x = {tuple(names[:MOST_NAMED])!r}", "x = tuple(GAMES)", f"x = {names[0]!r}"):
        assert not game_lists(form), form
    assert len(_outside_the_games()) > 100


@pytest.mark.parametrize("path", _outside_the_games(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_list_of_games_is_written_out(path):
    found = game_lists(path.read_text())
    assert not found, "; ".join(f"{path.relative_to(ROOT)}:{line} names {', '.join(g)}: derive the list from "
                                "evolve.games.registry.GAMES (or a game's own attribute)" for line, g in found)
