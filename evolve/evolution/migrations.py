"""Versions of the experiment schema, and how a file written in an older one is read.

A file says its version with ``schema = N`` at the top (absent: the current version). A run
folder's ``config.json`` records the version it was written in; one written before versions
existed is version 1. ``upgrade`` brings any version to the current layout before the
schema checks it, so an old run folder or champion still loads and resumes, and
``hash_form`` computes every hash in version 1's layout, so it keeps its hash.

Version 1: every algorithm's keys flat in ``[evolution]`` (``es_sigma``, ``cma_sigma``,
``mutation_start``, ...), the GA's defaults as the search, the imitation trainer's first
defaults, and five options since removed (``REMOVED``).

Version 2 (the current one):

- each algorithm's own keys are a table of their own, ``[evolution.ga]``,
  ``[evolution.es]`` and ``[evolution.cma]`` (``RENAMED``);
- the defaults are the best measured recipe: the ES, the validated champion, a run of
  exactly ``generations`` generations, the seat encoding, and the imitation trainer of the
  champion recipes (``V1_DEFAULTS`` lists the old values, which a version-1 file keeps);
- five options whose measurements found nothing are gone: the GA's exponential annealing
  and its children-only mutation, per-table deals, a non-mirrored ES and the opponent hall,
  and the ``seat_context`` encoding (``REMOVED``). A version-1 file that leaves them at the
  one behaviour that remains reads as before; one that asks for the removed behaviour is
  one line naming the key.
"""

from __future__ import annotations

from typing import Any, Callable

from evolve.core.schema import ALWAYS

SCHEMA_VERSION = 2

#: version 1's flat ``[evolution]`` keys of the algorithms, with their place in version 2
#: (table, key) and, for the hash, the value at which version 1's hash left them out
RENAMED: dict[str, tuple[str, str, Any]] = {
    "mutation_start": ("ga", "mutation_start", ALWAYS),
    "mutation_end": ("ga", "mutation_end", ALWAYS),
    "mutation_operator": ("ga", "mutation_operator", ALWAYS),
    "mutation_sigma": ("ga", "mutation_sigma", ALWAYS),
    "selection": ("ga", "selection", ALWAYS),
    "cma_sigma": ("cma", "sigma", 0.3),
    "es_sigma": ("es", "sigma", 0.01),
    "es_learning_rate": ("es", "learning_rate", 0.001),
    "es_weight_decay": ("es", "weight_decay", 0.0),
}

#: keys removed in version 2: (section, key) -> the one value that remains (None: any value,
#: meaningful only beside another removed key), and whether version 1's hash always held it
REMOVED: dict[tuple[str, str], tuple[Any, bool]] = {
    ("evolution", "mutation_schedule"): ("linear", True),
    ("evolution", "mutate_parents"): (True, True),
    ("evolution", "deals"): ("shared", True),
    ("evolution", "es_antithetic"): (True, False),
    ("evolution", "opponent_hall"): (0, False),
    ("evolution", "opponent_hall_every"): (None, False),
}
#: values of kept keys removed in version 2
REMOVED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {("network", "encoding"): ("seat_context",)}

#: the version-1 defaults of the keys whose default changed in version 2
V1_DEFAULTS: dict[tuple[str, str], Any] = {
    ("evolution", "algorithm"): "ga",
    ("evolution", "champion"): "hall_of_fame",
    ("evolution", "patience"): 200,
    ("network", "encoding"): "card",
    ("imitation", "learning_rate"): 0.003,
    ("imitation", "schedule"): "constant",
    ("imitation", "init"): "small",
    ("imitation", "logits"): "tanh",
}

Fail = Callable[[str, str], None]


def _copy(data: dict) -> dict:
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}


def _from_v1(data: dict, fail: Fail) -> dict:
    """A version-1 file in version 2's layout, with version 1's defaults made explicit."""
    out = _copy(data)
    evolution = out.get("evolution")
    if isinstance(evolution, dict):
        for old, (table, key, _) in RENAMED.items():
            if old in evolution:
                inner = evolution.setdefault(table, {})
                if not isinstance(inner, dict):
                    fail(f"evolution.{table}", "expected a table")
                inner[key] = evolution.pop(old)
    for (section, key), (kept, _) in REMOVED.items():
        table = out.get(section)
        if not isinstance(table, dict) or key not in table:
            continue
        value = table.pop(key)
        if kept is not None and value != kept:
            fail(f"{section}.{key}", f"got {value!r}; the option was removed in schema version 2, which keeps only "
                                     f"{kept!r}")
    for (section, key), default in V1_DEFAULTS.items():
        table = out.setdefault(section, {})
        if isinstance(table, dict):
            table.setdefault(key, default)
    return out


def upgrade(data: dict, version: int | None, fail: Fail) -> dict:
    """``data`` (a file's tables, perhaps with a ``schema`` key) in the current layout. The
    version is ``data["schema"]``, else ``version``, else the current one."""
    data = _copy(data)
    given = data.pop("schema", None)
    data.pop("set", None)            # the --set overrides a run folder records beside its settings
    version = given if given is not None else (version if version is not None else SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        fail("schema", f"got {version!r}; expected a schema version 1..{SCHEMA_VERSION}")
    for (section, key), values in REMOVED_VALUES.items():
        table = data.get(section)
        if isinstance(table, dict) and table.get(key) in values:
            fail(f"{section}.{key}", f"got {table[key]!r}; it was removed in schema version 2 (its measurements "
                                     "found nothing); expected card, hand or seat")
    if version == 1:
        return _from_v1(data, fail)
    evolution = data.get("evolution")
    if isinstance(evolution, dict):
        for old, (table, key, _) in RENAMED.items():
            if old in evolution:
                fail(f"evolution.{old}", f"a schema version 1 name; write it as [evolution.{table}] {key} (or put "
                                         "schema = 1 at the top of the file)")
    for (section, key) in REMOVED:
        table = data.get(section)
        if isinstance(table, dict) and key in table:
            fail(f"{section}.{key}", "unknown key: it was removed in schema version 2 (its measurements found "
                                     "nothing)")
    return data


def hash_form(d: dict, schema: dict, strategy_params: dict) -> dict:
    """A resolved config (``Config.as_dict()`` as plain data) in version 1's layout, as
    version 1 hashed it: the algorithms' keys flat under their old names, the removed keys
    at the one value that remains where version 1's hash held them, and every key added
    since version 1 first hashed left out at its ``neutral`` value, so a config keeps the
    hash it had when it was written, whatever version it is written in."""
    d = {k: (dict(v) if isinstance(v, dict) else v) for k, v in d.items() if k != "schema"}
    evolution = d["evolution"]
    tables = {name: evolution.pop(name, {}) for name in strategy_params}
    for old, (table, key, neutral) in RENAMED.items():
        value = tables[table][key]
        if neutral is ALWAYS or value != neutral:
            evolution[old] = value
    for (section, key), (kept, always) in REMOVED.items():
        if always:
            d[section][key] = kept
    for section, keys in schema.items():
        for key, spec in keys.items():
            if spec.neutral is not ALWAYS and section in d and key in d[section] and d[section][key] == spec.neutral:
                del d[section][key]
    return d
