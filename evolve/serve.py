"""``python -m evolve.serve``: the browser table and the bot API (``evolve.server.app``)."""

from __future__ import annotations

import socket
from pathlib import Path

from evolve.core.cli import Parser, run
from evolve.core.errors import UsageError
from evolve.server.app import create_app


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m evolve.serve", description="Serve the browser table and the bot API (localhost).")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--populations", default="populations", help="where to look for champions (*/champion.npz)")
    a = p.parse_args(argv)
    if not 0 < a.port < 65536:
        raise UsageError(f"--port {a.port} is invalid; expected 1..65535")
    if not Path(a.populations).is_dir():
        raise UsageError(f"--populations {a.populations!r} is not a directory")
    with socket.socket(socket.AF_INET6 if ":" in a.host else socket.AF_INET) as probe:
        try:
            probe.bind((a.host, a.port))
        except OSError as err:
            raise UsageError(f"cannot listen on {a.host}:{a.port}: {err.strerror or err}; choose another "
                             f"--port") from None
    app = create_app(a.populations)
    print(f"evolve.serve: the table is at http://{a.host}:{a.port}/ (Ctrl-C stops)", flush=True)
    try:
        app.run(host=a.host, port=a.port, threaded=True)
    except OSError as err:
        raise UsageError(f"cannot listen on {a.host}:{a.port}: {err}") from None
    return 0


if __name__ == "__main__":
    raise SystemExit(run(main, prog="python -m evolve.serve"))
