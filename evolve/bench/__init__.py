"""Benchmarks, ``python -m evolve.bench <what>``: engine speed against OpenSpiel and
jass-kit, network seats, a generation on 1 and 2 workers, the search agents and one
decision through ``evolve.agent``."""


def main(argv=None):
    """The command line (``evolve.bench.cli.main``), imported on use so that importing one
    benchmark module never loads the others."""
    from evolve.bench.cli import main as cli_main

    return cli_main(argv)
