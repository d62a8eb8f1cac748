"""Determinization: deal the cards a seat has not seen to the hidden places, exactly
uniformly over every deal consistent with what the seat knows (``docs/explanation/honest-agents.md``).

What a seat knows (``seat``, its own ``hand``, the public state ``pub``):

- every card played and by whom, so each other seat's hand size (Euchre: a sitting-out
  partner holds its five cards out of play; the kitty is out of play);
- revealed voids (``pub[VOIDS]``, effective suits of the deal's mode; Jass bit 4+s: no
  card of suit s except possibly the Buur; a Jass undertrump reveals an all-trump hand),
  plus, with Spades ``break_spades``, a trump lead before spades were broken reveals a
  hand of nothing but trumps (derived here from the trick history);
- Euchre: the turned card. Turned down (or ``setup=fixed_spades``) it is out of play. If
  it was ordered up the dealer took it and discarded one of its six cards face down: with
  ``discard_upcard=false`` the dealer holds it until played; otherwise the dealer holds
  it *or* discarded it (it can never be in the kitty or another hand). The dealer itself
  cannot recover its own discard from ``(hand, pub)`` (the engine keeps it out of
  ``pub``), so for the dealer it is an unknown out-of-play card;
- Sueca (standard setup): the shown trump card stays in the dealer's hand until played.
  In the study setup the trump card is a random card of the deck whose holder is not
  announced, so it is no constraint.

The consistent set. The hidden places ("holders") are the other active seats (their
current hand sizes), in Euchre the dealer's face-down discard (1 card, only when the
turned card was ordered up and the observer is not the dealer) and one pool for all
remaining out-of-play cards (kitty, a sitting-out hand, the dealer's own discard as seen
by the dealer). Each unseen card may go to a subset of holders (its *signature*); all
constraints above are of this per-card form. A consistent deal is an assignment of the
unseen cards to holders with the right sizes and every card in an allowed holder. Keeping
the discard as its own 1-card holder makes "uniform over assignments" equal to "uniform
over the full hidden world states" (kitty vs discard distinguished) under a uniformly
shuffled deck and a discard that reveals nothing, e.g. the turned card is in the dealer's
hand with probability 5/6 at the start of play.

Exact uniform sampling. Cards with the same signature form a class (at most ~6: one per
suit, the Jass Buur, the Euchre turned card). A deal is a class-by-holder count matrix x
plus, inside each class, which cards go where. For a given x the number of deals is
prod_k multinomial(m_k; x_k). With f_k(r) = the number of ways to deal classes k.. into
remaining holder needs r (f_L(0) = 1, and a last class allowed everywhere has the closed
form multinomial(m; r)), the sampler draws, class by class, the row x_k with probability
multinomial(m_k; x_k) f_{k+1}(r - x_k) / f_k(r), then deals the class's cards to the
holders as a uniformly random ordered selection. A deal's probability is therefore
prod_k [multinomial(m_k; x_k) f_{k+1} / f_k] * prod_k 1/multinomial(m_k; x_k) = 1/f_0(r0):
exactly uniform. Counts are exact int64 (the largest, Spades with nothing known, is
39!/(13!)^3 ~ 8.4e16 < 2^63) and every random draw is an unbiased rejection draw, so the
sampler is exact, not approximate. The tables f_k depend only on the observation, so
``det_prepare`` builds them once per decision and ``det_sample`` draws many deals cheaply.

Memory. Everything lives in an int64 view of the agent's float64 ``work`` array (these
kernels run without Numba's runtime and may not allocate): a block of ``DET_SIZE`` slots
at ``base``; the sampled hands are written to ``out[at:at+4]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evolve.games.bits import (
    ONE,
    ZERO,
    bit,
    count,
    has,
    kernel,
    lowest,
    next_u64,
    nth_card,
)
from evolve.games.hooks import void_cards
from evolve.games.knowledge import trump_lead_voids, upcard_place
from evolve.games.rules import (
    P_BREAK_SPADES,
    P_HAND,
    P_N_CARDS,
)
from evolve.games.state import (
    DEALER,
    OUT_SEAT,
    PLAYED_BY,
    UP_DEALER,
    UP_DEALER_OR_DISCARD,
    UP_OUT_OF_PLAY,
    UPCARD,
    VOIDS,
)

MAX_HOLDERS = 5
MAX_CLASSES = 8
MAX_STATES = 512

# header of a prepared block (int64 slots relative to ``base``)
D_H = 0           # holders used
D_L = 1           # classes
D_LT = 2          # classes 0..LT-1 use tables; class LT (== L-1) is allowed everywhere, or LT == L
D_NS = 3          # states per table
D_TOTAL = 4       # f_0(needs): the number of consistent deals
D_SEAT = 5
D_HAND = 6
D_UNSEEN = 7
D_HSEAT = 8       # MAX_HOLDERS: seat of each holder (-1: discard / out-of-play pool)
D_NEED = 13       # MAX_HOLDERS
D_STRIDE = 18     # MAX_HOLDERS
D_FIXED = 23      # 4: cards known to be in a seat's hand (besides the observer's)
D_CMASK = 27      # MAX_CLASSES
D_CSIG = 35       # MAX_CLASSES
D_CSIZE = 43      # MAX_CLASSES
D_MREM = 51       # MAX_CLASSES + 1: cards in classes k.. (M_k)
D_R = 60          # MAX_HOLDERS scratch: remaining needs while sampling
D_X = 65          # MAX_HOLDERS scratch: chosen row
D_ALLOW = 70      # MAX_HOLDERS: allowed cards per holder
D_TABLE = 80
DET_SIZE = D_TABLE + MAX_CLASSES * MAX_STATES


def _binomials(n: int) -> np.ndarray:
    c = np.zeros((n + 1, n + 1), np.int64)
    for i in range(n + 1):
        c[i, 0] = 1
        for j in range(1, i + 1):
            c[i, j] = c[i - 1, j - 1] + c[i - 1, j]
    return c


BINOM = _binomials(64)


# ------------------------------------------------------------------ unbiased random draws


@njit(cache=True, inline="always")
def below_exact(rngs, k, n):
    """A uniform integer in [0, n) (n >= 1, n < 2**63) by rejection: exactly unbiased."""
    if n <= 1:
        return np.int64(0)
    m = np.uint64(n - 1)
    m |= m >> np.uint64(1)
    m |= m >> np.uint64(2)
    m |= m >> np.uint64(4)
    m |= m >> np.uint64(8)
    m |= m >> np.uint64(16)
    m |= m >> np.uint64(32)
    nn = np.uint64(n)
    while True:
        v = next_u64(rngs, k) & m
        if v < nn:
            return np.int64(v)


@njit(cache=True, inline="always")
def card_exact(rngs, k, mask):
    """A uniformly random card of a non-empty mask (exactly unbiased)."""
    return nth_card(mask, below_exact(rngs, k, count(mask)))


# ------------------------------------------------------------------ counting


@njit(cache=True, inline="always")
def _multinomial(m, x0, x1, x2, x3):
    """m! / (x0! x1! x2! x3! (m - x0 - x1 - x2 - x3)!)."""
    a = m - x0
    b = a - x1
    c = b - x2
    return BINOM[m, x0] * BINOM[a, x1] * BINOM[b, x2] * BINOM[c, x3]


@njit(cache=True, inline="always")
def _count(iw, base, k, r0, r1, r2, r3, r4):
    """f_k(r): ways to deal classes k.. into remaining needs r (r sums to M_k)."""
    L = iw[base + D_L]
    if k >= L:
        return np.int64(1)
    if k >= iw[base + D_LT]:
        return _multinomial(iw[base + D_MREM + k], r0, r1, r2, r3)
    h = iw[base + D_H]
    idx = r0 * iw[base + D_STRIDE]
    if h > 2:
        idx += r1 * iw[base + D_STRIDE + 1]
    if h > 3:
        idx += r2 * iw[base + D_STRIDE + 2]
    if h > 4:
        idx += r3 * iw[base + D_STRIDE + 3]
    return iw[base + D_TABLE + k * MAX_STATES + idx]


@njit(cache=True, inline="always")
def _bound(iw, base, sig, hh, rh, m):
    """Loop bound of holder hh's share of a class (0 if not allowed or derived)."""
    if hh >= iw[base + D_H] - 1 or (sig >> hh) & 1 == 0:
        return 0
    return min(rh, m)


@kernel
def _rows(iw, base, k, r0, r1, r2, r3, r4, z):
    """Enumerate the rows x of class k from remaining needs r with their weights
    multinomial(m; x) f_{k+1}(r - x). With ``z`` < 0 return the total weight; otherwise
    store in D_X the row where the running total first exceeds ``z`` and return -1."""
    m = iw[base + D_CSIZE + k]
    sig = iw[base + D_CSIG + k]
    h = iw[base + D_H]
    last = h - 1
    last_ok = (sig >> last) & 1 == 1
    rl = r0
    if last == 1:
        rl = r1
    elif last == 2:
        rl = r2
    elif last == 3:
        rl = r3
    elif last == 4:
        rl = r4
    b0 = _bound(iw, base, sig, 0, r0, m)
    b1 = _bound(iw, base, sig, 1, r1, m)
    b2 = _bound(iw, base, sig, 2, r2, m)
    b3 = _bound(iw, base, sig, 3, r3, m)
    total = np.int64(0)
    for x0 in range(b0 + 1):
        for x1 in range(min(b1, m - x0) + 1):
            for x2 in range(min(b2, m - x0 - x1) + 1):
                for x3 in range(min(b3, m - x0 - x1 - x2) + 1):
                    xl = m - x0 - x1 - x2 - x3
                    if xl > rl or (xl > 0 and not last_ok):
                        continue
                    y0, y1, y2, y3, y4 = x0, x1, x2, x3, 0
                    if last == 0:
                        y0 = xl
                    elif last == 1:
                        y1 = xl
                    elif last == 2:
                        y2 = xl
                    elif last == 3:
                        y3 = xl
                    else:
                        y4 = xl
                    f = _count(iw, base, k + 1, r0 - y0, r1 - y1, r2 - y2, r3 - y3, r4 - y4)
                    if f == 0:
                        continue
                    total += _multinomial(m, y0, y1, y2, y3) * f
                    if z >= 0 and total > z:
                        iw[base + D_X] = y0
                        iw[base + D_X + 1] = y1
                        iw[base + D_X + 2] = y2
                        iw[base + D_X + 3] = y3
                        iw[base + D_X + 4] = y4
                        return np.int64(-1)
    return total


# ------------------------------------------------------------------ what the seat knows


@kernel
def det_prepare(rules, mode, seat, hand, pub, iw, base):  # noqa: C901 (one kernel)
    """Work out the consistent set of deals for ``seat`` (see the module docstring) and
    build the counting tables in ``iw[base:base+DET_SIZE]``. Returns the number of
    consistent deals (>= 1; raises if the observation is inconsistent)."""
    n_cards = rules[P_N_CARDS]
    hs = rules[P_HAND]
    deck = (ONE << np.uint64(n_cards)) - ONE
    played = ZERO
    for s in range(4):
        played |= np.uint64(pub[PLAYED_BY + s])
    unseen = deck & ~hand & ~played
    out = pub[OUT_SEAT]
    if out < -1 or out > 3:
        out = -1
    for s in range(4):
        iw[base + D_FIXED + s] = 0
        iw[base + D_R + s] = pub[VOIDS + s]     # void bits, scratch for now
    iw[base + D_R + 4] = 0
    if rules[P_BREAK_SPADES] != 0:
        trump_lead_voids(rules, mode, pub, base + D_R, iw)
    special = -1        # the turned card when the dealer holds it or discarded it
    discard_holder = False
    up = pub[UPCARD]
    where = upcard_place(rules, seat, hand, pub)
    if where == UP_OUT_OF_PLAY:
        unseen &= ~bit(up)
    elif where == UP_DEALER:
        unseen &= ~bit(up)
        iw[base + D_FIXED + pub[DEALER]] |= np.int64(bit(up))
    elif where == UP_DEALER_OR_DISCARD:
        special = up
        discard_holder = True
    # holders: other active seats, the Euchre discard, the out-of-play pool
    h = 0
    need_sum = 0
    for j in range(1, 4):
        s = (seat + j) % 4
        if s == out:
            continue
        need = hs - count(np.uint64(pub[PLAYED_BY + s])) - count(np.uint64(iw[base + D_FIXED + s]))
        if need < 0:
            raise ValueError("determinization: a seat holds fewer cards than known")
        if need == 0:
            continue
        banned = void_cards(rules, mode, iw[base + D_R + s])
        iw[base + D_HSEAT + h] = s
        iw[base + D_NEED + h] = need
        iw[base + D_ALLOW + h] = np.int64(unseen & ~banned)
        need_sum += need
        h += 1
    if discard_holder:
        dealer = pub[DEALER]
        iw[base + D_HSEAT + h] = -1
        iw[base + D_NEED + h] = 1
        iw[base + D_ALLOW + h] = np.int64(unseen)
        need_sum += 1
        h += 1
        # the turned card is in the dealer's hand or is the discard, nowhere else
        for g in range(h - 1):
            if iw[base + D_HSEAT + g] != dealer:
                iw[base + D_ALLOW + g] = np.int64(np.uint64(iw[base + D_ALLOW + g]) & ~bit(special))
    n_unseen = count(unseen)
    pool = n_unseen - need_sum
    if pool < 0:
        raise ValueError("determinization: more hidden cards needed than unseen")
    if pool > 0:
        allow = unseen
        if special >= 0:
            allow &= ~bit(special)
        iw[base + D_HSEAT + h] = -1
        iw[base + D_NEED + h] = pool
        iw[base + D_ALLOW + h] = np.int64(allow)
        h += 1
    for g in range(h, MAX_HOLDERS):
        iw[base + D_HSEAT + g] = -1
        iw[base + D_NEED + g] = 0
        iw[base + D_ALLOW + g] = 0
    iw[base + D_H] = h
    iw[base + D_SEAT] = seat
    iw[base + D_HAND] = np.int64(hand)
    iw[base + D_UNSEEN] = np.int64(unseen)
    # classes by signature; the class allowed everywhere goes last
    full = (1 << h) - 1
    L = 0
    rest = unseen
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        sig = 0
        for g in range(h):
            if has(np.uint64(iw[base + D_ALLOW + g]), c):
                sig |= 1 << g
        if sig == 0:
            raise ValueError("determinization: an unseen card fits no hidden place")
        found = -1
        for k in range(L):
            if iw[base + D_CSIG + k] == sig:
                found = k
        if found < 0:
            if L == MAX_CLASSES:
                raise ValueError("determinization: too many card classes")
            found = L
            iw[base + D_CSIG + L] = sig
            iw[base + D_CMASK + L] = 0
            L += 1
        iw[base + D_CMASK + found] |= np.int64(bit(c))
    for k in range(L):
        if iw[base + D_CSIG + k] == full and k != L - 1:
            sm, sg = iw[base + D_CMASK + k], iw[base + D_CSIG + k]
            iw[base + D_CMASK + k] = iw[base + D_CMASK + L - 1]
            iw[base + D_CSIG + k] = iw[base + D_CSIG + L - 1]
            iw[base + D_CMASK + L - 1] = sm
            iw[base + D_CSIG + L - 1] = sg
            break
    iw[base + D_L] = L
    iw[base + D_LT] = L - 1 if L > 0 and iw[base + D_CSIG + L - 1] == full else L
    iw[base + D_MREM + L] = 0
    for k in range(L - 1, -1, -1):
        iw[base + D_CSIZE + k] = count(np.uint64(iw[base + D_CMASK + k]))
        iw[base + D_MREM + k] = iw[base + D_MREM + k + 1] + iw[base + D_CSIZE + k]
    # tables f_k for 1 <= k < LT over the needs of holders 0..h-2 (holder h-1 derived)
    ns = 1
    for g in range(h - 1):
        iw[base + D_STRIDE + g] = ns
        ns *= iw[base + D_NEED + g] + 1
    for g in range(max(h - 1, 0), MAX_HOLDERS):
        iw[base + D_STRIDE + g] = 0
    iw[base + D_NS] = ns
    lt = iw[base + D_LT]
    if lt > 1 and ns > MAX_STATES:
        raise ValueError("determinization: counting table too large")
    for k in range(lt - 1, 0, -1):
        mk = iw[base + D_MREM + k]
        for idx in range(ns):
            r0 = r1 = r2 = r3 = r4 = 0
            left = mk
            for g in range(h - 1):
                rg = (idx // iw[base + D_STRIDE + g]) % (iw[base + D_NEED + g] + 1)
                left -= rg
                if g == 0:
                    r0 = rg
                elif g == 1:
                    r1 = rg
                elif g == 2:
                    r2 = rg
                else:
                    r3 = rg
            value = np.int64(0)
            if left >= 0 and left <= iw[base + D_NEED + h - 1]:
                if h == 1:
                    r0 = left
                elif h == 2:
                    r1 = left
                elif h == 3:
                    r2 = left
                elif h == 4:
                    r3 = left
                else:
                    r4 = left
                value = _rows(iw, base, k, r0, r1, r2, r3, r4, np.int64(-1))
            iw[base + D_TABLE + k * MAX_STATES + idx] = value
    n0 = iw[base + D_NEED]
    n1 = iw[base + D_NEED + 1]
    n2 = iw[base + D_NEED + 2]
    n3 = iw[base + D_NEED + 3]
    n4 = iw[base + D_NEED + 4]
    if L == 0:
        total = np.int64(1)
    elif lt == 0:
        total = _multinomial(iw[base + D_MREM], n0, n1, n2, n3)
    else:
        total = _rows(iw, base, 0, n0, n1, n2, n3, n4, np.int64(-1))
    if total <= 0:
        raise ValueError("determinization: no deal is consistent with the observation")
    iw[base + D_TOTAL] = total
    return total


@kernel
def det_sample(iw, base, rngs, stream, out, at):
    """Draw one consistent deal uniformly (needs ``det_prepare`` first). Writes the four
    hands (card masks as int64; the observer's own hand, sitting-out seats 0) into
    ``out[at:at+4]``."""
    seat = iw[base + D_SEAT]
    for s in range(4):
        out[at + s] = iw[base + D_FIXED + s]
    out[at + seat] = iw[base + D_HAND]
    h = iw[base + D_H]
    L = iw[base + D_L]
    lt = iw[base + D_LT]
    for g in range(MAX_HOLDERS):
        iw[base + D_R + g] = iw[base + D_NEED + g]
    for k in range(L):
        if k < lt:
            if k == 0:
                f = iw[base + D_TOTAL]
            else:
                f = _count(iw, base, k, iw[base + D_R], iw[base + D_R + 1], iw[base + D_R + 2],
                           iw[base + D_R + 3], iw[base + D_R + 4])
            z = below_exact(rngs, stream, f)
            _rows(iw, base, k, iw[base + D_R], iw[base + D_R + 1], iw[base + D_R + 2],
                  iw[base + D_R + 3], iw[base + D_R + 4], z)
        else:
            for g in range(MAX_HOLDERS):
                iw[base + D_X + g] = iw[base + D_R + g]
        cards = np.uint64(iw[base + D_CMASK + k])
        for g in range(h):
            x = iw[base + D_X + g]
            iw[base + D_R + g] -= x
            s = iw[base + D_HSEAT + g]
            for _ in range(x):
                c = card_exact(rngs, stream, cards)
                cards &= ~bit(c)
                if s >= 0:
                    out[at + s] |= np.int64(bit(c))


# ------------------------------------------------------------------ Python helpers (tests)


@njit(cache=True)
def _sample_many(rules, mode, seat, hand, pub, n, rngs, stream):
    iw = np.zeros(DET_SIZE, np.int64)
    total = det_prepare(rules, mode, seat, hand, pub, iw, 0)
    hands = np.zeros((n, 4), np.int64)
    buf = np.zeros(4, np.int64)
    for i in range(n):
        det_sample(iw, 0, rngs, stream, buf, 0)
        for s in range(4):
            hands[i, s] = buf[s]
    return total, hands


def sample_deals(rules, mode, seat, hand, pub, n, seed=0):
    """Python helper: ``n`` consistent deals for ``seat`` as an int64 array [n, 4] of card
    masks (hidden-place cards such as the kitty are not shown), and the number of
    consistent deals."""
    rngs = np.zeros(5, np.uint64)
    rngs[:] = np.random.SeedSequence(int(seed)).generate_state(5, dtype=np.uint64)
    total, hands = _sample_many(np.asarray(rules, np.int64), int(mode), int(seat), np.uint64(hand),
                                np.asarray(pub, np.int64), int(n), rngs, int(seat) % 5)
    return int(total), hands


def count_deals(rules, mode, seat, hand, pub) -> int:
    """Python helper: the number of deals consistent with the seat's observation."""
    return sample_deals(rules, mode, seat, hand, pub, 0)[0]
