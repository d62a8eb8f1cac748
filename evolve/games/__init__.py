"""Games on the shared trick engine: ``bits`` and ``rules`` (pure Numba rules), ``tricks``
(the trick loop), one module per game, and ``registry`` (names, options, ``make_game``).

This is a pure rules layer: it imports no agent. The trick loop and each game's deal are
templates (``template``) that ask for decisions through policy hooks; ``evolve.engine``
binds them to the agents' functions and compiles only what a batch seats.

The registry names are re-exported lazily so that low-level modules (``bits``,
``rules``) can be imported by agents without importing every game.
"""

from __future__ import annotations


def __getattr__(name):
    if name in ("GAMES", "Game", "make_game"):
        from evolve.games import registry

        return getattr(registry, name)
    raise AttributeError(name)
