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
