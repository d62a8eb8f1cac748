"""The rules layer: ``bits`` and ``rules`` (pure Numba rules), ``trick`` (a trick card by card
and the one trick step), ``card_play`` (the batch engine's trick loop), one module per game
with its protocol, ``knowledge`` (what a seat can infer), ``observation`` (one seat's view)
and ``registry`` (names, options, ``make_game``).

It imports no agent (``tests/test_layers.py``). The trick loop and each game's deal are
templates (``template``) that ask for decisions through policy hooks;
``evolve.runtime.batch`` binds them to the agents' functions and compiles only what a batch
seats.

The registry names are re-exported lazily so that low-level modules (``bits``,
``rules``) can be imported by agents without importing every game.
"""

from __future__ import annotations


def __getattr__(name):
    if name in ("GAMES", "Game", "make_game"):
        from evolve.games import registry

        return getattr(registry, name)
    raise AttributeError(name)
