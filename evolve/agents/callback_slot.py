"""A compiled C callback behind a process-global function pointer that LLVM code calls.

Heavy agent code (the card-play searches, the search bidder) is compiled once as a Numba
``cfunc`` and reached from the engine kernels through a pointer, so that it is not linked
and re-optimised into every engine kernel. The pointer lives in a slot exported to LLVM as
``symbol``; it starts at a ctypes trampoline that compiles (or loads from the cache) the
callback on first use, so importing the package costs nothing and cached engine code stays
valid across processes.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
from contextlib import contextmanager
from types import FunctionType
from typing import Callable

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import carray, cfunc, types
from numba.extending import intrinsic

#: every callback slot of the package, by symbol (``evolve.runtime.precompile`` compiles them by name)
SLOTS: dict[str, "CallbackSlot"] = {}
_deferred = threading.local()


@contextmanager
def compiles_deferred():
    """Within the block ``ensure_compiled`` compiles nothing: it adds the slot's symbol to
    the set this yields. Seats are parsed so to learn which callbacks a run needs, which
    ``evolve.runtime.precompile`` then compiles side by side."""
    outer = getattr(_deferred, "wanted", None)
    wanted: set[str] = set()
    _deferred.wanted = wanted
    try:
        yield wanted
    finally:
        _deferred.wanted = outer
        if outer is not None:
            outer |= wanted


class CallbackSlot:
    """The slot ``symbol`` holding the address of the C callback compiled from the Python
    function ``source()`` returns, with the Numba signature ``c_signature``. ``what`` names
    it in compile notices (with an estimate of its compile time in ``seconds``)."""

    def __init__(self, symbol: str, ctypes_signature, c_signature, source: Callable, what: str, seconds: float):
        self.symbol = symbol
        self.signature = ctypes_signature
        self.c_signature = c_signature
        self.source = source
        self.what = what
        self.seconds = seconds
        self.callback = None
        self.slot = ctypes.c_int64(0)
        self.trampoline = ctypes_signature(self._lazy)
        self.slot.value = ctypes.cast(self.trampoline, ctypes.c_void_p).value
        llvm.add_symbol(symbol, ctypes.addressof(self.slot))
        SLOTS[symbol] = self

    def make(self):
        """Compile the callback (or load it from Numba's cache)."""
        return cfunc(self.c_signature, cache=True, nopython=True)(self.source())

    def ensure_compiled(self) -> int:
        """Compile (or load from the cache) the callback and point the slot at it; returns
        its address (0 inside ``compiles_deferred``). Call it where a compile is expected
        (building a seat) rather than let the trampoline do it mid-engine."""
        wanted = getattr(_deferred, "wanted", None)
        if wanted is not None:
            wanted.add(self.symbol)
            return 0 if self.callback is None else self.callback.address
        if self.callback is None:
            self.callback = self.make()
            self.slot.value = self.callback.address
        return self.callback.address

    def cached(self) -> bool:
        """Whether Numba's cache holds this callback for this machine (loading it then
        compiles nothing)."""
        if self.callback is not None:
            return True
        from numba.core.caching import FunctionCache
        from numba.core.registry import cpu_target

        return index_has(FunctionCache(self.source()), cpu_target.target_context.codegen().magic_tuple(),
                         self.source().__code__.co_code)

    def _lazy(self, *args):
        return self.signature(self.ensure_compiled())(*args)


# A callback's arguments as one letter each: ``i`` an int64, ``u`` a uint64, ``a`` an array
# (passed to C as its data pointer and length).
_C_TYPES = {"i": (types.int64,), "u": (types.uint64,), "a": (types.voidptr, types.int64)}
_CTYPES = {"i": (ctypes.c_int64,), "u": (ctypes.c_uint64,), "a": (ctypes.c_void_p, ctypes.c_int64)}


def signatures(layout: str):
    """The Numba ``cfunc`` signature and the ctypes prototype of a callback returning an
    int64 and taking arguments of ``layout`` (see ``_C_TYPES``)."""
    c_args = [t for k in layout for t in _C_TYPES[k]]
    return types.int64(*c_args), ctypes.CFUNCTYPE(ctypes.c_int64, *[t for k in layout for t in _CTYPES[k]])


def slot_codegen(symbol: str, layout: str):
    """The codegen of an intrinsic that calls the callback in slot ``symbol`` with its
    arguments of ``layout``: arrays as their data pointers and lengths, integers cast to
    the layout's type. (Numba cannot lower an intrinsic taking ``*args``, so each caller
    names its arguments and returns ``types.int64(*args), slot_codegen(...)``.)"""

    def codegen(context, builder, signature, values):
        i64 = ir.IntType(64)
        i8p = ir.IntType(8).as_pointer()
        c_args = []
        for kind, ty, v in zip(layout, signature.args, values):
            if kind == "a":
                a = context.make_array(ty)(context, builder, v)
                c_args += [builder.bitcast(a.data, i8p), builder.extract_value(a.shape, 0)]
            else:
                c_args.append(context.cast(builder, v, ty, types.uint64 if kind == "u" else types.int64))
        fnty = ir.FunctionType(i64, [a.type for a in c_args])
        gv = builder.module.globals.get(symbol)
        if gv is None:
            gv = ir.GlobalVariable(builder.module, i64, symbol)
            gv.linkage = "external"
        fn = builder.inttoptr(builder.load(gv), fnty.as_pointer())
        return builder.call(fn, c_args)

    return codegen


# The card-play callbacks (the searches, the rollout policies): (kind, params, lo, hi,
# seat, rules, mode, hand, legal, pub, rngs, work).
CARD_LAYOUT = "iaiiiaiuuaaa"
CARD_C_SIG, CARD_CTYPES_SIG = signatures(CARD_LAYOUT)


def _card_template(kind, params_p, n_params, lo, hi, seat, rules_p, n_rules, mode, hand, legal,
                   pub_p, n_pub, rngs_p, n_rngs, work_p, n_work):
    params = carray(params_p, (n_params,), np.float64)
    rules = carray(rules_p, (n_rules,), np.int64)
    pub = carray(pub_p, (n_pub,), np.int64)
    rngs = carray(rngs_p, (n_rngs,), np.uint64)
    work = carray(work_p, (n_work,), np.float64)
    return impl(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)  # noqa: F821


def index_has(cache, magic: tuple, code: bytes) -> bool:
    """Whether Numba's cache index of a function holds an entry for this machine (``magic``,
    the target's ``codegen().magic_tuple()``) and this bytecode; False when unreadable."""
    digest = hashlib.sha256(code).hexdigest()
    try:
        index = cache._cache_file._load_index()
    except Exception:       # a missing, foreign or damaged index: not cached
        return False
    return any(len(key) > 2 and key[1] == magic and key[2][0] == digest for key in index)


def card_slot(symbol: str, impl, name: str, what: str, seconds: float) -> tuple[CallbackSlot, Callable]:
    """The slot ``symbol`` of a card-play callback that calls the kernel ``impl(kind,
    params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)``, and the intrinsic
    ``name`` that kernels use to call it.

    The callback is ``_card_template`` rebound to globals where ``impl`` is the kernel, and
    named after it (``<impl>_c``): not a closure, whose cell Numba would pickle (with a dispatcher's
    per-process id) into the cache key, and a name of its own so that each callback has its
    own cache index."""

    def source():
        own = f"{impl.__name__}_c"
        fn = FunctionType(
            _card_template.__code__, {"__name__": __name__, "impl": impl, "carray": carray, "np": np}, own
        )
        fn.__qualname__ = own
        return fn

    def call(typingctx, kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
        args = (kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
        return types.int64(*args), slot_codegen(symbol, CARD_LAYOUT)

    call.__name__ = call.__qualname__ = name
    return CallbackSlot(symbol, CARD_CTYPES_SIG, CARD_C_SIG, source, what, seconds), intrinsic(call)
