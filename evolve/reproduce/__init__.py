"""``python -m evolve.reproduce``: the papers' tables, each beside ours.

``python -m evolve.reproduce PAPER`` (spades, euchre, sueca, jass, bidding, or ``all``)
plays every table of that paper that has numbers and prints, cell by cell, the paper's
figure, ours with its 95% CI, the difference and a verdict (``reproduced`` within the
stated tolerance, or ``differs``), with a one-line reason and the cell's kind (measured by
our play, or arithmetic, fitted or certain); tables that cannot be reproduced here are
listed with the reason. ``--quick`` runs every table on a small budget, ``--json`` prints
one object with a row per cell; markdown and PNGs go under ``plots/reproduce/<paper>/``;
an interrupted run resumes where it stopped. ``publish``, ``rebuild`` and ``summary``
put full runs in the docs (``evolve.reproduce.publish``).

Layout: ``cells`` (a figure beside ours, its kind and verdict), ``registry`` (papers and
their reproductions), ``runner`` (budgets, resume, outputs), ``plots``, ``publish``, and one
module per paper (``spades``, ``euchre``, ``sueca``, ``jass``, ``bidding``) with the paper's
figures transcribed in ``data/<paper>.json``.
"""


def main(argv=None):
    """The command line (``evolve.reproduce.cli.main``), imported on use so that importing a
    document module never loads the others."""
    from evolve.reproduce.cli import main as cli_main

    return cli_main(argv)
