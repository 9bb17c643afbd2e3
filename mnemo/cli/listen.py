"""Listening for the commands that serve HTTP (``mnemo serve``, ``mnemo mcp --http``): the port
is checked and the socket bound before the app is built, so a bad port or a busy address is one
``error:`` line and exit status 2 with nothing started, not uvicorn's traceback or a whole app
started only to fail.

The bound socket is already listening when uvicorn gets it (no other process can take the port
between the check and the start; connections made meanwhile wait in the backlog).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import typer

from mnemo.errors import ConfigError

#: The ports a TCP server can listen on (0: any free one).
PORTS = range(0, 65536)
#: How many connections wait for the app while it starts.
BACKLOG = 2048


def check_port(port: int) -> int:
    """``port`` when it is 0-65535, else ConfigError.

    >>> check_port(8000)
    8000
    """
    if port not in PORTS:
        raise ConfigError(f"port must be 0-65535, got {port}")
    return port


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening; ConfigError naming the address when
    the port is out of range, the host does not resolve or the address is taken."""
    check_port(port)
    where = f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"cannot listen on {where}: {reason}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def address_of(sock: socket.socket, host: str) -> str:
    """``http://host:port`` of a bound socket (its real port when 0 was asked for)."""
    port = sock.getsockname()[1]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve_on(
    host: str, port: int, build: Callable[[], Any], announce: Callable[[str], None]
) -> None:
    """Bind ``host:port``, then build the ASGI app with ``build()`` and serve it with uvicorn
    until interrupted; ``announce`` gets the address once the socket is bound. The socket is
    closed however this ends; a startup that fails in the app's lifespan exits with status 3,
    as ``uvicorn.run`` does."""
    import uvicorn

    with bind(host, port) as sock:
        app = build()
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="info"))
        announce(address_of(sock, host))
        server.run(sockets=[sock])
    if not server.started:
        raise typer.Exit(3)


__all__ = ["BACKLOG", "PORTS", "address_of", "bind", "check_port", "serve_on"]
