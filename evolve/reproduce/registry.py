"""The papers (the five source documents) and their reproductions, registered by name.

A ``Document`` is one of the five papers; a ``Reproduction`` is one of its tables (or
figures) set beside ours: a function ``run(ctx) -> list[Cell]`` that plays what the table
measured, on the full budget or on the ``--quick`` one (``Context.budget``), or the reason
it cannot be reproduced here (``unavailable``: the Jass paper's human games, say). Each
paper's module (``evolve.reproduce.euchre`` ...) registers its reproductions on import;
``evolve.reproduce.documents`` imports them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Document:
    """A paper: its name for ``python -m evolve.reproduce``, its citation (author and
    year), its title, the file name of its plain text among the source documents, and the
    versions of one of our players its cells may be played with (``versions``: (key,
    label) pairs; a cell names its version in ``extra["version"]``): the summaries count
    each version on its own row, since every version compares the same figures of the
    paper again."""

    name: str
    cite: str
    title: str
    text_file: str
    versions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Reproduction:
    """One table or figure of a document beside ours."""

    document: str
    key: str                     # "table1", "figure2": unique within the document
    title: str                   # what the table shows
    source: str                  # where in the document: "Table 1 (Section 3.1)"
    run: Callable | None = None  # run(ctx) -> list[Cell]
    unavailable: str = ""        # why it cannot be reproduced here
    notes: tuple[str, ...] = ()  # printed under the table: the setup, what differs and why
    digits: int = 2
    plot: Callable | None = None  # plot(cells, path) -> path; default: evolve.reproduce.plots.dots
    plot_needs_run: bool = False  # its plot draws what only a run holds (not its cells): kept on a rebuild
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.document}.{self.key}"


DOCUMENTS: dict[str, Document] = {}
REPRODUCTIONS: dict[str, list[Reproduction]] = {}


def document(doc: Document) -> Document:
    """Register a source document."""
    DOCUMENTS[doc.name] = doc
    REPRODUCTIONS.setdefault(doc.name, [])
    return doc


def register(rep: Reproduction) -> Reproduction:
    """Register a reproduction of a registered document (keys unique within it)."""
    if rep.document not in DOCUMENTS:
        raise ValueError(f"unknown document {rep.document!r}")
    if any(r.key == rep.key for r in REPRODUCTIONS[rep.document]):
        raise ValueError(f"{rep.name} registered twice")
    if (rep.run is None) == (not rep.unavailable):
        raise ValueError(f"{rep.name}: give either run or the reason it is unavailable")
    REPRODUCTIONS[rep.document].append(rep)
    return rep
