"""The batch kernels bound to the agents: one kernel per game and set of card-play agent
families, compiled on first use (``batch_kernel``), and ``play_batch``, which plays a
range of deals with the kernel for the families a batch seats."""

from __future__ import annotations

import threading

import numpy as np

from evolve.agents.dispatch import BIDDING_HOOKS, FAMILIES, card_bindings, families_of, game_bindings
from evolve.agents.kinds import PLAY_KIND
from evolve.core import numba_cache as _numba_cache
from evolve.engine.batch import play_batch_kernel
from evolve.games.dealing import deal_cards
from evolve.games.registry import KERNELS
from evolve.games.rules import P_GAME
from evolve.games.template import Bound, specialise

_KERNELS: dict = {}
_LOCK = threading.Lock()


def batch_kernel(game: int, families=(), root=None):
    """The batch kernel of game ``game`` (``rules[P_GAME]``) with the card-play agent
    families ``families`` compiled in (random play and every bidder always are).
    ``root``: another kernel template with the batch kernel's hooks (and ``game_setup``,
    ``game_finish``, ``deal_cards``), e.g. ``evolve.runtime.lockstep.play_lockstep_kernel``."""
    fams = tuple(f.name for f in FAMILIES if f.name in set(families))
    root = play_batch_kernel if root is None else root
    key = (int(game), fams, id(root))
    k = _KERNELS.get(key)
    if k is None:
        with _LOCK:
            k = _KERNELS.get(key)
            if k is None:
                module = KERNELS[int(game)]
                name = module.INFO.name
                bindings = {"game_setup": Bound(name, module.setup),
                            "game_finish": Bound(name, module.finish), "deal_cards": deal_cards,
                            **card_bindings(fams, module.INFO), **BIDDING_HOOKS, **game_bindings(module.INFO)}
                k = specialise(root, bindings)
                _numba_cache.register_engine(k, name, list(fams), sum(f.seconds for f in FAMILIES if f.name in fams))
                _KERNELS[key] = k
    return k


def play_batch(rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, families=None,
               period: int = 0):
    """Play deals ``start .. start+n-1`` into rows 0..n-1 of ``rec`` (see ``play_batch_kernel``,
    also for ``period``) with the kernel for the game and the agent families of ``tables``
    (or ``families``, a superset, so that batches of one run share one kernel)."""
    if families is None:
        families = families_of(np.asarray(tables)[..., PLAY_KIND:PLAY_KIND + 4])
    batch_kernel(int(rules[P_GAME]), families)(
        rules, tables, per_table, params, key, start, n, decks, dealers, rec, work, int(period)
    )
