"""The ``entities`` and ``entity`` MCP tools, with the official client over stdio, on both
stores: the entity index the fact job wrote, read by name, alias or id."""

from __future__ import annotations

from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory


def test_entities_and_entity_tools(target: dict[str, str]) -> None:
    db = target.get("url") or target["path"]  # --db takes a path or a PostgreSQL URL
    with Memory(**target, embedder="hashing") as mem:
        said = ["We have a parrot called Kiwi.", "Kiwi learned to say hello to my sister Ana."]
        ids = mem.add_messages([{"role": "user", "content": t} for t in said], "u1")
        mem.drain()

    async def body() -> None:
        async with stdio_client(db) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["entities"].annotations.read_only_hint  # type: ignore[union-attr]
            listed = data(await client.call_tool("entities", {"user_id": "u1"}))
            got = {e["name"]: e for e in listed["entities"]}
            assert set(got) == {"Kiwi", "Ana"} and got["Kiwi"]["kind"] == "pet"
            assert got["Kiwi"]["mentions"] == 2 and listed["entities"][0]["name"] == "Kiwi"
            for name in ("kiwi", "the parrot", got["Kiwi"]["id"]):
                one = data(await client.call_tool("entity", {"user_id": "u1", "name": name}))
                assert one["entity"]["name"] == "Kiwi"
                assert [t["id"] for t in one["turns"]] == ids
            ana = data(await client.call_tool("entity", {"user_id": "u1", "name": "my sister"}))
            assert ana["entity"]["name"] == "Ana" and [t["id"] for t in ana["turns"]] == ids[1:]
            missing = await client.call_tool("entity", {"user_id": "u1", "name": "Bob"})
            assert "NotFoundError" in error_text(missing)
            other = data(await client.call_tool("entities", {"user_id": "u2"}))
            assert other["entities"] == []

    run(body)
