"""The one schema of the files a user writes (experiments, studies and their levels): a key
with its type, default, allowed values and description; a file that ``extends`` another;
``--set section.key=value`` overrides typed by the schema. Every mistake is one line that
names the file (or ``--set``), the key and what is expected (``UsageError``, exit 2).

- ``Key``: one schema entry. ``check_table`` checks a table against its keys and fills the
  defaults.
- ``read_toml(path)``: a TOML file with its ``extends`` chain resolved. ``extends = "base.toml"``
  (a path relative to the file) takes the base's tables and lets this file change them: a
  table merges key by key, any other value (a number, a string, a list, a list of tables
  such as ``[[evolution.stages]]``) replaces the base's. A chain may be as long as it likes;
  a file that extends itself, directly or through others, is refused.
- ``apply_sets(data, sets, lookup)``: the ``--set`` overrides, each parsed as a TOML value
  (``evolution.generations=400``, ``network.hidden=[128, 64]``, ``imitation.teacher=ismcts``)
  and then checked against the schema like a value written in the file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from evolve.core.errors import UsageError

#: the key of a file that names the file it extends
EXTENDS = "extends"


#: ``Key.neutral`` of a key that is part of every hash
ALWAYS = object()


@dataclass(frozen=True)
class Key:
    """One schema entry: expected type(s), default (None: required), the wording of what
    is allowed (in errors and the reference), an optional check, and what the key does.

    ``neutral``: for a key added after the files that use the schema were first hashed,
    the value that means what a file written before the key meant; a hash of the file's
    settings leaves the key out at that value, so older files keep their hash."""

    types: tuple
    default: Any
    expect: str
    check: Callable[[Any], bool] | None = None
    doc: str = ""
    neutral: Any = ALWAYS


def positive(x) -> bool:
    return x > 0


def non_negative(x) -> bool:
    return x >= 0


def unit_interval(x) -> bool:
    return 0.0 <= x <= 1.0


def type_name(types: tuple) -> str:
    """``int``, ``float or int``: the Python types a key takes."""
    return " or ".join(t.__name__ for t in types)


def check_value(key: Key, value: Any, full: str, fail: Callable[[str, str], None]) -> Any:
    """``value`` for ``key`` (named ``full`` in errors) as the run uses it: its type and check
    verified, integers given for a float key made floats."""
    if isinstance(value, bool) and bool not in key.types:
        fail(full, f"got {value!r}; expected {key.expect}")
    if not isinstance(value, key.types):
        fail(full, f"got {value!r} ({type(value).__name__}); expected {key.expect}")
    if key.check is not None and not key.check(value):
        fail(full, f"got {value!r}; expected {key.expect}")
    return float(value) if float in key.types and not isinstance(value, bool) else value


def check_table(name: str, keys: dict[str, Key], given: Any, fail: Callable[[str, str], None],
                optional: tuple[str, ...] = ()) -> dict:
    """The table ``name``'s values: every key known and of its type, the defaults filled in.
    A key whose default is None is required, unless it is in ``optional`` (then it stays None
    for the caller to fill)."""
    if not isinstance(given, dict):
        fail(name, "expected a table")
    for key in given:
        if key not in keys:
            fail(f"{name}.{key}", f"unknown key; valid keys: {', '.join(keys)}")
    values = {}
    for key, spec in keys.items():
        full = f"{name}.{key}"
        if key not in given:
            if spec.default is None and key not in optional:
                fail(full, f"missing; expected {spec.expect}")
            values[key] = spec.default
            continue
        values[key] = check_value(spec, given[key], full, fail)
    return values


def merge(base: dict, over: dict) -> dict:
    """``over`` applied to ``base``: tables merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _parse(path: Path) -> dict:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise UsageError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder; expected a TOML file") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: invalid TOML ({e})") from None


def read_toml(path: str | Path, chain: tuple[Path, ...] = ()) -> dict:
    """The TOML file ``path`` with its ``extends`` chain resolved (see the module docstring);
    the result holds no ``extends`` key."""
    path = Path(path)
    data = _parse(path)
    base = data.pop(EXTENDS, None)
    if base is None:
        return data
    if not isinstance(base, str) or not base.strip():
        raise UsageError(f"{path}: {EXTENDS}: got {base!r}; expected the path of a TOML file, relative to this one")
    target = (path.parent / base).resolve()
    if target in chain or target == path.resolve():
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve(), target))
        raise UsageError(f"{path}: {EXTENDS}: {base!r} is in the chain already ({cycle}); expected a chain "
                         "without a cycle")
    if not target.is_file():
        raise UsageError(f"{path}: {EXTENDS}: {base!r} is not a file (looked for {target}); expected the path of "
                         "a TOML file, relative to this one")
    return merge(read_toml(target, (*chain, path.resolve())), data)


def parse_set(text: str) -> tuple[list[str], Any]:
    """``"section.key=value"`` as (``["section", "key"]``, value): the value read as a TOML
    value, or as a plain string when it is not one (``imitation.teacher=ismcts:iterations=200``)."""
    name, sep, raw = text.partition("=")
    parts = [p.strip() for p in name.split(".")]
    if not sep or len(parts) < 2 or not all(parts):
        raise UsageError(f"--set {text!r}: expected section.key=value (e.g. evolution.generations=400)")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return parts, value


def apply_sets(data: dict, sets: list[str] | tuple[str, ...]) -> dict:
    """``data`` with every ``--set section.key=value`` of ``sets`` written into it, in order
    (the schema checks the values afterwards, as if the file held them)."""
    out = merge({}, data)
    for text in sets:
        parts, value = parse_set(text)
        table = out
        for part in parts[:-1]:
            inner = table.get(part)
            if inner is None:
                inner = table[part] = {}
            elif not isinstance(inner, dict):
                raise UsageError(f"--set {text!r}: {'.'.join(parts[:-1])} is not a table")
            table = inner
        table[parts[-1]] = value
    return out
