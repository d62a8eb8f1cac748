"""Shared command-line plumbing: one-line errors with exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, NoReturn

from evolve.core.errors import UsageError


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


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
