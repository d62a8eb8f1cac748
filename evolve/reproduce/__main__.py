"""``python -m evolve.reproduce``: see ``evolve.reproduce``."""

import sys

from evolve.core.cli import run
from evolve.reproduce.cli import main

if __name__ == "__main__":
    sys.exit(run(main, prog="python -m evolve.reproduce"))
