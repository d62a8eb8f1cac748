"""How many worker processes "all cores" means here."""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_workers(workers: int) -> int:
    """``workers`` processes, with 0 meaning every available core."""
    return available_cores() if int(workers) == 0 else int(workers)
