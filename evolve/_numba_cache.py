"""Where Numba caches compiled kernels.

Numba decides whether a cached kernel is stale from the timestamp of the kernel's own
source file only, so an edit to a module it calls (``bits.py``, ``policy.py``, ...) could
load an outdated kernel. We therefore cache under a directory keyed by a hash of every
package source file that uses Numba (kernels and the modules whose constants and
helpers they compile in): any such edit gives a fresh cache, while editing a CLI or a
report does not force a recompile. A user-set ``NUMBA_CACHE_DIR``
is respected as is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_KEEP = 3


def source_hash() -> str:
    """Short hash of the package's Python sources that use Numba."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" not in text:
            continue
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(text)
    return h.hexdigest()[:16]


def configure() -> str | None:
    """Point Numba's cache at ``<cache>/trick-evolve/numba/<source hash>``; prune old ones."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    import numba

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "trick-evolve" / "numba"
    target = base / source_hash()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # read-only home: fall back to Numba's default locations
    numba.config.CACHE_DIR = str(target)
    try:
        old = sorted((p for p in base.iterdir() if p.is_dir() and p != target), key=lambda p: p.stat().st_mtime)
        for p in old[:-_KEEP] if len(old) > _KEEP else []:
            shutil.rmtree(p, ignore_errors=True)
    except OSError:
        pass
    return str(target)


def kernels_cached() -> bool:
    """Whether the game kernel is already compiled for this machine and source (a first
    run compiles for about two minutes); True when unknown."""
    import numba

    folder = Path(numba.config.CACHE_DIR or "")
    if not numba.config.CACHE_DIR or not folder.is_dir():
        return True
    return any(folder.rglob("engine.play_batch-*.nbc"))
