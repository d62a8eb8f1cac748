"""Hearts: ``game`` (its options, rules tables, the pass, the deal kernels, the protocol
and ``INFO``), ``hooks`` (its legality, what breaks hearts, the jack of diamonds and the
points, inside the shared Numba kernels, ``evolve.games.hooks``) and ``policy`` (the
rule-based pass and card play of ``hearts_rules``), refereed against OpenSpiel's
``hearts`` by ``tests/test_referee_hearts.py``."""
