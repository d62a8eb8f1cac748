"""Atomic file writes: a temp file in the same folder, fsync, then rename, so a crash
leaves either the old file or the new one, never a torn one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | Path, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write(f)`` on a temp file beside ``path`` and move it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644 & ~_umask())  # mkstemp makes 0600; published files should not be
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def read_npz(path: str | Path, what: str) -> dict:
    """Every array of the ``.npz`` at ``path`` (never unpickling anything). A missing,
    truncated or foreign file is one ``UsageError`` naming the file and ``what`` it should
    be; numpy's own advice (to allow pickles) is never passed on."""
    import zipfile

    import numpy as np

    from evolve.errors import UsageError

    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: np.array(data[name]) for name in data.files}
    except FileNotFoundError:
        raise UsageError(f"{path}: not found; expected {what}") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder; expected {what}") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError):
        raise UsageError(f"{path}: corrupt or truncated file (not a readable .npz); expected {what}") from None
