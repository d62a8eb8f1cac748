"""The reference pages of the manual that are generated from the code (``docs/reference/``):
the configuration keys, the commands and their flags, the agents and bidders, the game
options, the shipped experiments and the table server's HTTP API.

``python -m evolve.manual`` writes them; ``python -m evolve.manual --check`` exits 1, with
one line per page, when a committed page differs from what the code gives
(``evolve.manual.reference``)."""

from __future__ import annotations


def main(argv=None):
    """The command line (``evolve.manual.reference.main``), imported on use."""
    from evolve.manual.reference import main as reference_main

    return reference_main(argv)
