"""The MCP ``recall`` tool shows each hit's calibrated relevance (the SDK's client over stdio,
a real ``python -m mnemo mcp`` with the bundled embedder, which has fitted coefficients)."""

from __future__ import annotations

from mcp_support import data, run, stdio_client


def test_recall_hits_carry_a_calibrated_relevance(db_path: str) -> None:
    async def body() -> None:
        async with stdio_client(db_path, "--embedder", "local") as client:
            schema = next(t for t in (await client.list_tools()).tools if t.name == "recall")
            assert schema.output_schema is not None
            hit_schema = schema.output_schema["$defs"]["Recalled"]["properties"]
            assert "calibrated" in hit_schema["relevance"]["description"].lower()
            turns = [
                {"role": "user", "content": "I booked the ferry to Naxos for May"},
                {"role": "user", "content": "My sister Anna lives in Lyon"},
            ]
            await client.call_tool("remember", {"user_id": "ann", "turns": turns})
            hits = data(
                await client.call_tool("recall", {"query": "ferry to Naxos", "user_id": "ann"})
            )["hits"]
            assert hits and "Naxos" in hits[0]["content"]
            assert all(0.0 <= h["relevance"] <= 1.0 for h in hits)
            assert hits[0]["relevance"] == max(h["relevance"] for h in hits)

    run(body)
