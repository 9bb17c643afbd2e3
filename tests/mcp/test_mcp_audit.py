"""The ``audit_memories`` MCP tool through the SDK's own client over stdio (a real ``python -m
mnemo mcp``) on both stores: the report, the safe fixes, a refused argument."""

from __future__ import annotations

from audit_support import AFTER_FIX, EXPECTED, seed
from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory


def test_audit_memories_tool(target: dict[str, str]) -> None:
    with Memory(**target, embedder="hashing") as mem:
        seed(mem)
    where = target.get("path") or target["url"]

    async def body() -> None:
        async with stdio_client(where) as client:
            report = data(await client.call_tool("audit_memories", {"user_id": "u1"}))
            found = {(f["kind"], f["detail"], f["fix"]["safe"]) for f in report["findings"]}
            assert found == EXPECTED and report["applied"] == 0
            fixed = data(await client.call_tool("audit_memories", {"user_id": "u1", "fix": True}))
            assert fixed["applied"] == 3
            listed = data(await client.call_tool("list_memories", {"user_id": "u1", "limit": 100}))
            assert {m["content"] for m in listed["memories"]} == AFTER_FIX
            bad = await client.call_tool("audit_memories", {"user_id": "u1", "apply": ["x"]})
            assert "finding ids" in error_text(bad)
            unknown = await client.call_tool("audit_memories", {"user_id": "nobody"})
            assert "no user 'nobody' in tenant 'default'" in error_text(unknown)

    run(body)
