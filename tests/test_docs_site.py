"""The manual reads as a manual: the site builds with ``mkdocs build --strict`` (a broken
link or anchor, or a page left out of the navigation, fails it), the README stays a front
page, paragraphs stay short outside the results log and the reproduction pages, and the
pages speak of the product, not of how it was developed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MANUAL = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
#: pages where long paragraphs may stand: the dated log and the papers' readings and cells
LONG_ALLOWED = ("results/log.md", "reproductions/")
MAX_WORDS = 150
FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```[ \t]*$", re.M | re.S)
ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
#: words about how the work was done, which the manual must not use (history goes to the
#: results log, dated, and even there without these words)
DEVELOPMENT_WORDS = re.compile(
    r"this stop\b|previous stop|stop's|earlier stop|next stop|\bissue \d+|target met|\(met\)|scratch run"
    r"|this session|/work/|\.\./shared|seed documents?|the seed's figure|the (?:spades|euchre|sueca|jass) seed", re.I)


def paragraphs(text: str) -> list[str]:
    """The prose paragraphs of a Markdown page: blank-line separated blocks outside code
    fences, each list item on its own; headings, tables and HTML comments left out."""
    text = re.sub(r"<!--.*?-->", "", FENCE.sub("", text), flags=re.S)
    out = []
    for block in re.split(r"\n\s*\n", text):
        current: list[str] = []
        for line in block.splitlines():
            if line.lstrip().startswith(("|", "#", ":::")):
                continue
            if ITEM.match(line) and current:
                out.append(" ".join(current))
                current = []
            current.append(line.strip())
        if current:
            out.append(" ".join(current))
    return [p for p in out if p.strip()]


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for page in ("index.html", "reference/config/index.html", "tutorials/first-run/index.html",
                 "reference/python-api/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    # the Python API reference is rendered from the docstrings, not left as directives
    api = (tmp_path / "site" / "reference/python-api/index.html").read_text()
    assert ":::" not in api and "PlayResult" in api and "n_deals" in api


def test_every_page_is_in_the_navigation():
    """mkdocs only warns about pages left out of ``nav``; list them here by name."""
    nav = (ROOT / "mkdocs.yml").read_text()
    missing = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
               if p.relative_to(DOCS).as_posix() not in nav]
    assert not missing, f"pages not in mkdocs.yml's nav: {missing}"


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines; the front page stays within 120"


@pytest.mark.parametrize("page", [p for p in MANUAL
                                  if not any(a in p.relative_to(ROOT).as_posix() for a in LONG_ALLOWED)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_paragraph_is_too_long(page):
    long = [(len(p.split()), p[:80]) for p in paragraphs(page.read_text()) if len(p.split()) > MAX_WORDS]
    assert not long, f"{page.relative_to(ROOT)}: paragraphs over {MAX_WORDS} words: {long}"


def test_the_paragraph_counter_sees_long_paragraphs():
    """The check above can fail: a long paragraph is caught, a long code block or table is not."""
    long = " ".join(["word"] * 151)
    assert [len(p.split()) for p in paragraphs(f"intro\n\n{long}\n")] == [1, 151]
    assert paragraphs(f"```text\n{long}\n```\n| {long} |\n") == []
    assert [len(p.split()) for p in paragraphs("- one two\n- three\n  four\n")] == [3, 3]


@pytest.mark.parametrize("page", MANUAL, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_pages_speak_of_the_product(page):
    hits = [m.group(0) for m in DEVELOPMENT_WORDS.finditer(page.read_text())]
    assert not hits, f"{page.relative_to(ROOT)}: words about the development, not the product: {hits}"


def test_the_citation_and_the_licence_agree_with_the_package():
    """CITATION.cff, LICENSE and pyproject.toml name the same version and licence."""
    import tomllib

    import yaml

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    from evolve.core.version import __version__

    assert cff["version"] == __version__ and cff["license"] == meta["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert f"## [{__version__}]" in (ROOT / "CHANGELOG.md").read_text()
    json.dumps(cff, default=str)     # plain data


def test_the_files_reference_names_every_file_and_field_a_run_writes(tmp_path):
    """docs/reference/files.md is written by hand, so a run checks it: every file of a run
    folder, every field of its logbook and of champion.json is named there (in backticks)."""
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "evolve.run", str(ROOT / "tests/configs/tiny_spades_es.toml"),
                           "--out", str(out), "--generations", "3", "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    page = (DOCS / "reference" / "files.md").read_text()
    named = set(re.findall(r"`([^`]+)`", page))
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    logbook = {key for record in json.loads((out / "logbook.json").read_text()) for key in record}
    champion = set(json.loads((out / "champion.json").read_text()))
    missing = sorted((written | logbook | champion) - named)
    assert written and logbook and champion
    assert not missing, f"docs/reference/files.md does not name {missing}"
