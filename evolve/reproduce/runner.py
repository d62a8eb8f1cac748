"""Run a document's reproductions, resume them, and write what they found.

Every reproduction plays its table through ``Context``: ``ctx.budget(full, quick)`` picks
the size, and ``ctx.memo(key, compute)`` runs one unit of work (a pairing, an evolution
run) or loads its result from the work folder, so an interrupted reproduction resumes at
the unit it was in (the results are JSON files; nothing is unpickled). A unit's key holds
its parameters, the budget and a hash of the package's sources, so a result of other code
is never reused. Outputs, under ``plots/reproduce/<document>/`` (``--out``):

- ``reproduce.md``: every table beside the seed's, with the budgets and notes;
- ``<table>.png``: the seed's figures and ours with their 95% CIs;
- ``cells.json``: one row per cell (the ``--json`` rows).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evolve.core.files import atomic_write_text
from evolve.core.progress import Progress
from evolve.reproduce.cells import VERDICTS, Cell, markdown, text
from evolve.reproduce.registry import DOCUMENTS, REPRODUCTIONS, Reproduction

_PACKAGE = Path(__file__).resolve().parent.parent


def source_hash() -> str:
    """A hash of every source file of the package (a unit computed by other code is stale)."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        h.update(path.relative_to(_PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class Context:
    """What a reproduction runs with: the budget, the workers, the work folder (resume),
    and a progress line per unit of work."""

    quick: bool = False
    workers: int = 0
    work: Path | None = None
    progress: bool = True
    fresh: bool = False
    units_done: int = 0
    units_loaded: int = 0
    _code: str = field(default="", repr=False)
    # units computed by this run: --fresh ignores earlier runs' results, not this run's own
    # (two tables sharing a unit, such as the bidding article's bulk tables, compute it once)
    _computed_here: set = field(default_factory=set, repr=False)

    def budget(self, full, quick):
        """``full`` or, with ``--quick``, ``quick``."""
        return quick if self.quick else full

    def memo(self, key: dict, compute: Callable[[], dict]) -> dict:
        """``compute()`` (plain JSON data), or its stored result for ``key`` from an earlier,
        interrupted or finished run of the same code and budget."""
        if self.work is None:
            return compute()
        self._code = self._code or source_hash()
        blob = json.dumps({"key": key, "quick": self.quick, "code": self._code}, sort_keys=True, default=str)
        path = self.work / f"{hashlib.sha256(blob.encode()).hexdigest()[:24]}.json"
        if path.is_file() and (not self.fresh or path in self._computed_here):
            try:
                self.units_loaded += 1
                return json.loads(path.read_text())["result"]
            except (ValueError, KeyError):
                pass            # a damaged file: computed again
        result = compute()
        self.work.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"key": json.loads(blob), "result": result}, default=_jsonable))
        self._computed_here.add(path)
        self.units_done += 1
        return json.loads(json.dumps(result, default=_jsonable))


def _jsonable(x):
    import numpy as np

    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON data")


@dataclass
class Outcome:
    """A reproduction's cells (or why it was not run) and what it took."""

    reproduction: Reproduction
    cells: list[Cell]
    seconds: float
    budget: str


def run_document(name: str, *, quick: bool = False, workers: int = 0, out: Path | None = None,
                 progress: bool = True, fresh: bool = False, keys: tuple[str, ...] = ()) -> list[Outcome]:
    """Every reproduction of document ``name`` (or those in ``keys``), resumed from the work
    folder under ``out``; writes the outputs there and returns the outcomes."""
    folder = (out or Path("plots") / "reproduce") / name
    ctx = Context(quick=quick, workers=workers, work=folder / "work", progress=progress, fresh=fresh)
    reps = [r for r in REPRODUCTIONS[name] if not keys or r.key in keys]
    outcomes = []
    bar = Progress(len(reps), f"reproduce {name}", "table", enabled=progress)
    for rep in reps:
        start = time.perf_counter()
        cells = rep.run(ctx) if rep.run is not None else []
        outcomes.append(Outcome(rep, cells, time.perf_counter() - start, "quick" if quick else "full"))
        bar.update(1, table=rep.key)
    bar.close()
    write_outputs(name, outcomes, folder)
    return outcomes


def rows(outcomes: list[Outcome]) -> list[dict]:
    """Every cell as a JSON row (with the reproduction's key, title, source and budget);
    a reproduction that cannot be run is one row with its reason."""
    out = []
    for o in outcomes:
        rep = o.reproduction
        head = {"reproduction": rep.key, "title": rep.title, "source": rep.source, "budget": o.budget}
        if rep.unavailable:
            out.append({"document": rep.document, **head, "seed": None, "ours": None, "ci": None,
                        "verdict": "cannot be reproduced", "reason": rep.unavailable})
        for c in o.cells:
            out.append({**head, **c.as_row(rep.document)})
    return out


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    """How many cells got each verdict (and how many tables cannot be reproduced)."""
    out = {v: 0 for v in VERDICTS}
    for o in outcomes:
        for c in o.cells:
            out[c.verdict] += 1
    out["cannot be reproduced"] = sum(1 for o in outcomes if o.reproduction.unavailable)
    return out


def section(o: Outcome, markdown_table: bool = True) -> str:
    """One reproduction as text: its title, source, budget and time, the cells, the notes."""
    rep = o.reproduction
    head = f"{rep.source}: {rep.title}"
    if rep.unavailable:
        return f"{head}\n\ncannot be reproduced here: {rep.unavailable}"
    body = markdown(o.cells, rep.digits) if markdown_table else text(o.cells, rep.digits)
    notes = "\n".join(f"- {n}" for n in rep.notes)
    return f"{head} ({o.budget} budget, {o.seconds:.0f} s)\n\n{body}" + (f"\n\n{notes}" if notes else "")


def write_outputs(name: str, outcomes: list[Outcome], folder: Path) -> None:
    """``reproduce.md``, a PNG per table and ``cells.json`` of a document under ``folder``."""
    from evolve.reproduce.plots import dots, verdicts

    doc = DOCUMENTS[name]
    folder.mkdir(parents=True, exist_ok=True)
    tally = counts(outcomes)
    parts = [f"# Reproducing {doc.cite}", "", f"*{doc.title}* (`../shared/seeds/{doc.seed_file}`).", "",
             ", ".join(f"{k}: {v}" for k, v in tally.items()) + " (cells; tables for the last)", ""]
    for o in outcomes:
        parts += [f"## {o.reproduction.key}", "", section(o), ""]
        if o.cells and any(c.ours is not None for c in o.cells):
            png = (o.reproduction.plot or dots)(o.cells, folder / f"{o.reproduction.key}.png",
                                                 f"{doc.cite}, {o.reproduction.source}")
            parts += [f"![{o.reproduction.key}]({png.name})", ""]
    if sum(1 for o in outcomes if o.cells) > 1 and any(c.verdict != "not compared" for o in outcomes for c in o.cells):
        verdicts(rows(outcomes), folder / "summary.png", f"{doc.cite}: every compared cell")
        parts[6:6] = ["![every compared cell](summary.png)", ""]
    atomic_write_text(folder / "reproduce.md", "\n".join(parts).rstrip() + "\n")
    atomic_write_text(folder / "cells.json", json.dumps(rows(outcomes), indent=1, default=_jsonable) + "\n")
