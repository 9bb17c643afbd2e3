"""Counting and deleting by filter, and erasing an agent, through the MCP tools (the SDK's own
client over stdio, a real ``python -m mnemo mcp``): count_memories, forget_memories and
forget_agent, each refusing what it must and changing nothing when it does."""

from __future__ import annotations

from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory


def test_count_and_forget_memories_by_filter(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for content, team in (
            ("Ann plans the coffee budget", "blue"),
            ("Ann buys coffee beans", "red"),
            ("Ann likes coffee with milk", "blue"),
        ):
            mem.add(content, user_id="ann", metadata={"team": team})
        mem.add("Bo likes tea", user_id="bo", metadata={"team": "blue"})

    async def body() -> None:
        async with stdio_client(db_path) as client:
            blue = {"user_id": "ann", "filters": {"team": "blue"}}
            assert data(await client.call_tool("count_memories", blue)) == {"count": 2}
            assert data(await client.call_tool("count_memories", {"user_id": "ann"}))["count"] == 3
            unconfirmed = await client.call_tool("forget_memories", blue)
            assert "confirm=true" in error_text(unconfirmed)
            assert data(await client.call_tool("count_memories", blue))["count"] == 2
            bad = {"user_id": "ann", "filters": {"team": {"gt": None}}, "confirm": True}
            assert "team" in error_text(await client.call_tool("forget_memories", bad))
            gone = data(await client.call_tool("forget_memories", {**blue, "confirm": True}))
            assert gone == {"count": 2}
            left = data(await client.call_tool("list_memories", {"user_id": "ann"}))
            assert [m["content"] for m in left["memories"]] == ["Ann buys coffee beans"]
            assert data(await client.call_tool("count_memories", {"user_id": "bo"}))["count"] == 1
            nobody = await client.call_tool("count_memories", {})
            assert error_text(nobody) == (
                "Error executing tool count_memories: ValidationError: a user_id or agent_id is "
                "required (whose memory this is); neither was given"
            )

    run(body)


def test_forget_agent_erases_only_that_agents_items(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.add("Ann is vegetarian", user_id="ann")
        mem.add("Ann's coach plan: 5k on Sundays", user_id="ann", agent_id="coach")
        mem.add("The coach agent speaks Portuguese", agent_id="coach")
        mem.add("Ann's chef plan: lentils", user_id="ann", agent_id="chef")

    async def body() -> None:
        async with stdio_client(db_path) as client:
            own = {"agent_id": "coach"}
            assert data(await client.call_tool("count_memories", own))["count"] == 1
            assert "confirm=true" in error_text(await client.call_tool("forget_agent", own))
            erased = data(await client.call_tool("forget_agent", {**own, "confirm": True}))
            assert erased["agent_id"] == "coach" and erased["deleted"]["memories"] == 2
            assert data(await client.call_tool("count_memories", own))["count"] == 0
            left = data(await client.call_tool("list_memories", {"user_id": "ann"}))
            assert sorted(m["content"] for m in left["memories"]) == [
                "Ann is vegetarian",
                "Ann's chef plan: lentils",
            ]

    run(body)
