"""The MCP server over stdio: the SDK's client drives a real ``python -m mnemo mcp``."""

from __future__ import annotations

from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory

TOOLS = {
    "remember",
    "recall",
    "context",
    "list_memories",
    "get_memory",
    "update_memory",
    "forget_memory",
    "profile",
    "forget_user",
    "count_memories",
    "forget_memories",
    "forget_agent",
    "audit_memories",
    "entities",
    "entity",
}


def test_stdio_tools_remember_recall_update_forget(db_path: str) -> None:
    async def body() -> None:
        # no background worker: a fact it drew from the turn below would race the listings
        async with stdio_client(db_path, MNEMO_SERVE_WORKER="false") as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS
            schema = next(t for t in listed.tools if t.name == "recall").input_schema
            assert {"query", "user_id"} <= set(schema["required"])
            assert all(t.description for t in listed.tools)
            undescribed = [
                f"{t.name}.{name}"
                for t in listed.tools
                for name, prop in t.input_schema["properties"].items()
                if not prop.get("description")
            ]
            assert undescribed == [], "every argument tells the client what it is for"

            added = data(
                await client.call_tool(
                    "remember", {"user_id": "ann", "content": "Ann is allergic to shellfish"}
                )
            )
            mid = added["ids"][0]
            assert mid.startswith("mem_") and added["memory"]["kind"] == "fact"
            turns = [{"role": "user", "content": "I booked the ferry to Naxos"}]
            ids = data(await client.call_tool("remember", {"user_id": "ann", "turns": turns}))
            assert ids["ids"][0].startswith("msg_")

            hits = data(await client.call_tool("recall", {"query": "shellfish", "user_id": "ann"}))
            assert hits["hits"][0]["id"] == mid and hits["hits"][0]["score"] > 0
            ferry = data(await client.call_tool("recall", {"query": "ferry", "user_id": "ann"}))
            assert any("Naxos" in h["content"] for h in ferry["hits"])

            ctx = data(await client.call_tool("context", {"query": "dinner", "user_id": "ann"}))
            assert "shellfish" in ctx["text"] and ctx["token_count"] <= ctx["budget_tokens"]

            changed = data(
                await client.call_tool(
                    "update_memory", {"memory_id": mid, "content": "Ann is allergic to peanuts"}
                )
            )
            assert changed["content"] == "Ann is allergic to peanuts"
            hits = data(await client.call_tool("recall", {"query": "peanuts", "user_id": "ann"}))
            assert hits["hits"][0]["content"] == "Ann is allergic to peanuts"
            got = data(await client.call_tool("get_memory", {"memory_id": mid}))
            assert got["content"] == "Ann is allergic to peanuts"
            page = data(await client.call_tool("list_memories", {"user_id": "ann"}))
            assert [m["id"] for m in page["memories"]] == [mid] and page["next_offset"] is None
            assert page["total"] == 1
            nothing = await client.call_tool("update_memory", {"memory_id": mid})
            assert "nothing to change" in error_text(nothing)
            for n in range(2):
                await client.call_tool("remember", {"user_id": "bo", "content": f"Bo {n}"})
            more = {"user_id": "bo", "limit": 1}
            first = data(await client.call_tool("list_memories", more))
            assert (first["total"], first["next_offset"]) == (2, 1)
            last = data(await client.call_tool("list_memories", {**more, "offset": 1}))
            assert (last["total"], last["next_offset"], len(last["memories"])) == (2, None, 1)
            assert [first["memories"][0]["content"], last["memories"][0]["content"]] == [
                "Bo 1",
                "Bo 0",
            ]

            data(await client.call_tool("forget_memory", {"memory_id": mid}))
            hits = data(await client.call_tool("recall", {"query": "peanuts", "user_id": "ann"}))
            assert mid not in [h["id"] for h in hits["hits"]]
            assert "deleted" in error_text(await client.call_tool("get_memory", {"memory_id": mid}))

            res = await client.read_resource("mnemo://users/ann/memories")
            assert '"memories":[]' in getattr(res.contents[0], "text", "")
            prof = data(await client.call_tool("profile", {"user_id": "ann"}))
            assert prof == {"user_id": "ann", "facts": []}

    run(body)
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.list("ann") == []  # the subprocess wrote the same store
        assert len(mem.messages("ann")) == 1
        assert mem.jobs("done") == []  # the worker was off, as the server was told


def test_stdio_bad_arguments_are_tool_errors(db_path: str) -> None:
    async def body() -> None:
        async with stdio_client(db_path) as client:
            too_few = await client.call_tool("recall", {"query": "x", "user_id": "ann", "limit": 0})
            assert "limit" in error_text(too_few)
            missing = await client.call_tool("recall", {"query": "x"})
            assert "user_id" in error_text(missing)
            both = await client.call_tool(
                "remember", {"user_id": "ann", "content": "a", "turns": []}
            )
            assert "exactly one of content and turns" in error_text(both)
            bad_kind = await client.call_tool(
                "remember", {"user_id": "ann", "content": "a", "kind": "gossip"}
            )
            assert "kind" in error_text(bad_kind)
            bad_user = await client.call_tool("remember", {"user_id": "ann", "content": "   "})
            assert "ValidationError" in error_text(bad_user)
            unknown = await client.call_tool("get_memory", {"memory_id": "mem_nope"})
            assert "NotFoundError" in error_text(unknown)
            not_memory = await client.call_tool("forget_memory", {"memory_id": "msg_nope"})
            assert "no memory" in error_text(not_memory)
            nothing = await client.call_tool("update_memory", {"memory_id": "mem_nope"})
            assert error_text(nothing)
            unconfirmed = await client.call_tool("forget_user", {"user_id": "ann"})
            assert "confirm" in error_text(unconfirmed)
            # the server survived every error
            added = data(await client.call_tool("remember", {"user_id": "ann", "content": "ok"}))
            assert added["ids"]
            erased = data(
                await client.call_tool("forget_user", {"user_id": "ann", "confirm": True})
            )
            assert erased["user_id"] == "ann" and sum(erased["deleted"].values()) >= 1
            left = data(await client.call_tool("list_memories", {"user_id": "ann"}))
            assert left["memories"] == []

    run(body)
