"""Serving the app through waitress, a maintained pure-Python WSGI server (threads, no
fork: it suits a process that keeps its tables in memory and one SQLite file).

Waitress answers some bad requests itself, before the app sees them (a body over the
limit, malformed HTTP); ``JsonErrorChannel`` makes those answers JSON ``{"error": ...}``
like the app's. Waitress keeps no access log, so no request line (and no ``token`` in a
query string) is written anywhere.
"""

from __future__ import annotations

import json
import socket
from typing import Any


def bound_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (OSError if that is not possible), not listening yet:
    until ``listen()`` a client's connection is refused at once, so it retries, rather than
    waiting in the queue while the server warms up."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (OSError if that is not possible)."""
    sock = bound_socket(host, port)
    sock.listen(1024)
    return sock


def _json_error_channel(max_body: int):
    from waitress.channel import HTTPChannel
    from waitress.task import ErrorTask

    class JsonErrorTask(ErrorTask):
        """Waitress's own error answers (413, 400, 431, ...) as the API's JSON errors."""

        def execute(self):
            e = self.request.error
            if e.code == 413:
                message = f"the request body is larger than this server's limit of {max_body} bytes (--max-body)"
            else:
                message = f"{e.reason}: {e.body}"
            body = json.dumps({"error": message}).encode()
            self.status = f"{e.code} {e.reason}"
            self.response_headers.append(("Content-Type", "application/json"))
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)

    class JsonErrorChannel(HTTPChannel):
        error_task_class = JsonErrorTask

    return JsonErrorChannel


def make_server(app: Any, sock: socket.socket, threads: int, max_body: int):
    """A waitress server of ``app`` on the listening ``sock`` (call ``.run()``, ``.close()``)."""
    from waitress.server import create_server

    server = create_server(app, sockets=[sock], threads=threads, ident="evolve.serve",
                           max_request_body_size=max_body + 1, connection_limit=1000, channel_timeout=60)
    server.channel_class = _json_error_channel(max_body)
    return server


def shutdown(server) -> None:
    """Stop a server made by ``make_server``: let its request threads finish, then close its
    socket and every connection (its ``run()`` then returns within a second)."""
    from waitress import wasyncore

    server.task_dispatcher.shutdown(timeout=10)
    server.trigger.close()
    wasyncore.close_all(server._map)
