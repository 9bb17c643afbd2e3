"""Running the server: ``mnemo serve`` and tests start uvicorn through here."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from mnemo.api.app import build
from mnemo.config.settings import Settings


def serve(settings: Settings, host: str | None = None, port: int | None = None) -> None:
    """Serve until interrupted."""
    host = host or settings.host
    app = build(settings, host)
    uvicorn.run(app, host=host, port=settings.port if port is None else port, log_level="info")


__all__ = ["BackgroundServer", "build", "running", "serve"]


class BackgroundServer:
    """uvicorn in a daemon thread on a free loopback port (tests, benchmarks, ``mnemo chat``)."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        if port == 0:
            with socket.socket() as s:
                s.bind((host, 0))
                port = s.getsockname()[1]
        self.host, self.port = host, port
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 20.0) -> BackgroundServer:
        """Start and wait until it accepts connections."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the mnemo server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Ask uvicorn to exit and wait for it."""
        self.server.should_exit = True
        self.thread.join(timeout=20)


@contextmanager
def running(app: FastAPI) -> Iterator[BackgroundServer]:
    """A started :class:`BackgroundServer`, stopped on exit."""
    srv = BackgroundServer(app).start()
    try:
        yield srv
    finally:
        srv.stop()
