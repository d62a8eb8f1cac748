"""Evolved fixed-topology tanh networks as card-play agents (SPEC §3).

A network agent's parameter vector is ``header + weights`` (see ``Architecture.pack``):

    header  = [encoding, n_in, n_h1, n_h2, n_out, w1_scale, w1_id, 0]    (HEADER float64)
    weights = W1 [n_in, P1] int32 fixed point (W1 / w1_scale, rounded), b1 [P1],
              W2 [n_h1, P2], b2 [P2], W3T [n_out, P2], b3 [n_out]       (float32)

packed two 4-byte values per float64 slot after the header. ``P1``, ``P2`` are the hidden
sizes rounded up to a multiple of ``LANES`` (16 float32, one AVX-512 register); padding
weights and biases are zero, so padded hidden units are tanh(0) = 0 and change nothing.
``W1`` and ``W2`` are stored in column blocks of at most ``KMAX`` registers
(``column_blocks``), each block row-major; with at most ``KMAX * LANES`` = 256 hidden
units (every default architecture) that is plain row-major. ``w1_id`` identifies the
first-layer weights (a hash; see the cache below).

Two hidden tanh layers; the agent plays the legal card whose output is highest (outputs
of illegal cards are never computed; a lone legal card is played without evaluating the
network). The output tanh is monotonic, so it is skipped.

Encodings (``ENC_CARD`` and ``ENC_HAND``; games with a variable trump append a one-hot of
the trump mode):

- card-based: three inputs per card of the deck, a one-hot location — in my hand / on the
  table in the current trick / played in an earlier trick — all zero while unseen; Euchre
  marks the turned card as seen (third input) for everyone who neither holds it nor has it
  on the table in the current trick. One output per card.
- hand-based: the hand as dealt (sorted by card id), 1 + 4 inputs per card (rank number
  1..R, then a one-hot suit), zeroed once played; then the up to 3 cards already in the
  current trick; then the cards of earlier tricks in the order played. One output per
  position of the dealt hand.

Only the deciding seat's hand and the public state are read.

Speed. The forward pass is bound by streaming the weights from L2:

- the input is sparse, so the first layer is a sum of the active rows of W1;
- both layers run in the intrinsic ``gemv_block``, which keeps up to ``KMAX`` 16-lane
  accumulators in registers while it streams the weight rows once (Numba's loop
  vectoriser would reload and store the accumulators for every row; its SLP vectoriser is
  off);
- the first layer is *incremental*: ``work`` keeps, per seat, the first-layer sum of the
  seat's previous decision and the input it was computed for, and a decision adds only the
  rows that changed since. W1 is fixed point and the sum is int32, so the result is exact
  and the same whatever the order of the updates: the agent stays a pure function of
  (seat, hand, pub), bit for bit. A seat's record is used only when its header matches
  (magic, kind, ``w1_id``) and its checksum matches, so another agent's use of ``work`` or
  another network at the seat only costs a recomputation.

A decision is ``network_layer1`` (the first layer), the second layer, and
``network_choose`` (tanh, outputs of the legal cards). The lockstep driver
(``evolve.lockstep``) calls the first and the last per deal and runs the second for all
deals waiting for the same network at once (``network_layer2_many``, intrinsic
``gemm_rows``): each weight row loaded serves up to ``GEMM_M`` deals, and every output
is summed in the order of ``gemv_block``, so the cards are the same bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from evolve.games.bits import GOLDEN, ONE, ZERO, bit, count, has, lowest, mix64
from evolve.agents.rulebased import (may_beat, may_hold, next_active, partner_of, partner_winning,
                                     trick_winner_pos)
from evolve.games.rules import (GAME_EUCHRE, P_GAME, P_HAND, P_N_CARDS, P_N_MODES, P_N_RANKS, card_key, points_of,
                                strength_of, suit_of)
from evolve.games.state import (
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    NPLAYED,
    PLAYED_BY,
    TRICK,
    TRICK_CARDS,
    UPCARD,
)

NET_CARD = 1  # card-play kinds (see evolve.agents.policy.NETWORK_KINDS)
NET_HAND = 2
ENC_CARD = 0
ENC_HAND = 1
HEADER = 8
H_W1_SCALE = 5  # header slots
H_W1_ID = 6
H_DIRECT = 7    # number of direct per-card features (0: none)
# Direct connections (``Architecture.direct``): per-card features of what the seat sees,
# each times a weight D[k] in [-1, 1] times DIRECT_SCALE, added to the card's output (see
# ``_direct_features``). The hidden layers' output of a card lies within about ±n_h2.
DIRECT_FEATURES = 6
DIRECT_SCALE = 8.0
SUIT_INPUTS = 4
LANES = 16      # float32 per vector register (AVX-512); hidden layers are padded to it
KMAX = 16       # most vector accumulators of one pass over a weight matrix
PACK_BLOCK = 8  # networks packed per pass (see Architecture.pack_many)
# W1 fixed point: |sum of the active rows x input values| must stay below 2**31. Card
# inputs are 0/1 with at most n_cards + 1 <= 65 active; hand inputs add at most
# 52 slots x (13 + 1) + 1 = 729 per weight. The scale is 2**-bits, one bit coarser for
# every doubling of the largest |W1| above 1 (genomes are clamped to [-1, 1] by default).
W1_BITS = {"card": 24, "hand": 21}

ENCODINGS = ("card", "hand")


def encoding_sizes(game, encoding: str) -> tuple[int, int]:
    """(inputs, outputs) of an encoding for a game (``GameInfo`` or ``Game``)."""
    info = getattr(game, "info", game)
    trump = info.n_modes if info.n_modes > 1 else 0
    if encoding == "card":
        return 3 * info.n_cards + trump, info.n_cards
    if encoding == "hand":
        per = 1 + SUIT_INPUTS
        h = info.hand_size
        return per * (h + 3 + 4 * (info.n_tricks - 1)) + trump, h
    raise ValueError(f"unknown encoding {encoding!r}; valid: card, hand")


def default_hidden(n_in: int, n_out: int) -> int:
    """SPEC §3 hidden-layer size: round(2/3 x inputs + outputs)."""
    return int(round(2 * n_in / 3 + n_out))


def n_weights(n_in: int, n_h1: int, n_h2: int, n_out: int) -> int:
    """Number of weights and biases of the network."""
    return n_in * n_h1 + n_h1 + n_h1 * n_h2 + n_h2 + n_out * n_h2 + n_out


def padded(n: int) -> int:
    """``n`` rounded up to a multiple of ``LANES``."""
    return -(-int(n) // LANES) * LANES


def column_blocks(width: int) -> list[tuple[int, int]]:
    """(first column, registers) of each column block of a matrix ``width`` wide (padded):
    as few blocks as fit ``KMAX`` registers, as even as possible (``_dense`` walks the
    same blocks)."""
    nv = padded(width) // LANES
    npass = max(1, -(-nv // KMAX))
    base, extra = divmod(nv, npass)
    out, v = [], 0
    for p in range(npass):
        k = base + (1 if p < extra else 0)
        out.append((v * LANES, k))
        v += k
    return out


def _put_blocked(dest: np.ndarray, m: np.ndarray) -> int:
    """Write matrices m [n, rows, cols] padded to ``padded(cols)`` columns, each in block
    order, into ``dest`` [n, >= rows * padded(cols)] (zeroed); returns the words written."""
    n, rows, cols = m.shape
    pos = 0
    for c, k in column_blocks(cols):
        width = k * LANES
        valid = max(0, min(cols, c + width) - c)
        dest[:, pos:pos + rows * width].reshape(n, rows, width)[:, :, :valid] = m[:, :, c:c + valid]
        pos += rows * width
    return pos


# -------------------------------------------------------------------- scratch memory
# ``work`` is cut into four equal regions, one per seat (whatever network plays there, so
# networks of different shapes at one table keep apart). A seat's region, in 4-byte
# words: h1 f32[P1] | h2 f32[P2] | rows i32[n_in] | values i32[n_in] (padded to 16 words),
# then the seat's record: REC64 int64 slots, the first-layer sum acc i32[P1], then the
# bitwise complement of both (a record is used only when intact: other agents may use
# ``work`` too). Record slots:
REC64 = 72
R_MAGIC = 0
R_ID = 1        # w1_id of the network that wrote the record
R_KIND = 2
R_STATE = 4     # card: hand, trick, seen masks, mode; hand: see _first_layer
MAGIC = 0x6E657477_6F726B31  # "network1"


@njit(cache=True, inline="always")
def _region_words(n_in, p1, p2):
    """(start of the record, size) of a seat's region of ``work`` in 4-byte words."""
    start = (p1 + p2 + 2 * n_in + 15) // 16 * 16
    return start, start + 2 * (2 * REC64 + p1)


# ----------------------------------------------------------------------------- kernels

_F = np.float32
_F32 = ir.FloatType()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def _data(context, builder, ty, value):
    return context.make_array(ty)(context, builder, value).data


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
        vptr = vec.as_pointer()

        def at(base, ofs):
            return builder.bitcast(builder.gep(base, [ofs], inbounds=True), vptr)

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
        splat_mask = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
        with cgutils.for_range(builder, n_) as loop:
            r = loop.index
            xv = builder.load(builder.gep(xp, [r], inbounds=True))
            if is_int and xv.type != _I32:
                xv = builder.trunc(xv, _I32) if xv.type.width > 32 else builder.sext(xv, _I32)
            xv = builder.insert_element(ir.Constant(vec, ir.Undefined), xv, ir.Constant(_I32, 0))
            xv = builder.shuffle_vector(xv, ir.Constant(vec, ir.Undefined), splat_mask)
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
            return builder.bitcast(builder.gep(base, [ofs], inbounds=True), vec.as_pointer())

        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, [vec, vec, vec]), "llvm.fmuladd.v16f32")
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
            hi = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, LANES), [(j + width) % LANES for j in range(LANES)]))
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
        vptr = vec.as_pointer()
        xp = _data(context, builder, ta[0], xa)
        xo = _data(context, builder, ta[1], xoa)
        wp = _data(context, builder, ta[4], wa)
        bp = _data(context, builder, ta[7], ba)
        yp = _data(context, builder, ta[9], ya)
        yo = _data(context, builder, ta[10], yoa)
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, [vec, vec, vec]), "llvm.fmuladd.v16f32")
        splat_mask = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
        accs = [[cgutils.alloca_once(builder, vec) for _ in range(GEMM_K)] for _ in range(GEMM_M)]

        def at(base, ofs):
            return builder.bitcast(builder.gep(base, [ofs], inbounds=True), vptr)

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
                    xv = builder.insert_element(ir.Constant(vec, ir.Undefined), xv, ir.Constant(_I32, 0))
                    xv = builder.shuffle_vector(xv, ir.Constant(vec, ir.Undefined), splat_mask)
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


@njit(cache=True, inline="always")
def _pass(x, idx, n, W, wofs, ld, b, bofs, y, yofs, k):
    """``gemv_block`` with a run-time register count 1..KMAX."""
    if k == 16:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 16)
    elif k == 15:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 15)
    elif k == 14:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 14)
    elif k == 13:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 13)
    elif k == 12:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 12)
    elif k == 11:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 11)
    elif k == 10:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 10)
    elif k == 9:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 9)
    elif k == 8:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 8)
    elif k == 7:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 7)
    elif k == 6:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 6)
    elif k == 5:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 5)
    elif k == 4:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 4)
    elif k == 3:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 3)
    elif k == 2:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 2)
    else:
        gemv_block(x, idx, n, W, wofs, ld, b, bofs, y, yofs, 1)


@njit(cache=True, inline="always")
def _dense(x, idx, n, W, wofs, n_rows, b, bofs, y, yofs, width):
    """``y[yofs : yofs + width] = b[bofs:] + sum over r < n of x[r] * M[row r]`` for the
    blocked [n_rows, width] matrix M at ``W[wofs:]`` (``width`` padded, ``column_blocks``)."""
    nv = width // LANES
    npass = (nv + KMAX - 1) // KMAX
    base = nv // npass
    extra = nv - base * npass
    col = 0
    for p in range(npass):
        k = base + 1 if p < extra else base
        _pass(x, idx, n, W, wofs + n_rows * col, k * LANES, b, bofs + col, y, yofs + col, k)
        col += k * LANES


@njit(cache=True, inline="always")
def _add_row(rows, vals, n, row, value):
    """Append input ``row`` (times ``value``) to a row list; return the new length."""
    rows[n] = row
    vals[n] = value
    return n + 1


@njit(cache=True, inline="always")
def _add_card(rows, vals, n, slot, card, n_ranks, inv, sign):
    """Hand-based slot ``slot`` holds ``card`` (``sign`` -1: remove it): rank number and
    one-hot suit. ``inv`` = ceil(2**16 / n_ranks): card // n_ranks without a division."""
    suit = (card * inv) >> 16
    n = _add_row(rows, vals, n, slot * (1 + SUIT_INPUTS), sign * (card - suit * n_ranks + 1))
    return _add_row(rows, vals, n, slot * (1 + SUIT_INPUTS) + 1 + suit, sign)


@njit(cache=True, inline="always")
def _intact(u, a, n):
    """True when words u[a : a + n] are the bitwise complement of u[a + n : a + 2n]."""
    x = u[a:a + n]
    y = u[a + n:a + 2 * n]
    bad = np.uint64(0)
    for k in range(n):
        bad |= x[k] ^ ~y[k]
    return bad == 0


@njit(cache=True, inline="always")
def _seal(u, a, n):
    """Write the complement of words u[a : a + n] into u[a + n : a + 2n]."""
    x = u[a:a + n]
    y = u[a + n:a + 2 * n]
    for k in range(n):
        y[k] = ~x[k]


@njit(cache=True, inline="always")
def _card_masks(rules, hand, pub):
    """Card-based input as masks: in hand, on the table in this trick, seen earlier."""
    in_trick = ZERO
    for q in range(pub[NPLAYED]):
        in_trick |= bit(pub[TRICK_CARDS + q])
    seen = ZERO
    for s in range(4):
        seen |= np.uint64(pub[PLAYED_BY + s])
    up = pub[UPCARD]
    if rules[P_GAME] == GAME_EUCHRE and up >= 0:
        seen |= bit(up)
    return in_trick, seen & ~(in_trick | hand)


@njit(cache=True, inline="always")
def _card_rows(rows, vals, n, hand, trick, seen, sign):
    """Rows of the card-based inputs set in the masks (each times ``sign``)."""
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        n = _add_row(rows, vals, n, 3 * c, sign)
    m = trick
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        n = _add_row(rows, vals, n, 3 * c + 1, sign)
    m = seen
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        n = _add_row(rows, vals, n, 3 * c + 2, sign)
    return n


@njit(cache=True, inline="always")
def _hand_slots(rows, vals, n, dealt, m, n_hand, n_ranks, inv, sign):
    """Rows of the hand slots of the cards in ``m`` (part of the dealt hand)."""
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        pos = count(dealt & (bit(c) - ONE))
        if pos < n_hand:
            n = _add_card(rows, vals, n, pos, c, n_ranks, inv, sign)
    return n


@njit(cache=True, inline="always")
def _first_layer(kind, n_in, rules, seat, mode, hand, pub, i64, rec64, rows, vals):
    """The rows (and input values) to add to the seat's record ``acc`` to get the current
    first-layer sum, and whether ``acc`` must be cleared first; updates the record's input
    state. Returns (number of rows, from scratch)."""
    n_modes = rules[P_N_MODES]
    n_ranks = rules[P_N_RANKS]
    inv = (65536 + n_ranks - 1) // n_ranks
    st = rec64 + R_STATE
    valid = i64[rec64 + R_MAGIC] == MAGIC and i64[rec64 + R_KIND] == kind
    trump_row = n_in - n_modes + mode
    old_trump = n_in - n_modes + i64[st + 2 if kind == NET_HAND else st + 3]
    n = 0
    if kind == NET_CARD:
        trick, seen = _card_masks(rules, hand, pub)
        full = count(hand | trick | seen) + (1 if n_modes > 1 else 0)
        if valid:
            oh = np.uint64(i64[st])
            ot = np.uint64(i64[st + 1])
            os = np.uint64(i64[st + 2])
            changed = count(oh ^ hand) + count(ot ^ trick) + count(os ^ seen)
            if changed < full:
                n = _card_rows(rows, vals, n, hand & ~oh, trick & ~ot, seen & ~os, 1)
                n = _card_rows(rows, vals, n, oh & ~hand, ot & ~trick, os & ~seen, -1)
                if n_modes > 1 and old_trump != trump_row:
                    n = _add_row(rows, vals, n, trump_row, 1)
                    n = _add_row(rows, vals, n, old_trump, -1)
            else:
                valid = False
        if not valid:
            n = _card_rows(rows, vals, 0, hand, trick, seen, 1)
            if n_modes > 1:
                n = _add_row(rows, vals, n, trump_row, 1)
        i64[st] = np.int64(hand)
        i64[st + 1] = np.int64(trick)
        i64[st + 2] = np.int64(seen)
        i64[st + 3] = mode
        return n, not valid
    # hand-based; state: dealt, hand, mode, history length, 4 trick cards, the history
    n_hand = rules[P_HAND]
    dealt = hand | np.uint64(pub[PLAYED_BY + seat])
    nplayed = pub[NPLAYED]
    n_active = pub[N_ACTIVE]
    n_hist = pub[TRICK] * n_active
    if valid and np.uint64(i64[st]) == dealt:
        oh = np.uint64(i64[st + 1])
        n = _hand_slots(rows, vals, n, dealt, hand & ~oh, n_hand, n_ranks, inv, 1)
        n = _hand_slots(rows, vals, n, dealt, oh & ~hand, n_hand, n_ranks, inv, -1)
        for q in range(4):
            old = i64[st + 4 + q]
            new = pub[TRICK_CARDS + q] if q < nplayed else -1
            if old != new:
                if old >= 0:
                    n = _add_card(rows, vals, n, n_hand + q, old, n_ranks, inv, -1)
                if new >= 0:
                    n = _add_card(rows, vals, n, n_hand + q, new, n_ranks, inv, 1)
                i64[st + 4 + q] = new
        o_hist = i64[st + 3]
        slot = n_hand + 3
        e = 0
        for t in range(pub[TRICK]):
            h = HISTORY + t * HISTORY_STRIDE + 1
            for q in range(n_active):
                new = pub[h + q]
                old = i64[st + 8 + e] if e < o_hist else -1
                if old != new:
                    if old >= 0:
                        n = _add_card(rows, vals, n, slot, old, n_ranks, inv, -1)
                    n = _add_card(rows, vals, n, slot, new, n_ranks, inv, 1)
                    i64[st + 8 + e] = new
                slot += 1
                e += 1
        for e2 in range(n_hist, o_hist):
            n = _add_card(rows, vals, n, n_hand + 3 + e2, i64[st + 8 + e2], n_ranks, inv, -1)
        if n_modes > 1 and old_trump != trump_row:
            n = _add_row(rows, vals, n, trump_row, 1)
            n = _add_row(rows, vals, n, old_trump, -1)
        # a cheaper fresh start (another deal at this seat)?
        if n < 2 * (count(hand) + nplayed + n_hist) + 1:
            i64[st + 1] = np.int64(hand)
            i64[st + 2] = mode
            i64[st + 3] = n_hist
            return n, False
    n = _hand_slots(rows, vals, 0, dealt, hand, n_hand, n_ranks, inv, 1)
    for q in range(4):
        c = pub[TRICK_CARDS + q] if q < nplayed else -1
        if c >= 0:
            n = _add_card(rows, vals, n, n_hand + q, c, n_ranks, inv, 1)
        i64[st + 4 + q] = c
    e = 0
    for t in range(pub[TRICK]):
        h = HISTORY + t * HISTORY_STRIDE + 1
        for q in range(n_active):
            c = pub[h + q]
            n = _add_card(rows, vals, n, n_hand + 3 + e, c, n_ranks, inv, 1)
            i64[st + 8 + e] = c
            e += 1
    if n_modes > 1:
        n = _add_row(rows, vals, n, trump_row, 1)
    i64[st] = np.int64(dealt)
    i64[st + 1] = np.int64(hand)
    i64[st + 2] = mode
    i64[st + 3] = n_hist
    return n, True


@njit(cache=True, inline="always")
def _seat_region(params, lo, seat, work):
    """The network's sizes, weight offsets (into ``params.view(float32)``) and the seat's
    region of ``work`` (as float64; see "scratch memory")."""
    n_in = np.int64(params[lo + 1])
    n_h1 = np.int64(params[lo + 2])
    n_h2 = np.int64(params[lo + 3])
    n_out = np.int64(params[lo + 4])
    p1 = (n_h1 + LANES - 1) // LANES * LANES
    p2 = (n_h2 + LANES - 1) // LANES * LANES
    w1 = 2 * (lo + HEADER)      # 4-byte weights after the header, two per float64 slot
    start, need = _region_words(n_in, p1, p2)
    region = work.size // 4 // 8 * 8                # float64 slots, 64-byte multiple
    if 2 * region < need:
        raise ValueError("network agent: work array smaller than AgentSpec.work_size")
    return n_in, n_h1, n_h2, n_out, p1, p2, w1, start, work[seat * region:(seat + 1) * region]


@njit(cache=True, inline="always")
def _layer1_sum(kind, params, lo, seat, rules, mode, hand, pub, work, fresh_only):
    """Bring the seat's first-layer record up to date (from scratch when it is not intact
    or when ``fresh_only``); returns (record offset of acc in 4-byte words, number of rows
    summed, fresh start)."""
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    i32 = f64.view(np.int32)
    i64 = f64.view(np.int64)
    u64 = f64.view(np.uint64)
    rows = i32[p1 + p2:p1 + p2 + n_in]
    vals = i32[p1 + p2 + n_in:p1 + p2 + 2 * n_in]
    rec64 = rec // 2
    n64 = REC64 + p1 // 2
    acc = rec + 2 * REC64
    w1_id = params[lo + H_W1_ID]
    if fresh_only or not (i64[rec64 + R_MAGIC] == MAGIC and f64[rec64 + R_ID] == w1_id and _intact(u64, rec64, n64)):
        i64[rec64 + R_MAGIC] = 0
    n, fresh = _first_layer(kind, n_in, rules, seat, mode, hand, pub, i64, rec64, rows, vals)
    w = params.view(np.int32)
    if fresh:
        _dense(vals, rows, n, w, w1, n_in, None, 0, i32, acc, p1)
    elif n > 0:
        _dense(vals, rows, n, w, w1, n_in, i32, acc, i32, acc, p1)
    i64[rec64 + R_MAGIC] = MAGIC
    i64[rec64 + R_KIND] = kind
    f64[rec64 + R_ID] = w1_id
    _seal(u64, rec64, n64)
    return acc, n, fresh


@njit(cache=True, inline="always")
def _offsets(params, lo, n_in, n_h1, p1, p2, w1):
    """Offsets into ``params.view(float32)`` of b1, W2, b2, W3T and b3."""
    b1 = w1 + n_in * p1
    w2 = b1 + p1
    b2 = w2 + n_h1 * p2
    w3 = b2 + p2
    return b1, w2, b2, w3, w3 + np.int64(params[lo + 4]) * p2


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _hidden1(kind, params, lo, seat, rules, mode, hand, pub, work):
    """The first hidden layer for the seat's observation, into ``h1`` of the seat's
    region of ``work``; returns (number of first-layer rows summed, fresh start)."""
    acc, n, fresh = _layer1_sum(kind, params, lo, seat, rules, mode, hand, pub, work, False)
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    w32 = params.view(np.float32)
    h1 = f64.view(np.float32)[0:p1]
    a = f64.view(np.int32)[acc:acc + p1]
    bias = w32[b1:b1 + p1]
    scale = _F(params[lo + H_W1_SCALE])
    for v in range(0, p1, LANES):
        hv = h1[v:v + LANES]
        av = a[v:v + LANES]
        bv = bias[v:v + LANES]
        for j in range(LANES):
            hv[j] = fast_tanh(_F(av[j]) * scale + bv[j])
    return n, fresh


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _tanh_h2(params, lo, seat, work):
    """tanh of the second layer's sums in ``h2`` (in place); returns (h2, offset of W3T,
    offset of b3, padded n_h2) with offsets into ``params.view(float32)``."""
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    h2 = f64.view(np.float32)[p1:p1 + p2]
    for v in range(0, p2, LANES):
        hv = h2[v:v + LANES]
        for j in range(LANES):
            hv[j] = fast_tanh(hv[j])
    return h2, w3, b3, p2


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _hidden(kind, params, lo, seat, rules, mode, hand, pub, work):
    """Both hidden layers for the seat's observation, into ``work``; returns
    (h2, offset of W3T, offset of b3, padded n_h2, rows summed, fresh start) with offsets
    into ``params.view(float32)``."""
    n, fresh = _hidden1(kind, params, lo, seat, rules, mode, hand, pub, work)
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    w32 = params.view(np.float32)
    f32 = f64.view(np.float32)
    _dense(f32[0:p1], None, n_h1, w32, w2, n_h1, w32, b2, f32[p1:p1 + p2], 0, p2)
    h2, w3, b3, p2 = _tanh_h2(params, lo, seat, work)
    return h2, w3, b3, p2, n, fresh


@njit(cache=True, inline="always")
def _output(params, h2, w3, b3, p2, out):
    """Network output ``out`` (without the monotonic output tanh)."""
    w32 = params.view(np.float32)
    return w32[b3 + out] + dot_block(h2, w32, w3 + out * p2, p2 // LANES)


@njit(cache=True, inline="always")
def _direct_context(rules, mode, seat, hand, pub):
    """What the direct features of every card of one decision share, computed once per
    decision: the mode's highest strength, whether the partner is winning the trick, the
    cards played so far in the trick, the led suit and the winning card's trick key (when
    the trick is not empty), and the cards that the opponents still to play may hold."""
    top = 1
    for c in range(rules[P_N_CARDS]):
        top = max(top, strength_of(rules, mode, c))
    nplayed = pub[NPLAYED]
    led = -1
    win_key = 0
    if nplayed > 0:
        led = suit_of(rules, mode, pub[TRICK_CARDS])
        win_key = card_key(rules, mode, pub[TRICK_CARDS + trick_winner_pos(rules, mode, pub)], led)
    partner = partner_of(rules, seat, pub)
    threat = ZERO
    s = seat
    for _ in range(pub[N_ACTIVE] - nplayed - 1):
        s = next_active(pub, s)
        if s != partner:
            threat |= may_hold(rules, mode, seat, hand, pub, s)
    return float(top), partner_winning(rules, mode, seat, pub), nplayed, led, win_key, threat


@njit(cache=True, inline="always")
def _direct_features(rules, mode, card, ctx):
    """The DIRECT_FEATURES direct features of ``card`` (a tuple), from what the seat sees
    (``ctx``: its ``_direct_context``): 0 the card would win the trick as it stands (or
    leads it); 1 it wins the trick for certain (no opponent still to play may beat it, by
    the voids shown); 2 its strength in [0, 1] of the mode's highest strength; 3 its
    strength while the partner is winning the trick, else 0; 4 its card points / 20; 5 its
    strength if it would win as it stands, else 0."""
    top, partner_wins, nplayed, led_now, win_key, threat = ctx
    led = suit_of(rules, mode, card) if nplayed == 0 else led_now
    key = card_key(rules, mode, card, led)
    wins = nplayed == 0 or key > win_key
    # "some opponent may beat it" for each opponent is "the cards any of them may hold
    # include a better one"
    sure = wins and not may_beat(rules, mode, threat, led, key)
    strength = strength_of(rules, mode, card) / top
    return (1.0 if wins else 0.0, 1.0 if sure else 0.0, strength, strength if partner_wins else 0.0,
            points_of(rules, mode, card) / 20.0, strength if wins else 0.0)


@njit(cache=True, inline="always")
def _direct_term(params, d_ofs, rules, mode, card, ctx):
    """DIRECT_SCALE x the dot product of the card's direct features and the weights D."""
    f = _direct_features(rules, mode, card, ctx)
    w32 = params.view(np.float32)
    total = (w32[d_ofs] * f[0] + w32[d_ofs + 1] * f[1] + w32[d_ofs + 2] * f[2] + w32[d_ofs + 3] * f[3]
             + w32[d_ofs + 4] * f[4] + w32[d_ofs + 5] * f[5])
    return _F(DIRECT_SCALE * total)


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _pick(kind, params, lo, seat, rules, mode, hand, legal, pub, h2, w3, b3, p2):
    """The legal card with the highest output, given the second hidden layer ``h2`` (plus
    the direct term of each card, with direct connections)."""
    direct = params[lo + H_DIRECT] > 0
    d_ofs = b3 + np.int64(params[lo + 4])
    ctx = _direct_context(rules, mode, seat, hand, pub) if direct else (1.0, False, 0, -1, 0, ZERO)
    best = -1
    best_v = _F(-3.0e38)
    if kind == NET_CARD:
        m = legal
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            v = _output(params, h2, w3, b3, p2, c)
            if direct:
                v += _direct_term(params, d_ofs, rules, mode, c, ctx)
            if v > best_v:
                best_v = v
                best = c
    else:
        pos = 0
        m = hand | np.uint64(pub[PLAYED_BY + seat])
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            if has(legal, c):
                v = _output(params, h2, w3, b3, p2, pos)
                if direct:
                    v += _direct_term(params, d_ofs, rules, mode, c, ctx)
                if v > best_v:
                    best_v = v
                    best = c
            pos += 1
    return best


# A decision is three compiled functions, so that the lockstep kernel (``evolve.lockstep``),
# which runs the second layer for many deals at once, shares the other two with
# ``network_card`` (one compilation, ~17 s for the first) and computes the same numbers.

@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_layer1(kind, params, lo, seat, rules, mode, hand, pub, work):
    """First step of a decision: the first hidden layer into ``work``."""
    _hidden1(kind, params, lo, seat, rules, mode, hand, pub, work)


@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_choose(kind, params, lo, seat, rules, mode, hand, legal, pub, work):
    """Last step of a decision, once the second layer's sums are in ``h2``: tanh, then
    the legal card with the highest output."""
    h2, w3, b3, p2 = _tanh_h2(params, lo, seat, work)
    return _pick(kind, params, lo, seat, rules, mode, hand, legal, pub, h2, w3, b3, p2)


@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The legal card with the highest network output (a lone legal card at once).
    (``evolve.games.bits.kernel`` flags plus ``error_model="numpy"``, see ``fast_tanh``.)"""
    if count(legal) == 1:
        return lowest(legal)
    network_layer1(kind, params, lo, seat, rules, mode, hand, pub, work)
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    w32 = params.view(np.float32)
    f32 = f64.view(np.float32)
    _dense(f32[0:p1], None, n_h1, w32, w2, n_h1, w32, b2, f32[p1:p1 + p2], 0, p2)
    return network_choose(kind, params, lo, seat, rules, mode, hand, legal, pub, work)


# ------------------------------------------------------------- lockstep (many deals)
@njit(cache=True, _nrt=False)
def network_layer2_many(params, lo, seats, slots, m, work, xofs, yofs):
    """The second layer of ``network_card`` for ``m`` deals that wait for the network at
    ``params[lo:]`` (``evolve.lockstep``): deal k's scratch memory is ``work[slots[k]]`` (a
    row per deal) and its seat ``seats[slots[k]]``; its second layer's sums go into its
    ``h2``, summed in the order of ``network_card`` (the same numbers, bit for bit), but
    each weight row loaded serves up to ``GEMM_M`` deals. ``xofs``, ``yofs`` are int64
    scratch of at least ``GEMM_M`` entries."""
    n_in = np.int64(params[lo + 1])
    n_h1 = np.int64(params[lo + 2])
    n_h2 = np.int64(params[lo + 3])
    p1 = (n_h1 + LANES - 1) // LANES * LANES
    p2 = (n_h2 + LANES - 1) // LANES * LANES
    w1 = 2 * (lo + HEADER)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    w32 = params.view(np.float32)
    row = work.shape[1]
    region = row // 4 // 8 * 8                      # as _seat_region, in float64 slots
    flat = work.reshape(-1).view(np.float32)
    nv = p2 // LANES
    npass = (nv + KMAX - 1) // KMAX
    base = nv // npass
    extra = nv - base * npass
    for g in range(0, m, GEMM_M):
        mb = min(GEMM_M, m - g)
        for k in range(mb):
            s = slots[g + k]
            xofs[k] = 2 * (s * row + seats[s] * region)      # h1 of the seat's region
            yofs[k] = xofs[k] + p1                           # h2
        col = 0
        for p in range(npass):                               # the blocks of ``_dense``
            k = base + 1 if p < extra else base
            gemm_rows(flat, xofs, mb, n_h1, w32, w2 + n_h1 * col, k * LANES, w32, b2 + col, flat, yofs, col, k)
            col += k * LANES


@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_outputs(kind, params, lo, seat, rules, mode, hand, pub, work, out):
    """Debugging and tests: every output of the network into ``out[0:n_out]`` (the code
    path of ``network_card``, including the seat's first-layer record in ``work``).
    Returns the number of first-layer rows summed, negative when the record could not be
    updated (a fresh start)."""
    h2, w3, b3, p2, n, fresh = _hidden(kind, params, lo, seat, rules, mode, hand, pub, work)
    for o in range(np.int64(params[lo + 4])):
        out[o] = _output(params, h2, w3, b3, p2, o)
    return -n if fresh else n


def output_index(arch: "Architecture", seat: int, hand, pub, card: int) -> int:
    """The output that scores ``card``: the card itself (card-based), or its position in
    the seat's hand as dealt, sorted by card id (hand-based)."""
    if arch.encoding == "card":
        return int(card)
    dealt = int(hand) | int(np.uint64(pub[PLAYED_BY + seat]))
    return bin(dealt & ((1 << int(card)) - 1)).count("1")


def quantize_w1(w1: np.ndarray, encoding: str) -> tuple[np.ndarray, np.ndarray]:
    """W1 as int32 fixed point and its scale (W1 ~ q * scale); ``w1`` may be a stack of
    matrices [..., n_in, n_h1], each with its own scale."""
    w1 = np.asarray(w1, np.float64)
    # max and min instead of abs().max(): no temporary, and NaN / inf show up in them
    big = np.maximum(w1.max(axis=(-2, -1), initial=0.0), -w1.min(axis=(-2, -1), initial=0.0))
    if not np.isfinite(big).all():
        raise ValueError("network weights must be finite")
    headroom = np.where(big > 1, np.maximum(0, np.ceil(np.log2(np.maximum(big, 1.0)))), 0).astype(np.int64)
    scale = 2.0 ** -(W1_BITS[encoding] - headroom).astype(np.float64)
    q = np.multiply(w1, (1.0 / scale)[..., None, None])     # 1/scale: a power of 2, exact
    return np.rint(q, out=q).astype(np.int32), scale


_ID_MULTIPLIERS: dict[int, np.ndarray] = {}


def _w1_ids(w1: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """A 53-bit id per row of quantised first layers [n, words] (with its scale), for the
    first-layer records: a sum of the 64-bit words times fixed odd multipliers, then the
    SplitMix64 finaliser. One vectorised pass; a hash of bytes per network cost 9 ms per
    60-member generation of the parent's serial time."""
    words = np.ascontiguousarray(w1).view(np.uint64)      # rows hold n_in x padded(n_h1) words: even
    mult = _ID_MULTIPLIERS.get(words.shape[1])
    if mult is None:
        mult = np.random.default_rng(0x1D5).integers(0, 2**63, words.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        _ID_MULTIPLIERS[words.shape[1]] = mult
    with np.errstate(over="ignore"):
        h = (words * mult).sum(axis=1, dtype=np.uint64)
        h ^= scale.astype(np.float64).view(np.uint64) * GOLDEN
        h = mix64.py_func(h)                   # the engine's finaliser, on the whole array
    return (h >> np.uint64(11)).astype(np.float64)


@dataclass(frozen=True)
class Architecture:
    """A network shape for one game and encoding. Genomes are flat float64 vectors of
    ``genome_size`` values in [-1, 1] (biases included only when ``bias``)."""

    game: str
    encoding: str
    n_in: int
    n_h1: int
    n_h2: int
    n_out: int
    bias: bool = True
    direct: bool = False    # direct per-card feature connections to the outputs (``_direct_features``)

    @classmethod
    def for_game(cls, game, encoding: str = "card", hidden: tuple[int, int] | None = None, bias: bool = True,
                 direct: bool = False):
        """The SPEC §3 architecture (hidden sizes default to round(2/3 in + out)), with or
        without direct feature connections."""
        info = getattr(game, "info", game)
        n_in, n_out = encoding_sizes(info, encoding)
        h = default_hidden(n_in, n_out)
        h1, h2 = hidden if hidden else (h, h)
        return cls(info.name, encoding, n_in, int(h1), int(h2), n_out, bool(bias), bool(direct))

    @property
    def kind(self) -> int:
        return NET_CARD if self.encoding == "card" else NET_HAND

    @property
    def layers(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the weight arrays, in genome order."""
        return [
            ("W1", (self.n_in, self.n_h1)), ("b1", (self.n_h1,)),
            ("W2", (self.n_h1, self.n_h2)), ("b2", (self.n_h2,)),
            ("W3T", (self.n_out, self.n_h2)), ("b3", (self.n_out,)),
        ] + ([("D", (DIRECT_FEATURES,))] if self.direct else [])

    @property
    def genome_size(self) -> int:
        return sum(int(np.prod(shape)) for name, shape in self.layers if self.bias or not name.startswith("b"))

    @property
    def work_size(self) -> int:
        """float64 slots of scratch memory: per seat, the activations and row lists of a
        forward pass and the seat's first-layer record (see "scratch memory" above)."""
        start, need = _region_words(self.n_in, padded(self.n_h1), padded(self.n_h2))
        return 4 * (-(-need // 16) * 8)

    def random_genome(self, rng: np.random.Generator) -> np.ndarray:
        """Weights uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, self.genome_size)

    def unpack(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a genome (views into it; zero biases when ``bias`` is off)."""
        return {name: w[0] for name, w in self._split(self._checked(genome)[None, :]).items()}

    def _checked(self, genome) -> np.ndarray:
        genome = np.asarray(genome, dtype=np.float64)
        if genome.shape != (self.genome_size,):
            raise ValueError(f"genome has {genome.shape} values, architecture expects {self.genome_size}")
        return genome

    def _split(self, genomes: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a stack of genomes [G, genome_size], each [G, *shape]."""
        out, pos = {}, 0
        for name, shape in self.layers:
            size = int(np.prod(shape))
            if name.startswith("b") and not self.bias:
                out[name] = np.zeros((genomes.shape[0], *shape))
                continue
            out[name] = genomes[:, pos:pos + size].reshape(-1, *shape)
            pos += size
        return out

    def pack(self, genome: np.ndarray) -> np.ndarray:
        """The engine's parameter vector: the header, then the weights in the kernel's
        layout (see the module docstring)."""
        return self.pack_many(self._checked(genome)[None, :])[0]

    def pack_many(self, genomes: np.ndarray) -> np.ndarray:
        """Parameter vectors of many genomes, one row each (``pack`` of every row, by array
        operations over blocks of rows)."""
        genomes = np.asarray(genomes, dtype=np.float64)
        if genomes.ndim != 2 or genomes.shape[1] != self.genome_size:
            raise ValueError(f"genomes have shape {genomes.shape}, architecture expects [n, {self.genome_size}]")
        out = np.zeros((genomes.shape[0], self.packed_size), np.float64)
        # blocks of a few networks keep the temporaries in cache: 60 study networks in
        # one pass took ~13 ms, in blocks of 8 ~4.5 ms
        for start in range(0, genomes.shape[0], PACK_BLOCK):
            self._pack_into(genomes[start:start + PACK_BLOCK], out[start:start + PACK_BLOCK])
        return out

    def _pack_into(self, genomes: np.ndarray, out: np.ndarray) -> None:
        n = genomes.shape[0]
        p = self._split(genomes)
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        q1, scale = quantize_w1(p["W1"], self.encoding)
        out[:, :5] = [ENC_CARD if self.encoding == "card" else ENC_HAND, self.n_in, self.n_h1, self.n_h2, self.n_out]
        out[:, H_W1_SCALE] = scale
        words = out[:, HEADER:].view(np.uint32)        # the weights, 4-byte words
        i32, f32 = words.view(np.int32), words.view(np.float32)
        pos = _put_blocked(i32, q1)
        out[:, H_W1_ID] = _w1_ids(i32[:, :pos], scale)
        f32[:, pos:pos + self.n_h1] = p["b1"]
        pos += p1
        pos += _put_blocked(f32[:, pos:], p["W2"])
        f32[:, pos:pos + self.n_h2] = p["b2"]
        pos += p2
        f32[:, pos:pos + self.n_out * p2].reshape(n, self.n_out, p2)[:, :, :self.n_h2] = p["W3T"]
        pos += self.n_out * p2
        f32[:, pos:pos + self.n_out] = p["b3"]
        if self.direct:
            out[:, H_DIRECT] = DIRECT_FEATURES
            f32[:, pos + self.n_out:pos + self.n_out + DIRECT_FEATURES] = p["D"]

    @property
    def packed_size(self) -> int:
        """Length of ``pack``'s float64 vector."""
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        n = self.n_in * p1 + p1 + self.n_h1 * p2 + p2 + self.n_out * p2 + self.n_out
        n += DIRECT_FEATURES if self.direct else 0
        return HEADER + (n + 1) // 2

    def to_json(self) -> dict:
        out = {"game": self.game, "encoding": self.encoding, "n_in": self.n_in, "n_h1": self.n_h1,
               "n_h2": self.n_h2, "n_out": self.n_out, "bias": self.bias}
        return {**out, "direct": True} if self.direct else out


@njit(cache=True, _nrt=False, error_model="numpy")
def network_inputs(kind, params, lo, seat, rules, mode, hand, pub, work, x):
    """Debugging and tests: the network's input vector into ``x[0:n_in]`` (zeroed first),
    from the row list the first layer is computed from (from scratch; the seat's record
    is rebuilt). Returns the number of active inputs."""
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    acc, n, fresh = _layer1_sum(kind, params, lo, seat, rules, mode, hand, pub, work, True)
    i32 = f64.view(np.int32)
    for i in range(n_in):
        x[i] = 0.0
    for r in range(n):
        x[i32[p1 + p2 + r]] += i32[p1 + p2 + n_in + r]
    return n
