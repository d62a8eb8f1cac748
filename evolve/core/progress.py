"""Progress of long work: a bar on a terminal, plain lines anywhere else.

A tqdm bar redraws itself with carriage returns, which in a log file, under CI or behind
``nohup`` turns into one endless line. ``Progress`` draws the bar only when its stream is
a terminal; otherwise it writes one self-contained line every ``every`` seconds (and a last
one when it closes) with the same figures::

    spades_cardbased: 40/300 gen (13%), 9 s, 4.4 gen/s, best=4.568 mean=4.504 hof=4.568

``EVOLVE_PROGRESS`` overrides the choice: ``bar``, ``lines`` or ``off``.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager

MODES = ("bar", "lines", "off")
LINE_SECONDS = 5.0


def progress_mode(stream=None) -> str:
    """``bar`` on a terminal, ``lines`` otherwise, unless ``EVOLVE_PROGRESS`` says which."""
    forced = os.environ.get("EVOLVE_PROGRESS", "").strip().lower()
    if forced in MODES:
        return forced
    stream = stream or sys.stderr
    try:
        return "bar" if stream.isatty() else "lines"
    except (AttributeError, ValueError):
        return "lines"


def _rate(n: float, seconds: float, unit: str) -> str:
    if seconds <= 0 or n <= 0:
        return ""
    per = n / seconds
    return f", {per:.3g} {unit}/s" if per >= 1 else f", {seconds / n:.3g} s/{unit}"


class Progress:
    """Counts ``total`` steps of ``unit`` under the label ``desc``, with figures (``show``).
    ``enabled`` False draws nothing; the counts are kept either way."""

    def __init__(self, total: int | None, desc: str, unit: str = "it", *, stream=None, enabled: bool = True,
                 initial: int = 0, every: float = LINE_SECONDS, unit_scale: bool = False):
        self.stream = stream or sys.stderr
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = initial
        self.start_n = initial
        self.every = every
        self.figures: dict[str, str] = {}
        self.mode = progress_mode(self.stream) if enabled else "off"
        self.started = time.monotonic()
        self.last_line = self.started
        self.bar = None
        if self.mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, initial=initial, file=self.stream,
                            dynamic_ncols=True, unit_scale=unit_scale)

    def set_total(self, total: int) -> None:
        self.total = total
        if self.bar is not None:
            self.bar.total = total
            self.bar.refresh()

    def show(self, **figures) -> None:
        """Figures to show with the count from now on (``best=4.568``); strings or numbers."""
        self.figures.update({k: str(v) for k, v in figures.items()})
        if self.bar is not None:
            self.bar.set_postfix(self.figures, refresh=False)

    def update(self, n: int = 1, **figures) -> None:
        """``n`` more steps done (and new figures)."""
        if figures:
            self.show(**figures)
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.mode == "lines" and time.monotonic() - self.last_line >= self.every:
            self.line()

    def line(self) -> None:
        """Write the plain progress line now."""
        now = time.monotonic()
        self.last_line = now
        elapsed = now - self.started
        count = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        figures = " ".join(f"{k}={v}" for k, v in self.figures.items())
        rate = _rate(self.n - self.start_n, elapsed, self.unit)
        print(f"{self.desc}: {count} {self.unit}{share}, {elapsed:.0f} s{rate}{', ' + figures if figures else ''}",
              file=self.stream, flush=True)

    def close(self) -> None:
        """Finish: close the bar, or write the last plain line."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.mode == "lines":
            self.line()
        self.mode = "off"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextmanager
def progress_line(desc: str, total: int | None, unit: str = "it", *, stream=None, enabled: bool = True, **kw):
    """``Progress`` as a context manager (closed on the way out)."""
    bar = Progress(total, desc, unit, stream=stream, enabled=enabled, **kw)
    try:
        yield bar
    finally:
        bar.close()


def progress_iter(iterable, total: int | None, desc: str, unit: str = "it", *, enabled: bool = True, **kw):
    """Yield from ``iterable`` counting each item (``Progress``)."""
    with progress_line(desc, total, unit, enabled=enabled, **kw) as bar:
        for item in iterable:
            yield item
            bar.update(1)
