"""Run a paper's reproductions, resume them, and write what they found.

Every reproduction plays its table through ``Context``: ``ctx.budget(full, quick)`` picks
the size, and ``ctx.memo(key, compute)`` runs one unit of work (a pairing, an evolution
run) or loads its result from the work folder, so an interrupted reproduction resumes at
the unit it was in (the results are JSON files; nothing is unpickled). A unit's key holds
its parameters, the budget and a hash of the package's sources, so a result of other code
is never reused. Outputs, under ``plots/reproduce/<paper>/`` (``--out``):

- ``reproduce.md``: every table beside the paper's, with the budgets and notes;
- ``<table>.png``: the paper's figures and ours with their 95% CIs;
- ``cells.json``: one row per cell (the ``--json`` rows).

``rebuild`` writes the same outputs again from a folder's ``cells.json`` and the wall times
in its ``reproduce.md``, without playing anything.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from evolve.core.files import atomic_write_text
from evolve.core.progress import Progress
from evolve.core.source import source_digest
from evolve.reproduce.cells import VERDICTS, Cell, from_row, markdown, tally, text
from evolve.reproduce.registry import DOCUMENTS, REPRODUCTIONS, Reproduction


def source_hash() -> str:
    """A hash of every source file of the package (a unit computed by other code is stale)."""
    return source_digest()


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
            out.append({"document": rep.document, **head, "paper": None, "ours": None, "ci": None,
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


def kinds_line(rows: list[dict], versions: tuple[tuple[str, str], ...] = ()) -> str:
    """The cells by kind and verdict (``evolve.reproduce.cells.tally``), and by version of
    the paper's ``versions`` where its cells name one, as sentences."""
    def counted(t: dict) -> str:
        return (f"measured cells reproduced {t['measured reproduced']}, differ {t['measured differs']}; arithmetic, "
                f"fitted or certain cells reproduced {t['computed reproduced']}, differ {t['computed differs']}; not "
                f"compared {t['not compared']}")

    if not versions:
        return _capital(counted(tally(rows))) + "."
    groups = [(label, [r for r in rows if r.get("version", "") == key]) for key, label in versions]
    return " ".join(f"{_capital(label)}: {counted(tally(mine))}." for label, mine in groups if mine)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def write_outputs(name: str, outcomes: list[Outcome], folder: Path, *, rebuilt: bool = False) -> None:
    """``reproduce.md``, a PNG per table and ``cells.json`` of a paper under ``folder``
    (``rebuilt``: from a published run's cells, where a plot that needs the run is kept)."""
    from evolve.reproduce.plots import dots, verdicts

    doc = DOCUMENTS[name]
    folder.mkdir(parents=True, exist_ok=True)
    every = rows(outcomes)
    parts = [f"# Reproducing {doc.cite}", "", f"{doc.cite}, *{doc.title}*.", "",
             ", ".join(f"{k}: {v}" for k, v in counts(outcomes).items()) + " (cells; tables for the last). "
             + kinds_line(every, doc.versions), ""]
    for o in outcomes:
        rep = o.reproduction
        parts += [f"## {rep.key}", "", section(o), ""]
        if o.cells and any(c.ours is not None for c in o.cells):
            path = folder / f"{rep.key}.png"
            if not (rebuilt and rep.plot_needs_run and path.is_file()):
                path = (rep.plot or dots)(o.cells, path, f"{doc.cite}, {rep.source}")
            parts += [f"![{rep.key}]({path.name})", ""]
    if sum(1 for o in outcomes if o.cells) > 1 and any(c.verdict != "not compared" for o in outcomes for c in o.cells):
        verdicts(every, folder / "summary.png", f"{doc.cite}: every compared cell")
        parts[6:6] = ["![every compared cell](summary.png)", ""]
    atomic_write_text(folder / "reproduce.md", "\n".join(parts).rstrip() + "\n")
    atomic_write_text(folder / "cells.json", json.dumps(every, indent=1, default=_jsonable) + "\n")


_HEAD = re.compile(r"^## (\S+)\n\n[^\n]*\((full|quick) budget, (\d+) s\)$", re.M)   # a table's first line


def outcomes_from(name: str, folder: Path) -> list[Outcome]:
    """The outcomes of a written run of paper ``name`` (``folder``'s ``cells.json``, and
    from its ``reproduce.md`` the order of the tables and each one's wall time in whole
    seconds), in the registry's reproductions of today."""
    from evolve.core.errors import UsageError

    cells, md = folder / "cells.json", folder / "reproduce.md"
    if not cells.is_file() or not md.is_file():
        raise UsageError(f"{folder}: no written run of {name} (cells.json and reproduce.md) to rebuild")
    try:
        found = json.loads(cells.read_text())
    except ValueError as e:
        raise UsageError(f"{cells}: not JSON rows of python -m evolve.reproduce ({e})") from None
    text = md.read_text()
    seconds = {m.group(1): int(m.group(3)) for m in _HEAD.finditer(text)}
    reps = {r.key: r for r in REPRODUCTIONS[name]}
    out = []
    for key in re.findall(r"^## (\S+)$", text, re.M):
        if key not in reps:
            raise UsageError(f"{md}: table {key!r} is not a reproduction of {name} any more; run it again")
        mine = [r for r in found if r.get("reproduction") == key]
        budget = mine[0].get("budget", "full") if mine else "full"
        cells_ = [from_row(r) for r in mine if r.get("verdict") != "cannot be reproduced"]
        out.append(Outcome(reps[key], cells_, float(seconds.get(key, 0)), budget))
    return out


def rebuild(name: str, folder: Path) -> list[Outcome]:
    """Write ``folder``'s ``reproduce.md``, ``cells.json`` and PNGs again from its cells,
    playing nothing: the pages of a published run after the code that writes them changed."""
    outcomes = outcomes_from(name, folder)
    write_outputs(name, outcomes, folder, rebuilt=True)
    return outcomes

