"""Lazy package attributes (PEP 562): a package's public names, each loaded from the module
that defines it on first use, so importing the package loads none of them."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_exports(package: str, exports: dict[str, str], namespace: dict[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``(__getattr__, __dir__)`` of ``package``, whose public names ``exports`` maps to
    the modules defining them; a name once loaded is kept in ``namespace`` (the package's
    ``globals()``), so the next use finds it directly."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
