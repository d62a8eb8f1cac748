"""The committed champions and their manifest (``populations/manifest.toml``,
``evolve.agents.genomes.manifest``): every committed folder is an entry and every entry a
loadable champion of its game and kind, made by a config that exists; every entry's
``used_by`` names files that seat it, and something the suite checks (a study config, a
test or the package's code) seats every folder, so a folder nothing uses fails here; the
folder stays under 8 MB; bad manifests are one-line errors naming the file and key."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from evolve.agents.genomes.champion import load_champion
from evolve.agents.genomes.manifest import KEYS, MANIFEST, ROLES, load_manifest, playable_champions
from evolve.core.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
POPULATIONS = ROOT / "populations"
ENTRIES = load_manifest(POPULATIONS)
MAX_BYTES = 8 * 1024 ** 2
#: where a seat of a committed champion counts as a use the suite checks
SCANNED = ("tests", "experiments", "evolve")
PLAYABLE_ROLES = ("champion", "strong", "parametric")


def _tracked() -> list[str] | None:
    """The git-tracked files under populations/ (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "populations"], cwd=ROOT, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return [p for p in out.stdout.decode().split("\0") if p]


def _python_code(path: Path) -> str:
    """The tokens of a Python file without its comments and docstrings, space-separated."""
    source = path.read_text()
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docstrings.add((first.lineno, first.col_offset))
    kept = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type != tokenize.COMMENT and not (t.type == tokenize.STRING and t.start in docstrings)]
    return " ".join(kept)


def _toml_strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _toml_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _toml_strings(v)]
    return []


@lru_cache(maxsize=None)
def _code(path: Path) -> str:
    """What of a file can seat a champion: a Python file's code without comments and
    docstrings, a TOML file's string values (no comments), a page's text."""
    if path.suffix == ".py":
        return _python_code(path)
    if path.suffix == ".toml":
        try:
            return "\n".join(_toml_strings(tomllib.loads(path.read_text())))
        except tomllib.TOMLDecodeError:     # the broken configs of the config tests seat nothing
            return ""
    return path.read_text()


def seats(path: Path, name: str) -> bool:
    """Whether ``path`` names the champion ``name`` as a seat or a path: ``populations/NAME``
    (also ``populations / 'NAME'``), ``champion:NAME`` (a table server's name), or, in a
    Python file that also names the populations folder, the string ``'NAME'``."""
    code = _code(path)
    end = r"(?![\w.\-])"
    if re.search(rf"populations\s*/\s*['\"]?{re.escape(name)}{end}", code) \
            or re.search(rf"champion:{re.escape(name)}{end}", code):
        return True
    if path.suffix == ".md":
        return re.search(rf"(?<![\w\-]){re.escape(name)}{end}", code) is not None
    return path.suffix == ".py" and re.search(r"['\"]populations['\"/]", code) is not None \
        and re.search(rf"['\"]{re.escape(name)}['\"]", code) is not None


def users(name: str) -> list[str]:
    """The files of tests/, experiments/ and evolve/ that seat ``name``, but for the config
    that makes it and this test."""
    own = ENTRIES[name].config
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix not in (".py", ".toml") or rel in (own, "tests/test_manifest.py") or "__pycache__" in rel:
                continue
            if seats(path, name):
                out.append(rel)
    return out


def test_every_committed_folder_is_an_entry_and_every_entry_a_folder():
    tracked = _tracked()
    if tracked is None:
        folders = {p.parent.name for p in POPULATIONS.glob("*/champion.npz")}
    else:
        folders = {Path(p).parts[1] for p in tracked if len(Path(p).parts) > 2}
    assert folders, "no committed champion found"
    assert sorted(folders - set(ENTRIES)) == [], f"folders missing from {MANIFEST}"
    assert sorted(set(ENTRIES) - folders) == [], f"{MANIFEST} entries without a committed folder"
    for name in ENTRIES:
        assert (POPULATIONS / name / "champion.npz").is_file() and (POPULATIONS / name / "champion.json").is_file()


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_every_entry_is_a_loadable_champion_of_its_game_and_kind(name):
    entry = ENTRIES[name]
    champion = load_champion(POPULATIONS / name)
    assert champion.game == entry.game
    assert champion.agent.kind == entry.kind
    assert (entry.kind == "network") == (entry.role not in ("parametric",)), "network roles hold networks"
    assert (ROOT / entry.config).is_file() and entry.config.startswith("experiments/"), entry.config
    assert "[" in entry.headline and "deals" in entry.headline, "a headline gives its interval and its deals"
    assert entry.what.endswith(".") and "\n" not in entry.what


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_used_by_names_files_that_seat_it_and_something_the_suite_checks_does(name):
    entry = ENTRIES[name]
    for rel in entry.used_by:
        path = ROOT / rel
        assert path.is_file(), f"{name}: used_by {rel!r} is no file"
        assert seats(path, name), f"{name}: used_by {rel!r} does not seat it"
    found = users(name)
    assert found, (f"populations/{name} is seated by no study config, test or code (tests/, experiments/, evolve/ "
                   f"but {entry.config}): remove the folder (its figures stay in the results log) or seat it")
    assert set(found) & set(entry.used_by), f"{name}: used_by names none of {found}"


def test_a_folder_nothing_seats_is_found(tmp_path):
    """The scan is real: a name no file seats has no users, each way of seating counts, and
    a comment, a docstring or a longer name is no seat."""
    ENTRIES["nobody_seats_this"] = ENTRIES["jass_markov"]
    try:
        assert users("nobody_seats_this") == []
    finally:
        del ENTRIES["nobody_seats_this"]
    files = {
        "a.toml": 'agents = ["champion:populations/x_net"]\n',
        "b.toml": '# populations/x_net is not read\nagents = ["champion:populations/x_net_two"]\n',
        "c.py": 'SEAT = "champion:x_net"\n',
        "d.py": 'from pathlib import Path\nPATH = Path("populations") / "x_net"\n',
        "e.py": '"""Seats champion:populations/x_net."""\n# champion:populations/x_net\nKIND = "x_net"\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert [name for name in files if seats(tmp_path / name, "x_net")] == ["a.toml", "c.py", "d.py"]


def test_the_populations_folder_is_at_most_8_mb():
    tracked = _tracked()
    if tracked is None:
        pytest.skip("not a git checkout")
    files = {ROOT / p for p in tracked} | {POPULATIONS / MANIFEST}
    total = sum(p.stat().st_size for p in files if p.is_file())
    assert total <= MAX_BYTES, f"populations/ holds {total / 1024 ** 2:.2f} MB, more than 8 MB"


def test_the_server_offers_the_playable_entries_only():
    from evolve.server.policy import champions

    playable = {n for n, e in ENTRIES.items() if e.playable}
    assert set(playable_champions(POPULATIONS)) == playable == set(champions(POPULATIONS))
    assert all(ENTRIES[n].role in PLAYABLE_ROLES for n in playable)
    assert {"jass_champion", "sueca_champion", "euchre_champion", "spades_champion", "jass_markov"} <= playable
    assert not playable & {n for n, e in ENTRIES.items() if e.role in ("founder", "reproduction", "comparison",
                                                                            "scratch")}


def test_a_folder_without_a_manifest_offers_its_champions_and_a_missing_playable_folder_is_refused(tmp_path):
    assert playable_champions(tmp_path) == {}
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "champion.npz").write_bytes(b"")
    assert playable_champions(tmp_path) == {"a": tmp_path / "a" / "champion.npz"}
    (tmp_path / MANIFEST).write_text(_entry())
    with pytest.raises(UsageError, match=r"champion 'x' is marked playable, but .*champion.npz is missing"):
        playable_champions(tmp_path)


def _entry(**over) -> str:
    values = {"name": "x", "game": "jass", "kind": "network", "role": "champion", "what": "A network.",
              "config": "experiments/x.toml", "headline": "50% [49, 51], 10 deals", "playable": True,
              "used_by": ["tests/test_x.py"], **over}
    lines = ["[[champion]]"]
    for key, value in values.items():
        if value is None:
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else \
            "[" + ", ".join(f'"{v}"' for v in value) + "]" if isinstance(value, list) else \
            str(value) if isinstance(value, int) else f'"{value}"'
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, needle", [
    ("[[champion]\n", "invalid TOML"),
    ("[other]\n", "unknown key 'other'"),
    ("champion = 3\n", "key 'champion': expected [[champion]] tables"),
    (_entry(colour="red"), "key 'champion[0].colour': unknown key; valid keys: name"),
    (_entry(role=None), "key 'champion[0].role': missing; expected one of champion"),
    (_entry(role="hero"), "key 'champion[0].role': expected one of champion, founder"),
    (_entry(game="chess"), "key 'champion[0].game': expected one of"),
    (_entry(kind="tree"), "key 'champion[0].kind': expected one of network"),
    (_entry(playable="yes"), "key 'champion[0].playable': expected true or false"),
    (_entry(name="a/b"), "key 'champion[0].name': expected a folder name"),
    (_entry(used_by=[]), "key 'champion[0].used_by': expected a non-empty list"),
    (_entry(headline=3), "key 'champion[0].headline': expected its headline figure, got 3"),
    (_entry() + _entry(), "key 'champion[1].name': 'x' is named twice"),
])
def test_bad_manifests_are_one_line_errors_naming_the_file_and_key(tmp_path, text, needle):
    path = tmp_path / MANIFEST
    path.write_text(text)
    with pytest.raises(UsageError) as e:
        load_manifest(tmp_path)
    assert needle in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_missing_manifest_is_one_line(tmp_path):
    with pytest.raises(UsageError, match="no such manifest"):
        load_manifest(tmp_path)


def test_the_roles_and_keys_are_documented_in_the_manifest():
    text = (POPULATIONS / MANIFEST).read_text()
    header = text[:text.index("\n[[champion]]")]
    assert "playable" in header and all(role in header for role in ("founder", "reproduction", "comparison")), \
        "the header says what playable means and why some roles are not"
    assert set(KEYS) == {"name", "game", "kind", "role", "what", "config", "headline", "playable", "used_by"}
    assert {e.role for e in ENTRIES.values()} <= set(ROLES)
