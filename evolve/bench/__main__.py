"""``python -m evolve.bench``: re-run with one BLAS thread if need be, then the command line."""

import sys

from evolve.bench.cli import _reexec_with_thread_env, main

if __name__ == "__main__":
    _reexec_with_thread_env()
    sys.exit(main())
