"""Search bidder (``bidder=search``, kind ``BID_SEARCH``): the bid or trump call as one more
move of a Monte Carlo search (the Jass paper's "MCTS" trump selection, its Table 2).

At every bidding decision of Jass, Euchre and Spades the seat runs a UCB1 bandit over the
calls it may make (the root of a search tree whose children are the calls). Each
iteration

1. picks a call: every call once in order, then UCB1 ``mean + c sqrt(ln N / n)`` on
   rewards normalised to [0, 1] (``bid_c``, default sqrt 2);
2. samples the three hidden hands (and the Euchre kitty / discard) exactly uniformly among
   the deals consistent with what the seat knows (``evolve.agents.search.determinize``; during
   bidding: its own hand, the turned card, the calls so far);
3. plays the deal out under that call: the rest of the bidding by the simple rule for
   every seat (the seat's own later decisions included), then uniformly random legal card
   play for all four seats (``evolve.agents.search.card_search.rollout``);
4. scores the seat's side and updates the call's statistics.

After ``bid_iterations`` iterations it makes the most visited call (the "robust child";
ties to the higher mean). Rewards:

- Jass (the forehand: six modes + push; the partner after a push: six modes). After a
  push the partner's declaration is simulated by the "ranked" rule
  (``docs/explanation/search-and-learnt-agents.md``) on its sampled hand. Reward: the seat's
  side's card points (last trick +5, ``match_bonus`` included) times the mode's multiplier
  (``multipliers``), divided by the largest possible value.
- Euchre (order up / pass; a suit / pass in round 2, no pass when ``must_call``; alone /
  not). The dealer's discard, in playouts and at the table, is the simple rule's (least
  valuable card). Reward: the seat's side's hand score minus the opponents' (+1 / +2 / +4
  for the makers, +2 for euchring defenders; 0 for a passed-out deal), mapped from
  [-4, 4] to [0, 1].
- Spades (bids 0..max_bid; 0 is nil under standard bidding): the later seats bid by the
  rule of thumb; reward: the seat's score (cut-throat) or its side's (partnership) for
  the deal under ``exact`` or ``standard`` scoring (a bag counts +1 - 10: the 100-point
  penalty per 10 bags spread over the bags), mapped from its possible range to [0, 1].

Honesty and reproducibility: the bidder reads only ``(seat, hand, pub)`` and draws only
from the seat's stream ``rngs[seat]``, so a seed fixes every call whatever the number of
workers. Parameters ``params[lo:hi]`` = ``[iterations, c]``.

Memory and compilation. The bidding hooks receive no ``work`` array, so the search runs in
a C callback (``numba.cfunc``, cached) that allocates its own scratch (about 36 KB per
decision); the engine calls it through a function pointer, exactly like the search card
players (``evolve.agents.search``), so the search code is compiled once and not into every
engine kernel. A seat with ``bidder=search`` therefore needs no ``work_size``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from evolve.agents.bidding.euchre_tables import (
    simple_best_call,
    simple_discard,
    simple_hand_value,
    simple_order_value,
)
from evolve.agents.bidding.tables import (
    JASS_RANKED,
    SPADES_RULE_OF_THUMB,
    jass_table_mode,
    spades_table_bid,
)
from evolve.agents.callback_slot import CallbackSlot, signatures, slot_codegen
from evolve.agents.search.card_search import rollout
from evolve.agents.search.determinize import DET_SIZE, det_prepare, det_sample
from evolve.core import numba_cache as _numba_cache
from evolve.games.bits import bit, kernel
from evolve.games.rules import (
    P_BIDDING,
    P_DISCARD_UPCARD,
    P_LAST_BONUS,
    P_MATCH_BONUS,
    P_N_CARDS,
    P_N_TRICKS,
    P_PARTNERSHIP,
    P_STICK,
    multiplier_of,
    points_of,
)
from evolve.games.state import (
    BIDS,
    BROKEN,
    DEALER,
    HISTORY,
    MODE,
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    PLAYED_BY,
    PUB_SIZE,
    SIDE_POINTS,
    TRICK,
    TRICKS_WON,
    UPCARD,
)

BID_SEARCH = 40

# decisions (the first argument of the callback)
DEC_JASS = 0        # a1: may_push
DEC_ORDER = 1       # Euchre round 1
DEC_CALL = 2        # Euchre round 2, a1: must_call
DEC_ALONE = 3       # Euchre, a1: trump
DEC_SPADES = 4      # a1: allow_nil, a2: max_bid

DEFAULT_ITERATIONS = 400
DEFAULT_C = math.sqrt(2.0)

ERR_PARAMS = -3

MAX_ARMS = 16
OFF_P = DET_SIZE                  # PUB_SIZE: playout state
OFF_H = OFF_P + PUB_SIZE          # 4: playout hands
OFF_D = OFF_H + 4                 # 4: sampled deal
OFF_B = OFF_D + 4                 # 4: simulated Spades bids
OFF_MOVE = OFF_B + 4              # MAX_ARMS: the call of each arm (int)
OFF_N = OFF_MOVE + MAX_ARMS       # MAX_ARMS: visits (float)
OFF_W = OFF_N + MAX_ARMS          # MAX_ARMS: total reward (float)
WORK_SIZE = OFF_W + MAX_ARMS

# standard scoring: every 10 bags cost 100, so a bag is worth +1 - 10 in the long run
_BAG_COST = 10
_RANKED = JASS_RANKED.copy()
_RULE_OF_THUMB = SPADES_RULE_OF_THUMB.copy()
JASS_PUSH = 6
EUCHRE_PASS = -1

# the simple Euchre bidder's default thresholds (expected tricks; evolve.agents.dispatch)
_ORDER_AT, _CALL_AT, _ALONE_AT = 2.6, 2.6, 4.2


# ----------------------------------------------------------------------------- simple rules


@njit(cache=True)
def _eu_simple_order(hand, s, dealer, up):
    return simple_order_value(hand, s, dealer, up) >= _ORDER_AT


@njit(cache=True)
def _eu_simple_call(hand, banned, must):
    best, best_v = simple_best_call(hand, banned)
    if must or best_v >= _CALL_AT:
        return best
    return EUCHRE_PASS


# ----------------------------------------------------------------------------- playouts


@njit(cache=True)
def _fresh_play(pub, p, mode, out):
    """The playout state at the first trick of a deal played in ``mode``."""
    for i in range(HISTORY):
        p[i] = pub[i]
    p[MODE] = mode
    p[TRICK] = 0
    p[NPLAYED] = 0
    p[BROKEN] = 0
    p[OUT_SEAT] = out
    p[N_ACTIVE] = 3 if out >= 0 else 4
    for s in range(4):
        p[TRICKS_WON + s] = 0
        p[PLAYED_BY + s] = 0
    for s in range(4):
        p[SIDE_POINTS + s] = 0


@njit(cache=True)
def _jass_scale(rules):
    total = rules[P_LAST_BONUS] + rules[P_MATCH_BONUS]
    for c in range(rules[P_N_CARDS]):
        total += points_of(rules, 0, c)
    mult = 1
    for m in range(6):
        mult = max(mult, multiplier_of(rules, m))
    return np.float64(max(total * mult, 1))


@njit(cache=True)
def _sim_jass(rules, pub, seat, iw, p, rngs, move):
    forehand = (pub[DEALER] + 1) % 4
    mode = move
    if move == JASS_PUSH:
        mode = jass_table_mode(_RANKED, 0, np.uint64(iw[OFF_H + (seat + 2) % 4]), False)
    _fresh_play(pub, p, mode, -1)
    rollout(rules, mode, p, iw, OFF_H, forehand, -1, rngs, seat, -1)
    v = p[SIDE_POINTS + seat % 2]
    if rules[P_MATCH_BONUS] > 0 and p[TRICKS_WON + seat] + p[TRICKS_WON + (seat + 2) % 4] == rules[P_N_TRICKS]:
        v += rules[P_MATCH_BONUS]
    return v * multiplier_of(rules, mode) / _jass_scale(rules)


@njit(cache=True)
def _sim_euchre(rules, pub, seat, iw, p, rngs, decision, move, trump_arg):
    """Finish the Euchre bidding from the seat's decision ``move`` by the simple rule,
    play out at random, return the normalised score difference of the seat's side."""
    dealer = pub[DEALER]
    forehand = (dealer + 1) % 4
    up = pub[UPCARD]
    up_suit = up // 6
    k0 = (seat - forehand) % 4
    trump = -1
    maker = -1
    alone = False
    if decision == DEC_ALONE:
        trump = trump_arg
        maker = seat
        alone = move == 1
    else:
        ordered = False
        r2_from = 0
        if decision == DEC_ORDER:
            if move == 1:
                trump = up_suit
                maker = seat
            else:
                for k in range(k0 + 1, 4):
                    s = (forehand + k) % 4
                    if _eu_simple_order(np.uint64(iw[OFF_H + s]), s, dealer, up):
                        trump = up_suit
                        maker = s
                        break
            ordered = trump >= 0
        else:
            if move >= 0:
                trump = move
                maker = seat
            r2_from = k0 + 1
        if trump < 0:
            stick = rules[P_STICK] != 0
            for k in range(r2_from, 4):
                s = (forehand + k) % 4
                c = _eu_simple_call(np.uint64(iw[OFF_H + s]), up_suit, stick and s == dealer)
                if c >= 0:
                    trump = c
                    maker = s
                    break
            if trump < 0:
                return 0.5                   # passed out: nobody scores
        if ordered:
            h = np.uint64(iw[OFF_H + dealer])
            choices = h | bit(up) if rules[P_DISCARD_UPCARD] != 0 else h
            d = simple_discard(choices, trump)
            iw[OFF_H + dealer] = np.int64((h | bit(up)) & ~bit(d))
        alone = simple_hand_value(np.uint64(iw[OFF_H + maker]), trump) >= _ALONE_AT
    out = (maker + 2) % 4 if alone else -1
    leader = forehand if forehand != out else (forehand + 1) % 4
    _fresh_play(pub, p, trump, out)
    rollout(rules, trump, p, iw, OFF_H, leader, out, rngs, seat, -1)
    taken = p[TRICKS_WON + maker] + p[TRICKS_WON + (maker + 2) % 4]
    if taken >= 3:
        v = 1.0 if taken < 5 else (4.0 if alone else 2.0)
    else:
        v = -2.0
    if maker % 2 != seat % 2:
        v = -v
    return (v + 4.0) / 8.0


@njit(cache=True)
def _exact(bid, tricks):
    if bid == tricks:
        return 10 + 5 * tricks
    return -5 * abs(tricks - bid)


@njit(cache=True)
def _sim_spades(rules, pub, seat, iw, p, rngs, move, allow_nil):
    dealer = pub[DEALER]
    forehand = (dealer + 1) % 4
    partnership = rules[P_PARTNERSHIP] != 0
    for s in range(4):
        iw[OFF_B + s] = pub[BIDS + s]
    iw[OFF_B + seat] = move
    k0 = (seat - forehand) % 4
    for k in range(k0 + 1, 4):
        s = (forehand + k) % 4
        mb = 13
        if partnership and iw[OFF_B + (s + 2) % 4] >= 0:
            mb = 13 - iw[OFF_B + (s + 2) % 4]
        iw[OFF_B + s] = spades_table_bid(_RULE_OF_THUMB, 0, np.uint64(iw[OFF_H + s]), allow_nil, mb)
    _fresh_play(pub, p, 0, -1)
    rollout(rules, 0, p, iw, OFF_H, forehand, -1, rngs, seat, -1)
    if rules[P_BIDDING] == 1:           # exact
        if partnership:
            v = _exact(iw[OFF_B + seat], p[TRICKS_WON + seat])
            o = (seat + 2) % 4
            v += _exact(iw[OFF_B + o], p[TRICKS_WON + o])
            return (v + 130.0) / 280.0
        return (_exact(iw[OFF_B + seat], p[TRICKS_WON + seat]) + 65.0) / 140.0
    # standard (partnership)
    contract = 0
    nil = 0
    taken = 0
    for s in (seat % 2, seat % 2 + 2):
        t = p[TRICKS_WON + s]
        taken += t
        if iw[OFF_B + s] == 0:
            nil += 100 if t == 0 else -100
        else:
            contract += iw[OFF_B + s]
    if taken >= contract:
        v = 10 * contract + (taken - contract) * (1 - _BAG_COST) + nil
    else:
        v = -10 * contract + nil
    return min(max((v + 330.0) / 660.0, 0.0), 1.0)


# ----------------------------------------------------------------------------- the bandit


@njit(cache=True)
def search_bid_impl(decision, params, lo, hi, seat, rules, hand, pub, rngs, a1, a2, work):  # noqa: C901 (one kernel)
    """The call (in the hook's own encoding), or a negative error code."""
    n_iter = np.int64(params[lo]) if hi > lo else DEFAULT_ITERATIONS
    c_ucb = params[lo + 1] if hi > lo + 1 else DEFAULT_C
    if n_iter < 1 or c_ucb < 0.0:
        return ERR_PARAMS
    iw = work.view(np.int64)
    p = iw[OFF_P:OFF_P + PUB_SIZE]
    # the calls at the root
    n_arms = 0
    if decision == DEC_JASS:
        n_arms = 7 if a1 != 0 else 6
        for k in range(n_arms):
            iw[OFF_MOVE + k] = k
    elif decision == DEC_ORDER or decision == DEC_ALONE:
        n_arms = 2
        iw[OFF_MOVE] = 0
        iw[OFF_MOVE + 1] = 1
    elif decision == DEC_CALL:
        if a1 == 0:
            iw[OFF_MOVE] = EUCHRE_PASS
            n_arms = 1
        banned = pub[UPCARD] // 6
        for s in range(4):
            if s != banned:
                iw[OFF_MOVE + n_arms] = s
                n_arms += 1
    else:
        n_arms = a2 + 1
        for k in range(n_arms):
            iw[OFF_MOVE + k] = k
    if n_arms == 1:
        return iw[OFF_MOVE]
    for k in range(n_arms):
        work[OFF_N + k] = 0.0
        work[OFF_W + k] = 0.0
    # the deals the seat cannot tell apart (no mode yet: 0, no voids are known)
    det_prepare(rules, 0, seat, hand, pub, iw, 0)
    for it in range(n_iter):
        arm = -1
        if it < n_arms:
            arm = it
        else:
            log_n = math.log(np.float64(it))
            best_u = -1.0
            for k in range(n_arms):
                nk = work[OFF_N + k]
                u = work[OFF_W + k] / nk + c_ucb * math.sqrt(log_n / nk)
                if u > best_u:
                    best_u = u
                    arm = k
        det_sample(iw, 0, rngs, seat, iw, OFF_D)
        for s in range(4):
            iw[OFF_H + s] = iw[OFF_D + s]
        move = iw[OFF_MOVE + arm]
        if decision == DEC_JASS:
            r = _sim_jass(rules, pub, seat, iw, p, rngs, move)
        elif decision == DEC_SPADES:
            r = _sim_spades(rules, pub, seat, iw, p, rngs, move, a1 != 0)
        else:
            r = _sim_euchre(rules, pub, seat, iw, p, rngs, decision, move, a1)
        work[OFF_N + arm] += 1.0
        work[OFF_W + arm] += r
    best = 0
    for k in range(1, n_arms):
        nk = work[OFF_N + k]
        nb = work[OFF_N + best]
        if nk > nb or (nk == nb and work[OFF_W + k] > work[OFF_W + best]):
            best = k
    return iw[OFF_MOVE + best]


# announced on stderr when compiled (once per version; see evolve.core.numba_cache)
BIDDER_WHAT = "the search bidder"
_numba_cache.register_kernel(search_bid_impl, BIDDER_WHAT, 15.0)


# ----------------------------------------------------------------------------- the callback
# As in evolve.agents.search: the engine reaches the search through a function pointer in
# a process-global slot (exported to LLVM as ``_SLOT_SYMBOL``), so the bidding hooks that
# every engine compiles hold only an indirect call. The slot starts at a ctypes trampoline
# that compiles (or loads from the cache) the callback on first use.

# (decision, params, lo, hi, seat, rules, hand, pub, rngs, a1, a2); see callback_slot.signatures
BID_LAYOUT = "iaiiiauaaii"
_C_SIG, _CTYPES_SIG = signatures(BID_LAYOUT)
_SLOT_SYMBOL = "trick_evolve_search_bid_slot_v1"


def _callback_source():
    def search_bid_c(decision, params_p, n_params, lo, hi, seat, rules_p, n_rules, hand, pub_p, n_pub,
                     rngs_p, n_rngs, a1, a2):
        params = carray(params_p, (n_params,), np.float64)
        rules = carray(rules_p, (n_rules,), np.int64)
        pub = carray(pub_p, (n_pub,), np.int64)
        rngs = carray(rngs_p, (n_rngs,), np.uint64)
        work = np.zeros(WORK_SIZE, np.float64)
        return search_bid_impl(decision, params, lo, hi, seat, rules, hand, pub, rngs, a1, a2, work)

    return search_bid_c


_SLOT = CallbackSlot(_SLOT_SYMBOL, _CTYPES_SIG, _C_SIG, _callback_source, BIDDER_WHAT, 15.0)
ensure_compiled = _SLOT.ensure_compiled


@intrinsic
def _call_bid(typingctx, decision, params, lo, hi, seat, rules, hand, pub, rngs, a1, a2):
    """Call the function in the slot (arrays as data pointers and lengths)."""
    args = (decision, params, lo, hi, seat, rules, hand, pub, rngs, a1, a2)
    return types.int64(*args), slot_codegen(_SLOT_SYMBOL, BID_LAYOUT)


@kernel
def _decide(decision, kinds_lo, kinds_hi, params, seat, rules, hand, pub, rngs, a1, a2):
    v = _call_bid(np.int64(decision), params, np.int64(kinds_lo), np.int64(kinds_hi), np.int64(seat), rules,
                  np.uint64(hand), pub, rngs, np.int64(a1), np.int64(a2))
    if v == ERR_PARAMS:
        raise ValueError("search bidder: bid_iterations must be >= 1 and bid_c >= 0")
    return v


# ----------------------------------------------------------------------------- hooks
# Called from the choose_* functions of evolve.agents.dispatch when the seat's bidder kind
# is BID_SEARCH; lo, hi = kinds[BID_LO + seat], kinds[BID_HI + seat].


@kernel
def jass_mode(params, lo, hi, seat, rules, hand, pub, rngs, may_push):
    """A Jass mode 0..5, or 6 (push, only when ``may_push``)."""
    m = _decide(DEC_JASS, lo, hi, params, seat, rules, hand, pub, rngs, 1 if may_push else 0, 0)
    if m < 0 or m > (6 if may_push else 5):
        raise ValueError("search bidder: invalid Jass call")
    return m


@kernel
def euchre_order(params, lo, hi, seat, rules, hand, pub, rngs):
    """Round 1: order up (True) or pass."""
    return _decide(DEC_ORDER, lo, hi, params, seat, rules, hand, pub, rngs, 0, 0) == 1


@kernel
def euchre_call(params, lo, hi, seat, rules, hand, pub, rngs, must_call):
    """Round 2: a suit other than the upcard's, or -1 (pass) unless ``must_call``."""
    return _decide(DEC_CALL, lo, hi, params, seat, rules, hand, pub, rngs, 1 if must_call else 0, 0)


@kernel
def euchre_alone(params, lo, hi, seat, rules, hand, pub, rngs, trump):
    """Whether the maker goes alone."""
    return _decide(DEC_ALONE, lo, hi, params, seat, rules, hand, pub, rngs, trump, 0) == 1


@kernel
def spades_bid(params, lo, hi, seat, rules, hand, pub, rngs, allow_nil, max_bid):
    """A Spades bid 0..max_bid."""
    b = _decide(DEC_SPADES, lo, hi, params, seat, rules, hand, pub, rngs, 1 if allow_nil else 0, max_bid)
    if b < 0 or b > max_bid:
        raise ValueError("search bidder: invalid Spades bid")
    return b
