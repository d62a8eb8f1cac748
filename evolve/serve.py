"""``python -m evolve.serve``: the browser table and the bot API (``evolve.server.app``),
served by waitress, with its tables kept in a SQLite file (``--db``)."""

from __future__ import annotations

import gc
import ipaddress
import signal
import sys
from dataclasses import fields
from pathlib import Path

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.server.policy import Limits

DEFAULT_DB = "tables.sqlite3"
DEFAULT_THREADS = 8


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure(host: str, port: int, limits: Limits) -> str:
    """The line printed when the server listens beyond loopback: what it exposes."""
    bots = (f"remote bot seats are allowed on {', '.join(limits.allow_bots)}, so clients can make this server send "
            "requests there" if limits.allow_bots else "remote bot seats are off")
    return (f"evolve.serve: --host {host} exposes the JSON API and the browser table to the network: anyone who "
            f"reaches port {port} can create tables (up to {limits.max_open_tables}) and play the seats whose "
            f"tokens they hold; {bots}; there is no other authentication and no TLS")


def parser() -> Parser:
    """The command line: where to listen, where tables and champions live, and the limits."""
    p = Parser(prog="python -m evolve.serve",
               description="Serve the browser table and the bot API (waitress; tables kept in SQLite).")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--populations", default="populations",
                   help="the folder whose champions clients may seat as champion:NAME: those its manifest.toml "
                        "marks playable, or all of them without one (default populations)")
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"the SQLite file that keeps the tables across restarts (default {DEFAULT_DB})")
    p.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                   help=f"request threads (default {DEFAULT_THREADS})")
    defaults = Limits()
    for f in fields(Limits):
        p.add_argument(Limits.option(f.name), dest=f.name, default=None, metavar=f.metadata["metavar"],
                       help=f"{f.metadata['help']} (default {defaults.shown(f.name)})")
    return p


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    if not 0 < a.port < 65536:
        raise UsageError(f"--port {a.port} is invalid; expected 1..65535")
    if a.threads < 1:
        raise UsageError(f"--threads {a.threads} is invalid; expected a positive integer")
    if not Path(a.populations).is_dir():
        raise UsageError(f"--populations {a.populations!r} is not a directory")
    limits = Limits.parse({f.name: getattr(a, f.name) for f in fields(Limits) if getattr(a, f.name) is not None})

    from evolve.server.app import create_app
    from evolve.server.store import StoreError
    from evolve.server.tables import warm_up
    from evolve.server.wsgi import bound_socket, make_server, shutdown

    try:
        sock = bound_socket(a.host, a.port)
    except OSError as err:
        raise UsageError(f"cannot listen on {a.host}:{a.port}: {err.strerror or err}; choose another --host or "
                         "--port") from None
    try:
        app = create_app(a.populations, a.db, limits)
    except StoreError as err:
        sock.close()
        raise UsageError(f"--db: {err}") from None
    except UsageError:          # the populations folder's manifest.toml is invalid
        sock.close()
        raise
    warm_up()
    restored = app.extensions["trick_evolve_tables"].preload()
    if restored:
        tables = "1 unfinished table" if restored == 1 else f"{restored} unfinished tables"
        print(f"evolve.serve: {tables} restored from {a.db}", flush=True)
    if not is_loopback(a.host):
        print(exposure(a.host, a.port, limits), flush=True)
    print(f"evolve.serve: the table is at http://{a.host}:{a.port}/ (tables kept in {a.db}; Ctrl-C stops)",
          flush=True)
    # the objects of the start-up (the package, Numba, the restored tables) live for good:
    # moved out of the collector's reach, its full collections stop pausing every request
    gc.freeze()
    sock.listen(1024)
    server = make_server(app, sock, a.threads, limits.max_body)
    # SIGTERM stops as Ctrl-C does (every answered action is committed already)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.run()
    finally:
        shutdown(server)
        app.extensions["trick_evolve_tables"].close()
    return 0


if __name__ == "__main__":
    raise SystemExit(run(main, prog="python -m evolve.serve"))
