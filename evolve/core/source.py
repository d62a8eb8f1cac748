"""A digest of the package's source: what decides whether stored work (a reproduction's
units) is stale and whether a cluster's workers run the same code as the caller."""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent


def source_digest() -> str:
    """A short hash of every source file of the package, by path and contents."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
