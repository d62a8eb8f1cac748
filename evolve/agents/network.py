"""Evolved fixed-topology tanh networks as card-play agents (SPEC §3).

A network agent's parameter vector is ``header + weights``:

    header  = [encoding, n_in, n_h1, n_h2, n_out]          (HEADER float64 values)
    weights = W1 [n_in, P1], b1 [P1], W2 [n_h1, P2], b2 [P2],
              W3T [n_out, P2], b3 [n_out]                    (float32, packed two per
                                                             float64 slot after the header)

where ``P1``, ``P2`` are the hidden sizes rounded up to a multiple of ``LANES`` (16 float32,
one AVX-512 register); the padding weights and biases are zero, so padded hidden units
are tanh(0) = 0 and change nothing. ``W1`` and ``W2`` are stored in column blocks of at
most ``KMAX`` registers (``column_blocks``), each block row-major; with at most
``KMAX * LANES`` = 256 hidden units (every default architecture) that is plain row-major.

Two hidden tanh layers; the agent plays the legal card whose output is highest (outputs
of illegal cards are never computed; a single legal card is played without evaluating the
network). The output tanh is monotonic, so it is skipped.

Encodings (``ENC_CARD`` and ``ENC_HAND``; games with a variable trump append a one-hot of
the trump mode):

- card-based: three inputs per card of the deck, a one-hot location — in my hand / on the
  table in the current trick / played in an earlier trick — all zero while unseen; Euchre
  marks the turned card as seen (third input) for everyone who does not hold it and has not
  got it on the table in the current trick. One output per card.
- hand-based: the hand as dealt (sorted by card id), 1 + 4 inputs per card (rank number
  1..R, then a one-hot suit), zeroed once played; then the up to 3 cards already in the
  current trick; then the cards of earlier tricks in the order played. One output per
  position of the dealt hand.

Only the deciding seat's hand and the public state are read.

Speed (the forward pass is bound by streaming the weights from L2): the input is sparse,
so the first layer is a gather of the active rows of W1; both hidden layers run in the
intrinsic ``gemv_block``, which keeps up to ``KMAX`` 16-float accumulators in registers
while it streams the weight rows once (Numba's loop vectoriser would reload and store the
accumulators for every row, and its SLP vectoriser is off). ``work`` holds the float32
activations and the active-row list (``work_size``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from evolve.games.bits import ONE, ZERO, bit, count, has, kernel, lowest
from evolve.games.rules import GAME_EUCHRE, P_GAME, P_HAND, P_N_CARDS, P_N_MODES, P_N_RANKS
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
HEADER = 5
SUIT_INPUTS = 4
LANES = 16   # float32 per vector register (AVX-512); hidden layers are padded to it
KMAX = 16    # most vector accumulators of one pass over a weight matrix


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
    """(first column, number of registers) of each block of a padded ``width``-column
    matrix: as few blocks as fit ``KMAX`` registers, as even as possible (the kernel's
    ``_dense`` walks the same blocks)."""
    nv = padded(width) // LANES
    npass = max(1, -(-nv // KMAX))
    base, extra = divmod(nv, npass)
    out, v = [], 0
    for p in range(npass):
        k = base + (1 if p < extra else 0)
        out.append((v * LANES, k))
        v += k
    return out


def _blocked(m: np.ndarray) -> np.ndarray:
    """A [rows, cols] matrix padded to ``padded(cols)`` columns in the blocked order."""
    rows, cols = m.shape
    full = np.zeros((rows, padded(cols)), np.float32)
    full[:, :cols] = m
    return np.concatenate([full[:, c:c + k * LANES].ravel() for c, k in column_blocks(cols)])


# ----------------------------------------------------------------------------- kernels

_F = np.float32
_F32 = ir.FloatType()
_VEC = ir.VectorType(_F32, LANES)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


def _vec_at(builder, base, ofs):
    """The ``<LANES x float>*`` at float* ``base`` + ``ofs``."""
    return builder.bitcast(builder.gep(base, [ofs], inbounds=True), _VEC.as_pointer())


def _data(context, builder, ty, value):
    return context.make_array(ty)(context, builder, value).data


@intrinsic(prefer_literal=True)
def gemv_block(typingctx, x, idx, n, W, wofs, ld, b, bofs, y, yofs, K):
    """``y[yofs : yofs + 16K] = b[bofs : bofs + 16K] + sum over r < n of
    x[r] * W[wofs + row * ld : + 16K]`` with ``row = idx[r]`` (an int32 array) or ``r``
    (``idx`` None). ``K`` (a literal) 16-float accumulators stay in registers for the
    whole loop; x, W, b, y are float32 arrays, no bounds are checked."""
    if not isinstance(K, types.IntegerLiteral):
        return None
    k = K.literal_value
    indirect = not isinstance(idx, types.NoneType)
    sig = types.void(x, idx, n, W, wofs, ld, b, bofs, y, yofs, K)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, ia, n_, wa, wofs_, ld_, ba, bofs_, ya, yofs_, _ = args
        xp = _data(context, builder, ta[0], xa)
        wp = _data(context, builder, ta[3], wa)
        bp = _data(context, builder, ta[6], ba)
        yp = _data(context, builder, ta[8], ya)
        ip = _data(context, builder, ta[1], ia) if indirect else None
        fnty = ir.FunctionType(_VEC, [_VEC, _VEC, _VEC])
        fma = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fmuladd.v16f32")
        accs = []
        for j in range(k):
            slot = cgutils.alloca_once(builder, _VEC)   # promoted to a register by mem2reg
            off = builder.add(bofs_, ir.Constant(_I64, j * LANES))
            builder.store(builder.load(_vec_at(builder, bp, off), align=4), slot)
            accs.append(slot)
        splat_mask = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
        with cgutils.for_range(builder, n_) as loop:
            r = loop.index
            xv = builder.load(builder.gep(xp, [r], inbounds=True))
            xv = builder.insert_element(ir.Constant(_VEC, ir.Undefined), xv, ir.Constant(_I32, 0))
            xv = builder.shuffle_vector(xv, ir.Constant(_VEC, ir.Undefined), splat_mask)
            row = r
            if indirect:
                row = builder.sext(builder.load(builder.gep(ip, [r], inbounds=True)), _I64)
            base = builder.add(wofs_, builder.mul(row, ld_))
            for j in range(k):
                w = builder.load(_vec_at(builder, wp, builder.add(base, ir.Constant(_I64, j * LANES))), align=4)
                builder.store(builder.call(fma, [xv, w, builder.load(accs[j])]), accs[j])
        for j in range(k):
            off = builder.add(yofs_, ir.Constant(_I64, j * LANES))
            builder.store(builder.load(accs[j]), _vec_at(builder, yp, off), align=4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def dot_block(typingctx, x, W, wofs, nv):
    """``sum(x[0 : 16 nv] * W[wofs : wofs + 16 nv])`` in float32 (two vector
    accumulators, then a shuffle tree)."""
    sig = types.float32(x, W, wofs, nv)

    def codegen(context, builder, signature, args):
        ta = signature.args
        xa, wa, wofs_, nv_ = args
        xp = _data(context, builder, ta[0], xa)
        wp = _data(context, builder, ta[1], wa)
        fnty = ir.FunctionType(_VEC, [_VEC, _VEC, _VEC])
        fma = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fmuladd.v16f32")
        zero = ir.Constant(_VEC, [0.0] * LANES)
        acc = cgutils.alloca_once_value(builder, zero)
        with cgutils.for_range(builder, nv_) as loop:
            o = builder.mul(loop.index, ir.Constant(_I64, LANES))
            xv = builder.load(_vec_at(builder, xp, o), align=4)
            wv = builder.load(_vec_at(builder, wp, builder.add(wofs_, o)), align=4)
            builder.store(builder.call(fma, [xv, wv, builder.load(acc)]), acc)
        v = builder.load(acc)
        width = LANES
        while width > 1:
            width //= 2
            hi = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, LANES), [(j + width) % LANES for j in range(LANES)]))
            v = builder.fadd(v, hi)
        return builder.extract_element(v, ir.Constant(_I32, 0))

    return sig, codegen


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def fast_tanh(x):
    """float32 tanh by a clamped rational approximation (Eigen's; |error| < 1e-6), which
    LLVM vectorises where ``np.tanh`` is a scalar libm call."""
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


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _tanh_all(h, n):
    """h[0:n] = tanh(h[0:n]) for n a multiple of LANES (whole registers, no remainder)."""
    for v in range(0, n, LANES):
        blk = h[v:v + LANES]
        for j in range(LANES):
            blk[j] = fast_tanh(blk[j])


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
def _dense(x, idx, n, W, wofs, n_rows, b, bofs, y, width):
    """``y[0:width] = b[bofs:] + sum over r < n of x[r] * M[row r]`` for the blocked
    [n_rows, width] matrix M at ``W[wofs:]`` (``width`` padded; ``column_blocks``)."""
    nv = width // LANES
    npass = (nv + KMAX - 1) // KMAX
    base = nv // npass
    extra = nv - base * npass
    col = 0
    for p in range(npass):
        k = base + 1 if p < extra else base
        _pass(x, idx, n, W, wofs + n_rows * col, k * LANES, b, bofs + col, y, col, k)
        col += k * LANES


@njit(cache=True, inline="always")
def _add_row(vals, idx, nnz, row, value):
    """Append input ``row`` with ``value`` to the active-input list; return the new count."""
    idx[nnz] = row
    vals[nnz] = value
    return nnz + 1


@njit(cache=True, inline="always")
def _add_card(vals, idx, nnz, slot, card, n_ranks, per):
    """Hand-based slot ``slot`` holds ``card``: rank number and one-hot suit."""
    nnz = _add_row(vals, idx, nnz, slot * per, card % n_ranks + 1)
    return _add_row(vals, idx, nnz, slot * per + 1 + card // n_ranks, 1)


@njit(cache=True, inline="always")
def _hidden(kind, params, lo, seat, rules, mode, hand, pub, work):
    """Both hidden layers for the seat's observation, into ``h2`` of ``work``; returns
    (h2, W3 offset, b3 offset, padded n_h2) with offsets into ``params.view(float32)``."""
    n_in = np.int64(params[lo + 1])
    n_h1 = np.int64(params[lo + 2])
    n_h2 = np.int64(params[lo + 3])
    n_out = np.int64(params[lo + 4])
    p1 = (n_h1 + LANES - 1) // LANES * LANES
    p2 = (n_h2 + LANES - 1) // LANES * LANES
    # weights are float32, two per float64 slot after the header (halves the memory
    # traffic of four networks at a table)
    w32 = params.view(np.float32)
    w1 = 2 * (lo + HEADER)
    b1 = w1 + n_in * p1
    w2 = b1 + p1
    b2 = w2 + n_h1 * p2
    w3 = b2 + p2
    b3 = w3 + n_out * p2
    f32 = work.view(np.float32)
    h1 = f32[0:p1]
    h2 = f32[p1:p1 + p2]
    vals = f32[p1 + p2:p1 + p2 + n_in]
    idx = work.view(np.int32)[p1 + p2 + n_in:p1 + p2 + 2 * n_in]
    n_cards = rules[P_N_CARDS]
    n_modes = rules[P_N_MODES]
    n_ranks = rules[P_N_RANKS]
    nplayed = pub[NPLAYED]
    nnz = 0
    if kind == NET_CARD:
        in_trick = ZERO
        for q in range(nplayed):
            in_trick |= bit(pub[TRICK_CARDS + q])
        played = ZERO
        for s in range(4):
            played |= np.uint64(pub[PLAYED_BY + s])
        m = hand
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            nnz = _add_row(vals, idx, nnz, 3 * c, 1)
        m = in_trick
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            nnz = _add_row(vals, idx, nnz, 3 * c + 1, 1)
        m = played
        up = pub[UPCARD]
        if rules[P_GAME] == GAME_EUCHRE and up >= 0:
            m |= bit(up)
        m &= ~(in_trick | hand)
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            nnz = _add_row(vals, idx, nnz, 3 * c + 2, 1)
        if n_modes > 1:
            nnz = _add_row(vals, idx, nnz, 3 * n_cards + mode, 1)
    else:
        per = 1 + SUIT_INPUTS
        n_hand = rules[P_HAND]
        pos = 0
        m = hand | np.uint64(pub[PLAYED_BY + seat])
        while m != ZERO and pos < n_hand:
            c = lowest(m)
            m &= m - ONE
            if has(hand, c):
                nnz = _add_card(vals, idx, nnz, pos, c, n_ranks, per)
            pos += 1
        for q in range(nplayed):
            nnz = _add_card(vals, idx, nnz, n_hand + q, pub[TRICK_CARDS + q], n_ranks, per)
        k = n_hand + 3
        n_active = pub[N_ACTIVE]
        for t in range(pub[TRICK]):
            h = HISTORY + t * HISTORY_STRIDE
            for q in range(n_active):
                nnz = _add_card(vals, idx, nnz, k, pub[h + 1 + q], n_ranks, per)
                k += 1
        if n_modes > 1:
            nnz = _add_row(vals, idx, nnz, n_in - n_modes + mode, 1)
    _dense(vals, idx, nnz, w32, w1, n_in, w32, b1, h1, p1)
    _tanh_all(h1, p1)
    _dense(h1, None, n_h1, w32, w2, n_h1, w32, b2, h2, p2)
    _tanh_all(h2, p2)
    return h2, w3, b3, p2


@njit(cache=True, inline="always")
def _output(params, h2, w3, b3, p2, out):
    """Network output ``out`` (without the monotonic output tanh)."""
    w32 = params.view(np.float32)
    return w32[b3 + out] + dot_block(h2, w32, w3 + out * p2, p2 // LANES)


@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The legal card with the highest network output (a lone legal card at once)."""
    if count(legal) == 1:
        return lowest(legal)
    h2, w3, b3, p2 = _hidden(kind, params, lo, seat, rules, mode, hand, pub, work)
    best = -1
    best_v = _F(-3.0e38)
    if kind == NET_CARD:
        m = legal
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            v = _output(params, h2, w3, b3, p2, c)
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
                if v > best_v:
                    best_v = v
                    best = c
            pos += 1
    return best


@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_outputs(kind, params, lo, seat, rules, mode, hand, pub, work, out):
    """Debugging and tests: every output of the network (same code path as
    ``network_card``) into ``out[0:n_out]``; returns the number of active inputs."""
    h2, w3, b3, p2 = _hidden(kind, params, lo, seat, rules, mode, hand, pub, work)
    n_out = np.int64(params[lo + 4])
    for o in range(n_out):
        out[o] = _output(params, h2, w3, b3, p2, o)
    return 0


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

    @classmethod
    def for_game(cls, game, encoding: str = "card", hidden: tuple[int, int] | None = None, bias: bool = True):
        """The SPEC §3 architecture (hidden sizes default to round(2/3 in + out))."""
        info = getattr(game, "info", game)
        n_in, n_out = encoding_sizes(info, encoding)
        h = default_hidden(n_in, n_out)
        h1, h2 = hidden if hidden else (h, h)
        return cls(info.name, encoding, n_in, int(h1), int(h2), n_out, bool(bias))

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
        ]

    @property
    def genome_size(self) -> int:
        return sum(int(np.prod(shape)) for name, shape in self.layers if self.bias or not name.startswith("b"))

    @property
    def work_size(self) -> int:
        """Scratch float64 slots the forward pass needs: float32 activations of both
        (padded) hidden layers, then the active inputs (float32 values, int32 rows)."""
        return (padded(self.n_h1) + padded(self.n_h2) + 2 * self.n_in + 1) // 2 + 1

    def random_genome(self, rng: np.random.Generator) -> np.ndarray:
        """Weights uniform in [-1, 1]."""
        return rng.uniform(-1.0, 1.0, self.genome_size)

    def unpack(self, genome: np.ndarray) -> dict[str, np.ndarray]:
        """Named weight arrays of a genome (zero biases when ``bias`` is off)."""
        genome = np.asarray(genome, dtype=np.float64)
        if genome.shape != (self.genome_size,):
            raise ValueError(f"genome has {genome.shape} values, architecture expects {self.genome_size}")
        out, pos = {}, 0
        for name, shape in self.layers:
            size = int(np.prod(shape))
            if name.startswith("b") and not self.bias:
                out[name] = np.zeros(shape)
                continue
            out[name] = genome[pos:pos + size].reshape(shape)
            pos += size
        return out

    def pack(self, genome: np.ndarray) -> np.ndarray:
        """The engine's parameter vector: header, then the float32 weights in the kernel's
        layout (hidden layers zero-padded to ``LANES``, W1 and W2 in column blocks)."""
        header = np.array([ENC_CARD if self.encoding == "card" else ENC_HAND, self.n_in, self.n_h1, self.n_h2, self.n_out], np.float64)
        p = self.unpack(genome)
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        b1 = np.zeros(p1, np.float32)
        b1[:self.n_h1] = p["b1"]
        b2 = np.zeros(p2, np.float32)
        b2[:self.n_h2] = p["b2"]
        w3 = np.zeros((self.n_out, p2), np.float32)
        w3[:, :self.n_h2] = p["W3T"]
        parts = [_blocked(p["W1"]), b1, _blocked(p["W2"]), b2, w3.ravel(), p["b3"].astype(np.float32)]
        w = np.concatenate(parts).astype(np.float32)
        if w.size % 2:
            w = np.append(w, np.float32(0))
        return np.concatenate([header, w.view(np.float64)])

    def pack_many(self, genomes: np.ndarray) -> np.ndarray:
        """Parameter vectors of many genomes, one row each."""
        return np.stack([self.pack(g) for g in genomes])

    @property
    def packed_size(self) -> int:
        """Length of ``pack``'s float64 vector."""
        p1, p2 = padded(self.n_h1), padded(self.n_h2)
        n = self.n_in * p1 + p1 + self.n_h1 * p2 + p2 + self.n_out * p2 + self.n_out
        return HEADER + (n + 1) // 2

    def to_json(self) -> dict:
        return {"game": self.game, "encoding": self.encoding, "n_in": self.n_in, "n_h1": self.n_h1,
                "n_h2": self.n_h2, "n_out": self.n_out, "bias": self.bias}
