"""Euchre bidders of the Euchre bidding article (Rollason 2015, AI Factory), as evolvable genomes.

Every bidder here is a bid *kind* plus a flat float parameter vector described by a
``Layout`` (named, bounded blocks; see ``evolve.core.layout``). The engine calls
``order`` / ``call`` / ``alone`` / ``discard`` from its Numba loop through
``evolve.agents.dispatch`` with ``params[lo:hi]`` = the seat's vector. Nothing here allocates.

Cards are indexed relative to trump ("rel", 0..23, suit-symmetric): ``group * 8 + slot``
with groups 0 other colour (both suits share the entries), 1 shadow (the other suit of
trump's colour), 2 trump (bowers included), and slots 0..7 = 9, 10, J, Q, K, A, left
bower, right bower. Six slots never occur (other colour left/right, shadow J/left/right,
trump J); their bounds are low = high = 0. ``pos`` = (seat - dealer) % 4: 0 dealer,
1 forehand, 2 dealer's partner, 3 the dealer's right-hand opponent.

Kinds (``BIDDERS`` names in ``evolve.agents.registry``):

- ``linear`` (2): expected tricks = sum of per-card win probabilities ``values[3][8]``;
  round 1 adds the upcard as the ``simple`` bidder does (the dealer takes it and sheds its
  least valuable card; the dealer's partner + 0.5 x its value, opponents - 0.5 x);
  order if >= ``order_threshold[pos]``; round 2 the best other suit if >=
  ``call_threshold[pos]``; alone if the trump value >= ``alone_threshold``. With its
  "default" start (the article's table, thresholds 2.6 / 2.6 / 4.2) it bids exactly as ``simple``.
- ``group`` (3): the same kernel; its layout adds ``upcard_weight[4]`` (the upcard's
  weight by pos; the dealer's weight scales pick-up gain = value(upcard) - value(discard))
  so the seat-relative use of the turned card evolves too; start "bulk" = the measured
  group table.
- ``profile`` (4): the hand's three group totals under ``values`` are matched against
  ``profiles[K][3]``; Gaussian-kernel weights exp(-d^2 / 2 bandwidth^2) average the
  measured ``outcome[K][8][3]`` (context 0..3 = round 1 by pos, 4..7 = round 2 by pos;
  columns: the seat's side's mean hand score after passing, making, making alone). Order /
  call when max(make, alone) > pass; alone when alone > make.
- ``context`` (5): expected tricks = sum of ``table[alone 2][lead 2][partner took the
  upcard 2][trumps 0..5][voids 0..3][rel 24]`` (4608 per-card trick-win probabilities of
  the maker) with the thresholds as in ``linear``. The dealer (and its discard) picks the
  card whose removal leaves the highest value.
- ``explore`` (6): the measurement bidder of ``evolve.tables``: each order / call / alone
  decision is uniformly random with probability ``epsilon``, else ``linear``'s; the
  discard is ``linear``'s. Parameters: ``[epsilon] + linear``.
- ``logic`` (7): the article's system 1: per-card win probabilities derived from the
  unseen cards by logic (hypergeometric: no opponent holds a higher card of the suit or,
  void in it, a trump), a trump's chance boosted by the hand's voids and near-voids
  (``void_boost``, ``near_void``), summed to expected tricks; the turned card counted as
  ``linear`` counts it, thresholds as ``linear``'s (start "bulk": fitted in bulk play, the
  article's "tuned in block games"; "default": ``simple``'s 2.6 / 2.6 / 4.2). The dealer
  discards its least likely winner.
- ``logic_profile`` (8): the article's system 2: ``profile``'s matching on the hand's three
  group totals of system 1's probabilities, ``[void_boost, near_void, bandwidth,
  profiles[K][3], outcome[K][8][3]]``, the profile table measured by bulk play.

In Spades and Jass every kind >= 1 bids as ``simple`` (see ``evolve.agents.dispatch``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from evolve.core.errors import UsageError
from evolve.core.layout import Block, Layout
from evolve.games.bits import ONE, ZERO, below, bit, kernel, lowest, uniform
from evolve.games.state import CALLS, DEALER, UPCARD

BID_LINEAR = 2
BID_GROUP = 3
BID_PROFILE = 4
BID_CONTEXT = 5
BID_EXPLORE = 6
BID_LOGIC = 7                 # the article's system 1 (section "systems 1 and 2" below)
BID_LOGIC_PROFILE = 8         # its system 2
EUCHRE_TABLE_KINDS = (2, 9)   # range of the kinds handled here
KIND_NAMES = {BID_LINEAR: "linear", BID_GROUP: "group", BID_PROFILE: "profile", BID_CONTEXT: "context",
              BID_EXPLORE: "explore"}

PASS = -1
CALL_ORDER = 5
JACK = 2
N_REL = 24
N_CTX = 8                       # profile outcome contexts: round * 4 + pos
N_OUT = 3                       # profile outcome columns: pass, make, make alone
CONTEXT_SHAPE = (2, 2, 2, 6, 4, N_REL)
CONTEXT_SIZE = int(np.prod(CONTEXT_SHAPE))   # 4608
K_PROFILES = 96                 # the shipped profile grid: 4 x 3 x 8

# offsets inside each kind's vector
_L_ORDER, _L_CALL, _L_ALONE, LINEAR_SIZE = 24, 28, 32, 33
_G_UP, _G_ORDER, _G_CALL, _G_ALONE, GROUP_SIZE = 24, 28, 32, 36, 37
_C_ORDER, _C_CALL, _C_ALONE = CONTEXT_SIZE, CONTEXT_SIZE + 4, CONTEXT_SIZE + 8
CONTEXT_VECTOR_SIZE = CONTEXT_SIZE + 9
_P_BW, _P_PROF = 24, 25
EXPLORE_SIZE = 1 + LINEAR_SIZE

GROUPS = ("other", "shadow", "trump")
SLOTS = ("9", "10", "J", "Q", "K", "A", "left", "right")
# the Euchre bidding article's KCardWinRate: per-card probability of winning a trick in units of 1/32512, [group][slot]
SPEC_TABLE = np.array([
    [255, 394, 645, 1456, 4397, 15857, 0, 0],
    [359, 508, 0, 927, 3008, 13127, 0, 0],
    [13833, 13745, 0, 13186, 14738, 17722, 21129, 32512],
], dtype=np.float64)
SPEC_UNIT = 32512.0
USED = np.array([
    [1, 1, 1, 1, 1, 1, 0, 0],
    [1, 1, 0, 1, 1, 1, 0, 0],
    [1, 1, 0, 1, 1, 1, 1, 1],
], dtype=bool)
SIMPLE_THRESHOLDS = (2.6, 2.6, 4.2)    # the simple bidder's order / call / alone
SIMPLE_UPCARD = (1.0, -0.5, 0.5, -0.5)  # by pos: dealer (pick-up gain), forehand, partner, right

DATA = Path(__file__).resolve().parent.parent / "data" / "euchre_tables.npz"     # evolve/agents/data


# ----------------------------------------------------------------------------- layouts


def _values_block(describe: str) -> Block:
    return Block("values", (3, 8), 0.0, np.where(USED, 1.0, 0.0),
                 describe + " [group other/shadow/trump][9,10,J,Q,K,A,left,right]; unused slots fixed at 0")


def _thresholds(order_hi=5.0) -> tuple[Block, ...]:
    return (
        Block("order_threshold", (4,), 0.0, order_hi, "round 1: order up when value >= this, by pos = (seat - dealer) "
                                                      "% 4"),
        Block("call_threshold", (4,), 0.0, order_hi, "round 2: name the best suit when value >= this, by pos"),
        Block("alone_threshold", (1,), 0.0, 6.0, "go alone when the value under trump >= this"),
    )


def profile_layout(k: int = K_PROFILES) -> Layout:
    return Layout((
        _values_block("per-card values used for the group totals"),
        Block("bandwidth", (1,), 0.01, 3.0, "Gaussian kernel width on the group-total distance (tricks)"),
        Block("profiles", (k, 3), 0.0, 5.0, "profile centres: group totals (other, shadow, trump)"),
        Block("outcome", (k, N_CTX, N_OUT), -4.0, 4.0,
              "mean hand score of the seat's side, [profile][round*4+pos][pass, make, make alone]"),
    ))


LAYOUTS: dict[str, Layout] = {
    "linear": Layout((_values_block("per-card trick-win probability"), *_thresholds())),
    "group": Layout((
        _values_block("per-card trick-win probability"),
        Block("upcard_weight", (4,), -1.5, 1.5, "round 1 weight of the upcard's value by pos (pos 0: of the "
              "dealer's pick-up gain value(up) - value(discard))"),
        *_thresholds(),
    )),
    "profile": profile_layout(),
    "context": Layout((
        Block("table", CONTEXT_SHAPE, 0.0, np.broadcast_to(np.where(USED.ravel(), 1.0, 0.0), CONTEXT_SHAPE),
              "maker's per-card trick-win probability [alone][lead][partner took upcard][trumps][voids][rel]"),
        *_thresholds(),
    )),
    "explore": Layout((
        Block("epsilon", (1,), 0.0, 1.0, "probability of a uniformly random bid decision"),
        _values_block("per-card trick-win probability"), *_thresholds(),
    )),
}
KINDS = {"linear": BID_LINEAR, "group": BID_GROUP, "profile": BID_PROFILE, "context": BID_CONTEXT,
         "explore": BID_EXPLORE}
assert LAYOUTS["linear"].size == LINEAR_SIZE and LAYOUTS["group"].size == GROUP_SIZE
assert LAYOUTS["context"].size == CONTEXT_VECTOR_SIZE and LAYOUTS["explore"].size == EXPLORE_SIZE


def _default_vector(name: str) -> np.ndarray:
    o, c, a = SIMPLE_THRESHOLDS
    spec = SPEC_TABLE / SPEC_UNIT
    thr = {"order_threshold": [o] * 4, "call_threshold": [c] * 4, "alone_threshold": [a]}
    if name == "linear":
        return LAYOUTS[name].join({"values": spec, **thr})
    if name == "group":
        return LAYOUTS[name].join({"values": spec, "upcard_weight": SIMPLE_UPCARD, **thr})
    if name == "context":
        return LAYOUTS[name].join({"table": np.broadcast_to(spec.ravel(), CONTEXT_SHAPE), **thr})
    if name == "explore":
        return LAYOUTS[name].join({"epsilon": [0.5], "values": spec, **thr})
    if name == "logic":
        return logic_default_vector()
    raise KeyError(name)


@lru_cache(maxsize=None)
def _shipped(path: str = str(DATA)) -> dict:
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: np.array(z[k]) for k in z.files}
    except OSError:
        raise UsageError(f"the Euchre bidding tables {path!r} are missing; make them with "
                         "python -m evolve.tables euchre --out " + path) from None


DESCRIBE = {
    "linear": "per-card win probabilities summed to expected tricks; order-up and round-2 thresholds by seat "
              "relative to the dealer, and a go-alone threshold",
    "group": "the 24-entry group table (other colour / shadow / trump) with the upcard's weight by seat and "
             "the thresholds",
    "profile": "the hand's three group totals matched against bulk-measured profiles, similarity-weighted vote "
               "on the measured outcome of passing, making and going alone",
    "context": "the 4608-entry context table [alone][lead][partner took the upcard][trumps][voids][card] "
               "with the thresholds",
}


def start_names(name: str) -> tuple[str, ...]:
    """The start vectors a bidder has: "default" (the article's table) and/or "bulk" (measured)."""
    return {"linear": ("default", "bulk"), "group": ("default", "bulk"), "profile": ("bulk",),
            "context": ("default", "bulk"), "explore": ("default",), "logic": ("default", "bulk"),
            "logic_profile": ("bulk",)}[name]


def start_vector(name: str, which: str = "auto") -> np.ndarray:
    """A start vector of bidder ``name``: ``default`` (the article's table), ``bulk`` (from the
    shipped tables) or ``auto`` (linear and explore: default; the others: bulk)."""
    if name not in LAYOUTS:
        raise UsageError(f"unknown Euchre table bidder {name!r}; valid: {', '.join(LAYOUTS)}")
    if which == "auto":
        which = "default" if name in ("linear", "explore") else "bulk"
    if which not in start_names(name):
        raise UsageError(f"bidder {name!r} has no {which!r} start vector; it has: {', '.join(start_names(name))}")
    if which == "default":
        return _default_vector(name)
    return LAYOUTS[name].check(_shipped()[f"start_{name}"], f"shipped {name} start vector")


def check_params(name: str, params) -> np.ndarray:
    """``params`` as a float64 vector if it fits bidder ``name``'s layout (UsageError else)."""
    p = np.asarray(params, np.float64).ravel()
    layout = LAYOUTS[name]
    if name in ("profile", "logic_profile") and p.size != layout.size:
        head = 25 if name == "profile" else _LP_PROF
        k, r = divmod(p.size - head, 3 + N_CTX * N_OUT)
        if r == 0 and k > 0:
            layout = profile_layout(k) if name == "profile" else logic_profile_layout(k)
    return layout.check(p, f"{name} bidder parameters")


# ----------------------------------------------------------------------------- kernels


@njit(cache=True, inline="always")
def rel_index(card, trump):
    """Trump-relative index 0..23 of ``card`` (group * 8 + slot)."""
    s = card // 6
    r = card % 6
    if s == trump:
        return 23 if r == JACK else 16 + r
    if s == 3 - trump:
        return 22 if r == JACK else 8 + r
    return r


@njit(cache=True, inline="always")
def _pos(seat, pub):
    return (seat - pub[DEALER] + 4) % 4


@kernel
def hand_value(params, at, hand, trump):
    """Sum of ``params[at + rel]`` over the hand's cards (expected tricks)."""
    total = 0.0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        total += params[at + rel_index(c, trump)]
    return total


@kernel
def worst_card(params, at, hand, trump):
    """The card of least value (ties: the lowest card id)."""
    return least_card(params, at, hand, trump, False)


@kernel
def least_card(params, at, hand, trump, logic):
    """The card of least value under ``values`` at ``at`` or, with ``logic``, of least
    system-1 probability in the hand (ties: the lowest card id)."""
    unseen = _unseen(hand, ZERO)
    best = -1
    best_v = 1e9
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if logic:
            v = logic_card_prob(c, trump, hand, unseen, params[at + _LOGIC_BOOST], params[at + _LOGIC_NEAR])
        else:
            v = params[at + rel_index(c, trump)]
        if v < best_v:
            best_v = v
            best = c
    return best


@kernel
def table_round1_value(kind, params, lo, hand, up, pos):
    """Round-1 value of ``linear`` / ``group`` (kind decides the upcard rule)."""
    trump = up // 6
    if pos == 0:
        h = hand | bit(up)
        w = worst_card(params, lo, h, trump)
        if kind == BID_GROUP:
            gain = params[lo + rel_index(up, trump)] - params[lo + rel_index(w, trump)]
            return hand_value(params, lo, hand, trump) + params[lo + _G_UP] * gain
        return hand_value(params, lo, h, trump) - params[lo + rel_index(w, trump)]
    value = hand_value(params, lo, hand, trump)
    vu = params[lo + rel_index(up, trump)]
    if kind == BID_GROUP:
        return value + params[lo + _G_UP + pos] * vu
    if pos == 2:
        return value + 0.5 * vu
    return value - 0.5 * vu


@kernel
def context_index(alone, lead, took, hand, trump):
    """Start of the [alone][lead][took][trumps][voids] row of the context table."""
    suits = 0
    nt = 0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        if rel_index(c, trump) >= 16:
            nt += 1
            suits |= 1 << trump
        else:
            suits |= 1 << (c // 6)
    held = 0
    for s in range(4):
        if (suits >> s) & 1:
            held += 1
    nv = 4 - held
    if nt > 5:
        nt = 5
    if nv > 3:
        nv = 3
    return ((((alone * 2 + lead) * 2 + took) * 6 + nt) * 4 + nv) * N_REL


@kernel
def context_value(params, lo, hand, trump, alone, lead, took):
    """Expected tricks of the maker's hand in its context (the context table)."""
    return hand_value(params, lo + context_index(alone, lead, took, hand, trump), hand, trump)


@kernel
def context_best_discard(params, lo, hand6, trump):
    """(card, value): the dealer's discard from six cards leaving the highest value."""
    best = -1
    best_v = -1e9
    m = hand6
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        v = context_value(params, lo, hand6 & ~bit(c), trump, 0, 0, 0)
        if v > best_v:
            best_v = v
            best = c
    return best, best_v


@kernel
def group_totals(params, lo, hand, trump):
    """The hand's value per group (other, shadow, trump) under ``values`` at ``lo``."""
    return card_group_totals(params, lo, hand, trump, ZERO, False)


@kernel
def card_group_totals(params, lo, hand, trump, known, logic):
    """Per group (other, shadow, trump), the sum over the hand's cards of ``values`` at
    ``lo`` or, with ``logic``, of system 1's probabilities (``known``: cards seen besides the
    hand; section "systems 1 and 2")."""
    unseen = _unseen(hand, known)
    g0 = 0.0
    g1 = 0.0
    g2 = 0.0
    m = hand
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        r = rel_index(c, trump)
        if logic:
            v = logic_card_prob(c, trump, hand, unseen, params[lo + _LOGIC_BOOST], params[lo + _LOGIC_NEAR])
        else:
            v = params[lo + r]
        if r < 8:
            g0 += v
        elif r < 16:
            g1 += v
        else:
            g2 += v
    return g0, g1, g2


@kernel
def profile_predict(params, lo, hi, ctx, hand, trump):
    """Kernel-weighted (pass, make, alone) outcome of the hand's group-total profile."""
    k_n = (hi - lo - 25) // (3 + N_CTX * N_OUT)
    g0, g1, g2 = group_totals(params, lo, hand, trump)
    return profile_vote(params, lo + _P_PROF, k_n, params[lo + _P_BW], ctx, g0, g1, g2)


@kernel
def profile_vote(params, prof, k_n, bw, ctx, g0, g1, g2):
    """Gaussian-kernel vote of the ``k_n`` profiles at ``prof`` (their outcomes follow)
    on the (pass, make, alone) outcome of group totals (g0, g1, g2) in context ``ctx``."""
    out = prof + 3 * k_n
    dmin = 1e18
    for k in range(k_n):
        a = g0 - params[prof + 3 * k]
        b = g1 - params[prof + 3 * k + 1]
        c = g2 - params[prof + 3 * k + 2]
        d = a * a + b * b + c * c
        if d < dmin:
            dmin = d
    inv = 0.5 / (bw * bw)
    sw = 0.0
    p0 = 0.0
    p1 = 0.0
    p2 = 0.0
    for k in range(k_n):
        a = g0 - params[prof + 3 * k]
        b = g1 - params[prof + 3 * k + 1]
        c = g2 - params[prof + 3 * k + 2]
        w = np.exp(-(a * a + b * b + c * c - dmin) * inv)
        o = out + (k * N_CTX + ctx) * N_OUT
        sw += w
        p0 += w * params[o]
        p1 += w * params[o + 1]
        p2 += w * params[o + 2]
    return p0 / sw, p1 / sw, p2 / sw


@kernel
def _check(kind, lo, hi):
    n = hi - lo
    if kind == BID_LINEAR:
        ok = n == LINEAR_SIZE
    elif kind == BID_GROUP:
        ok = n == GROUP_SIZE
    elif kind == BID_CONTEXT:
        ok = n == CONTEXT_VECTOR_SIZE
    elif kind == BID_EXPLORE:
        ok = n == EXPLORE_SIZE
    elif kind == BID_PROFILE:
        ok = n > 25 and (n - 25) % (3 + N_CTX * N_OUT) == 0
    elif kind == BID_LOGIC:
        ok = n == LOGIC_SIZE
    elif kind == BID_LOGIC_PROFILE:
        ok = n > _LP_PROF and (n - _LP_PROF) % (3 + N_CTX * N_OUT) == 0
    else:
        raise ValueError("unknown Euchre bidder kind")
    if not ok:
        raise ValueError("Euchre bidder: the parameter vector does not fit the bidder's layout")


@kernel
def _round1_was_ordered(pub):
    for k in range(4):
        if pub[CALLS + k] == CALL_ORDER:
            return True
    return False


@kernel
def order(kind, params, lo, hi, seat, hand, pub, rngs):
    """Round 1: order up the turned card (True) or pass."""
    _check(kind, lo, hi)
    up = pub[UPCARD]
    trump = up // 6
    pos = _pos(seat, pub)
    if kind == BID_EXPLORE:
        if uniform(rngs, seat) < params[lo]:
            return below(rngs, seat, 2) == 1
        kind = BID_LINEAR
        lo += 1
    if kind == BID_LOGIC or kind == BID_LOGIC_PROFILE:
        return logic_order(kind, params, lo, hi, seat, hand, pub)
    if kind == BID_LINEAR:
        return table_round1_value(kind, params, lo, hand, up, pos) >= params[lo + _L_ORDER + pos]
    if kind == BID_GROUP:
        return table_round1_value(kind, params, lo, hand, up, pos) >= params[lo + _G_ORDER + pos]
    if kind == BID_CONTEXT:
        if pos == 0:
            v = context_best_discard(params, lo, hand | bit(up), trump)[1]
        else:
            v = context_value(params, lo, hand, trump, 0, 1 if pos == 1 else 0, 1 if pos == 2 else 0)
        return v >= params[lo + _C_ORDER + pos]
    # profile
    h = hand
    if pos == 0:
        h = hand | bit(up)
        h &= ~bit(worst_card(params, lo, h, trump))
    p_pass, p_make, p_alone = profile_predict(params, lo, hi, pos, h, trump)
    return max(p_make, p_alone) > p_pass


# ----------------------------------------------------------------------------- the simple rule
# The ``simple`` bidder (the article's values, scalar thresholds): here so that the engine's
# bidding (evolve.agents.dispatch) and the search bidder's playouts share one implementation.

SIMPLE_VALUES = (SPEC_TABLE / SPEC_UNIT).ravel().copy()     # indexed by rel_index


@kernel
def simple_card_value(card, trump):
    """Expected tricks of one card if ``trump`` is trump (the article's table)."""
    return SIMPLE_VALUES[rel_index(card, trump)]


@kernel
def simple_hand_value(hand, trump):
    """Expected tricks of a hand under ``trump`` (the article's table)."""
    return hand_value(SIMPLE_VALUES, 0, hand, trump)


@kernel
def simple_discard(hand, trump):
    """The card of least value in the article's table (the simple bidder's discard)."""
    return worst_card(SIMPLE_VALUES, 0, hand, trump)


@kernel
def simple_order_value(hand, seat, dealer, up):
    """The simple bidder's round-1 value: the dealer takes the upcard and sheds its worst
    card; the dealer's partner adds half the upcard's value, an opponent subtracts half."""
    trump = up // 6
    if seat == dealer:
        h = hand | bit(up)
        return simple_hand_value(h, trump) - simple_card_value(simple_discard(h, trump), trump)
    if (seat + 2) % 4 == dealer:
        return simple_hand_value(hand, trump) + 0.5 * simple_card_value(up, trump)
    return simple_hand_value(hand, trump) - 0.5 * simple_card_value(up, trump)


@kernel
def simple_best_call(hand, banned):
    """(suit, value): the suit other than ``banned`` with the highest value in the article's table."""
    best = -1
    best_v = -1.0
    for s in range(4):
        if s != banned:
            v = simple_hand_value(hand, s)
            if v > best_v:
                best_v = v
                best = s
    return best, best_v


@kernel
def random_euchre_call(rngs, seat, banned, must_call):
    """A uniformly random round-2 call: a suit other than ``banned``, or pass (-1) unless
    ``must_call``."""
    k = below(rngs, seat, 3 if must_call else 4)
    if k == 3:
        return PASS
    for s in range(4):
        if s != banned:
            if k == 0:
                return s
            k -= 1
    return PASS


@kernel
def call(kind, params, lo, hi, seat, hand, pub, rngs, must_call):
    """Round 2: a suit other than the upcard's, or -1 (pass) unless ``must_call``."""
    _check(kind, lo, hi)
    banned = pub[UPCARD] // 6
    pos = _pos(seat, pub)
    if kind == BID_EXPLORE:
        if uniform(rngs, seat) < params[lo]:
            return random_euchre_call(rngs, seat, banned, must_call)
        kind = BID_LINEAR
        lo += 1
    if kind == BID_LOGIC or kind == BID_LOGIC_PROFILE:
        return logic_call(kind, params, lo, hi, seat, hand, pub, must_call)
    best = -1
    best_v = -1e18
    for s in range(4):
        if s == banned:
            continue
        if kind == BID_PROFILE:
            p_pass, p_make, p_alone = profile_predict(params, lo, hi, 4 + pos, hand, s)
            v = max(p_make, p_alone) - p_pass
        elif kind == BID_CONTEXT:
            v = context_value(params, lo, hand, s, 0, 1 if pos == 1 else 0, 0)
        else:
            v = hand_value(params, lo, hand, s)
        if v > best_v:
            best_v = v
            best = s
    if must_call:
        return best
    if kind == BID_PROFILE:
        ok = best_v > 0.0
    elif kind == BID_CONTEXT:
        ok = best_v >= params[lo + _C_CALL + pos]
    elif kind == BID_GROUP:
        ok = best_v >= params[lo + _G_CALL + pos]
    else:
        ok = best_v >= params[lo + _L_CALL + pos]
    return best if ok else PASS


@kernel
def alone(kind, params, lo, hi, seat, hand, pub, rngs, trump):
    """Whether the maker goes alone (``hand`` is its hand for the play)."""
    _check(kind, lo, hi)
    if kind == BID_EXPLORE:
        if uniform(rngs, seat) < params[lo]:
            return below(rngs, seat, 2) == 1
        kind = BID_LINEAR
        lo += 1
    if kind == BID_LOGIC or kind == BID_LOGIC_PROFILE:
        return logic_alone(kind, params, lo, hi, seat, hand, pub, trump)
    if kind == BID_LINEAR:
        return hand_value(params, lo, hand, trump) >= params[lo + _L_ALONE]
    if kind == BID_GROUP:
        return hand_value(params, lo, hand, trump) >= params[lo + _G_ALONE]
    pos = _pos(seat, pub)
    round1 = _round1_was_ordered(pub)
    if kind == BID_CONTEXT:
        dealer = pub[DEALER]
        forehand = (dealer + 1) % 4
        out = (seat + 2) % 4
        leader = forehand if forehand != out else (forehand + 1) % 4
        took = 1 if (round1 and pos == 2) else 0
        v = context_value(params, lo, hand, trump, 1, 1 if leader == seat else 0, took)
        return v >= params[lo + _C_ALONE]
    ctx = pos if round1 else 4 + pos
    p_pass, p_make, p_alone = profile_predict(params, lo, hi, ctx, hand, trump)
    return p_alone > p_make


@kernel
def discard(kind, params, lo, hi, seat, hand, pub, rngs, trump):
    """The dealer's discard from its six cards (least value under trump)."""
    _check(kind, lo, hi)
    if kind == BID_EXPLORE:
        lo += 1
    if kind == BID_CONTEXT:
        return context_best_discard(params, lo, hand, trump)[0]
    if kind == BID_LOGIC or kind == BID_LOGIC_PROFILE:
        return logic_worst_card(params, lo, hand, trump)
    return worst_card(params, lo, hand, trump)


# ----------------------------------------------------------------------------- seats


def load_genome(name: str, path: str) -> np.ndarray:
    """A bidder vector from an ``.npz``: the flat vector ``genome`` or its named blocks."""
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: np.array(z[k]) for k in z.files}
    except (OSError, ValueError) as e:
        raise UsageError(f"bid_genome {path!r} cannot be read ({e})") from None
    if "genome" in data:
        return check_params(name, data["genome"])
    return check_params(name, LAYOUTS[name].join(data, f"bid_genome {path!r}"))


def bidder_params(name: str, opts: dict) -> np.ndarray:
    """The parameter vector of table bidder ``name`` from the shared bidder options:
    ``bid_genome`` (a file) or the ``bid_start`` vector, then ``order`` / ``call`` /
    ``alone`` (x100, >= 0) overriding the threshold blocks for every position."""
    path = opts.get("bid_genome") or ""
    p = load_genome(name, path) if path else start_vector(name, opts.get("bid_start", "auto")).copy()
    layout = LAYOUTS[name]
    for key, block in (("order", "order_threshold"), ("call", "call_threshold"), ("alone", "alone_threshold")):
        t = opts.get(key, -1)
        if t is None or t < 0:
            continue
        if block not in layout.offsets:
            raise UsageError(f"bidder {name!r} has no thresholds; option {key}= does not apply")
        a, z = layout.offsets[block]
        p[a:z] = t / 100.0
    return check_params(name, p)


# ----------------------------------------------------------------------------- systems 1 and 2
# The article's first two systems. System 1 (``logic``): each card's probability of winning
# a trick "by simply applying the probability that the opposing partnership would be able
# to win the trick", a trump's chance "enhanced ... if the hand is void, or near void in any
# suit", summed to expected tricks and set against thresholds "tuned in block games" (the
# bulk run's fitted thresholds, start "bulk"). System 2 (``logic_profile``): the hand's three
# group totals of system 1's probabilities matched against a profile table measured by
# bulk runs, as ``profile`` does with fixed per-card values.
#
# System 1's probability of card c under trump t, from what the seat knows (its hand and
# the turned card; the N unseen cards are dealt 5 to each opponent, 5 to the partner, 3 to
# the kitty, every split equally likely): the opponents hold K = 10 of the N; with h unseen
# cards of c's suit above c,
#   p = C(N - h, K) / C(N, K)                       (no opponent holds a higher card of the suit)
# for a non-trump c times (1 - q)^2, q = [C(N - n_s, 5) - C(N - n_s - n_t, 5)] / C(N, 5) the
# chance that one opponent is void in the suit (n_s unseen cards) but holds a trump (n_t);
# for a trump p + (1 - p) b with b = 1 - (1 - void_boost)^(voids + near_void x singletons)
# over the hand's non-trump suits (the trump can ruff a suit the hand lacks).

_LOGIC_BOOST, _LOGIC_NEAR, _LOGIC_ORDER, _LOGIC_CALL, _LOGIC_ALONE, LOGIC_SIZE = 0, 1, 2, 6, 10, 11
_LP_BW, _LP_PROF = 2, 3          # logic_profile: [void_boost, near_void, bandwidth, profiles..., outcome...]
LOGIC_DEFAULTS = (0.5, 0.5)      # void_boost: a void suit led to the seat once in two; a singleton is half a void


def _logic_blocks() -> tuple[Block, ...]:
    return (
        Block("void_boost", (1,), 0.0, 1.0, "a trump's extra chance per void non-trump suit of the hand"),
        Block("near_void", (1,), 0.0, 1.0, "a singleton non-trump suit counts as this many voids"),
    )


def logic_profile_layout(k: int = K_PROFILES) -> Layout:
    return Layout((
        *_logic_blocks(),
        Block("bandwidth", (1,), 0.01, 3.0, "Gaussian kernel width on the group-total distance (tricks)"),
        Block("profiles", (k, 3), 0.0, 5.0, "profile centres: system 1's group totals (other, shadow, trump)"),
        Block("outcome", (k, N_CTX, N_OUT), -4.0, 4.0,
              "mean hand score of the seat's side, [profile][round*4+pos][pass, make, make alone]"),
    ))


LAYOUTS["logic"] = Layout((*_logic_blocks(), *_thresholds()))
LAYOUTS["logic_profile"] = logic_profile_layout()
KINDS["logic"] = BID_LOGIC
KINDS["logic_profile"] = BID_LOGIC_PROFILE
KIND_NAMES[BID_LOGIC] = "logic"
KIND_NAMES[BID_LOGIC_PROFILE] = "logic_profile"
DESCRIBE["logic"] = ("system 1: per-card win probabilities derived from the unseen cards (no opponent holds a higher "
                     "card of the suit or ruffs it; trumps boosted by the hand's voids) summed to expected tricks, "
                     "with thresholds fitted in bulk play")
DESCRIBE["logic_profile"] = ("system 2: the hand's three group totals of system 1's probabilities matched against "
                             "bulk-measured profiles, similarity-weighted vote on passing, making and going alone")
assert LAYOUTS["logic"].size == LOGIC_SIZE


def logic_default_vector() -> np.ndarray:
    """System 1 with the logic's own boosts and the ``simple`` bidder's thresholds."""
    o, c, a = SIMPLE_THRESHOLDS
    return LAYOUTS["logic"].join({"void_boost": [LOGIC_DEFAULTS[0]], "near_void": [LOGIC_DEFAULTS[1]],
                                  "order_threshold": [o] * 4, "call_threshold": [c] * 4, "alone_threshold": [a]})


@kernel
def choose(n, k):
    """C(n, k) as a float; 0 when k < 0 or n < k."""
    if k < 0 or n < k:
        return 0.0
    v = 1.0
    for i in range(k):
        v = v * (n - i) / (i + 1)
    return v


@njit(cache=True, inline="always")
def effective_suit(card, trump):
    """The suit ``card`` follows under ``trump`` (the left bower is a trump)."""
    return trump if rel_index(card, trump) >= 16 else card // 6


@kernel
def logic_card_prob(card, trump, hand, unseen, void_boost, near_void):
    """System 1's probability that ``card`` of ``hand`` wins a trick under ``trump``, given
    the ``unseen`` cards (see the section comment)."""
    n = 0
    h = 0
    n_s = 0
    n_t = 0
    s = effective_suit(card, trump)
    r = rel_index(card, trump)
    m = unseen
    while m != ZERO:
        c = lowest(m)
        m &= m - ONE
        n += 1
        es = effective_suit(c, trump)
        if es == s:
            n_s += 1
            if rel_index(c, trump) > r:
                h += 1
        if es == trump:
            n_t += 1
    k = 10 if n >= 10 else n
    p = choose(n - h, k) / choose(n, k)
    if s != trump:
        q = (choose(n - n_s, 5) - choose(n - n_s - n_t, 5)) / choose(n, 5)
        return p * (1.0 - q) * (1.0 - q)
    voids = 0.0
    for x in range(4):
        if x == trump:
            continue
        held = 0
        m = hand
        while m != ZERO:
            c = lowest(m)
            m &= m - ONE
            if effective_suit(c, trump) == x:
                held += 1
        if held == 0:
            voids += 1.0
        elif held == 1:
            voids += near_void
    return p + (1.0 - p) * (1.0 - (1.0 - void_boost) ** voids)


@njit(cache=True, inline="always")
def _unseen(hand, known):
    return ((ONE << np.uint64(24)) - ONE) & ~hand & ~known


@kernel
def logic_hand_value(params, lo, hand, trump, known):
    """System 1's expected tricks of ``hand`` under ``trump``; ``known``: other cards the
    seat has seen (the turned card, the dealer's discard)."""
    g0, g1, g2 = logic_group_totals(params, lo, hand, trump, known)
    return g0 + g1 + g2


@kernel
def logic_group_totals(params, lo, hand, trump, known):
    """System 1's probabilities of ``hand`` summed per group (other, shadow, trump)."""
    return card_group_totals(params, lo, hand, trump, known, True)


@kernel
def logic_worst_card(params, lo, hand, trump):
    """The card of ``hand`` (the dealer's six) with the lowest system-1 probability (ties:
    the lowest card id)."""
    return least_card(params, lo, hand, trump, True)


@kernel
def logic_play_hand(params, lo, hand, up, pos):
    """(hand, known) a round-1 maker would play with: the dealer takes the turned card and
    sheds its least likely winner; the others keep their hand, the turned card seen."""
    trump = up // 6
    if pos == 0:
        h6 = hand | bit(up)
        w = logic_worst_card(params, lo, h6, trump)
        return h6 & ~bit(w), bit(w)
    return hand, bit(up)


@kernel
def logic_round1_value(params, lo, hand, up, pos):
    """System 1's round-1 value, the turned card as ``linear`` counts it: the dealer's hand
    after taking it; its partner + 0.5 x the turned card's probability, an opponent - 0.5 x."""
    trump = up // 6
    ph, known = logic_play_hand(params, lo, hand, up, pos)
    value = logic_hand_value(params, lo, ph, trump, known)
    if pos == 0:
        return value
    h6 = hand | bit(up)
    vu = logic_card_prob(up, trump, h6, _unseen(h6, ZERO), params[lo + _LOGIC_BOOST], params[lo + _LOGIC_NEAR])
    return value + 0.5 * vu if pos == 2 else value - 0.5 * vu


@kernel
def logic_profile_predict(params, lo, hi, ctx, hand, trump, known):
    """System 2: the kernel-weighted (pass, make, alone) outcome of the hand's profile of
    system 1's group totals."""
    k_n = (hi - lo - _LP_PROF) // (3 + N_CTX * N_OUT)
    g0, g1, g2 = logic_group_totals(params, lo, hand, trump, known)
    return profile_vote(params, lo + _LP_PROF, k_n, params[lo + _LP_BW], ctx, g0, g1, g2)


@kernel
def logic_order(kind, params, lo, hi, seat, hand, pub):
    """Round 1 of systems 1 and 2: order up the turned card."""
    up = pub[UPCARD]
    pos = _pos(seat, pub)
    if kind == BID_LOGIC:
        return logic_round1_value(params, lo, hand, up, pos) >= params[lo + _LOGIC_ORDER + pos]
    ph, known = logic_play_hand(params, lo, hand, up, pos)
    p_pass, p_make, p_alone = logic_profile_predict(params, lo, hi, pos, ph, up // 6, known)
    return max(p_make, p_alone) > p_pass


@kernel
def logic_call(kind, params, lo, hi, seat, hand, pub, must_call):
    """Round 2 of systems 1 and 2: the best suit other than the turned card's, or -1."""
    banned = pub[UPCARD] // 6
    known = bit(pub[UPCARD])
    pos = _pos(seat, pub)
    best = -1
    best_v = -1e18
    for s in range(4):
        if s == banned:
            continue
        if kind == BID_LOGIC:
            v = logic_hand_value(params, lo, hand, s, known)
        else:
            p_pass, p_make, p_alone = logic_profile_predict(params, lo, hi, 4 + pos, hand, s, known)
            v = max(p_make, p_alone) - p_pass
        if v > best_v:
            best_v = v
            best = s
    if must_call:
        return best
    ok = best_v >= params[lo + _LOGIC_CALL + pos] if kind == BID_LOGIC else best_v > 0.0
    return best if ok else PASS


@kernel
def logic_alone(kind, params, lo, hi, seat, hand, pub, trump):
    """Whether a maker of systems 1 and 2 goes alone (``hand``: its hand for the play)."""
    known = bit(pub[UPCARD]) & ~hand
    if kind == BID_LOGIC:
        return logic_hand_value(params, lo, hand, trump, known) >= params[lo + _LOGIC_ALONE]
    ctx = _pos(seat, pub) if _round1_was_ordered(pub) else 4 + _pos(seat, pub)
    p_pass, p_make, p_alone = logic_profile_predict(params, lo, hi, ctx, hand, trump, known)
    return p_alone > p_make
