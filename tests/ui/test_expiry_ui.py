"""The web UI and expiry: a memory's expiry shows on its row and its page; an expired memory
is not listed and its page is a 404, before any sweep (real server, real HTTP)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
from clock_support import FakeClock
from ui_support import ui_server

from mnemo import Memory
from mnemo.storage.sqlite.store import SQLiteStore


def test_expiry_on_the_memories_pages(tmp_path: Path) -> None:
    db = str(tmp_path / "ui.db")
    clock = FakeClock()
    clock.now -= timedelta(hours=1)  # written an hour ago with a minute to live: expired
    with Memory(db, embedder="hashing", store=SQLiteStore(db, clock=clock)) as mem:
        old = mem.add("Dana's old door code is 7781", user_id="dana", ttl_seconds=60)
    with ui_server(db) as srv:
        live = srv.memory().add("Dana's door code is 1200", user_id="dana", ttl_seconds=7200)
        assert live.expires_at is not None
        shown = live.expires_at.strftime("%Y-%m-%d %H:%M UTC")
        with httpx.Client(base_url=srv.ui, timeout=30) as client:
            listing = client.get("/memories", params={"user_id": "dana"}).text
            assert "door code is 1200" in listing and "expires <time" in listing
            assert shown in listing
            assert "code is 7781" not in listing
            page = client.get(f"/memories/{live.id}").text
            assert "Expires" in page and "ttl 7200 s" in page
            assert client.get(f"/memories/{old.id}").status_code == 404
