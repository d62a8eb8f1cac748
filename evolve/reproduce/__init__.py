"""``python -m evolve.reproduce``: the source documents' tables, each beside ours.

``python -m evolve.reproduce SEED`` (spades, euchre, sueca, jass, bidding, or ``all``)
plays every table of that document that has numbers and prints, cell by cell, the
document's figure, ours with its 95% CI, the difference and a verdict (``reproduced``
within the stated tolerance, or ``differs``), with a one-line reason; tables that cannot
be reproduced here are listed with the reason. ``--quick`` runs every table on a small
budget, ``--json`` prints one object with a row per cell; markdown and PNGs go under
``plots/reproduce/<document>/``; an interrupted run resumes where it stopped.

Layout: ``cells`` (a figure beside ours and its verdict), ``registry`` (documents and
their reproductions), ``runner`` (budgets, resume, outputs), ``plots``, and one module
per document (``spades``, ``euchre``, ``sueca``, ``jass``, ``bidding``) with the seed's
figures transcribed in ``data/<document>.json``.
"""


def main(argv=None):
    """The command line (``evolve.reproduce.cli.main``), imported on use so that importing a
    document module never loads the others."""
    from evolve.reproduce.cli import main as cli_main

    return cli_main(argv)
