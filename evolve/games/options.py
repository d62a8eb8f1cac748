"""Game and agent options: a named option with its default, its allowed values and help, and
the one-line error that names a bad key or value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Option:
    """A named game option: its default, its allowed values (``choices``) or type, and help."""

    default: Any
    help: str
    choices: tuple | None = None
    kind: type = str
    minimum: float | None = None

    def parse(self, name: str, value: Any) -> Any:
        """Convert ``value`` (a Python value or the string from ``--option k=v``) or raise
        ValueError with a one-line message naming the option and the valid values."""
        if self.kind is bool:
            if isinstance(value, bool):
                v = value
            elif isinstance(value, (int, np.integer)) and value in (0, 1):
                v = bool(value)
            elif isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                v = value.lower() in ("true", "1", "yes", "on")
            else:
                raise ValueError(f"option {name}={value!r} is invalid; expected true or false")
            return v
        if self.kind is float:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"option {name}={value!r} is invalid; expected a number") from None
            if not np.isfinite(v) or (self.minimum is not None and v < self.minimum):
                low = f" >= {self.minimum}" if self.minimum is not None else ""
                raise ValueError(f"option {name}={value!r} is invalid; expected a finite number{low}")
            return v
        if self.kind is int:
            try:
                v = int(value)
                if isinstance(value, float) and value != v:
                    raise ValueError
            except (TypeError, ValueError):
                raise ValueError(f"option {name}={value!r} is invalid; expected an integer") from None
            if self.minimum is not None and v < self.minimum:
                raise ValueError(f"option {name}={value!r} is invalid; expected an integer >= {self.minimum}")
            return v
        v = str(value)
        if self.choices is not None and v not in self.choices:
            raise ValueError(f"option {name}={value!r} is invalid; valid values: {', '.join(self.choices)}")
        return v


def resolve_options(spec: dict[str, Option], given: dict[str, Any], owner: str) -> dict[str, Any]:
    """Defaults of ``spec`` overridden by ``given``; raise UsageError naming the bad key
    or value and listing the valid ones."""
    from evolve.core.errors import UsageError

    values = {k: opt.default for k, opt in spec.items()}
    for key, value in given.items():
        opt = spec.get(key)
        if opt is None:
            raise UsageError(f"unknown option {key!r} for {owner}; valid options: {', '.join(spec) or 'none'}")
        try:
            values[key] = opt.parse(key, value)
        except ValueError as e:
            raise UsageError(f"{owner}: {e}") from None
    return values
