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
from typing import Callable

from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
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


# The card-play callback signature shared by the searches and the rollout policies:
# (kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work), arrays passed
# as (data pointer, length).
CARD_C_SIG = types.int64(
    types.int64, types.voidptr, types.int64, types.int64, types.int64, types.int64,
    types.voidptr, types.int64, types.int64, types.uint64, types.uint64,
    types.voidptr, types.int64, types.voidptr, types.int64, types.voidptr, types.int64,
)
CARD_CTYPES_SIG = ctypes.CFUNCTYPE(
    ctypes.c_int64,
    ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint64,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
)


def card_caller(symbol: str, name: str):
    """An intrinsic ``name(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs,
    work)`` that calls the card-play callback in slot ``symbol`` with the arrays' data
    pointers and lengths."""

    def call(typingctx, kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
        sig = types.int64(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            i8p = ir.IntType(8).as_pointer()
            tys = signature.args

            def array(k):
                a = context.make_array(tys[k])(context, builder, args[k])
                return builder.bitcast(a.data, i8p), builder.extract_value(a.shape, 0)

            def integer(k, ty=types.int64):
                return context.cast(builder, args[k], tys[k], ty)

            params_p, n_params = array(1)
            rules_p, n_rules = array(5)
            pub_p, n_pub = array(9)
            rngs_p, n_rngs = array(10)
            work_p, n_work = array(11)
            fnty = ir.FunctionType(i64, [i64, i8p, i64, i64, i64, i64, i8p, i64, i64, i64, i64,
                                         i8p, i64, i8p, i64, i8p, i64])
            gv = builder.module.globals.get(symbol)
            if gv is None:
                gv = ir.GlobalVariable(builder.module, i64, symbol)
                gv.linkage = "external"
            fn = builder.inttoptr(builder.load(gv), fnty.as_pointer())
            return builder.call(fn, [
                integer(0), params_p, n_params, integer(2), integer(3), integer(4), rules_p, n_rules,
                integer(6), integer(7, types.uint64), integer(8, types.uint64), pub_p, n_pub, rngs_p, n_rngs,
                work_p, n_work,
            ])

        return sig, codegen

    call.__name__ = call.__qualname__ = name
    return intrinsic(call)
