"""Errors that CLIs turn into a one-line message and exit code 2, and the one check of an
integer argument that every layer uses."""

from __future__ import annotations

import numpy as np


class UsageError(ValueError):
    """Bad user input: unknown names, invalid option values, malformed files."""


def is_int(value) -> bool:
    """A Python or numpy integer (``True`` and ``False`` are not integers here)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _expected(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an integer {low}..{high}"
    if low == 0:
        return "a non-negative integer"
    if low == 1:
        return "a positive integer"
    return "an integer" + (f" >= {low}" if low is not None else "")


def checked_int(value, what: str, low: int | None = None, high: int | None = None, expect: str = "",
                error: type[Exception] = UsageError) -> int:
    """``value`` as an ``int`` when it is an integer in ``[low, high]``; otherwise ``error``
    with one line: ``<what>=<value> is invalid; expected <expect>`` (by default the range)."""
    if not is_int(value) or (low is not None and value < low) or (high is not None and value > high):
        raise error(f"{what}={value!r} is invalid; expected {expect or _expected(low, high)}")
    return int(value)
