"""Vector kernels of the network forward pass, written as LLVM intrinsics: a weight matrix is
streamed once while up to ``KMAX`` 16-lane accumulators stay in registers (see
``evolve.agents.network.play`` for why)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 16      # float32 per vector register (AVX-512); hidden layers are padded to it
KMAX = 16       # most vector accumulators of one pass over a weight matrix
_F = np.float32
_F32 = ir.FloatType()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def _data(context, builder, ty, value):
    return context.make_array(ty)(context, builder, value).data


def _vector_at(builder, base, ofs, vec):
    """A pointer to the ``vec`` at element ``ofs`` of the pointer ``base``."""
    return builder.bitcast(builder.gep(base, [ofs], inbounds=True), vec.as_pointer())


def _splat(builder, value, vec):
    """``value`` in every lane of a ``vec``."""
    v = builder.insert_element(ir.Constant(vec, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(v, ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(_I32, vec.count),
                                                                              [0] * vec.count))


@intrinsic(prefer_literal=True)
def gemv_block(typingctx, x, idx, n, W, wofs, ld, b, bofs, y, yofs, K):
    """``y[yofs : yofs + 16K] = b[bofs : bofs + 16K] + sum over r < n of
    x[r] * W[wofs + row * ld : + 16K]`` with ``row = idx[r]`` (an int32 array) or ``r``
    (``idx`` None); ``b`` None starts from zero. W, b, y are all float32 or all int32
    (int32: wrapping arithmetic, exact whenever the result fits). ``K`` (a literal) is the
    number of 16-lane accumulators, kept in registers for the whole loop. No bounds are
    checked."""
    if not isinstance(K, types.IntegerLiteral):
        return None
    k = K.literal_value
    indirect = not isinstance(idx, types.NoneType)
    zero_init = isinstance(b, types.NoneType)
    is_int = isinstance(W.dtype, types.Integer)
    sig = types.void(x, idx, n, W, wofs, ld, b, bofs, y, yofs, K)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, ia, n_, wa, wofs_, ld_, ba, bofs_, ya, yofs_, _ = args
        lane = _I32 if is_int else _F32
        vec = ir.VectorType(lane, LANES)

        def at(base, ofs):
            return _vector_at(builder, base, ofs, vec)

        xp = _data(context, builder, ta[0], xa)
        wp = _data(context, builder, ta[3], wa)
        yp = _data(context, builder, ta[8], ya)
        ip = _data(context, builder, ta[1], ia) if indirect else None
        if not is_int:
            fnty = ir.FunctionType(vec, [vec, vec, vec])
            fma = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fmuladd.v16f32")
        accs = []
        for j in range(k):
            if zero_init:
                init = ir.Constant(vec, [0] * LANES if is_int else [0.0] * LANES)
            else:
                bp = _data(context, builder, ta[6], ba)
                init = builder.load(at(bp, builder.add(bofs_, ir.Constant(_I64, j * LANES))), align=4)
            accs.append(cgutils.alloca_once_value(builder, init))   # mem2reg: registers
        with cgutils.for_range(builder, n_) as loop:
            r = loop.index
            xv = builder.load(builder.gep(xp, [r], inbounds=True))
            if is_int and xv.type != _I32:
                xv = builder.trunc(xv, _I32) if xv.type.width > 32 else builder.sext(xv, _I32)
            xv = _splat(builder, xv, vec)
            row = r
            if indirect:
                row = builder.sext(builder.load(builder.gep(ip, [r], inbounds=True)), _I64)
            base = builder.add(wofs_, builder.mul(row, ld_))
            for j in range(k):
                w = builder.load(at(wp, builder.add(base, ir.Constant(_I64, j * LANES))), align=4)
                if is_int:
                    v = builder.add(builder.load(accs[j]), builder.mul(xv, w))
                else:
                    v = builder.call(fma, [xv, w, builder.load(accs[j])])
                builder.store(v, accs[j])
        for j in range(k):
            builder.store(builder.load(accs[j]), at(yp, builder.add(yofs_, ir.Constant(_I64, j * LANES))), align=4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic(prefer_literal=True)
def gemv_pairs(typingctx, x, n, W, wofs, ld, y, yofs, K):
    """``y[yofs : yofs + 16K] = sum over r < n of pairdot(x[r], W[wofs + r * ld : + 16K])``
    of int32 arrays whose words each hold two int16 (low half first): per lane, the low
    halves' product plus the high halves' (the instruction ``vpmaddwd``, fused into
    ``vpdpwssd`` where the CPU has AVX-512 VNNI; written as plain vector IR so that
    LLVM picks what the CPU has). Wrapping int32 sums, exact whenever the result fits.
    ``K`` (a literal) as in ``gemv_block``. No bounds are checked."""
    if not isinstance(K, types.IntegerLiteral):
        return None
    k = K.literal_value
    sig = types.void(x, n, W, wofs, ld, y, yofs, K)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, n_, wa, wofs_, ld_, ya, yofs_, _ = args
        vec = ir.VectorType(_I32, LANES)
        halves = ir.VectorType(ir.IntType(16), 2 * LANES)
        wide = ir.VectorType(_I32, 2 * LANES)

        def at(base, ofs):
            return _vector_at(builder, base, ofs, vec)

        xp = _data(context, builder, ta[0], xa)
        wp = _data(context, builder, ta[2], wa)
        yp = _data(context, builder, ta[5], ya)
        accs = [cgutils.alloca_once_value(builder, ir.Constant(vec, [0] * LANES)) for _ in range(k)]
        even = ir.Constant(ir.VectorType(_I32, LANES), list(range(0, 2 * LANES, 2)))
        odd = ir.Constant(ir.VectorType(_I32, LANES), list(range(1, 2 * LANES, 2)))
        with cgutils.for_range(builder, n_) as loop:
            r = loop.index
            xv = builder.load(builder.gep(xp, [r], inbounds=True))
            xv = _splat(builder, xv, vec)
            xw = builder.sext(builder.bitcast(xv, halves), wide)
            base = builder.add(wofs_, builder.mul(r, ld_))
            for j in range(k):
                w = builder.load(at(wp, builder.add(base, ir.Constant(_I64, j * LANES))), align=4)
                prod = builder.mul(xw, builder.sext(builder.bitcast(w, halves), wide))
                pair = builder.add(builder.shuffle_vector(prod, prod, even), builder.shuffle_vector(prod, prod, odd))
                builder.store(builder.add(builder.load(accs[j]), pair), accs[j])
        for j in range(k):
            builder.store(builder.load(accs[j]), at(yp, builder.add(yofs_, ir.Constant(_I64, j * LANES))), align=4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def dot_block(typingctx, x, W, wofs, nv):
    """``sum(x[0 : 16 nv] * W[wofs : wofs + 16 nv])`` of float32 arrays (one vector
    accumulator, then a shuffle tree)."""
    sig = types.float32(x, W, wofs, nv)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, wa, wofs_, nv_ = args
        vec = ir.VectorType(_F32, LANES)
        xp = _data(context, builder, ta[0], xa)
        wp = _data(context, builder, ta[1], wa)

        def at(base, ofs):
            return _vector_at(builder, base, ofs, vec)

        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vec, [vec, vec, vec]), "llvm.fmuladd.v16f32"
        )
        acc = cgutils.alloca_once_value(builder, ir.Constant(vec, [0.0] * LANES))
        with cgutils.for_range(builder, nv_) as loop:
            o = builder.mul(loop.index, ir.Constant(_I64, LANES))
            xv = builder.load(at(xp, o), align=4)
            wv = builder.load(at(wp, builder.add(wofs_, o)), align=4)
            builder.store(builder.call(fma, [xv, wv, builder.load(acc)]), acc)
        v = builder.load(acc)
        width = LANES
        while width > 1:
            width //= 2
            hi = builder.shuffle_vector(
                v, v, ir.Constant(ir.VectorType(_I32, LANES), [(j + width) % LANES for j in range(LANES)])
            )
            v = builder.fadd(v, hi)
        return builder.extract_element(v, ir.Constant(_I32, 0))

    return sig, codegen


GEMM_M = 5      # deals per pass of ``gemm_rows`` over the weights
GEMM_K = 5      # 16-lane column vectors per pass: GEMM_M x GEMM_K accumulators in registers


@intrinsic
def gemm_rows(typingctx, X, xofs, m, n, W, wofs, ld, b, bofs, Y, yofs, ycol, nv):
    """For k < m (1..GEMM_M) and the 16-lane column vectors j < nv:
    ``Y[yofs[k] + ycol + 16j : +16] = b[bofs + 16j : +16] + sum over r < n of
    X[xofs[k] + r] * W[wofs + r * ld + 16j : +16]`` (float32). Each output is summed as
    ``gemv_block`` sums it (from the bias, rows in order, one fused multiply-add each), so
    the result is bit for bit that of ``m`` calls of ``gemv_block``; but every weight row
    loaded serves up to GEMM_M deals (GEMM_M x GEMM_K accumulators stay in registers).
    No bounds are checked."""
    sig = types.void(X, xofs, m, n, W, wofs, ld, b, bofs, Y, yofs, ycol, nv)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, xoa, m_, n_, wa, wofs_, ld_, ba, bofs_, ya, yoa, ycol_, nv_ = args
        vec = ir.VectorType(_F32, LANES)
        xp = _data(context, builder, ta[0], xa)
        xo = _data(context, builder, ta[1], xoa)
        wp = _data(context, builder, ta[4], wa)
        bp = _data(context, builder, ta[7], ba)
        yp = _data(context, builder, ta[9], ya)
        yo = _data(context, builder, ta[10], yoa)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vec, [vec, vec, vec]), "llvm.fmuladd.v16f32"
        )
        accs = [[cgutils.alloca_once(builder, vec) for _ in range(GEMM_K)] for _ in range(GEMM_M)]

        def at(base, ofs):
            return _vector_at(builder, base, ofs, vec)

        def i64(v):
            return ir.Constant(_I64, v)

        def emit(mm, kk, col):
            """The pass over the rows for mm deals and kk column vectors from element col."""
            xs = [builder.load(builder.gep(xo, [i64(k)], inbounds=True)) for k in range(mm)]
            for k in range(mm):
                for j in range(kk):
                    init = builder.load(at(bp, builder.add(bofs_, builder.add(col, i64(j * LANES)))), align=4)
                    builder.store(init, accs[k][j])
            with cgutils.for_range(builder, n_) as loop:
                r = loop.index
                base = builder.add(builder.add(wofs_, builder.mul(r, ld_)), col)
                ws = [builder.load(at(wp, builder.add(base, i64(j * LANES))), align=4) for j in range(kk)]
                for k in range(mm):
                    xv = builder.load(builder.gep(xp, [builder.add(xs[k], r)], inbounds=True))
                    xv = _splat(builder, xv, vec)
                    for j in range(kk):
                        builder.store(builder.call(fma, [xv, ws[j], builder.load(accs[k][j])]), accs[k][j])
            for k in range(mm):
                out = builder.add(builder.load(builder.gep(yo, [i64(k)], inbounds=True)), builder.add(ycol_, col))
                for j in range(kk):
                    builder.store(builder.load(accs[k][j]), at(yp, builder.add(out, i64(j * LANES))), align=4)

        groups = builder.sdiv(builder.add(nv_, i64(GEMM_K - 1)), i64(GEMM_K))
        with cgutils.for_range(builder, groups) as loop:
            first = builder.mul(loop.index, i64(GEMM_K))
            width = builder.sub(nv_, first)
            col = builder.mul(first, i64(LANES))
            for mm in range(1, GEMM_M + 1):
                for kk in range(1, GEMM_K + 1):
                    wide = builder.icmp_signed(">=" if kk == GEMM_K else "==", width, i64(kk))
                    cond = builder.and_(builder.icmp_signed("==", m_, i64(mm)), wide)
                    with builder.if_then(cond):
                        emit(mm, kk, col)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def fast_tanh(x):
    """float32 tanh by a clamped rational approximation (Eigen's; |error| < 1e-6), which
    LLVM vectorises where ``np.tanh`` is a scalar libm call (the caller must compile with
    ``error_model="numpy"``: Python's zero-division check stops the vectoriser)."""
    x = min(max(x, _F(-9.0)), _F(9.0))
    x2 = x * x
    p = x2 * _F(-2.76076847742355e-16) + _F(2.00018790482477e-13)
    p = x2 * p + _F(-8.60467152213735e-11)
    p = x2 * p + _F(5.12229709037114e-08)
    p = x2 * p + _F(1.48572235717979e-05)
    p = x2 * p + _F(6.37261928875436e-04)
    p = x2 * p + _F(4.89352455891786e-03)
    p = x * p
    q = x2 * _F(1.19825839466702e-06) + _F(1.18534705686654e-04)
    q = x2 * q + _F(2.26843463243900e-03)
    q = x2 * q + _F(4.89352518554385e-03)
    return p / q
