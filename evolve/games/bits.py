"""Bit-mask and random-number primitives shared by the Numba game core.

Hands and card sets are ``uint64`` bit masks (bit ``c`` set = card ``c`` present); every
deck here has at most 52 cards. Random numbers come from SplitMix64 streams whose states
live in one ``uint64`` array ``rngs`` (slot ``k`` = stream ``k``: seats 0..3 and the deal
stream ``DEAL_STREAM``); functions take ``(rngs, k)`` so no array view is created in the
hot loop. Streams are derived by hashing (key, deal index, purpose), which
makes every deal reproducible on its own, whatever the chunking or the number of workers.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic


def kernel(fn=None, *, fastmath=False):
    """Compile a hot-loop function with Numba, cached, *without* reference counting.

    Numba otherwise wraps every array argument of every call in atomic incref/decref
    pairs, which cost about 40% of random-play time. A kernel may read and write the
    arrays it is given but must never allocate one (Numba refuses to compile it if it
    does). ``fastmath`` lets LLVM reassociate float sums (network forward passes)."""
    if fn is None:
        return lambda f: kernel(f, fastmath=fastmath)
    return njit(cache=True, _nrt=False, fastmath=fastmath)(fn)


ONE = np.uint64(1)
ZERO = np.uint64(0)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@intrinsic
def popcount(typingctx, mask):
    """Number of set bits of a uint64 (LLVM ctpop)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, inline="always")
def bit(card):
    """The mask holding the single card ``card``."""
    return ONE << np.uint64(card)


@njit(cache=True, inline="always")
def has(mask, card):
    """True when ``card`` is in ``mask``."""
    return (mask >> np.uint64(card)) & ONE == ONE


@njit(cache=True, inline="always")
def lowest(mask):
    """Index of the lowest set bit (mask must be non-zero)."""
    return np.int64(trailing_zeros(mask))


@njit(cache=True, inline="always")
def count(mask):
    """Number of cards in ``mask`` as int64."""
    return np.int64(popcount(mask))


def _host_has_bmi2() -> bool:
    try:
        import llvmlite.binding as llvm

        return bool(llvm.get_host_cpu_features().get("bmi2", False))
    except Exception:  # pragma: no cover - exotic platforms
        return False


HAS_PDEP = _host_has_bmi2()


@intrinsic
def _pdep(typingctx, src, mask):
    """x86 BMI2 parallel bit deposit (only compiled where the host has BMI2)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return sig, codegen


@njit(cache=True, inline="always")
def nth_card(mask, k):
    """The k-th lowest card (0-based) of ``mask``: one ``pdep`` where the CPU has BMI2."""
    if HAS_PDEP:
        return np.int64(trailing_zeros(_pdep(ONE << np.uint64(k), mask)))
    for _ in range(k):
        mask &= mask - ONE
    return np.int64(trailing_zeros(mask))


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


DEAL_STREAM = 4
N_STREAMS = 5


@njit(cache=True, inline="always")
def next_u64(rngs, k):
    """Advance SplitMix64 stream ``k`` of ``rngs`` and return 64 random bits."""
    rngs[k] += GOLDEN
    return mix64(rngs[k])


@njit(cache=True, inline="always")
def below(rngs, k, n):
    """A uniform integer in [0, n) from stream ``k`` (Lemire's multiply-shift, n < 2**32)."""
    hi = next_u64(rngs, k) >> _S32
    return np.int64((hi * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(rngs, k):
    """A uniform float in [0, 1) with 53 random bits from stream ``k``."""
    return np.float64(next_u64(rngs, k) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def random_card(rngs, k, mask):
    """A uniformly random card of a non-empty mask, drawn from stream ``k``."""
    return nth_card(mask, below(rngs, k, popcount(mask)))


@njit(cache=True, inline="always")
def deal_key(key, index):
    """Key of deal ``index``: a hash, not an offset, so that neighbouring deals never share
    a stretch of their streams."""
    return mix64(key ^ mix64(np.uint64(index) + GOLDEN))


@njit(cache=True, inline="always")
def stream_state(deal, purpose):
    """Start state of stream ``purpose`` (0 deal, 1..4 seats) of a deal key."""
    return mix64(deal ^ (np.uint64(purpose + 1) * _MIX2))


@njit(cache=True, inline="always")
def seed_streams(key, index, rngs):
    """Seed the random streams of deal ``index`` of the run with key ``key`` into ``rngs``:
    the deal's own (``DEAL_STREAM``: the shuffle) and each seat's (0..3)."""
    dk = deal_key(key, index)
    rngs[DEAL_STREAM] = stream_state(dk, 0)
    for s in range(4):
        rngs[s] = stream_state(dk, 1 + s)


def seed_key(seed: int) -> np.uint64:
    """Turn a user seed into the 64-bit key of all its deal streams via numpy SeedSequence."""
    return np.random.SeedSequence(int(seed)).generate_state(1, dtype=np.uint64)[0]


@njit(cache=True)
def mask_of(cards):
    """The mask of an iterable of card ids (negative ids are skipped)."""
    m = ZERO
    for c in cards:
        if c >= 0:
            m |= ONE << np.uint64(c)
    return m


def cards_of(mask) -> list[int]:
    """Card ids of a mask in ascending order (Python helper for tests and display)."""
    mask = int(mask)
    return [c for c in range(64) if mask >> c & 1]
