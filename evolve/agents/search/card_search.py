"""Search agents: flat Monte Carlo (the Sueca thesis), DMCTS and ISMCTS (the Jass paper); kinds 30..39.

All three see only ``(seat, hand, pub)``: hidden hands come from
``evolve.agents.search.determinize`` (exactly uniform over the deals consistent with the seat's
observation), never from the engine. Budgets are counted in iterations, so a decision is
a pure function of the observation and the seat's random stream ``rngs[seat]``. An
optional wall-clock budget (last parameter, in cycle-counter ticks; 0 = off) replaces the
iteration count by the clock: decisions are then no longer reproducible.

Kinds and parameter vectors (``params[lo:hi]``):

- ``KIND_MC`` (30) flat Monte Carlo: ``[variant, shuffles S, playouts K, shuffle, ties, ticks]``;
  variant 0 normal (the card with the best single playout; ties by the higher mean, or with
  ``ties`` = 1 at random), 1 average (best mean, K forced to 1), 2 extra (best mean over
  S x K playouts). ``shuffle`` 0: the same S determinizations are used for every legal
  card (common random numbers); 1: each legal card draws its own S determinizations, K
  playouts each (the Sueca thesis's Section 6.1: a shuffle before the playouts of a move).
- ``KIND_DMCTS`` (31): ``[determinizations D, iterations I, c, ticks]``: per determinization a
  perfect-information UCT tree of I iterations (random rollouts, returns normalised to
  [0, 1], UCB1 with exploration c; a time budget is split evenly over the D trees); the trees are combined by summing
  each root move's
  visit-weighted score N x Q (= its total return) and the best sum is played.
- ``KIND_ISMCTS`` (32): ``[iterations I, c, ticks]``: single-observer ISMCTS (Cowling, Powley &
  Whitehouse 2012): one tree over the observer's information sets, a fresh determinization
  per iteration, only children legal in that determinization are candidates, UCB with
  availability counts (W/N + c sqrt(ln A / N)); the most visited root move is played.
- ``KIND_MAXVALUE`` (33): see ``maxvalue_card``.
- ``KIND_DNN`` (35): ``[ticks]`` and a three-head network in the tail: the legal card its
  policy head rates highest, no search (the "DNN max policy" of Niklaus et al. 2020, the Jass paper).
- ``KIND_TDMCTS`` (34): ``[factor F, iterations I, c, ticks]``: the Jass paper's T-DMCTS
  (Section 6.1): F x (tricks after the current one) determinizations, one UCT tree each as
  in DMCTS; each tree votes for its most visited root move with that move's mean return;
  the move with the largest mean x votes is played. A first parameter -D plays D trees
  whatever the trick (the paper's I-DMCTS, Section 6.2).

Returns: the seat's side's result at the end of the deal (tricks in Spades and Euchre,
side tricks in partnership games, own tricks in cut-throat Spades; card points in Sueca
and Jass, including the last-trick bonus and the Jass match bonus), normalised by the
deal's maximum for UCT.

Work memory (float64 ``work``, used through an int64 view; kernels may not allocate):
``[0, DET_SIZE)`` determinization tables, then the playout state (a ``pub`` copy, four
hands, a sampled deal, a descent path), per-card statistics (float), and the tree (MCTS:
``NODE_STRIDE`` slots per node, I + 1 nodes; with a time budget ``TIMED_NODES``).
``work_size(kind, params)`` gives the size.

Time budgets: with ``ticks`` > 0 the loop over shuffles (MC) or iterations (trees) runs
until the cycle counter has advanced by ``ticks`` since the decision began (at least one
pass); the iteration count is then ignored, and trees stop early only when their
``TIMED_NODES`` nodes are used up. ``ticks_per_second()`` calibrates the counter.
"""

from __future__ import annotations

import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from evolve.agents.callback_slot import card_slot
from evolve.agents.search.determinize import D_UNSEEN, DET_SIZE, det_prepare, det_sample
from evolve.agents.search.rollout_policy import rollout_card
from evolve.agents.search.value_net import N_HOLDERS, V_SCRATCH, holder_logp_into, policy_card, value_of
from evolve.core import numba_cache as _numba_cache
from evolve.games.bits import (
    N_STREAMS,
    ONE,
    ZERO,
    bit,
    count,
    has,
    kernel,
    lowest,
    next_u64,
    random_card,
)
from evolve.games.hooks import breaks, legal_cards, result_scale, seat_result, trick_taken
from evolve.games.rules import (
    LEGAL_FOLLOW,
    P_BREAK_SPADES,
    P_LAST_BONUS,
    P_LEGALITY,
    P_N_CARDS,
    P_N_TRICKS,
    card_key,
    points_of,
    side_of,
    suit_mask,
    suit_of,
)
from evolve.games.state import (
    BROKEN,
    HISTORY,
    N_ACTIVE,
    NPLAYED,
    OUT_SEAT,
    PUB_SIZE,
    SIDE_POINTS,
    TRICK,
    TRICK_CARDS,
    TRICK_SEATS,
    TRICKS_WON,
)
from evolve.games.trick import next_active, play_step

KIND_MC = 30
KIND_DMCTS = 31
KIND_ISMCTS = 32
KIND_MAXVALUE = 33
KIND_TDMCTS = 34
KIND_DNN = 35
# perfect-information upper bounds (family ``perfect``): the honest kind + PERFECT_OFFSET,
# searched on the true deal, which only ``perfect_card`` receives from the engine
PERFECT_OFFSET = 10
KIND_PERFECT_MC = KIND_MC + PERFECT_OFFSET
KIND_PERFECT_DMCTS = KIND_DMCTS + PERFECT_OFFSET

MC_NORMAL = 0
MC_AVERAGE = 1
MC_EXTRA = 2
MC_VARIANTS = ("normal", "average", "extra")
# MC params [variant, S, K, shuffle, ties, ticks]: whether the S determinizations are shared
# by every legal card or drawn anew per card (the Sueca thesis), and how ``normal`` breaks
# ties of the best single playout (by the higher mean, or at random as the thesis's rule)
MC_SHUFFLE, MC_TIES = 3, 4
MC_SHARED, MC_PER_CARD = 0, 1
MC_SHUFFLES = ("shared", "per_card")
MC_TIES_MEAN, MC_TIES_RANDOM = 0, 1
MC_TIE_RULES = ("mean", "random")

# error codes returned by ``search_impl`` (raised as ValueError by ``search_card``)
ERR_WORK = -2
ERR_PARAMS = -3

# work layout (slots of the int64 view / the float64 array, the same memory)
OFF_PUB = DET_SIZE                  # PUB_SIZE: playout copy of pub
OFF_HANDS = OFF_PUB + PUB_SIZE      # 4: playout hands
OFF_DEAL = OFF_HANDS + 4            # 4: the sampled deal
OFF_REWARD = OFF_DEAL + 4           # 4 (float): normalised return per seat
OFF_PATH = OFF_REWARD + 4           # 64: node path of an MCTS descent
OFF_SUM = OFF_PATH + 64             # 64 (float): per-card sum of returns
OFF_BEST = OFF_SUM + 64             # 64 (float): per-card best return
OFF_TREE = OFF_BEST + 64
NODE_STRIDE = 8
TIMED_NODES = 100_000               # tree capacity of a timed search (6.4 MB of work)
N_MOVE, N_PLAYER, N_CHILD, N_SIBLING, N_UNTRIED = 0, 1, 2, 3, 4     # int slots of a node
N_VISITS, N_AVAIL, N_TOTAL = 5, 6, 7                               # float slots


MC_TICKS, DMCTS_TICKS, ISMCTS_TICKS, MAXVALUE_TICKS, DNN_TICKS = 5, 3, 2, 1, 0    # where the time budget sits
TDMCTS_TICKS = DMCTS_TICKS
# Optional tail after the time budget (``params[lo + ticks + 1:hi]``; absent: random
# playouts, no network): [rollout kind (-1: the built-in uniform playout), m, scratch
# slots S, the rollout agent's m parameters, value depth k (0: no cutoff), v, the
# network's v parameters, candidates K (optional; > 0: determinizations drawn through the
# network's card-distribution head, ``draw_deal``)]. The last S slots of ``work`` are the
# scratch: the rollout policy's N_STREAMS random streams (seeded from the seat's stream at
# each decision), the network's hidden layer (n_hidden + V_SCRATCH), with K > 0 the
# decision's holder log-probabilities and a candidate deal (``BELIEF_SIZE``), then the
# rollout agent's own work.
T_RKIND, T_RN, T_SCRATCH, T_RPARAMS = 0, 1, 2, 3
BELIEF_SIZE = N_HOLDERS * 64 + 4
TICKS_SLOT = {KIND_MC: MC_TICKS, KIND_DMCTS: DMCTS_TICKS, KIND_ISMCTS: ISMCTS_TICKS,
              KIND_PERFECT_MC: MC_TICKS, KIND_PERFECT_DMCTS: DMCTS_TICKS, KIND_MAXVALUE: MAXVALUE_TICKS,
              KIND_TDMCTS: TDMCTS_TICKS, KIND_DNN: DNN_TICKS}


def work_size(kind: int, params) -> int:
    """float64 slots of ``work`` an agent of ``kind`` with ``params`` needs."""
    if kind not in TICKS_SLOT:
        raise ValueError(f"unknown search kind {kind}")
    if kind >= KIND_PERFECT_MC:
        kind -= PERFECT_OFFSET
    if kind == KIND_MC or kind == KIND_MAXVALUE or kind == KIND_DNN:
        return OFF_TREE
    timed = len(params) > TICKS_SLOT[kind] and params[TICKS_SLOT[kind]] > 0
    nodes = TIMED_NODES if timed else int(params[1] if kind in (KIND_DMCTS, KIND_TDMCTS) else params[0])
    return OFF_TREE + NODE_STRIDE * (nodes + 1)


@intrinsic
def cycle_counter(typingctx):
    """The CPU's cycle counter (``rdtsc`` on x86; constant rate on current CPUs)."""
    sig = types.uint64()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@njit(cache=True)
def _read_counter():
    return cycle_counter()


_TICKS_PER_SECOND = 0.0


def ticks_per_second() -> float:
    """Cycle-counter ticks per wall-clock second, measured once per process over 50 ms
    (0.0 where the CPU has no readable counter)."""
    global _TICKS_PER_SECOND
    if _TICKS_PER_SECOND == 0.0:
        _read_counter()
        t0, c0 = time.perf_counter(), _read_counter()
        while time.perf_counter() - t0 < 0.05:
            pass
        t1, c1 = time.perf_counter(), _read_counter()
        _TICKS_PER_SECOND = max(0.0, float(np.int64(c1 - c0)) / (t1 - t0))
    return _TICKS_PER_SECOND


@njit(cache=True, inline="always")
def _budget(params, lo, hi, slot):
    """The decision's time budget in ticks (0: count iterations instead)."""
    if hi > lo + slot and params[lo + slot] > 0.0:
        return np.uint64(params[lo + slot])
    return ZERO


@njit(cache=True, inline="always")
def _spent(start, ticks):
    """A time budget (> 0 ticks) has run out since ``start``."""
    return ticks > ZERO and cycle_counter() - start >= ticks


@njit(cache=True, inline="always")
def _tree_capacity(work):
    return (work.shape[0] - OFF_TREE) // NODE_STRIDE - 1


@njit(cache=True, inline="always")
def _clear_sums(work, legal):
    """Zero the per-card sums ``work[OFF_SUM + c]`` of the legal cards."""
    rest = legal
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        work[OFF_SUM + c] = 0.0


@njit(cache=True, inline="always")
def _best_sum(work, legal):
    """The legal card with the highest sum ``work[OFF_SUM + c]`` (the lowest card of a tie)."""
    best = -1
    rest = legal
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        if best < 0 or work[OFF_SUM + c] > work[OFF_SUM + best]:
            best = c
    return best


@kernel
def apply_card(rules, mode, p, iw, hat, seat, card):
    """``seat`` plays ``card`` in the copied state ``p`` (hands at ``iw[hat:hat+4]``): the one
    trick step (``evolve.games.trick.play_step``). Returns the next seat to play, or -1
    when the deal is over."""
    iw[hat + seat] = np.int64(np.uint64(iw[hat + seat]) & ~bit(card))
    return play_step(rules, mode, p, seat, card)


@kernel
def rollout(rules, mode, p, iw, hat, nxt, out, rngs, stream, first):
    """Uniformly random legal play from seat ``nxt`` to the end of the deal (``first`` >= 0:
    ``nxt`` plays that card first), leaving the final tricks and points in ``p``.

    The playout keeps only what legality and scoring read: the current trick's cards and
    seats and ``NPLAYED`` / ``TRICK`` / ``BROKEN`` in ``p`` (``legal_cards`` reads them), the
    tricks and points won, the game's own ``trick_taken`` state, the running winner and
    points in registers; seen-voids, per-seat played masks and the history are not kept.
    Legality is ``legal_cards`` itself for a game with its own (Jass) and for a lead under
    ``break_spades``, and its follow-suit rule inlined otherwise; winners are the strict first maximum of
    ``card_key``, exactly as ``winning_index``. ``test_search_agents`` checks the results
    against ``note_play``/``finish_trick`` playouts on the same random streams."""
    if nxt < 0:
        return
    n_active = p[N_ACTIVE]
    n_tricks = rules[P_N_TRICKS]
    full_legality = rules[P_LEGALITY] != LEGAL_FOLLOW
    break_spades = rules[P_BREAK_SPADES] != 0
    q = p[NPLAYED]
    t = p[TRICK]
    led = -1
    best_key = -1
    winner = -1
    pts = 0
    if q > 0:
        led = suit_of(rules, mode, p[TRICK_CARDS])
        for i in range(q):
            c = p[TRICK_CARDS + i]
            pts += points_of(rules, mode, c)
            k = card_key(rules, mode, c, led)
            if k > best_key:
                best_key = k
                winner = p[TRICK_SEATS + i]
    while True:
        hand = np.uint64(iw[hat + nxt])
        if first >= 0:
            card = first
            first = -1
        else:
            if full_legality or (break_spades and q == 0):
                lg = legal_cards(rules, mode, hand, p)
            elif q == 0:
                lg = hand
            else:
                lg = hand & suit_mask(rules, mode, led)
                if lg == ZERO:
                    lg = hand
            card = random_card(rngs, stream, lg)
        iw[hat + nxt] = np.int64(hand & ~bit(card))
        p[TRICK_CARDS + q] = card
        p[TRICK_SEATS + q] = nxt
        p[NPLAYED] = q + 1
        su = suit_of(rules, mode, card)
        if breaks(rules, mode, card):
            p[BROKEN] = 1
        if q == 0:
            led = su
        pts += points_of(rules, mode, card)
        k = card_key(rules, mode, card, led)
        if k > best_key:
            best_key = k
            winner = nxt
        q += 1
        if q < n_active:
            nxt = next_active(nxt, out)
            continue
        p[TRICKS_WON + winner] += 1
        if t >= n_tricks - 1:
            p[SIDE_POINTS + side_of(rules, winner)] += pts + rules[P_LAST_BONUS]
            trick_taken(rules, mode, p, winner, n_active)
            p[TRICK] = t
            return
        p[SIDE_POINTS + side_of(rules, winner)] += pts
        trick_taken(rules, mode, p, winner, n_active)
        t += 1
        p[TRICK] = t
        q = 0
        pts = 0
        best_key = -1
        p[NPLAYED] = 0
        nxt = winner


@kernel
def rollout_reference(rules, mode, p, iw, hat, nxt, out, rngs, stream, first):
    """The same playout through ``legal_cards`` / ``note_play`` / ``finish_trick`` (the
    engine's own updates); used by the tests to check ``rollout``."""
    if first >= 0 and nxt >= 0:
        nxt = apply_card(rules, mode, p, iw, hat, nxt, first)
    while nxt >= 0:
        lg = legal_cards(rules, mode, np.uint64(iw[hat + nxt]), p)
        nxt = apply_card(rules, mode, p, iw, hat, nxt, random_card(rngs, stream, lg))


@kernel
def load_state(pub, p, iw, hat, deal_at, upto=HISTORY):
    """Copy ``pub[:upto]`` (by default the live part; see ``_state_size``) and the sampled
    deal into the playout state."""
    for i in range(upto):
        p[i] = pub[i]
    for s in range(4):
        iw[hat + s] = iw[deal_at + s]


@kernel
def policy_rollout(rules, mode, p, iw, hat, nxt, out, first, params, rkind, rlo, rhi, lr, pw, budget):
    """Play from seat ``nxt`` (``first`` >= 0: that card first) with every seat following
    the rollout agent ``rkind`` (parameters ``params[rlo:rhi]``, random streams ``lr``,
    scratch ``pw``) on its own playout hand and the playout's full public state ``p``;
    ``rkind`` < 0 plays uniformly random cards through the same updates. Stops after
    ``budget`` cards (< 0: at the end of the deal); returns the next seat (-1: deal over)."""
    if first >= 0 and nxt >= 0:
        nxt = apply_card(rules, mode, p, iw, hat, nxt, first)
        budget -= 1
    while nxt >= 0 and budget != 0:
        hand = np.uint64(iw[hat + nxt])
        lg = legal_cards(rules, mode, hand, p)
        if count(lg) == 1:
            card = lowest(lg)
        elif rkind < 0:
            card = random_card(lr, nxt, lg)
        else:
            card = rollout_card(rkind, params, rlo, rhi, nxt, rules, mode, hand, lg, p, lr, pw)
            if card < 0 or not has(lg, card):
                card = lowest(lg)       # never reached: the rollout agents play legal cards
        nxt = apply_card(rules, mode, p, iw, hat, nxt, card)
        budget -= 1
    return nxt


@njit(cache=True, inline="always")
def _guided(pc):
    """The playouts follow a rollout agent or stop at a value-network cutoff."""
    return pc[0] >= 0 or pc[3] > 0


@kernel
def net_width(params, pc):
    """n_hidden of the network in the tail (0: none)."""
    return np.int64(params[pc[4] + 1]) if pc[5] > pc[4] else np.int64(0)


@kernel
def rollout_work_at(pc, nh):
    """Where the rollout agent's work begins in the scratch: after the streams, the
    network's hidden layer and the belief block."""
    return N_STREAMS + (nh + V_SCRATCH if nh > 0 else 0) + (BELIEF_SIZE if pc[6] > 0 else 0)


@kernel
def draw_deal(iw, rngs, seat, pc, rw, nh):
    """One determinization into ``iw[OFF_DEAL:+4]``: exactly uniform over the deals
    consistent with the seat's observation (``det_sample``), or, with K = ``pc[6]`` > 1
    candidates, by sampling-importance-resampling from the network's card-distribution
    head: K uniform consistent deals, each weighted by the product over the unseen cards
    of the head's probability for the holder the deal gives it, and one kept with
    probability proportional to its weight (a weighted reservoir over log weights). As K
    grows the draw tends to the consistent deals weighted by that product; K = 1 is
    uniform. Everything stays consistent: only the weights come from the network, which
    reads only the seat's own observation."""
    if pc[6] <= 1:
        det_sample(iw, 0, rngs, seat, iw, OFF_DEAL)
        return
    at = N_STREAMS + nh + V_SCRATCH
    logp = rw[at:at + N_HOLDERS * 64]
    cand = rw[at + N_HOLDERS * 64:at + BELIEF_SIZE].view(np.int64)
    unseen = np.uint64(iw[D_UNSEEN])
    total = 0.0
    for k in range(pc[6]):
        det_sample(iw, 0, rngs, seat, cand, 0)
        lw = 0.0
        rest = unseen
        for r in range(1, 4):
            m = np.uint64(cand[(seat + r) % 4]) & unseen
            rest &= ~m
            while m != ZERO:
                lw += logp[N_HOLDERS * lowest(m) + r - 1]
                m &= m - ONE
        while rest != ZERO:
            lw += logp[N_HOLDERS * lowest(rest) + N_HOLDERS - 1]
            rest &= rest - ONE
        if k == 0:
            total = lw
            keep = True
        else:
            top = max(total, lw)
            total = top + math.log(math.exp(total - top) + math.exp(lw - top))
            u = float(next_u64(rngs, seat) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            keep = u < math.exp(lw - total)
        if keep:
            for s in range(4):
                iw[OFF_DEAL + s] = cand[s]


@kernel
def _state_size(pc):
    """How much of the public state a playout needs copied: all of it (the trick history
    too) when a rollout agent plays the cards, which may read the history; else the live
    part (the fast playouts and the value network never read the history)."""
    return PUB_SIZE if pc[0] >= 0 else HISTORY


@kernel
def playout_rewards(rules, mode, p, iw, work, cur, out, rngs, seat, first, scale, depth, params, pc, rw):
    """Finish a playout from seat ``cur`` (``first`` >= 0: it plays that card first) and
    write each seat's side's result over ``scale`` to ``work[OFF_REWARD:+4]``.
    ``pc`` = (rollout kind, its params lo, hi, value depth k, value params lo, hi): with a
    value network (k > 0) the playout stops once k cards have been played since the
    decision (``depth`` of them in the tree) and the network scores the position for each
    seat from that seat's own playout hand."""
    if not _guided(pc):
        rollout(rules, mode, p, iw, OFF_HANDS, cur, out, rngs, seat, first)
    else:
        lr = rw[0:N_STREAMS].view(np.uint64)
        budget = -1
        if pc[3] > 0:
            budget = max(pc[3] - depth, 0)
        nh = net_width(params, pc)
        cur = policy_rollout(rules, mode, p, iw, OFF_HANDS, cur, out, first, params, pc[0], pc[1], pc[2], lr,
                             rw[rollout_work_at(pc, nh):], budget)
        if cur >= 0 and pc[3] > 0:
            h = rw[N_STREAMS:N_STREAMS + nh + V_SCRATCH]
            for s in range(4):
                v = value_of(params, pc[4], rules, mode, s, np.uint64(iw[OFF_HANDS + s]), p, scale, h)
                work[OFF_REWARD + s] = min(max(v, 0.0), 1.0)
            return
    for s in range(4):
        work[OFF_REWARD + s] = seat_result(rules, p, s) / scale


@kernel
def _mc_value(rules, mode, pub, p, iw, work, seat, out, rngs, card, params, pc, rw):
    """One playout of ``card`` from the deal at ``work[OFF_DEAL:+4]``: the seat's result."""
    if _guided(pc):
        load_state(pub, p, iw, OFF_HANDS, OFF_DEAL, PUB_SIZE)
        playout_rewards(rules, mode, p, iw, work, seat, out, rngs, seat, card, 1.0, np.int64(0), params, pc, rw)
        return work[OFF_REWARD + seat]
    load_state(pub, p, iw, OFF_HANDS, OFF_DEAL)
    rollout(rules, mode, p, iw, OFF_HANDS, seat, out, rngs, seat, card)
    return seat_result(rules, p, seat)


@kernel
def _mc_note(work, card, v):
    """Add playout value ``v`` of ``card`` to its sum and best."""
    work[OFF_SUM + card] += v
    if v > work[OFF_BEST + card]:
        work[OFF_BEST + card] = v


@kernel
def _mc_choice(work, legal, variant, ties_random, rngs, seat):
    """The legal card MC plays from its per-card sums and bests: Normal the best single
    playout (equal bests: the higher mean, or with ``ties_random`` any of them at random, the
    thesis's "the card which got the highest score"), Average and Extra the best mean."""
    best = -1
    rest = legal
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        if best < 0:
            best = c
        elif variant == MC_NORMAL:
            if work[OFF_BEST + c] > work[OFF_BEST + best] or (
                not ties_random and work[OFF_BEST + c] == work[OFF_BEST + best]
                and work[OFF_SUM + c] > work[OFF_SUM + best]
            ):
                best = c
        elif work[OFF_SUM + c] > work[OFF_SUM + best]:
            best = c
    if variant == MC_NORMAL and ties_random:
        tied = ZERO
        rest = legal
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            if work[OFF_BEST + c] == work[OFF_BEST + best]:
                tied |= bit(c)
        best = random_card(rngs, seat, tied)
    return best


@kernel
def mc_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, perfect, pc, rw):
    variant = np.int64(params[lo]) if hi > lo else MC_EXTRA
    n_shuffles = np.int64(params[lo + 1]) if hi > lo + 1 else 50
    n_playouts = np.int64(params[lo + 2]) if hi > lo + 2 else 2
    per_card = hi > lo + MC_SHUFFLE and params[lo + MC_SHUFFLE] == MC_PER_CARD
    ties_random = hi > lo + MC_TIES and params[lo + MC_TIES] == MC_TIES_RANDOM
    if variant == MC_AVERAGE:
        n_playouts = 1
    if n_shuffles < 1 or n_playouts < 1:
        return ERR_PARAMS
    ticks = _budget(params, lo, hi, MC_TICKS)
    start = cycle_counter()
    if ticks > ZERO:
        n_shuffles = np.int64(1) << 40
    out = pub[OUT_SEAT]
    nh = net_width(params, pc)
    rest = legal
    while rest != ZERO:
        c = lowest(rest)
        rest &= rest - ONE
        work[OFF_SUM + c] = 0.0
        work[OFF_BEST + c] = -1.0e300
    if per_card:
        # the Sueca thesis: every legal card gets its own S determinizations (K playouts each)
        n_legal = count(legal)
        done = 0
        rest = legal
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            done += 1
            for _ in range(n_shuffles):
                if not perfect:      # perfect information: the true deal stays at OFF_DEAL
                    draw_deal(iw, rngs, seat, pc, rw, nh)
                for _k in range(n_playouts):
                    _mc_note(work, c, _mc_value(rules, mode, pub, p, iw, work, seat, out, rngs, c, params, pc, rw))
                # a time budget: card number ``done`` may run until done / L of it has passed
                if _spent(start, ticks // np.uint64(n_legal) * np.uint64(done)):
                    break
    else:
        for _ in range(n_shuffles):
            if not perfect:
                draw_deal(iw, rngs, seat, pc, rw, nh)
            rest = legal
            while rest != ZERO:
                c = lowest(rest)
                rest &= rest - ONE
                for _k in range(n_playouts):
                    _mc_note(work, c, _mc_value(rules, mode, pub, p, iw, work, seat, out, rngs, c, params, pc, rw))
            if _spent(start, ticks):
                break
    return _mc_choice(work, legal, variant, ties_random, rngs, seat)


@njit(cache=True, inline="always")
def _new_node(iw, work, n, move, player, parent):
    a = OFF_TREE + NODE_STRIDE * n
    iw[a + N_MOVE] = move
    iw[a + N_PLAYER] = player
    iw[a + N_CHILD] = -1
    iw[a + N_UNTRIED] = 0
    work[a + N_VISITS] = 0.0
    work[a + N_AVAIL] = 0.0
    work[a + N_TOTAL] = 0.0
    if parent >= 0:
        b = OFF_TREE + NODE_STRIDE * parent
        iw[a + N_SIBLING] = iw[b + N_CHILD]
        iw[b + N_CHILD] = n
    else:
        iw[a + N_SIBLING] = -1
    return a


@njit(cache=True, inline="always")
def _playout_and_backup(rules, mode, p, iw, work, cur, out, rngs, seat, scale, depth, params, pc, rw):
    """End an MCTS iteration: a playout from seat ``cur`` (``playout_rewards``), then every
    node on the descent path gains a visit and its mover's normalised return."""
    # np.int64(-1), not -1: a literal argument would make Numba compile a second playout_rewards
    playout_rewards(rules, mode, p, iw, work, cur, out, rngs, seat, np.int64(-1), scale, depth, params, pc, rw)
    for d in range(depth + 1):
        a = OFF_TREE + NODE_STRIDE * iw[OFF_PATH + d]
        work[a + N_VISITS] += 1.0
        if d > 0:
            work[a + N_TOTAL] += work[OFF_REWARD + iw[a + N_PLAYER]]


@kernel
def ismcts_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, pc, rw):
    n_iter = np.int64(params[lo]) if hi > lo else 100
    c_uct = params[lo + 1] if hi > lo + 1 else math.sqrt(2.0)
    if n_iter < 1:
        return ERR_PARAMS
    ticks = _budget(params, lo, hi, ISMCTS_TICKS)
    start = cycle_counter()
    if ticks > ZERO:
        n_iter = _tree_capacity(work)          # an iteration adds at most one node
    if work.shape[0] < OFF_TREE + NODE_STRIDE * (n_iter + 1):
        return ERR_WORK
    out = pub[OUT_SEAT]
    scale = result_scale(rules, mode)
    full = _state_size(pc)
    nh = net_width(params, pc)
    _new_node(iw, work, 0, -1, -1, -1)
    n_nodes = 1
    for _ in range(n_iter):
        draw_deal(iw, rngs, seat, pc, rw, nh)
        load_state(pub, p, iw, OFF_HANDS, OFF_DEAL, full)
        node = 0
        cur = seat
        depth = 0
        iw[OFF_PATH] = 0
        while cur >= 0:
            lg = legal_cards(rules, mode, np.uint64(iw[OFF_HANDS + cur]), p)
            tried = ZERO
            best = -1
            best_u = -1.0e300
            ch = iw[OFF_TREE + NODE_STRIDE * node + N_CHILD]
            while ch >= 0:
                a = OFF_TREE + NODE_STRIDE * ch
                mv = iw[a + N_MOVE]
                if has(lg, mv):
                    tried |= bit(mv)
                    work[a + N_AVAIL] += 1.0
                    nv = work[a + N_VISITS]
                    u = work[a + N_TOTAL] / nv + c_uct * math.sqrt(math.log(work[a + N_AVAIL]) / nv)
                    if u > best_u:
                        best_u = u
                        best = ch
                ch = iw[a + N_SIBLING]
            untried = lg & ~tried
            if untried != ZERO:
                card = random_card(rngs, seat, untried)
                a = _new_node(iw, work, n_nodes, card, cur, node)
                work[a + N_AVAIL] = 1.0
                node = n_nodes
                n_nodes += 1
                depth += 1
                iw[OFF_PATH + depth] = node
                cur = apply_card(rules, mode, p, iw, OFF_HANDS, cur, card)
                break
            node = best
            depth += 1
            iw[OFF_PATH + depth] = node
            cur = apply_card(rules, mode, p, iw, OFF_HANDS, cur, iw[OFF_TREE + NODE_STRIDE * node + N_MOVE])
        _playout_and_backup(rules, mode, p, iw, work, cur, out, rngs, seat, scale, depth, params, pc, rw)
        if _spent(start, ticks):
            break
    best = -1
    best_n = -1.0
    best_w = -1.0
    ch = iw[OFF_TREE + N_CHILD]
    while ch >= 0:
        a = OFF_TREE + NODE_STRIDE * ch
        nv = work[a + N_VISITS]
        if nv > best_n or (nv == best_n and work[a + N_TOTAL] > best_w):
            best_n = nv
            best_w = work[a + N_TOTAL]
            best = iw[a + N_MOVE]
        ch = iw[a + N_SIBLING]
    return best


def root_visits(work: np.ndarray, n_cards: int) -> np.ndarray:
    """After an ISMCTS decision in ``work``: the visits of each card at the root of its
    tree ([n_cards], zero for cards never tried), the search's own preference among the
    legal cards (it plays the most visited). Distillation trains on it
    (``evolve.learn.imitation``, ``targets = "visits"``)."""
    iw = work.view(np.int64)
    out = np.zeros(n_cards)
    ch = iw[OFF_TREE + N_CHILD]
    while ch >= 0:
        a = OFF_TREE + NODE_STRIDE * ch
        out[iw[a + N_MOVE]] = work[a + N_VISITS]
        ch = iw[a + N_SIBLING]
    return out


@kernel
def scheduled_determinizations(factor, n_tricks, trick):
    """T-DMCTS's determinizations in trick ``trick`` (0-based): ``factor`` x the tricks after
    this one (at least one). The Jass paper (Section 6.1) counts "six tricks remaining (the
    current trick included)" in the third trick of nine, 6 x 15 = 90 trees: its own figure
    fits 9 - 3, the tricks after the third, and so does the last trick, where nothing is
    left to search."""
    return factor * max(n_tricks - 1 - trick, 1)


@kernel
def vote_root(work, iw):
    """T-DMCTS's vote of one tree (the Jass paper, Section 6.1): its robust child, the most
    visited root move (ties: the larger total return), adds its mean return to the move's
    ``work[OFF_SUM + move]``; summed over the trees, a move scores its mean x its votes."""
    best, best_n, best_w = -1, -1.0, -1.0
    ch = iw[OFF_TREE + N_CHILD]
    while ch >= 0:
        b = OFF_TREE + NODE_STRIDE * ch
        if work[b + N_VISITS] > best_n or (work[b + N_VISITS] == best_n and work[b + N_TOTAL] > best_w):
            best, best_n, best_w = iw[b + N_MOVE], work[b + N_VISITS], work[b + N_TOTAL]
        ch = iw[b + N_SIBLING]
    work[OFF_SUM + best] += best_w / best_n


@kernel
def dmcts_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, perfect, pc, rw, vote=False):
    """DMCTS (``KIND_DMCTS``: D trees, summed N x Q) and T-DMCTS (``vote``: ``KIND_TDMCTS``,
    the Jass paper's Section 6.1: params[lo] is the determinization factor F, D = F x the
    tricks still to come after this one, or -D for D trees whatever the trick, its I-DMCTS
    of Section 6.2; each tree votes for its most visited root move with that move's mean
    return, and the move with the largest sum of its votes' returns, i.e. mean x number of
    votes, is played)."""
    n_det = np.int64(params[lo]) if hi > lo else 10
    if vote:        # a negative first parameter: -D fixed trees (I-DMCTS), else the factor of the schedule
        n_det = -n_det if n_det < 0 else scheduled_determinizations(n_det, rules[P_N_TRICKS], pub[TRICK])
    n_iter = np.int64(params[lo + 1]) if hi > lo + 1 else 100
    c_uct = params[lo + 2] if hi > lo + 2 else math.sqrt(2.0)
    if n_det < 1 or n_iter < 1:
        return ERR_PARAMS
    ticks = _budget(params, lo, hi, DMCTS_TICKS)
    start = cycle_counter()
    if ticks > ZERO:
        n_iter = _tree_capacity(work)
    if work.shape[0] < OFF_TREE + NODE_STRIDE * (n_iter + 1):
        return ERR_WORK
    out = pub[OUT_SEAT]
    scale = result_scale(rules, mode)
    full = _state_size(pc)
    nh = net_width(params, pc)
    _clear_sums(work, legal)
    for d in range(n_det):
        if not perfect:
            draw_deal(iw, rngs, seat, pc, rw, nh)
        a = _new_node(iw, work, 0, -1, -1, -1)
        iw[a + N_UNTRIED] = np.int64(legal)
        n_nodes = 1
        for _i in range(n_iter):
            load_state(pub, p, iw, OFF_HANDS, OFF_DEAL, full)
            node = 0
            cur = seat
            depth = 0
            iw[OFF_PATH] = 0
            while cur >= 0:
                a = OFF_TREE + NODE_STRIDE * node
                untried = np.uint64(iw[a + N_UNTRIED])
                if untried != ZERO:
                    card = random_card(rngs, seat, untried)
                    iw[a + N_UNTRIED] = np.int64(untried & ~bit(card))
                    b = _new_node(iw, work, n_nodes, card, cur, node)
                    node = n_nodes
                    n_nodes += 1
                    depth += 1
                    iw[OFF_PATH + depth] = node
                    cur = apply_card(rules, mode, p, iw, OFF_HANDS, cur, card)
                    if cur >= 0:
                        iw[b + N_UNTRIED] = np.int64(legal_cards(rules, mode, np.uint64(iw[OFF_HANDS + cur]), p))
                    break
                log_n = math.log(work[a + N_VISITS])
                best = -1
                best_u = -1.0e300
                ch = iw[a + N_CHILD]
                while ch >= 0:
                    b = OFF_TREE + NODE_STRIDE * ch
                    nv = work[b + N_VISITS]
                    u = work[b + N_TOTAL] / nv + c_uct * math.sqrt(log_n / nv)
                    if u > best_u:
                        best_u = u
                        best = ch
                    ch = iw[b + N_SIBLING]
                node = best
                depth += 1
                iw[OFF_PATH + depth] = node
                cur = apply_card(rules, mode, p, iw, OFF_HANDS, cur, iw[OFF_TREE + NODE_STRIDE * node + N_MOVE])
            _playout_and_backup(rules, mode, p, iw, work, cur, out, rngs, seat, scale, depth, params, pc, rw)
            # tree d may run until (d + 1) / D of the budget has passed
            if _spent(start, ticks // np.uint64(n_det) * np.uint64(d + 1)):
                break
        if vote:
            vote_root(work, iw)
            continue
        ch = iw[OFF_TREE + N_CHILD]
        while ch >= 0:
            b = OFF_TREE + NODE_STRIDE * ch
            work[OFF_SUM + iw[b + N_MOVE]] += work[b + N_TOTAL]     # N x Q of this tree
            ch = iw[b + N_SIBLING]
    return _best_sum(work, legal)


@kernel
def maxvalue_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, pc, rw):
    """``maxvalue``: per determinization and legal card, play the card, let the other
    seats finish the trick (the rollout agent, by default uniformly random cards, on their
    sampled hands) and score the position with the value network from the seat's own
    observation (the exact result once the deal is over); play the best mean."""
    n_samples = np.int64(params[lo]) if hi > lo else 20
    if n_samples < 1 or pc[3] <= 0:
        return ERR_PARAMS
    out = pub[OUT_SEAT]
    scale = result_scale(rules, mode)
    q = pub[NPLAYED]
    full = _state_size(pc)
    nh = net_width(params, pc)
    h = rw[N_STREAMS:N_STREAMS + nh + V_SCRATCH]
    lr = rw[0:N_STREAMS].view(np.uint64)
    _clear_sums(work, legal)
    for _ in range(n_samples):
        draw_deal(iw, rngs, seat, pc, rw, nh)
        rest = legal
        while rest != ZERO:
            c = lowest(rest)
            rest &= rest - ONE
            load_state(pub, p, iw, OFF_HANDS, OFF_DEAL, full)
            budget = pub[N_ACTIVE] - q       # this card and the rest of the trick
            nxt = policy_rollout(rules, mode, p, iw, OFF_HANDS, seat, out, c, params, pc[0], pc[1], pc[2], lr,
                                 rw[rollout_work_at(pc, nh):], budget)
            if nxt < 0:
                v = seat_result(rules, p, seat) / scale
            else:
                v = value_of(params, pc[4], rules, mode, seat, np.uint64(iw[OFF_HANDS + seat]), p, scale, h)
            work[OFF_SUM + c] += v
    return _best_sum(work, legal)


@kernel
def search_impl(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The search itself: the card played, or a negative error code. The perfect kinds
    find the true deal at ``work[OFF_DEAL:OFF_DEAL+4]`` (put there by ``perfect_card``)
    and search it instead of sampled determinizations."""
    if work.shape[0] < OFF_TREE:
        return ERR_WORK
    perfect = kind >= KIND_PERFECT_MC
    if perfect:
        kind -= PERFECT_OFFSET
    # the optional tail: rollout agent, network and candidates (see T_RKIND)
    tail = lo + 1 + (MC_TICKS if kind == KIND_MC else DMCTS_TICKS if kind == KIND_DMCTS
                     else MAXVALUE_TICKS if kind == KIND_MAXVALUE else TDMCTS_TICKS if kind == KIND_TDMCTS
                     else DNN_TICKS if kind == KIND_DNN else ISMCTS_TICKS)
    pc = (np.int64(-1), np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0))
    scratch = 0
    if hi > tail + T_RPARAMS:
        rlo = tail + T_RPARAMS
        rhi = rlo + np.int64(params[tail + T_RN])
        scratch = np.int64(params[tail + T_SCRATCH])
        vdepth = np.int64(params[rhi]) if hi > rhi + 1 else 0
        vlo = rhi + 2
        vhi = vlo + (np.int64(params[rhi + 1]) if hi > rhi + 1 else 0)
        n_cand = np.int64(params[vhi]) if hi > vhi else 0
        if rhi > hi or vhi > hi or scratch < N_STREAMS or work.shape[0] < OFF_TREE + scratch:
            return ERR_WORK
        if (n_cand > 0 or kind == KIND_DNN) and vhi == vlo:
            return ERR_PARAMS
        pc = (np.int64(params[tail + T_RKIND]), rlo, rhi, vdepth, vlo, vhi, n_cand)
    elif kind == KIND_DNN:
        return ERR_PARAMS
    n_work = work.shape[0] - scratch
    rw = work[n_work:]
    work = work[:n_work]
    iw = work.view(np.int64)
    p = iw[OFF_PUB:OFF_PUB + PUB_SIZE]
    nh = net_width(params, pc)
    if kind == KIND_DNN:
        return policy_card(params, pc[4], rules, mode, seat, hand, legal, pub, result_scale(rules, mode),
                           rw[N_STREAMS:N_STREAMS + nh + V_SCRATCH])
    if _guided(pc):
        lr = rw[0:N_STREAMS].view(np.uint64)
        for k in range(N_STREAMS):      # the playout policy's streams, from the seat's own
            lr[k] = next_u64(rngs, seat)
    if not perfect:
        det_prepare(rules, mode, seat, hand, pub, iw, 0)
        if pc[6] > 0:
            at = N_STREAMS + nh + V_SCRATCH
            holder_logp_into(params, pc[4], rules, mode, seat, hand, pub, result_scale(rules, mode),
                             rw[N_STREAMS:at], rw[at:at + N_HOLDERS * 64])
    if kind == KIND_MC:
        return mc_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, perfect, pc, rw)
    if kind == KIND_DMCTS:
        return dmcts_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, perfect, pc, rw)
    if kind == KIND_MAXVALUE:
        return maxvalue_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, pc, rw)
    if kind == KIND_TDMCTS:
        return dmcts_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, perfect, pc, rw,
                          True)
    return ismcts_card(params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work, iw, p, pc, rw)


# announced on stderr when compiled (once per version; see evolve.core.numba_cache)
SEARCH_WHAT = "the search agents (mc, dmcts, ismcts, tdmcts, pdmcts, pismcts, dnn)"
_numba_cache.register_kernel(search_impl, SEARCH_WHAT, 25.0)

_SLOT, _call_search = card_slot("trick_evolve_search_impl_slot_v1", search_impl, "_call_search", SEARCH_WHAT, 25.0)
ensure_compiled = _SLOT.ensure_compiled


@kernel
def search_card(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work):
    """The card a search agent of ``kind`` plays from ``legal``."""
    if kind < KIND_MC or kind > KIND_DNN:
        raise ValueError("unknown search agent kind")
    if count(legal) == 1:
        return lowest(legal)
    return _checked(_call_search(kind, params, lo, hi, seat, rules, mode, hand, legal, pub, rngs, work), legal)


@kernel
def perfect_card(kind, params, lo, hi, seat, rules, mode, hands, legal, pub, rngs, work):
    """The card a perfect-information upper bound (``perfect_mc``, ``perfect_dmcts``) plays:
    the search of its honest kind run on the true deal ``hands`` (all four hands, which
    the engine gives this family alone; see ``evolve.agents.dispatch.choose_card``)."""
    if kind != KIND_PERFECT_MC and kind != KIND_PERFECT_DMCTS:
        raise ValueError("unknown perfect-information agent kind")
    if count(legal) == 1:
        return lowest(legal)
    if work.shape[0] < OFF_TREE:
        raise ValueError("search agent: work array smaller than AgentSpec.work_size")
    iw = work.view(np.int64)
    for s in range(4):
        iw[OFF_DEAL + s] = np.int64(hands[s])
    return _checked(_call_search(kind, params, lo, hi, seat, rules, mode, hands[seat], legal, pub, rngs, work), legal)


@njit(cache=True, inline="always")
def _checked(card, legal):
    """``card`` if the search returned a legal card; raise on its error codes."""
    if card == ERR_WORK:
        raise ValueError("search agent: work array smaller than AgentSpec.work_size")
    if card == ERR_PARAMS:
        raise ValueError("search agent: budgets must be >= 1")
    if card < 0 or card >= 64 or not has(legal, card):
        raise ValueError("search agent failed (see the message printed above: inconsistent observation?)")
    return card


@njit(cache=True)
def _drawn_deals(params, vlo, vhi, n_cand, rules, mode, seat, hand, pub, n, rngs):
    pc = (np.int64(-1), np.int64(0), np.int64(0), np.int64(0), np.int64(vlo), np.int64(vhi), np.int64(n_cand))
    nh = net_width(params, pc)
    rw = np.zeros(N_STREAMS + nh + V_SCRATCH + BELIEF_SIZE)
    iw = np.zeros(OFF_TREE, np.int64)
    det_prepare(rules, mode, seat, hand, pub, iw, 0)
    at = N_STREAMS + nh + V_SCRATCH
    holder_logp_into(params, vlo, rules, mode, seat, hand, pub, result_scale(rules, mode), rw[N_STREAMS:at],
                     rw[at:at + N_HOLDERS * 64])
    out = np.zeros((n, 4), np.int64)
    for i in range(n):
        draw_deal(iw, rngs, seat, pc, rw, nh)
        for s in range(4):
            out[i, s] = iw[OFF_DEAL + s]
    return out, rw[at:at + N_HOLDERS * rules[P_N_CARDS]].copy()


def drawn_deals(net, rules, mode, seat, hand, pub, n, candidates, seed=0):
    """Python helper (tests): ``n`` determinizations as P-DMCTS draws them for ``seat``
    through the card-distribution head of ``net`` (a three-head ``ValueNet``) with
    ``candidates`` per draw, as an int64 array [n, 4] of card masks, and the head's log
    probabilities [4 N] on this observation."""
    params = net.params()
    rngs = np.random.SeedSequence(int(seed)).generate_state(5, dtype=np.uint64)
    return _drawn_deals(params, 0, params.shape[0], int(candidates), np.asarray(rules, np.int64), int(mode),
                        int(seat), np.uint64(hand), np.asarray(pub, np.int64), int(n), rngs)
