"""Agent scope through the MCP tools (the official client over stdio, a real subprocess), on
both stores: ``agent_id`` on remember, recall, context, list_memories, get_memory, profile."""

from __future__ import annotations

from mcp_support import data, error_text, run, stdio_client


def test_tools_take_agent_id(target: dict[str, str]) -> None:
    where = target.get("path") or target["url"]  # --db takes a file or a postgresql:// URL

    async def body() -> None:
        async with stdio_client(where) as client:
            listed = await client.list_tools()
            for name in ("remember", "recall", "context", "list_memories", "profile"):
                schema = next(t for t in listed.tools if t.name == name).input_schema
                assert "agent_id" in schema["properties"], name

            def remember(agent: str | None, text: str) -> dict[str, object]:
                args = {"user_id": "ann", "content": text}
                return {**args, "agent_id": agent} if agent else args

            shared = data(await client.call_tool("remember", remember(None, "Ann likes tea")))
            alpha = data(
                await client.call_tool("remember", remember("alpha", "alpha code word Falcon"))
            )
            beta = data(
                await client.call_tool("remember", remember("beta", "beta code word Osprey"))
            )
            assert alpha["memory"]["agent_id"] == "alpha"
            turns = [{"role": "user", "content": "beta turn about Osprey"}]
            await client.call_tool(
                "remember", {"user_id": "ann", "agent_id": "beta", "turns": turns}
            )

            seen = {"user_id": "ann", "agent_id": "alpha"}
            hits = data(await client.call_tool("recall", {"query": "code word tea", **seen}))
            got = {h["content"]: h["agent_id"] for h in hits["hits"]}
            assert got.get("alpha code word Falcon") == "alpha" and "Ann likes tea" in got
            assert not any("Osprey" in c for c in got)
            ctx = data(await client.call_tool("context", {"query": "code word", **seen}))
            assert "Falcon" in ctx["text"] and "Osprey" not in ctx["text"]
            page = data(await client.call_tool("list_memories", seen))
            assert {m["id"] for m in page["memories"]} == {
                shared["ids"][0],
                alpha["ids"][0],
            }
            hidden = await client.call_tool("get_memory", {"memory_id": beta["ids"][0], **seen})
            assert "NotFoundError" in error_text(hidden)
            assert data(await client.call_tool("profile", seen))["facts"] == []
            whole = data(await client.call_tool("list_memories", {"user_id": "ann"}))
            assert whole["total"] == 3
            bad = await client.call_tool("recall", {"query": "x", "user_id": "ann", "agent_id": ""})
            assert bad.is_error

    run(body)
