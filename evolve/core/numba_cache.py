"""Where Numba caches compiled kernels, and the notice printed before a compile.

One cache per machine and version, wherever the package is installed: kernels are cached
under ``<cache>/trick-evolve/numba/<key>``, where the key hashes the package version, the
Numba version and the *contents* of every package source file that uses Numba or defines
a ``@kernel`` (the kernels and the modules whose constants and helpers they compile in; Numba itself checks
only the kernel's own file, so an edit to a module it calls could otherwise load an
outdated kernel). Editing a CLI or a report does not force a recompile.

Inside that folder ``PackageLocator`` files each kernel by its path *relative to the
package* (Numba's own locators use a hash of the absolute folder), so a checkout and a
pip-installed copy of the same version share the cache; Numba's index checks a hash of
the source file's contents, not its path or time stamp. A user-set ``NUMBA_CACHE_DIR`` is
respected (with the same relative layout).

``configure`` also registers a listener on Numba's ``numba:compile`` event, which fires
only when a kernel is really compiled (not when it is loaded from the cache): the first
compile of an engine kernel (``evolve.runtime.batch.batch_kernel``) prints one line on stderr
naming the game and agent families with an estimate (likewise the search agents'
callback); any other compile that lasts more than ``GENERIC_DELAY`` seconds prints a
generic line unless a notice was already printed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
import weakref
from contextlib import contextmanager
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent     # the evolve package
_KEEP = 3


def source_hash() -> str:
    """Short hash of the package version, the Numba version and the contents of the
    package's Python sources that use Numba (relative paths, never absolute ones)."""
    from evolve.core.version import __version__

    h = hashlib.sha256()
    h.update(f"trick-evolve {__version__}".encode())
    try:
        from importlib.metadata import version

        h.update(f"numba {version('numba')}".encode())
    except Exception:  # pragma: no cover - numba without metadata
        pass
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        # "@kernel": modules whose kernels are compiled through evolve.games.bits.kernel
        # without naming numba (rule-based play, the table bidders); their edits must not
        # load an engine compiled from the old source
        if (b"numba" not in text and b"@kernel" not in text) or path == Path(__file__).resolve():
            continue
        h.update(path.relative_to(_PACKAGE).as_posix().encode())
        h.update(text)
    return h.hexdigest()[:16]


def _make_locator():
    from numba.core import caching, config

    class PackageLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Numba cache locator for this package's kernels: ``CACHE_DIR/evolve/<relative
        folder>``, independent of where the package is installed."""

        def __init__(self, py_func, py_file, rel):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(config.CACHE_DIR, "evolve", *rel.parts)

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if not config.CACHE_DIR:
                return None
            try:
                rel = Path(py_file).resolve().relative_to(_PACKAGE).parent
            except (ValueError, OSError):
                return None
            if not os.path.exists(py_file):
                return None
            self = cls(py_func, py_file, rel)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    return PackageLocator


_configured = False


def configure() -> str | None:
    """Point Numba's cache at ``<cache>/trick-evolve/numba/<key>`` (unless
    ``NUMBA_CACHE_DIR`` is set), prune old keys, install the package locator and the
    compile notice. Must run before any kernel is defined (``evolve/__init__`` does)."""
    global _configured
    import numba
    from numba.core import caching, event

    if not _configured:
        _configured = True
        caching.CacheImpl._locator_classes.insert(0, _make_locator())
        event.register("numba:compile", _NOTICE)
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
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
    """Whether an engine kernel is already compiled for this machine and source; True
    when unknown."""
    import numba

    folder = Path(numba.config.CACHE_DIR or "")
    if not numba.config.CACHE_DIR or not folder.is_dir():
        return True
    return any(folder.rglob("batch.play_batch_kernel*.nbc"))


# ----------------------------------------------------------------------------- notice

# Rough compile times measured on a 2-core machine (seconds): the engine of one game with random
# play and its bidders, plus each agent family's own share (evolve.agents.dispatch.FAMILIES).
ENGINE_SECONDS = 10.0
GENERIC_DELAY = 3.0   # seconds before an unregistered compile is announced


def about(seconds: float) -> str:
    """A rough duration for a notice: 'about 35 s', 'about a minute', 'about 3 min'."""
    if seconds < 60:
        return f"about {max(5, int(round(seconds / 5.0)) * 5)} s"
    return f"about {seconds / 60:.0f} min" if seconds >= 90 else "about a minute"


class _Notice:
    """Prints one line on stderr when a kernel is about to be compiled (see the module
    docstring); Numba broadcasts ``numba:compile`` only for real compiles."""

    def __init__(self):
        self.lock = threading.Lock()
        self.kernels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.announced: set = set()
        self.local = threading.local()
        self.any = False
        self.quiet = False

    def register(self, dispatcher, what: str, seconds: float) -> None:
        self.kernels[dispatcher] = (what, seconds)

    def say(self, key, text: str) -> None:
        with self.lock:
            if self.quiet or key in self.announced:
                return
            self.announced.add(key)
            self.any = True
        print(text, file=sys.stderr, flush=True)

    def notify(self, ev) -> None:
        depth = getattr(self.local, "depth", 0)
        if ev.is_start:
            self.local.depth = depth + 1
            if depth:
                return
            disp = (ev.data or {}).get("dispatcher")
            try:
                entry = self.kernels.get(disp)
            except TypeError:
                entry = None
            if entry is not None:
                what, seconds = entry
                self.say(("kernel", what), f"compiling {what} (first use of this version, {about(seconds)})...")
            elif not self.any:
                # small helper kernels compile in well under a second: say something only
                # if this one takes a while
                self.local.timer = threading.Timer(
                    GENERIC_DELAY, self.say, ("generic", "compiling Numba kernels (first use of this version, "
                                                         "up to a minute)..."))
                self.local.timer.daemon = True
                self.local.timer.start()
        else:
            self.local.depth = max(0, depth - 1)
            timer = getattr(self.local, "timer", None)
            if timer is not None and self.local.depth == 0:
                timer.cancel()
                self.local.timer = None


def _make_notice():
    from numba.core import event

    class Notice(_Notice, event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            pass

    return Notice()


_NOTICE = _make_notice()


def quiet() -> None:
    """No compile notices from this process any more (a worker that compiles what its
    parent announced, ``evolve.runtime.precompile``)."""
    _NOTICE.quiet = True


@contextmanager
def quieted():
    """No compile notices within the block."""
    before = _NOTICE.quiet
    _NOTICE.quiet = True
    try:
        yield
    finally:
        _NOTICE.quiet = before


def announce(key, text: str) -> None:
    """Print ``text`` on stderr once per process (for compiles Numba does not broadcast,
    e.g. ``cfunc`` callbacks)."""
    _NOTICE.say(key, text)


def register_kernel(dispatcher, what: str, seconds: float) -> None:
    """Name a kernel for the compile notice ("compiling <what> (first use of this version,
    about <seconds> s)..."), printed if it is the outermost kernel Numba compiles."""
    _NOTICE.register(dispatcher, what, seconds)


def register_engine(dispatcher, game: str, agents: list[str], seconds: float) -> None:
    """Name an engine kernel for the compile notice: the game, the agent families it
    compiles in and their estimated compile time on top of ``ENGINE_SECONDS``."""
    register_kernel(dispatcher, f"the game kernels for {game} with agents {', '.join(['random', *agents])}",
                    ENGINE_SECONDS + seconds)
