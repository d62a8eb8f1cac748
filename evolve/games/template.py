"""Rules kernels that receive their policy from the layer above.

The rules layer (``evolve.games``) must not import agents, yet the trick loop and each
game's bidding phase ask agents for decisions inside Numba code, where a call has to be
resolved at compile time. A rules function that asks for a decision is therefore written
as a *template*: a plain Python function decorated with ``@template(...)``, which calls
the decision through a module-level *hook*::

    choose_card = policy_hook("choose_card", "(kinds, params, seat, rules, mode, hand, legal, pub, rngs, work) -> card")

    @template(inline="always")
    def play_card(...):
        ...
        card = choose_card(kinds, params, seat, rules, mode, hand, legal, pub, rngs, work)

``specialise(play_batch, {"game_deal": spades.deal, "choose_card": ...})`` (done by
``evolve.runtime.batch``) copies every template reachable from the root with the hooks bound to
the given functions and compiles the copies with Numba, ``cache=True``. Only the functions
bound are compiled in, so an engine for random play never compiles the networks or the
search. Each copy is named ``<qualname>__<tag>`` where the tag names what was bound into it
(labels plus a short hash of the functions' qualified names), so every specialisation has
its own Numba cache file and index (Numba keys a cache entry on the file, qualified name,
signature and bytecode only, which the copies share otherwise). Copies are plain functions
with their own globals, not closures, so Numba caches them (a closure over a dispatcher,
or a dispatcher passed as an argument, gets a new cache key in every process).

Bindings may be Numba dispatchers, other templates (specialised with the same bindings)
or ``Bound`` (a dispatcher with a readable label for the tag).
"""

from __future__ import annotations

import hashlib
import threading
import types as pytypes
from dataclasses import dataclass
from typing import Any

from numba import njit


class PolicyHook:
    """A decision function that a template calls and the layer above supplies."""

    def __init__(self, name: str, signature: str = ""):
        self.name = name
        self.signature = signature

    def __call__(self, *args):
        raise RuntimeError(f"policy hook {self.name}{self.signature} is bound when the engine "
                           "specialises the template (evolve.runtime.batch); it cannot be called directly")

    def __repr__(self):
        return f"<policy hook {self.name}>"


def policy_hook(name: str, signature: str = "") -> PolicyHook:
    """A placeholder for the decision function ``name`` (see the module docstring)."""
    return PolicyHook(name, signature)


@dataclass(frozen=True)
class Bound:
    """A binding with a label used in the specialisation's name (e.g. ``"random"``)."""

    label: str
    fn: Any


class Template:
    """A Python function compiled only once its hooks are bound (see ``specialise``)."""

    def __init__(self, fn, options: dict):
        self.py_func = fn
        self.options = options
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__

    def __call__(self, *args):
        raise RuntimeError(f"{self.__module__}.{self.__qualname__} is a template: call the kernel "
                           "that evolve.runtime.batch specialises from it")

    def __repr__(self):
        return f"<template {self.__module__}.{self.__qualname__}>"

    def hooks(self) -> list[str]:
        """Global names this function uses that are hooks or templates, in order."""
        g = self.py_func.__globals__
        return [n for n in self.py_func.__code__.co_names if isinstance(g.get(n), (PolicyHook, Template))]


def template(fn=None, **options):
    """Mark a rules function as a template; ``options`` are its ``numba.njit`` options
    (``cache=True`` is implied; ``template(_nrt=False)`` is the ``kernel`` flavour)."""
    if fn is None:
        return lambda f: template(f, **options)
    return Template(fn, options)


_LOCK = threading.RLock()
_MEMO: dict[tuple, Any] = {}


def _name_of(fn) -> str:
    fn = getattr(fn, "py_func", fn)
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _reached(t: Template, bindings: dict, seen=None) -> list[str]:
    """Hook names reachable from template ``t`` (through nested templates)."""
    seen = set() if seen is None else seen
    out: list[str] = []
    g = t.py_func.__globals__
    for n in t.hooks():
        value = g[n]
        if isinstance(value, PolicyHook):
            if n not in bindings:
                raise KeyError(f"{_name_of(t)} needs the policy hook {n!r}, which was not bound")
            out.append(n)
            target = bindings[n]
            target = target.fn if isinstance(target, Bound) else target
            if isinstance(target, Template) and id(target) not in seen:
                seen.add(id(target))
                out += _reached(target, bindings, seen)
        elif id(value) not in seen:
            seen.add(id(value))
            out += _reached(value, bindings, seen)
    return list(dict.fromkeys(out))


def _tag(names: list[str], bindings: dict) -> str:
    """Readable labels (in binding order) plus a hash of what each hook is bound to."""
    used = [n for n in bindings if n in names]
    labels = [bindings[n].label for n in used if isinstance(bindings[n], Bound) and bindings[n].label]
    h = hashlib.sha256()
    for n in used:
        b = bindings[n]
        h.update(
            f"{n}={b.label if isinstance(b, Bound) else ''}:{_name_of(b.fn if isinstance(b, Bound) else b)};".encode()
        )
    return "_".join(labels + [h.hexdigest()[:8]])


def specialise(t: Template, bindings: dict):
    """The Numba dispatcher of template ``t`` with its hooks bound (memoised per process)."""
    with _LOCK:
        names = _reached(t, bindings)
        tag = _tag(names, bindings)
        key = (id(t), tag)
        if key in _MEMO:
            return _MEMO[key]
        g = dict(t.py_func.__globals__)
        for n in t.hooks():
            value = g[n]
            if isinstance(value, PolicyHook):
                value = bindings[n]
                value = value.fn if isinstance(value, Bound) else value
            if isinstance(value, Template):
                value = specialise(value, bindings)
            g[n] = value
        src = t.py_func
        clone = pytypes.FunctionType(src.__code__, g, src.__name__, src.__defaults__, src.__closure__)
        clone.__qualname__ = f"{src.__qualname__}__{tag}"
        clone.__module__ = src.__module__
        clone.__doc__ = src.__doc__
        clone.__kwdefaults__ = src.__kwdefaults__
        disp = njit(cache=True, **t.options)(clone)
        _MEMO[key] = disp
        return disp
