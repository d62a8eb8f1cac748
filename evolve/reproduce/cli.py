"""The command line of ``python -m evolve.reproduce``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evolve.core.cli import Parser
from evolve.core.errors import UsageError
from evolve.reproduce.documents import DOCUMENTS, REPRODUCTIONS


def main(argv: list[str] | None = None) -> int:
    """``python -m evolve.reproduce SEED|all|list [options]``."""
    from evolve.reproduce.runner import counts, rows, run_document, section

    names = ", ".join(DOCUMENTS)
    p = Parser(prog="python -m evolve.reproduce",
               description="Play the source documents' tables and set every figure beside the document's.")
    p.add_argument("seed", help=f"{names}, all, list (the documents and their tables), publish DOCUMENT (copy its "
                                "last full run to the docs) or summary (regenerate the docs' summary tables)")
    p.add_argument("document", nargs="?", default="", help="the document to publish")
    p.add_argument("--quick", action="store_true", help="every table on a small budget (minutes for all)")
    p.add_argument("--json", action="store_true", help="print one JSON object with a row per cell")
    p.add_argument("--tables", default="", help="comma-separated table keys of one document (default: all)")
    p.add_argument("--workers", type=int, default=0, help="processes (default 0: every core); results do not "
                                                          "depend on it")
    p.add_argument("--out", default="plots/reproduce", help="output folder (default plots/reproduce)")
    p.add_argument("--fresh", action="store_true", help="recompute every unit of work instead of resuming")
    p.add_argument("--no-progress", action="store_true", help="no progress lines")
    p.add_argument("--docs", default="docs/reproductions", help="where publish copies a run and summary reads them "
                                                                "(default docs/reproductions)")
    a = p.parse_args(argv)
    if a.seed in ("publish", "summary"):
        return _publish(a)
    if a.document:
        raise UsageError(f"unexpected argument {a.document!r}; a second name is only taken by publish")
    if a.seed == "list":
        for name, doc in DOCUMENTS.items():
            print(f"{name}: {doc.cite}, {doc.title}")
            for rep in REPRODUCTIONS[name]:
                status = f"  (cannot be reproduced: {rep.unavailable})" if rep.unavailable else ""
                print(f"  {rep.key:<12} {rep.source}: {rep.title}{status}")
        return 0
    if a.seed != "all" and a.seed not in DOCUMENTS:
        raise UsageError(f"unknown document {a.seed!r}; expected one of {names}, all or list")
    if a.workers < 0:
        raise UsageError(f"--workers {a.workers} is invalid; expected a non-negative integer (0: every core)")
    keys = tuple(k for k in a.tables.split(",") if k)
    documents = list(DOCUMENTS) if a.seed == "all" else [a.seed]
    if keys:
        if len(documents) != 1:
            raise UsageError("--tables needs one document, not all")
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
    if a.json:
        json.dump({"quick": a.quick, "rows": [r for outcomes in report.values() for r in rows(outcomes)]},
                  sys.stdout, default=str)
        print()
    return 0


def _publish(a) -> int:
    """``publish DOCUMENT`` then the summary, or the summary alone."""
    from evolve.reproduce.publish import overview, publish, rewrite, summary

    docs = Path(a.docs)
    if a.seed == "publish":
        if a.document not in DOCUMENTS:
            raise UsageError(f"publish: unknown document {a.document!r}; expected one of {', '.join(DOCUMENTS)}")
        print(f"published {publish(a.document, Path(a.out), docs)}")
    elif a.document:
        raise UsageError(f"summary takes no document (got {a.document!r})")
    for path, text, prefix in ((docs.parent / "reproductions.md", summary(docs), ""),
                               (docs.parent.parent / "README.md", overview(docs), "docs/")):
        if path.is_file():
            changed = rewrite(path, text, link_prefix=prefix)
            print(f"{path}: {'summary rewritten' if changed else 'summary already up to date'}")
    return 0
