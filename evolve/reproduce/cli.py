"""The command line of ``python -m evolve.reproduce``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.core.cli import Parser, add_scheduler
from evolve.core.errors import UsageError
from evolve.reproduce.documents import DOCUMENTS, REPRODUCTIONS


def main(argv: list[str] | None = None) -> int:
    """``python -m evolve.reproduce PAPER|all|list|publish PAPER|rebuild PAPER|summary [options]``."""
    from evolve.reproduce.runner import counts, kinds_line, rows, run_document, section

    names = ", ".join(DOCUMENTS)
    p = Parser(prog="python -m evolve.reproduce",
               description="Play the papers' tables and set every figure beside the paper's.")
    p.add_argument("paper", metavar="PAPER",
                   help=f"{names}, all, list (the papers and their tables), publish PAPER (copy its last full run "
                        "to the docs), rebuild PAPER|all (write the published pages again from their cells.json, "
                        "playing nothing) or summary (regenerate the docs' summary tables)")
    p.add_argument("name", nargs="?", default="", metavar="PAPER", help="the paper to publish or rebuild")
    p.add_argument("--quick", action="store_true", help="every table on a small budget (minutes for all)")
    p.add_argument("--json", action="store_true", help="print one JSON object with a row per cell")
    p.add_argument("--tables", default="", help="comma-separated table keys of one paper (default: all)")
    p.add_argument("--workers", type=int, default=0, help="processes (default 0: every core); results do not "
                                                          "depend on it")
    add_scheduler(p)
    p.add_argument("--out", default="plots/reproduce", help="output folder (default plots/reproduce)")
    p.add_argument("--fresh", action="store_true", help="recompute every unit of work instead of resuming")
    p.add_argument("--no-progress", action="store_true", help="no progress lines")
    p.add_argument("--docs", default="docs/reproductions", help="where publish copies a run, rebuild rewrites them "
                                                                "and summary reads them (default docs/reproductions)")
    a = p.parse_args(argv)
    if a.paper in ("publish", "rebuild", "summary"):
        return _publish(a)
    if a.name:
        raise UsageError(f"unexpected argument {a.name!r}; a second name is only taken by publish and rebuild")
    if a.paper == "list":
        for name, doc in DOCUMENTS.items():
            print(f"{name}: {doc.cite}, {doc.title}")
            for rep in REPRODUCTIONS[name]:
                status = f"  (cannot be reproduced: {rep.unavailable})" if rep.unavailable else ""
                print(f"  {rep.key:<12} {rep.source}: {rep.title}{status}")
        return 0
    if a.paper != "all" and a.paper not in DOCUMENTS:
        raise UsageError(f"unknown paper {a.paper!r}; expected one of {names}, all, list, publish, rebuild or summary")
    if a.workers < 0:
        raise UsageError(f"--workers {a.workers} is invalid; expected a non-negative integer (0: every core)")
    keys = tuple(k for k in a.tables.split(",") if k)
    documents = list(DOCUMENTS) if a.paper == "all" else [a.paper]
    if keys:
        if len(documents) != 1:
            raise UsageError("--tables needs one paper, not all")
        known = [r.key for r in REPRODUCTIONS[documents[0]]]
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise UsageError(f"--tables: unknown table(s) {', '.join(unknown)} of {documents[0]}; valid: "
                             f"{', '.join(known)}")
    report, out = {}, Path(a.out)
    for name in documents:
        outcomes = run_document(name, quick=a.quick, workers=a.workers, out=out, progress=not a.no_progress,
                                fresh=a.fresh, keys=keys)
        report[name] = outcomes
        if not a.json:
            doc = DOCUMENTS[name]
            print(f"\n=== {name}: {doc.cite}, {doc.title}\n")
            for o in outcomes:
                print(section(o, markdown_table=False) + "\n")
            tally = counts(outcomes)
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in tally.items()) + f"; written to {out / name}")
            print(kinds_line(rows(outcomes), doc.versions))
    if a.json:
        json.dump({"quick": a.quick, "rows": [r for outcomes in report.values() for r in rows(outcomes)]},
                  sys.stdout, default=str)
        print()
    return 0


def _publish(a) -> int:
    """``publish PAPER`` or ``rebuild PAPER|all``, then the summary; or the summary alone."""
    from evolve.reproduce.publish import publish, rebuild, rewrite, summary_targets

    docs = Path(a.docs)
    if a.paper == "publish":
        if a.name not in DOCUMENTS:
            raise UsageError(f"publish: unknown paper {a.name!r}; expected one of {', '.join(DOCUMENTS)}")
        print(f"published {publish(a.name, Path(a.out), docs)}")
    elif a.paper == "rebuild":
        if a.name != "all" and a.name not in DOCUMENTS:
            raise UsageError(f"rebuild: unknown paper {a.name!r}; expected one of {', '.join(DOCUMENTS)} or all")
        for name in DOCUMENTS if a.name == "all" else [a.name]:
            print(f"rebuilt {rebuild(name, docs)} from its cells.json")
    elif a.name:
        raise UsageError(f"summary takes no paper (got {a.name!r})")
    for path, text, prefix in summary_targets(docs):
        changed = rewrite(path, text, link_prefix=prefix)
        print(f"{path}: {'summary rewritten' if changed else 'summary already up to date'}")
    return 0
