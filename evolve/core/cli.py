"""Shared command-line plumbing: one-line errors with exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, NoReturn

from evolve.core.errors import UsageError


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr and exit code 2. A
    command with ``add_scheduler`` connects to the Dask scheduler its ``--scheduler`` names
    as its arguments are parsed, so every parallel step it runs goes there."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        parsed = super().parse_args(args, namespace)
        if getattr(parsed, "scheduler", None):
            from evolve.core.pool import use_scheduler

            use_scheduler(parsed.scheduler)
        return parsed


def add_scheduler(p: argparse.ArgumentParser) -> None:
    """The ``--scheduler ADDRESS`` flag of a command that runs parallel work."""
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the parallel work on the Dask cluster of this scheduler (tcp://host:8786) instead of "
                        "local processes; the results are the same")


def run(main: Callable[[list[str] | None], int | None], argv: list[str] | None = None, prog: str = "evolve") -> int:
    """Call ``main(argv)``; turn UsageError into a one-line message and exit code 2."""
    try:
        code = main(argv)
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away; that is not an error of ours
        sys.stderr.close()
        return 0
    return int(code or 0)


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``["k=v", ...]`` from repeated ``--option`` flags into a dict."""
    out: dict[str, str] = {}
    for item in pairs or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"--option {item!r} is not key=value")
        out[key.strip()] = value.strip()
    return out
