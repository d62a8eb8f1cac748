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
from types import FunctionType
from typing import Callable

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import carray, cfunc, types
from numba.extending import intrinsic


class CallbackSlot:
    """The slot ``symbol`` holding the address of the callback ``make()`` builds."""

    def __init__(self, symbol: str, ctypes_signature, make: Callable):
        self.symbol = symbol
        self.signature = ctypes_signature
        self.make = make
        self.callback = None
        self.slot = ctypes.c_int64(0)
        self.trampoline = ctypes_signature(self._lazy)
        self.slot.value = ctypes.cast(self.trampoline, ctypes.c_void_p).value
        llvm.add_symbol(symbol, ctypes.addressof(self.slot))

    def ensure_compiled(self) -> int:
        """Compile (or load from the cache) the callback and point the slot at it; returns
        its address. Call it where a compile is expected (building a seat) rather than let
        the trampoline do it mid-engine."""
        if self.callback is None:
            self.callback = self.make()
            self.slot.value = self.callback.address
        return self.callback.address

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


def card_slot(symbol: str, impl, name: str) -> tuple[CallbackSlot, Callable]:
    """The slot ``symbol`` of a card-play callback that calls the kernel ``impl(kind,
    params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)``, and the intrinsic
    ``name`` that kernels use to call it.

    The callback is ``_card_template`` rebound to globals where ``impl`` is the kernel, and
    named after it (``<impl>_c``): not a closure, whose cell Numba would pickle (with a dispatcher's
    per-process id) into the cache key, and a name of its own so that each callback has its
    own cache index."""

    def make():
        own = f"{impl.__name__}_c"
        fn = FunctionType(
            _card_template.__code__, {"__name__": __name__, "impl": impl, "carray": carray, "np": np}, own
        )
        fn.__qualname__ = own
        return cfunc(CARD_C_SIG, cache=True, nopython=True)(fn)

    def call(typingctx, kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
        args = (kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)
        return types.int64(*args), slot_codegen(symbol, CARD_LAYOUT)

    call.__name__ = call.__qualname__ = name
    return CallbackSlot(symbol, CARD_CTYPES_SIG, make), intrinsic(call)
