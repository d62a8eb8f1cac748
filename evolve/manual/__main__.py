"""``python -m evolve.manual [--check]``: see ``evolve.manual``."""

import sys

from evolve.core.cli import run
from evolve.manual.reference import main

if __name__ == "__main__":
    sys.exit(run(main, prog="python -m evolve.manual"))
