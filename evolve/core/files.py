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


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (``atomic_write``)."""
    return atomic_write(path, lambda f: f.write(text.encode()))


def read_npz(path: str | Path, what: str) -> dict:
    """Every array of the ``.npz`` at ``path`` (never unpickling anything). A missing,
    truncated or foreign file is one ``UsageError`` naming the file and ``what`` it should
    be; numpy's own advice (to allow pickles) is never passed on."""
    import zipfile

    import numpy as np

    from evolve.core.errors import UsageError

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


def write_npz_json(directory: str | Path, stem: str, arrays: dict, meta: dict) -> Path:
    """Write ``<stem>.npz`` (the named ``arrays``, no pickle) and ``<stem>.json`` (``meta``,
    indented) into ``directory``, each atomically; return the path of the ``.npz``."""
    import json

    import numpy as np

    directory = Path(directory)
    atomic_write(directory / f"{stem}.npz", lambda f: np.savez(f, **arrays))
    atomic_write(directory / f"{stem}.json", lambda f: f.write((json.dumps(meta, indent=2) + "\n").encode()))
    return directory / f"{stem}.npz"


def npz_json_paths(path: str | Path, stem: str, what: str, expected: str = "") -> tuple[Path, Path]:
    """The ``.npz`` at ``path`` (``<stem>.npz`` when ``path`` is a folder) and the ``.json``
    beside it. A missing one is one ``UsageError`` naming the file and ``what`` it holds
    (``expected``, if given, is appended to the first message)."""
    from evolve.core.errors import UsageError

    path = Path(path)
    if path.is_dir():
        path = path / f"{stem}.npz"
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        raise UsageError(f"{what} file {str(path)!r} not found{expected}")
    if not meta_path.is_file():
        raise UsageError(f"{what} metadata {str(meta_path)!r} not found (expected beside {path.name})")
    return path, meta_path
