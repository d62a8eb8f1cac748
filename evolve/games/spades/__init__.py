"""Spades: ``game`` (its options, rules tables, deal kernels, protocol and ``INFO``) and
``hooks`` (what only Spades knows inside the shared Numba kernels, ``evolve.games.hooks``)."""
