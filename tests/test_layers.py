"""The package's layers hold: every import (module level or inside a function) goes to the
same or a lower layer, no two modules import each other through any chain, and importing
the rules loads no agent.

Layers, lowest first (``docs/explanation/architecture.md``)::

    core <- games <- engine <- agents <- runtime <- learn, evaluate, env <- evolution
         <- interop, server <- bench, reproduce, manual, commands (evolve/<command>.py)

The public façade ``evolve/__init__.py`` is lazy: it imports nothing above ``core`` until
an attribute is used, and no module of the package imports it (they import the module
that defines what they need)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evolve"

LAYERS = {
    "core": 0,
    "games": 1,
    "engine": 2,
    "agents": 3,
    "runtime": 4,
    "learn": 5,
    "evaluate": 5,
    "env": 5,
    "evolution": 6,
    "interop": 7,
    "server": 7,
    "bench": 8,
    "reproduce": 8,
    "manual": 8,
}
COMMAND_LAYER = 8       # evolve/<command>.py: what a user types


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int | None:
    """The layer of a module (None for the façade ``evolve`` itself)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    if parts[1] in LAYERS:
        return LAYERS[parts[1]]
    assert len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").is_file(), f"{module} is in no layer"
    return COMMAND_LAYER


def imports_of(module: str) -> list[tuple[str, int]]:
    """The evolve modules ``module`` imports anywhere in its source, with line numbers;
    ``from evolve.x import y`` counts as importing ``evolve.x.y`` when that is a module."""
    tree = ast.parse(MODULES[module].read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "evolve"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "evolve":
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.append((sub if sub in MODULES else node.module, node.lineno))
    return out


GRAPH = {m: sorted({t for t, _ in imports_of(m) if t != m}) for m in MODULES}


def test_the_layer_table_covers_the_package():
    top = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert top == set(LAYERS), \
        "a new folder of evolve/ needs its layer in LAYERS (and in docs/explanation/architecture.md)"
    assert len(GRAPH) > 80 and sum(map(len, GRAPH.values())) > 300     # the walk found the imports


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    mine = layer_of(module)
    if mine is None:
        return
    bad = []
    for target, line in imports_of(module):
        theirs = layer_of(target)
        if theirs is None:
            bad.append(f"line {line}: imports the façade 'evolve'; import the module that defines the name")
        elif theirs > mine:
            bad.append(f"line {line}: {target} (layer {theirs}) is above {module} (layer {mine})")
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    # a package imports its own modules from __init__ only to re-export or register them;
    # the walk counts module -> package edges, so those would show up here as circles
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def _loaded_after(statement: str) -> list[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(m for m in sys.modules if m.startswith('evolve'))))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_the_rules_load_no_agent():
    loaded = _loaded_after("import evolve.games.registry, evolve.games.observation")
    assert "evolve.games.registry" in loaded
    assert not [m for m in loaded if layer_of(m) is not None and layer_of(m) > LAYERS["games"]], loaded


def test_the_facade_is_lazy():
    assert not [m for m in _loaded_after("import evolve") if m.split(".")[1:2] not in ([], ["core"])]
    loaded = _loaded_after("import evolve; evolve.make_game('jass')")
    assert "evolve.games.registry" in loaded and "evolve.agents" not in loaded
    assert "evolve.runtime.play" in _loaded_after("import evolve; evolve.play")


def test_ruff_passes():
    """The linter's rules (``[tool.ruff]`` in pyproject.toml) hold for the whole tree."""
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    if "No module named ruff" in proc.stderr:
        pytest.skip("ruff is not installed (pip install '.[test]' installs it)")
    assert proc.returncode == 0, proc.stdout + proc.stderr

