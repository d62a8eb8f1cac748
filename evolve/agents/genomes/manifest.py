"""The manifest of a populations folder: ``populations/manifest.toml`` names every
committed champion folder with what it is, and says which of them a table server offers.

One ``[[champion]]`` table per folder, every key required::

    [[champion]]
    name = "jass_champion"            # the folder (populations/<name>/champion.npz)
    game = "jass"                     # the game it plays (its champion.json says the same)
    kind = "network"                  # network, or a parametric kind (markov, jass_trump ...)
    role = "champion"                 # one of ROLES
    what = "..."                      # one sentence
    config = "experiments/jass_champion.toml"    # the experiment that makes it
    headline = "..."                  # its headline figure: CI, deals, against what
    playable = true                   # offered (and accepted) by python -m evolve.serve
    used_by = ["experiments/studies/search_level.toml", "tests/..."]   # what seats it

``load_manifest(path)`` reads and validates one (the file or the folder that holds it):
anything wrong is one ``UsageError`` naming the file and the key. ``playable_champions``
is what the table server offers: ``{name: champion.npz}`` of the entries marked
``playable``; a folder without a manifest (a user's own runs) offers every champion in
it. That every folder of the repository's ``populations/`` is in the manifest,
and every entry a loadable champion of its game that something seats, is checked by
``tests/test_manifest.py``, not here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from evolve.core.errors import UsageError

MANIFEST = "manifest.toml"

#: what a committed champion is there for
ROLES = {
    "champion": "the game's best",
    "founder": "the start of a champion's run",
    "strong": "a short recipe's champion",
    "parametric": "an evolved parametric agent",
    "scratch": "evolved from random weights",
    "reproduction": "seated by a reproduction of a paper",
    "comparison": "a previous champion that a published table still plays",
}

# key: (python type, what it expects)
KEYS = {
    "name": (str, "a folder name (letters, digits, _ . -)"),
    "game": (str, "a game name"),
    "kind": (str, "network or a parametric kind"),
    "role": (str, "one of " + ", ".join(ROLES)),
    "what": (str, "one sentence"),
    "config": (str, "the path of the experiment that makes it (experiments/NAME.toml)"),
    "headline": (str, "its headline figure"),
    "playable": (bool, "true or false"),
    "used_by": (list, "a non-empty list of the files (repository paths) that seat it"),
}
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class Entry:
    """One ``[[champion]]`` table of a manifest."""

    name: str
    game: str
    kind: str
    role: str
    what: str
    config: str
    headline: str
    playable: bool
    used_by: tuple[str, ...]


def _kinds() -> tuple[str, ...]:
    from evolve.agents.genomes.parametric import PARAMETRIC

    return ("network", *PARAMETRIC)


def load_manifest(path: str | Path) -> dict[str, Entry]:
    """The entries of a manifest by name, in the file's order; ``path`` is the manifest or
    the folder that holds it. A missing file, invalid TOML, an unknown or missing key, a
    value of the wrong type, an unknown game, kind or role, or a name given twice is a
    ``UsageError`` naming the file and the key."""
    from evolve.games.registry import GAMES

    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no such manifest (a {MANIFEST} with one [[champion]] table per folder)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: invalid TOML: {e}") from None
    for key in raw:
        if key != "champion":
            raise UsageError(f"{path}: unknown key {key!r}; a manifest holds [[champion]] tables only")
    tables = raw.get("champion", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise UsageError(f"{path}: key 'champion': expected [[champion]] tables")
    kinds = _kinds()
    out: dict[str, Entry] = {}
    for k, table in enumerate(tables):
        where = f"{path}: key 'champion[{k}]"
        for key, value in table.items():
            if key not in KEYS:
                raise UsageError(f"{where}.{key}': unknown key; valid keys: {', '.join(KEYS)}")
        for key, (kind, expect) in KEYS.items():
            if key not in table:
                raise UsageError(f"{where}.{key}': missing; expected {expect}")
            value = table[key]
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)) \
                    or (kind is str and not value.strip()):
                raise UsageError(f"{where}.{key}': expected {expect}, got {value!r}")
        name = table["name"]
        checks = (("name", NAME.fullmatch(name) is not None),
                  ("game", table["game"] in GAMES),
                  ("kind", table["kind"] in kinds),
                  ("role", table["role"] in ROLES),
                  ("used_by", bool(table["used_by"]) and all(isinstance(u, str) and u.strip()
                                                              for u in table["used_by"])))
        for key, good in checks:
            if not good:
                expect = {"game": "one of " + ", ".join(GAMES), "kind": "one of " + ", ".join(kinds)}.get(
                    key, KEYS[key][1])
                raise UsageError(f"{where}.{key}': expected {expect}, got {table[key]!r}")
        if name in out:
            raise UsageError(f"{where}.name': {name!r} is named twice")
        out[name] = Entry(**{**table, "used_by": tuple(table["used_by"])})
    return out


def playable_champions(root: str | Path) -> dict[str, Path]:
    """The champions a table server offers from the populations folder ``root``:
    ``{name: root/name/champion.npz}`` for each entry of ``root/manifest.toml`` marked
    ``playable``, in the manifest's order; without a manifest, every
    ``root/*/champion.npz`` by folder name. A playable entry without its
    ``champion.npz`` is a ``UsageError`` naming the manifest."""
    root = Path(root)
    if not (root / MANIFEST).is_file():
        return {p.parent.name: p for p in sorted(root.glob("*/champion.npz"))}
    out = {}
    for name, entry in load_manifest(root / MANIFEST).items():
        if not entry.playable:
            continue
        champion = root / name / "champion.npz"
        if not champion.is_file():
            raise UsageError(f"{root / MANIFEST}: champion {name!r} is marked playable, but {champion} is missing")
        out[name] = champion
    return out
