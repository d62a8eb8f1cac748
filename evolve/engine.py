"""Batch driver: many deals in one Numba call, and games built from consecutive deals.

Deal ``i`` of a run with seed ``s`` is fully determined by ``(s, i)``: ``key`` comes from
``numpy.random.SeedSequence(s)``, the deal key is a hash of (key, i), and the deck shuffle
and each seat's agent draw from their own stream hashed from the deal key. Chunks of deals can therefore be
played by any number of workers and give identical results.

The batch kernel is specialised per game and per set of card-play agent families
(``batch_kernel``): ``evolve.engine`` is the layer that binds the rules templates
(``evolve.games``) to the agents' decision functions (``evolve.agents.policy`` and
``evolve.agents.bidding``), so a run compiles only the game and the agent families it seats.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from evolve import _numba_cache
from evolve.agents.bidding import BIDDING_HOOKS
from evolve.agents.policy import FAMILIES, PLAY_KIND, card_bindings, families_of
from evolve.games import euchre, jass, spades, sueca
from evolve.games.bits import DEAL_STREAM, N_STREAMS, kernel, next_u64, seed_streams
from evolve.games.rules import GAME_EUCHRE, GAME_JASS, GAME_SPADES, GAME_SUECA, P_GAME, P_N_CARDS
from evolve.games.state import PUB_SIZE, reset_pub
from evolve.games.template import Bound, policy_hook, specialise, template

game_deal = policy_hook("game_deal", "(rules, deck, dealer, kinds, params, rngs, work, hands, pub, rec, i)")


@kernel
def shuffle(deck, rngs, stream):
    """Fisher-Yates shuffle of ``deck`` in place with random stream ``stream``. Each 64-bit
    draw serves two swaps (Lemire's multiply-shift on each 32-bit half; the bias is below
    52 / 2**32)."""
    c = deck.shape[0] - 1
    while c > 0:
        r = next_u64(rngs, stream)
        k = np.int64(((r >> np.uint64(32)) * np.uint64(c + 1)) >> np.uint64(32))
        t = deck[c]
        deck[c] = deck[k]
        deck[k] = t
        c -= 1
        if c > 0:
            k = np.int64(((r & np.uint64(0xFFFFFFFF)) * np.uint64(c + 1)) >> np.uint64(32))
            t = deck[c]
            deck[c] = deck[k]
            deck[k] = t
            c -= 1


@kernel
def deal_cards(key, index, rngs, deck, decks, row):
    """Start deal ``index`` of the run with key ``key``: seed its random streams (the
    deal's own and each seat's) into ``rngs``, and put its deck in ``deck``: row ``row`` of
    ``decks`` when decks are given, else a shuffle from the deal stream."""
    seed_streams(key, index, rngs)
    if decks.shape[0] > 0:
        for c in range(deck.shape[0]):
            deck[c] = decks[row, c]
    else:
        for c in range(deck.shape[0]):
            deck[c] = c
        shuffle(deck, rngs, DEAL_STREAM)


@template(nogil=True)   # lets the parent's executor threads run while it plays a chunk too
def play_batch_kernel(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, period):
    """Play deals ``start .. start+n-1`` into rows 0..n-1 of ``rec``.

    ``tables`` holds one ``seat_ints`` row (the four agents) per table; deal j is played
    by table ``j // per_table`` (so a whole tournament generation is one call).
    ``decks`` is either empty (shuffle from the deal stream) or holds one deck order per
    deal; ``dealers`` holds the dealer of each deal; ``work`` is the agents' scratch memory
    (kernels may not allocate; see ``evolve.agents.policy.Workspace``). ``period`` > 0:
    deal j draws the random streams of deal ``start + j % period`` (common random
    numbers: every table of ``period`` deals plays the same streams)."""
    n_cards = rules[P_N_CARDS]
    deck = np.empty(n_cards, np.int64)
    pub = np.empty(PUB_SIZE, np.int64)
    hands = np.zeros(4, np.uint64)
    rngs = np.empty(N_STREAMS, np.uint64)
    for j in range(n):
        deal_cards(key, start + (j % period if period > 0 else j), rngs, deck, decks, j)
        dealer = dealers[j]
        kinds = tables[min(j // per_table, tables.shape[0] - 1)]
        reset_pub(pub, dealer)
        rec.dealer[j] = dealer
        game_deal(rules, deck, dealer, kinds, params, rngs, work, hands, pub, rec, j)


DEALS = {GAME_SPADES: spades, GAME_EUCHRE: euchre, GAME_SUECA: sueca, GAME_JASS: jass}
_KERNELS: dict = {}
_LOCK = threading.Lock()


def batch_kernel(game: int, families=(), root=None):
    """The batch kernel of game ``game`` (``rules[P_GAME]``) with the card-play agent
    families ``families`` compiled in (random play and every bidder always are).
    ``root``: another kernel template with the batch kernel's hooks (and ``game_setup``,
    ``game_finish``, ``deal_cards``), e.g. ``evolve.lockstep.play_lockstep_kernel``."""
    fams = tuple(f.name for f in FAMILIES if f.name in set(families))
    root = play_batch_kernel if root is None else root
    key = (int(game), fams, id(root))
    k = _KERNELS.get(key)
    if k is None:
        with _LOCK:
            k = _KERNELS.get(key)
            if k is None:
                module = DEALS[int(game)]
                name = module.INFO.name
                bindings = {"game_deal": Bound(name, module.deal), "game_setup": Bound(name, module.setup),
                            "game_finish": Bound(name, module.finish), "deal_cards": deal_cards,
                            **card_bindings(fams), **BIDDING_HOOKS}
                k = specialise(root, bindings)
                _numba_cache.register_engine(k, name, fams)
                _KERNELS[key] = k
    return k


def play_batch(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, families=None,
               period: int = 0):
    """Play deals ``start .. start+n-1`` into rows 0..n-1 of ``rec`` (see ``play_batch_kernel``,
    also for ``period``) with the kernel for the game and the agent families of ``tables``
    (or ``families``, a superset, so that batches of one run share one kernel)."""
    if families is None:
        families = families_of(np.asarray(tables)[..., PLAY_KIND:PLAY_KIND + 4])
    batch_kernel(int(rules[P_GAME]), families)(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work,
                                                   int(period))


@njit(cache=True)
def accumulate_games(score, bags, n_sides, target, bag_limit):
    """Group consecutive deals into games to ``target`` (0: no target, one running total
    over the whole run, game index 0 throughout).

    Returns per deal: game index, cumulative game score per side after the deal (with the
    Spades bag penalty of -100 per ``bag_limit`` accumulated bags, if ``bag_limit`` > 0),
    and the winning side of a game that ends on this deal (-1 otherwise). A game ends when
    a side reaches the target with a strictly highest score."""
    n = score.shape[0]
    game_id = np.zeros(n, np.int64)
    game_score = np.zeros((n, n_sides), np.int64)
    winner = np.full(n, -1, np.int64)
    current = np.zeros(n_sides, np.int64)
    bag_count = np.zeros(n_sides, np.int64)
    g = 0
    for i in range(n):
        for s in range(n_sides):
            current[s] += score[i, s]
            if bag_limit > 0:
                bag_count[s] += bags[i, s]
                while bag_count[s] >= bag_limit:
                    bag_count[s] -= bag_limit
                    current[s] -= 100
            game_score[i, s] = current[s]
        game_id[i] = g
        if target > 0:
            best = 0
            for s in range(1, n_sides):
                if current[s] > current[best]:
                    best = s
            unique = True
            for s in range(n_sides):
                if s != best and current[s] == current[best]:
                    unique = False
            if current[best] >= target and unique:
                winner[i] = best
                g += 1
                current[:] = 0
                bag_count[:] = 0
    return game_id, game_score, winner
