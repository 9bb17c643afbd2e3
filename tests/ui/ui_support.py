"""Shared helpers of the web UI tests: ``mnemo serve``'s real app (REST API + UI at /ui) on
127.0.0.1 over a real SQLite file with the hashing embedder, data seeded through the server's
own per-tenant Memory, and the form token of a page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from mnemo import Memory, Settings
from mnemo.api.auth import create_key, key_store
from mnemo.api.server import BackgroundServer
from mnemo.cli.mcp import serve_app
from mnemo.schemas import MemoryItem
from mnemo.storage import open_store
from mnemo.storage.base import NewJob


@dataclass
class UiServer:
    """A started server: its URL, the API keys made for it (by tenant), and its app."""

    server: BackgroundServer
    keys: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:port``."""
        return self.server.url

    @property
    def ui(self) -> str:
        """The UI's root URL."""
        return f"{self.server.url}/ui"

    def memory(self, tenant: str = "default") -> Memory:
        """The server's own Memory of ``tenant``."""
        mem: Memory = self.server.server.config.app.state.mnemo.tenants.get(tenant)
        return mem


@contextmanager
def ui_server(
    db_path: str, key_tenants: tuple[str, ...] = (), embedder: str = "hashing"
) -> Iterator[UiServer]:
    """``mnemo serve``'s app on a free loopback port; with ``key_tenants``, one API key per
    tenant is made first, so every request needs a key."""
    settings = Settings(path=db_path, embedder=embedder, serve_worker=False)
    keys: dict[str, str] = {}
    if key_tenants:
        store = open_store(settings)
        try:
            for tenant in key_tenants:
                keys[tenant] = create_key(key_store(store), tenant)[0]
        finally:
            store.close()
    srv = BackgroundServer(serve_app(settings, "127.0.0.1")).start()
    try:
        yield UiServer(srv, keys)
    finally:
        srv.stop()


def seed(mem: Memory, user: str, fact: str, session: str = "s1") -> MemoryItem:
    """Two turns of ``user`` in ``session``, and ``fact`` distilled from the first."""
    ids = mem.add_messages(
        [{"role": "user", "content": fact}, {"role": "assistant", "content": "Noted."}],
        user_id=user,
        session_id=session,
    )
    return mem.add(fact, user, session_id=session, source_message_ids=ids[:1], tags=["seed"])


def dead_job(mem: Memory, user: str) -> None:
    """One dead job of ``mem``'s tenant: a kind no handler runs, drained once."""
    mem.store.jobs.enqueue(
        [NewJob(kind="nobody.handles", payload={}, tenant=mem.tenant, user_id=user)]
    )
    mem.drain()


def token(html: str) -> str:
    """The form token (``csrf`` field) of a page."""
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found is not None, "the page has no form token"
    return found.group(1)


def post_form(
    client: httpx.Client, url: str, fields: dict[str, Any], **headers: str
) -> httpx.Response:
    """Post ``fields`` as an HTML form would."""
    return client.post(url, data=fields, headers=headers)
