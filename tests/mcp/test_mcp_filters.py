"""Filters through the MCP tools (the SDK's own client over stdio, a real ``python -m mnemo
mcp``): recall, context and list_memories take a ``filters`` object; a bad or 1 MB filter is a
tool error naming its part and changes nothing."""

from __future__ import annotations

from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory


def test_recall_context_and_list_take_filters(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for content, team in (
            ("Ann plans the coffee budget", "blue"),
            ("Ann buys coffee beans", "red"),
            ("Ann likes coffee with milk", "blue"),
        ):
            mem.add(content, user_id="ann", metadata={"team": team})

    async def body() -> None:
        async with stdio_client(db_path) as client:
            blue = {"team": "blue"}
            args = {"query": "coffee", "user_id": "ann", "filters": blue}
            hits = data(await client.call_tool("recall", args))["hits"]
            assert len(hits) == 2 and all("beans" not in h["content"] for h in hits)
            red = {"query": "coffee", "user_id": "ann", "filters": {"team": "red"}}
            text = data(await client.call_tool("context", red))["text"]
            assert "beans" in text and "budget" not in text
            listed = {"user_id": "ann", "filters": blue}
            page = data(await client.call_tool("list_memories", listed))
            assert page["total"] == 2 and len(page["memories"]) == 2
            bad = {"query": "coffee", "user_id": "ann", "filters": {"OR": [{"team": {"gt": None}}]}}
            assert "OR[0].team" in error_text(await client.call_tool("recall", bad))
            huge = {"user_id": "ann", "filters": {"team": "x" * 1_000_000}}
            assert "characters" in error_text(await client.call_tool("list_memories", huge))
            injection = {"user_id": "ann", "filters": {"x'); DROP TABLE memories; --": 1}}
            assert data(await client.call_tool("list_memories", injection))["total"] == 0
            assert data(await client.call_tool("list_memories", {"user_id": "ann"}))["total"] == 3

    run(body)
