"""Shared helpers of the server tests: a real uvicorn on 127.0.0.1 over a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.server import BackgroundServer


@contextmanager
def served(db_path: str, **settings: Any) -> Iterator[tuple[BackgroundServer, httpx.Client]]:
    """A started server with the hashing embedder, and an httpx client on it."""
    require_keys = settings.pop("require_keys", False)
    app = create_app(
        Settings(path=db_path, embedder="hashing", **settings), require_keys=require_keys
    )
    srv = BackgroundServer(app).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=30) as client:
            yield srv, client
    finally:
        srv.stop()


@contextmanager
def served_on(
    target: dict[str, str], tmp_path: Path, **settings: Any
) -> Iterator[tuple[BackgroundServer, httpx.Client]]:
    """:func:`served` on the store of the ``target`` fixture (a SQLite file or PostgreSQL)."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url"), **settings) as pair:
        yield pair


def turn(content: str, role: str = "user", **extra: Any) -> dict[str, Any]:
    """One message body."""
    return {"role": role, "content": content, **extra}
