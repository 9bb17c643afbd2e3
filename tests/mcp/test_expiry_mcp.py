"""Expiry through the MCP tools (the SDK's client over stdio): `remember` takes `ttl_seconds`
and `expires_at`, refuses bad ones, and `recall` leaves expired memories out."""

from __future__ import annotations

from datetime import timedelta

from clock_support import FakeClock
from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory
from mnemo.storage.sqlite.store import SQLiteStore


def test_remember_with_a_ttl_and_recall_leaves_expired_out(db_path: str) -> None:
    clock = FakeClock()
    clock.now -= timedelta(hours=1)  # written an hour ago with a minute to live: expired
    with Memory(db_path, embedder="hashing", store=SQLiteStore(db_path, clock=clock)) as mem:
        old = mem.add("Ann's locker code is 5512", user_id="ann", ttl_seconds=60)

    async def body() -> None:
        async with stdio_client(db_path) as client:
            added = data(
                await client.call_tool(
                    "remember",
                    {"user_id": "ann", "content": "Ann's locker is 12", "ttl_seconds": 3600},
                )
            )
            assert added["memory"]["ttl_seconds"] == 3600 and added["memory"]["expires_at"]
            turns = [{"role": "user", "content": "my locker moved"}]
            args = {"user_id": "ann", "turns": turns, "expires_at": "2999-01-01T00:00:00Z"}
            assert data(await client.call_tool("remember", args))["ids"]
            bad = await client.call_tool(
                "remember", {"user_id": "ann", "content": "x", "ttl_seconds": -3}
            )
            assert "ttl_seconds" in error_text(bad)
            hits = data(await client.call_tool("recall", {"query": "locker", "user_id": "ann"}))
            ids = {h["id"] for h in hits["hits"]}
            assert added["ids"][0] in ids and old.id not in ids

    run(body)
