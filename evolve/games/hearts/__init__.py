"""Hearts: ``game`` (its options, rules tables and passing rotation) and ``hooks`` (its
legality, what breaks hearts, the jack of diamonds and the points, inside the shared Numba
kernels, ``evolve.games.hooks``), refereed against OpenSpiel's ``hearts`` by
``tests/test_referee_hearts.py``. Hearts is not in the game registry
(``evolve.games.registry``): without its deal kernels and protocol, ``evolve.play`` and
the agents cannot seat it."""
