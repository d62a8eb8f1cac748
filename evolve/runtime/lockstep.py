"""Lockstep evaluation: many deals at once, so that one pass over a network's weights
serves every deal waiting for that network's decision.

The batch kernel (``evolve.engine.batch.play_batch_kernel``) plays one deal after another, and a
network decision streams the whole second-layer weight matrix (156 x 160 float32 for
card-based Spades, ~100 KB: from L2, not L1) for a single input vector. Here ``slots``
deals are in play at once. A deal runs (bidding, rule-based and random seats, lone legal
cards) until a network has to choose a card; it then computes that network's first layer
for itself (``network_layer1``, sparse and incremental as usual) and waits in the
network's queue. When no deal can run, the fullest queue is served: one pass over W2 for
all of its deals (``network_layer2_many``, GEMM_M deals per pass, the accumulators in
registers), then each deal picks its card (``network_choose``) and runs on.

Every number is summed in the order ``network_card`` sums it, every deal keeps its own
random streams (keyed by its index, see ``evolve.games.dealing``) and scratch memory, and the
order in which deals are served changes nothing else: the results are those of
``play_batch``, bit for bit (``tests/test_lockstep.py``).

Only network seats are batched; the kernel is used when a batch seats a network
(``evolve.runtime.batch.play_batch(..., lockstep=True)``, ``evolve.play(..., lockstep=True)``,
``[evolution] evaluation = "lockstep"``).
"""

from __future__ import annotations

import numpy as np

from evolve.agents.dispatch import families_of
from evolve.agents.kinds import NETWORK_KINDS, PLAY_KIND, PLAY_LO
from evolve.agents.network.play import (
    network_choose,
    network_layer1,
    network_layer2_many,
)
from evolve.agents.network.simd import GEMM_M
from evolve.games.bits import N_STREAMS, count
from evolve.games.card_play import choose_card, deal_cards, game_finish, game_setup  # noqa: F401 (hooks)
from evolve.games.hooks import legal_cards
from evolve.games.rules import P_GAME, P_N_CARDS
from evolve.games.state import PUB_SIZE, reset_pub
from evolve.games.template import template
from evolve.games.trick import open_play, play_card_step
from evolve.runtime.batch import batch_kernel

# the hooks (game_setup, game_finish, choose_card, deal_cards) are evolve.games.card_play's,
# bound by evolve.runtime.batch: the game's phases, the deal and the seats' card choices

SLOTS = 128     # deals in play at once: more fill the queues better but spill the caches (measured 64-1024)


@template(nogil=True)
def play_lockstep_kernel(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, slots,
                         net_lo, net_of, period):
    """``play_batch_kernel`` (same arguments, same results) with up to ``slots`` deals in
    play at once and the network decisions of deals waiting for the same network
    computed together (see the module docstring). ``work`` gives the size of a deal's
    scratch memory (each slot gets its own). Network q has its parameters at
    ``params[net_lo[q]:]``; ``net_of[t, s]`` is the network of seat s at table t (-1:
    another agent), see ``networks_of``. ``period`` > 0: deal j draws the random streams
    of deal ``start + j % period`` (common random numbers: every table the same)."""
    n_cards = rules[P_N_CARDS]
    n_tables = tables.shape[0]
    n_slots = max(1, min(slots, n))
    row = (max(work.size, 1) + 7) // 8 * 8          # 64-byte rows
    sw = np.zeros((n_slots, row))
    hands = np.zeros((n_slots, 4), np.uint64)
    pubs = np.empty((n_slots, PUB_SIZE), np.int64)
    rngs = np.empty((n_slots, N_STREAMS), np.uint64)
    deck = np.empty(n_cards, np.int64)
    deal = np.full(n_slots, -1, np.int64)           # row of ``rec`` played in the slot
    mode = np.zeros(n_slots, np.int64)
    seat = np.full(n_slots, -1, np.int64)           # seat to move (-1: play over)
    legal = np.zeros(n_slots, np.uint64)            # legal cards of a waiting decision
    n_queues = net_lo.size                          # one queue per network
    queue = np.empty((max(n_queues, 1), n_slots), np.int64)
    queued = np.zeros(max(n_queues, 1), np.int64)
    ready = np.arange(n_slots)                      # slots that can run
    n_ready = n_slots
    xofs = np.empty(GEMM_M, np.int64)
    yofs = np.empty(GEMM_M, np.int64)
    next_deal = 0
    while True:
        while n_ready > 0:
            n_ready -= 1
            sl = ready[n_ready]
            pub = pubs[sl]
            while True:       # run the slot's deal until a network decides, or no deal is left
                if seat[sl] < 0:
                    if deal[sl] >= 0:
                        game_finish(rules, pub, rec, deal[sl])
                        deal[sl] = -1
                    if next_deal == n:
                        break
                    j = next_deal
                    next_deal += 1
                    # as play_batch_kernel: the deal's streams, deck and dealer
                    r = rngs[sl]
                    deal_cards(key, start + (j % period if period > 0 else j), r, deck, decks, j)
                    dealer = dealers[j]
                    kinds = tables[min(j // per_table, n_tables - 1)]
                    reset_pub(pub, dealer)
                    rec.dealer[j] = dealer
                    m, leader, out = game_setup(rules, deck, dealer, kinds, params, r, hands[sl], pub, rec, j)
                    if m >= 0:                      # else passed out: nothing to play
                        deal[sl] = j
                        mode[sl] = m
                        seat[sl] = open_play(pub, leader, out)
                    continue
                table = min(deal[sl] // per_table, n_tables - 1)
                kinds = tables[table]
                s = seat[sl]
                hand = hands[sl, s]
                lg = legal_cards(rules, mode[sl], hand, pub)
                q = net_of[table, s]
                if q >= 0 and count(lg) > 1:
                    network_layer1(kinds[PLAY_KIND + s], params, net_lo[q], s, rules, mode[sl], hand, pub, sw[sl])
                    legal[sl] = lg
                    queue[q, queued[q]] = sl
                    queued[q] += 1
                    break
                card = choose_card(kinds, params, s, rules, mode[sl], hands[sl], lg, pub, rngs[sl], sw[sl])
                seat[sl] = play_card_step(rules, mode[sl], hands[sl], pub, s, card, lg)
        # every slot waits (or is done): serve the fullest queue
        best = -1
        most = 0
        for q in range(n_queues):
            if queued[q] > most:
                most = queued[q]
                best = q
        if best < 0:
            break
        lo = net_lo[best]
        waiting = queue[best]
        queued[best] = 0
        network_layer2_many(params, lo, seat, waiting, most, sw, xofs, yofs)
        for w in range(most):
            sl = waiting[w]
            s = seat[sl]
            kinds = tables[min(deal[sl] // per_table, n_tables - 1)]
            card = network_choose(
                kinds[PLAY_KIND + s], params, lo, s, rules, mode[sl], hands[sl, s], legal[sl], pubs[sl], sw[sl]
            )
            seat[sl] = play_card_step(rules, mode[sl], hands[sl], pubs[sl], s, card, legal[sl])
            ready[n_ready] = sl
            n_ready += 1


def play_lockstep(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, families=None,
                  slots: int = SLOTS, period: int = 0):
    """``evolve.runtime.batch.play_batch`` (same arguments, bit for bit the same results) by the
    lockstep kernel, with up to ``slots`` deals in play at once. ``period``: as in
    ``play_batch`` (common random numbers)."""
    if families is None:
        families = families_of(np.asarray(tables)[..., PLAY_KIND:PLAY_KIND + 4])
    if int(slots) < 1:
        raise ValueError(f"slots={slots} is invalid; expected a positive number of deals")
    kernel = batch_kernel(int(rules[P_GAME]), families, play_lockstep_kernel)
    net_lo, net_of = networks_of(tables)
    kernel(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, int(slots), net_lo, net_of,
           int(period))


def networks_of(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct networks seated at ``tables`` (``seat_ints`` rows), as the offsets of
    their parameters, and ``net_of[t, s]``: the network at seat s of table t, or -1."""
    tables = np.asarray(tables, np.int64)
    kinds = tables[:, PLAY_KIND:PLAY_KIND + 4]
    is_net = (kinds >= NETWORK_KINDS[0]) & (kinds < NETWORK_KINDS[1])
    net_lo, inverse = np.unique(tables[:, PLAY_LO:PLAY_LO + 4][is_net], return_inverse=True)
    net_of = np.full(kinds.shape, -1, np.int64)
    net_of[is_net] = inverse
    return net_lo.astype(np.int64), net_of
