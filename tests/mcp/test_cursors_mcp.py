"""Page cursors through the MCP tools (the SDK's client, real servers): ``list_memories``
takes ``cursor`` and answers ``next_cursor``; a walk by cursor while another process writes
and deletes yields every original memory once; a cursor of another user or tenant, or an
altered one, is a tool error."""

from __future__ import annotations

from mcp_support import data, error_text, http_client, run, stdio_client
from test_mcp_http import keys_for, serving

from mnemo import Memory


def test_list_memories_walks_by_cursor_while_another_process_writes(db_path: str) -> None:
    writer = Memory(db_path, embedder="hashing", fact_extraction="off")
    for i in range(9):
        writer.add(f"m{i}", "ann", created_at=f"2024-01-0{i % 3 + 1}T00:00:00Z")
    order = [m.id for m in writer.list("ann")]

    async def body() -> None:
        async with stdio_client(db_path) as client:
            args = {"user_id": "ann", "limit": 2}
            page = data(await client.call_tool("list_memories", args))
            got, totals = [], []
            while True:
                got += [m["id"] for m in page["memories"]]
                totals.append(page["total"])
                if page["next_cursor"] is None:
                    break
                writer.add("newest", "ann", created_at="2030-01-01T00:00:00Z")
                writer.add("tied", "ann", created_at="2024-01-02T00:00:00Z")
                writer.delete(got[-1])  # the row the cursor points after
                cursor = {**args, "cursor": page["next_cursor"]}
                page = data(await client.call_tool("list_memories", cursor))
            assert len(got) == len(set(got))
            assert [i for i in got if i in set(order)] == order
            assert totals[0] == 9 and all(t >= 9 for t in totals)

            token = data(await client.call_tool("list_memories", args))["next_cursor"]
            for bad in (
                {"user_id": "bob", "cursor": token},
                {"user_id": "ann", "kind": "note", "cursor": token},
                {"user_id": "ann", "cursor": token[::-1]},
                {"user_id": "ann", "cursor": token, "offset": 2},
            ):
                assert "cursor" in error_text(await client.call_tool("list_memories", bad))

    try:
        run(body)
    finally:
        writer.close()


def test_a_cursor_of_tenant_a_is_an_error_for_tenant_b(db_path: str) -> None:
    key_a, key_b = keys_for(db_path, "tenant-a", "tenant-b")

    async def body(url: str) -> None:
        async with http_client(url, key_a) as a, http_client(url, key_b) as b:
            for n in range(3):
                await a.call_tool("remember", {"user_id": "ann", "content": f"a{n}"})
                await b.call_tool("remember", {"user_id": "ann", "content": f"b{n}"})
            args = {"user_id": "ann", "limit": 1}
            token = data(await a.call_tool("list_memories", args))["next_cursor"]
            assert token
            stolen = await b.call_tool("list_memories", {**args, "cursor": token})
            assert "another listing" in error_text(stolen)
            own = data(await a.call_tool("list_memories", {**args, "cursor": token}))
            assert own["memories"][0]["content"] == "a1" and own["total"] == 3

    with serving(db_path) as url:
        run(lambda: body(url))
