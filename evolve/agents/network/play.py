"""Evolved fixed-topology tanh networks as card-play agents (the Spades thesis's
card- and hand-based architectures; ``docs/explanation/encodings.md``).

A network agent's parameter vector is ``header + weights`` (see ``Architecture.pack``):

    header  = [encoding, n_in, n_h1, n_h2, n_out, w1_scale, w1_id, direct, w2_scale, suits,
               base, 0 ...]                                              (HEADER float64)
    weights = W1 [n_in, P1] int32 fixed point (W1 / w1_scale, rounded), b1 [P1],
              W2 [n_h1, P2], b2 [P2], W3T [n_out, P2], b3 [n_out]       (float32)
              [, D [direct]] [, base [P1] int32]

packed two 4-byte values per float64 slot after the header. ``P1``, ``P2`` are the hidden
sizes rounded up to a multiple of ``LANES`` (16 float32, one AVX-512 register); padding
weights and biases are zero, so padded hidden units are tanh(0) = 0 and change nothing.
``W1`` and ``W2`` are stored in column blocks of at most ``KMAX`` registers
(``column_blocks``), each block row-major; with at most ``KMAX * LANES`` = 256 hidden
units (every default architecture) that is plain row-major. ``w1_id`` identifies the
first-layer weights (a hash; see the cache below).

With ``layer2 = "int16"`` (``w2_scale`` > 0) W2 is int16 fixed point instead, two rows to
a 4-byte word: W2 [ceil(n_h1 / 2), P2] int32, each word holding rows 2i (low half) and
2i + 1 (high half) of a column. The first hidden layer is rounded to int16 too
(multiples of 2**-``H1_BITS``), the second layer's sums are exact int32 (``gemv_pairs``,
which the CPU runs as ``vpdpwssd``: twice the multiply-adds of a float32 fused
multiply-add per instruction, on half the bytes of weights to stream), then
``sum * w2_scale + b2``. The weight scale keeps every sum in range (``quantize_w2``), so
the layer is a pure function of its inputs.

Two hidden tanh layers; the agent plays the legal card whose output is highest (outputs
of illegal cards are never computed; a lone legal card is played without evaluating the
network). The output tanh is monotonic, so it is skipped.

Encodings (``ENC_CARD``, ``ENC_HAND`` and ``ENC_SEAT``; games with a variable trump append a
one-hot of the trump mode):

- card-based: three inputs per card of the deck, a one-hot location — in my hand / on the
  table in the current trick / played in an earlier trick — all zero while unseen; Euchre
  marks the turned card as seen (third input) for everyone who neither holds it nor has it
  on the table in the current trick. One output per card.
- hand-based: the hand as dealt (sorted by card id), 1 + 4 inputs per card (rank number
  1..R, then a one-hot suit), zeroed once played; then the up to 3 cards already in the
  current trick; then the cards of earlier tricks in the order played. One output per
  position of the dealt hand.
- seat-based (``"seat"``): what the seat knows, built from its hand and the public history
  alone. Eight inputs per card of the deck, relative to the deciding seat (offset 1: the
  next seat to play after it, 2: across, the partner in partnership games, 3: the seat
  before it): in my hand; on the table in the current trick, played by offset 1 / 2 / 3;
  played in an earlier trick (by anyone) or otherwise seen (the Euchre turned card, as in
  the card-based encoding); may still be held by offset 1 / 2 / 3 (``may_hold``: unseen
  cards minus the suits that seat showed void in, the Jass Buur rule, a shown card held
  by the dealer; the rows the search agents sample deals from). The Euchre upcard ordered
  up is both seen and possibly the dealer's; every other card sets one of the first five
  inputs or up to three may-hold inputs. One output per card, as card-based.

Only the deciding seat's hand and the public state are read.

With ``suits = "trump_first"`` (card and seat encodings, games with a variable trump) the
network sees the suits renumbered before its inputs are formed: trump first, in Euchre
the left bower's suit second, the other suits after them in their order
(``evolve.games.info.trump_first_orders``; header slot ``H_SUITS`` holds the renumbering
of each mode). Its outputs are read through the same renumbering, so it plays one
function for every trump suit: what it learns with hearts trump it knows with clubs.

Speed. The forward pass is bound by streaming the weights from L2:

- the input is sparse, so the first layer is a sum of the active rows of W1;
- both layers run in the intrinsic ``gemv_block``, which keeps up to ``KMAX`` 16-lane
  accumulators in registers while it streams the weight rows once (Numba's loop
  vectoriser would reload and store the accumulators for every row; its SLP vectoriser is
  off);
- the first layer is *incremental*: ``work`` keeps, per seat, the first-layer sum of the
  seat's previous decision and the input it was computed for, and a decision adds only the
  rows that changed since. A seat's first decision of a deal (or any decision whose record
  is of no use) starts from zero or, in the seat encodings, from the network's *base
  sum* (``base``: every card in the three may-hold inputs, summed when the network is
  packed), whichever takes fewer rows: early in a deal most unseen cards may be held by
  every other seat, so from the base it adds the hand and the cards seen and removes the
  may-holds ruled out (a Jass seat's first decision: 37 to 49 rows instead of 85 to
  91). W1 is fixed point and the sum is int32, so the result is exact and the same
  whatever the order of the updates or the start: the agent stays a pure function of
  (seat, hand, pub), bit for bit. A seat's record is used only when its header matches
  (magic, kind, ``w1_id``) and its checksum matches, so another agent's use of ``work`` or
  another network at the seat only costs a recomputation.

A decision is ``network_layer1`` (the first layer), the second layer, and
``network_choose`` (tanh, outputs of the legal cards). The lockstep driver
(``evolve.runtime.lockstep``) calls the first and the last per deal and runs the second for all
deals waiting for the same network at once (``network_layer2_many``, intrinsic
``gemm_rows``): each weight row loaded serves up to ``GEMM_M`` deals, and every output
is summed in the order of ``gemv_block``, so the cards are the same bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.agents.network.direct import _direct_context, _direct_term
from evolve.agents.network.simd import (
    _F,
    GEMM_M,
    KMAX,
    LANES,
    dot_block,
    fast_tanh,
    gemm_rows,
    gemv_block,
    gemv_pairs,
)
from evolve.games.bits import ONE, ZERO, bit, count, has, lowest
from evolve.games.knowledge import may_hold, turned_up_card
from evolve.games.rules import P_HAND, P_N_CARDS, P_N_MODES, P_N_RANKS
from evolve.games.state import (
    HISTORY,
    HISTORY_STRIDE,
    N_ACTIVE,
    NPLAYED,
    PLAYED_BY,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
)

NET_CARD = 1  # card-play kinds (see evolve.agents.dispatch.NETWORK_KINDS)
NET_HAND = 2
NET_SEAT = 3     # kind 4 and header encoding 3 were the "seat_context" encoding's (removed in 0.2.0)
ENC_CARD = 0
ENC_HAND = 1
ENC_SEAT = 2
SEAT_INPUTS = 8  # seat-based inputs per card (see _seat_masks)
HEADER = 16     # a multiple of 8: the weights stay 64-byte aligned
H_W1_SCALE = 5  # header slots
H_W1_ID = 6
H_DIRECT = 7    # number of direct per-card features (0: none)
H_W2_SCALE = 8  # int16 second layer: the scale of its int32 sums (0: float32 second layer)
H_SUITS = 9     # suits renumbered with trump first: per mode a byte of 2-bit suit positions (0: as dealt)
H_BASE = 10     # seat encodings: where the base sum starts, in 4-byte words after the header (0: none)
H1_BITS = 13    # int16 second layer: h1 in (-1, 1) is rounded to multiples of 2**-13
SUIT_INPUTS = 4


# -------------------------------------------------------------------- scratch memory
# ``work`` is cut into four equal regions, one per seat (whatever network plays there, so
# networks of different shapes at one table keep apart). A seat's region, in 4-byte
# words: h1 f32[P1] | h2 f32[P2] | rows i32[n_in] | values i32[n_in] | h1 as int16 pairs
# i32[P1 / 2] (padded to 16 words),
# then the seat's record: REC64 int64 slots, the first-layer sum acc i32[P1], then the
# bitwise complement of both (a record is used only when intact: other agents may use
# ``work`` too). Record slots:
REC64 = 72
START_RECORD = 0  # how the first-layer sum starts (_first_layer): from the seat's record,
START_ZERO = 1    # from zero,
START_BASE = 2    # or from the network's base sum (H_BASE)
R_MAGIC = 0
R_ID = 1        # w1_id of the network that wrote the record
R_KIND = 2
R_STATE = 4     # card: hand, trick, seen masks, mode; seat: its 8 masks, mode; hand: see _first_layer
MAGIC = 0x6E657477_6F726B31  # "network1"


@njit(cache=True, inline="always")
def _region_words(n_in, p1, p2):
    """(start of the record, size) of a seat's region of ``work`` in 4-byte words."""
    start = (p1 + p2 + 2 * n_in + p1 // 2 + 15) // 16 * 16
    return start, start + 2 * (2 * REC64 + p1)


# _pass and _first_layer are calls, not inlined into their callers' Numba IR: inlined, their
# bodies (_pass: 16 unrolled register blocks) were copied into every layer and typed again,
# a third of a first run's compile time; as calls they cost no measurable speed (measured
# on 200,000 card-network Spades deals), where making the layers calls too cost about 10%
@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
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


@njit(cache=True, _nrt=False)
def _pass_pairs(x, n, W, wofs, ld, y, yofs, k):
    """``gemv_pairs`` with a run-time register count 1..KMAX."""
    if k == 16:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 16)
    elif k == 15:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 15)
    elif k == 14:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 14)
    elif k == 13:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 13)
    elif k == 12:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 12)
    elif k == 11:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 11)
    elif k == 10:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 10)
    elif k == 9:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 9)
    elif k == 8:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 8)
    elif k == 7:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 7)
    elif k == 6:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 6)
    elif k == 5:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 5)
    elif k == 4:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 4)
    elif k == 3:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 3)
    elif k == 2:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 2)
    else:
        gemv_pairs(x, n, W, wofs, ld, y, yofs, 1)


@njit(cache=True, inline="always")
def _column_passes(width):
    """The column blocks of a padded ``width`` (``column_blocks``): (passes, registers of
    a pass, how many of the first passes take one register more)."""
    nv = width // LANES
    npass = (nv + KMAX - 1) // KMAX
    base = nv // npass
    return npass, base, nv - base * npass


@njit(cache=True, inline="always")
def _dense(x, idx, n, W, wofs, n_rows, b, bofs, y, yofs, width):
    """``y[yofs : yofs + width] = b[bofs:] + sum over r < n of x[r] * M[row r]`` for the
    blocked [n_rows, width] matrix M at ``W[wofs:]`` (``width`` padded, ``column_blocks``)."""
    npass, base, extra = _column_passes(width)
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
    return in_trick, _seen_before(rules, hand, in_trick, pub)


@njit(cache=True, inline="always")
def _seen_before(rules, hand, in_trick, pub):
    """The cards played in earlier tricks or otherwise shown (the Euchre turned card),
    neither in ``hand`` nor on the table in this trick."""
    seen = ZERO
    for s in range(4):
        seen |= np.uint64(pub[PLAYED_BY + s])
    up = turned_up_card(rules, pub)
    if up >= 0:
        seen |= bit(up)
    return seen & ~(in_trick | hand)


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
def _seat_masks(rules, seat, mode, hand, pub):
    """Seat-based input as masks, relative to ``seat`` (offset o: seat + o mod 4): in hand;
    on the table in this trick, played by offset 1, 2, 3; played in an earlier trick or
    otherwise seen (as the card encoding's third input); may still be held by offset 1, 2,
    3 (``may_hold``: unseen cards minus the suits the seat showed void in, the Jass Buur
    rule, the shown card's holder). Only ``hand`` and ``pub`` are read."""
    t1 = ZERO
    t2 = ZERO
    t3 = ZERO
    in_trick = ZERO
    for q in range(pub[NPLAYED]):
        b = bit(pub[TRICK_CARDS + q])
        in_trick |= b
        o = (pub[TRICK_SEATS + q] - seat) & 3
        if o == 1:
            t1 |= b
        elif o == 2:
            t2 |= b
        else:
            t3 |= b
    seen = _seen_before(rules, hand, in_trick, pub)
    m1 = may_hold(rules, mode, seat, hand, pub, (seat + 1) & 3)
    m2 = may_hold(rules, mode, seat, hand, pub, (seat + 2) & 3)
    m3 = may_hold(rules, mode, seat, hand, pub, (seat + 3) & 3)
    return t1, t2, t3, seen, m1, m2, m3


@njit(cache=True, inline="always")
def _mask_rows(rows, vals, n, m, k, sign):
    """Rows ``SEAT_INPUTS * c + k`` of the cards c set in mask ``m`` (each times ``sign``):
    the seat-based input k of each card."""
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        n = _add_row(rows, vals, n, SEAT_INPUTS * c + k, sign)
    return n


@njit(cache=True, inline="always")
def _seat_diff(rows, vals, n, i64, st, masks, sign):
    """Rows of the seat-based inputs set in ``masks`` and not in the record's masks at
    ``i64[st:st + 8]`` (``sign`` 1), or the other way round (``sign`` -1); with ``st`` < 0,
    every row set in ``masks``."""
    for k in range(SEAT_INPUTS):
        new = masks[k]
        old = np.uint64(i64[st + k]) if st >= 0 else ZERO
        n = _mask_rows(rows, vals, n, new & ~old if sign > 0 else old & ~new, k, sign)
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
def _base_mask(k, deck):
    """Seat input ``k``'s mask in the base sum's input: every card of ``deck`` in the three
    may-hold inputs, nothing else."""
    return deck if k >= SEAT_INPUTS - 3 else ZERO


IDENTITY_ORDER = 0b11100100    # suit s at position s


@njit(cache=True, inline="always")
def suit_order(params, lo, mode):
    """The renumbering of the suits for ``mode`` (a byte: suit s goes to position
    (byte >> 2 s) & 3), or -1 when the network sees the suits as dealt."""
    code = np.int64(params[lo + H_SUITS])
    return (code >> (8 * mode)) & 0xFF if code != 0 else -1


@njit(cache=True, inline="always")
def _renumbered(m, order, n_ranks):
    """Card mask ``m`` (card = suit * n_ranks + rank) with its suits renumbered by ``order``."""
    if order < 0 or order == IDENTITY_ORDER:
        return m
    full = (ONE << np.uint64(n_ranks)) - ONE
    out = ZERO
    for s in range(4):
        out |= ((m >> np.uint64(s * n_ranks)) & full) << np.uint64(((order >> (2 * s)) & 3) * n_ranks)
    return out


@njit(cache=True, inline="always")
def renumbered_card(card, order, n_ranks):
    """The card ``card`` is under the renumbering ``order`` (itself when ``order`` < 0)."""
    if order < 0:
        return card
    suit = card // n_ranks
    return ((order >> (2 * suit)) & 3) * n_ranks + card - suit * n_ranks


@njit(cache=True, _nrt=False)
def _first_layer(kind, n_in, rules, seat, mode, hand, pub, i64, rec64, rows, vals, order, base_ok):  # noqa: C901
    """The rows (and input values) to add to the seat's record ``acc`` to get the current
    first-layer sum, and what ``acc`` must hold first; updates the record's input state.
    ``order``: the suits' renumbering (``suit_order``; -1: as dealt); ``base_ok``: the
    network has a base sum (seat encodings, ``H_BASE``) and it may be used. Returns
    (number of rows, start): ``START_RECORD`` (add to ``acc`` as it is), ``START_ZERO``
    or ``START_BASE`` (the base sum: every card may be held by each other seat)."""
    n_modes = rules[P_N_MODES]
    n_ranks = rules[P_N_RANKS]
    inv = (65536 + n_ranks - 1) // n_ranks
    st = rec64 + R_STATE
    valid = i64[rec64 + R_MAGIC] == MAGIC and i64[rec64 + R_KIND] == kind
    # with trump first, every trump suit is the first one's mode input
    seen_mode = mode if order < 0 or mode >= 4 else (order >> (2 * mode)) & 3
    trump_row = n_in - n_modes + seen_mode
    seat_based = kind == NET_SEAT
    old_trump = n_in - n_modes + i64[st + (2 if kind == NET_HAND else SEAT_INPUTS if seat_based else 3)]
    n = 0
    if seat_based:
        t1, t2, t3, seen, m1, m2, m3 = _seat_masks(rules, seat, mode, hand, pub)
        masks = (_renumbered(hand, order, n_ranks), _renumbered(t1, order, n_ranks), _renumbered(t2, order, n_ranks),
                 _renumbered(t3, order, n_ranks), _renumbered(seen, order, n_ranks), _renumbered(m1, order, n_ranks),
                 _renumbered(m2, order, n_ranks), _renumbered(m3, order, n_ranks))
        full = 1 if n_modes > 1 else 0
        changed = 0
        for k in range(SEAT_INPUTS):
            full += count(masks[k])
            if valid:
                changed += count(masks[k] ^ np.uint64(i64[st + k]))
        deck = (ONE << np.uint64(rules[P_N_CARDS])) - ONE
        from_base = full                      # without a base sum it is never the shorter start
        if base_ok:
            from_base = 1 if n_modes > 1 else 0
            for k in range(SEAT_INPUTS):
                from_base += count(masks[k] ^ _base_mask(k, deck))
        start = START_RECORD
        if not (valid and changed < full and changed <= from_base):
            start = START_BASE if from_base < full else START_ZERO
            if start == START_BASE:           # diff against the base's inputs, as against a record
                for k in range(SEAT_INPUTS):
                    i64[st + k] = np.int64(_base_mask(k, deck))
        if start != START_ZERO:
            n = _seat_diff(rows, vals, n, i64, st, masks, 1)
            n = _seat_diff(rows, vals, n, i64, st, masks, -1)
            if n_modes > 1 and (start == START_BASE or old_trump != trump_row):
                n = _add_row(rows, vals, n, trump_row, 1)
                if start == START_RECORD:
                    n = _add_row(rows, vals, n, old_trump, -1)
        else:
            n = _seat_diff(rows, vals, 0, i64, -1, masks, 1)
            if n_modes > 1:
                n = _add_row(rows, vals, n, trump_row, 1)
        for k in range(SEAT_INPUTS):
            i64[st + k] = np.int64(masks[k])
        i64[st + SEAT_INPUTS] = seen_mode
        return n, start
    if kind == NET_CARD:
        trick, seen = _card_masks(rules, hand, pub)
        hand = _renumbered(hand, order, n_ranks)
        trick = _renumbered(trick, order, n_ranks)
        seen = _renumbered(seen, order, n_ranks)
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
        i64[st + 3] = seen_mode
        return n, START_RECORD if valid else START_ZERO
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
            return n, START_RECORD
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
    return n, START_ZERO


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
    or when ``fresh_only``, then from the network's base sum when that takes fewer rows
    and not ``fresh_only``); returns (record offset of acc in 4-byte words, number of rows
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
    base_at = np.int64(params[lo + H_BASE])
    n, start = _first_layer(kind, n_in, rules, seat, mode, hand, pub, i64, rec64, rows, vals,
                            suit_order(params, lo, mode), base_at > 0 and not fresh_only)
    w = params.view(np.int32)
    if start == START_ZERO:
        _dense(vals, rows, n, w, w1, n_in, None, 0, i32, acc, p1)
    elif start == START_BASE:
        _dense(vals, rows, n, w, w1, n_in, w, w1 + base_at, i32, acc, p1)
    elif n > 0:
        _dense(vals, rows, n, w, w1, n_in, i32, acc, i32, acc, p1)
    i64[rec64 + R_MAGIC] = MAGIC
    i64[rec64 + R_KIND] = kind
    f64[rec64 + R_ID] = w1_id
    _seal(u64, rec64, n64)
    return acc, n, start != START_RECORD


@njit(cache=True, inline="always")
def _offsets(params, lo, n_in, n_h1, p1, p2, w1):
    """Offsets into ``params.view(float32)`` of b1, W2, b2, W3T and b3."""
    b1 = w1 + n_in * p1
    w2 = b1 + p1
    b2 = w2 + (n_h1 if params[lo + H_W2_SCALE] == 0 else (n_h1 + 1) // 2) * p2
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
def _layer2(params, lo, seat, work):
    """The second layer's sums (before tanh) into ``h2`` of the seat's region, from its
    ``h1``: float32 fused multiply-adds, or int16 fixed point (``H_W2_SCALE``)."""
    n_in, n_h1, n_h2, n_out, p1, p2, w1, rec, f64 = _seat_region(params, lo, seat, work)
    b1, w2, b2, w3, b3 = _offsets(params, lo, n_in, n_h1, p1, p2, w1)
    w32 = params.view(np.float32)
    f32 = f64.view(np.float32)
    w2_scale = params[lo + H_W2_SCALE]
    if w2_scale == 0:
        _dense(f32[0:p1], None, n_h1, w32, w2, n_h1, w32, b2, f32[p1:p1 + p2], 0, p2)
        return
    i32 = f64.view(np.int32)
    start = p1 + p2 + 2 * n_in
    pairs = i32[start:start + p1 // 2]
    h1q = f64.view(np.int16)[2 * start:2 * start + p1]     # the same words, int16 by int16
    h1 = f32[0:p1]
    for j in range(p1):
        h1q[j] = np.int16(np.rint(h1[j] * _F(2 ** H1_BITS)))
    n_pairs = (n_h1 + 1) // 2
    npass, base, extra = _column_passes(p2)
    wi = params.view(np.int32)
    col = 0
    for p in range(npass):                        # the column blocks of ``_dense``
        k = base + 1 if p < extra else base
        _pass_pairs(pairs, n_pairs, wi, w2 + n_pairs * col, k * LANES, i32, p1 + col, k)
        col += k * LANES
    scale = _F(w2_scale)
    sums = i32[p1:p1 + p2]
    h2 = f32[p1:p1 + p2]
    bias = w32[b2:b2 + p2]
    for j in range(p2):
        h2[j] = _F(sums[j]) * scale + bias[j]


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
    _layer2(params, lo, seat, work)
    h2, w3, b3, p2 = _tanh_h2(params, lo, seat, work)
    return h2, w3, b3, p2, n, fresh


@njit(cache=True, inline="always")
def _output(params, h2, w3, b3, p2, out):
    """Network output ``out`` (without the monotonic output tanh)."""
    w32 = params.view(np.float32)
    return w32[b3 + out] + dot_block(h2, w32, w3 + out * p2, p2 // LANES)


@njit(cache=True, inline="always", fastmath=True, error_model="numpy")
def _pick(kind, params, lo, seat, rules, mode, hand, legal, pub, h2, w3, b3, p2):
    """The legal card with the highest output, given the second hidden layer ``h2`` (plus
    the direct term of each card, with direct connections)."""
    direct = params[lo + H_DIRECT] > 0
    d_ofs = b3 + np.int64(params[lo + 4])
    ctx = _direct_context(rules, mode, seat, hand, pub) if direct else (1.0, False, 0, -1, 0, ZERO)
    best = -1
    best_v = _F(-3.0e38)
    if kind != NET_HAND:          # card-based outputs (card and seat encodings)
        order = suit_order(params, lo, mode)
        n_ranks = rules[P_N_RANKS]
        m = legal
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            v = _output(params, h2, w3, b3, p2, renumbered_card(c, order, n_ranks))
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
    _layer2(params, lo, seat, work)
    return network_choose(kind, params, lo, seat, rules, mode, hand, legal, pub, work)


# ------------------------------------------------------------- lockstep (many deals)
@njit(cache=True, _nrt=False, fastmath=True, error_model="numpy")
def network_layer2_many(params, lo, seats, slots, m, work, xofs, yofs):
    """The second layer of ``network_card`` for ``m`` deals that wait for the network at
    ``params[lo:]`` (``evolve.runtime.lockstep``): deal k's scratch memory is ``work[slots[k]]`` (a
    row per deal) and its seat ``seats[slots[k]]``; its second layer's sums go into its
    ``h2``, summed in the order of ``network_card`` (the same numbers, bit for bit), but
    each weight row loaded serves up to ``GEMM_M`` deals (float32; an int16 second layer
    runs deal by deal). ``xofs``, ``yofs`` are int64 scratch of at least ``GEMM_M`` entries."""
    if params[lo + H_W2_SCALE] != 0:
        for k in range(m):
            s = slots[k]
            _layer2(params, lo, seats[s], work[s])
        return
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
    npass, base, extra = _column_passes(p2)
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
    path of ``network_card``, including the seat's first-layer record in ``work``; with
    trump first, output i scores the card ``renumbered_card`` maps to i).
    Returns the number of first-layer rows summed, negative when the record could not be
    updated (a fresh start)."""
    h2, w3, b3, p2, n, fresh = _hidden(kind, params, lo, seat, rules, mode, hand, pub, work)
    for o in range(np.int64(params[lo + 4])):
        out[o] = _output(params, h2, w3, b3, p2, o)
    return -n if fresh else n


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
