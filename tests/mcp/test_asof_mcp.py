"""``as_of`` and ``now`` on the MCP ``recall`` and ``context`` tools (issue 24, "Time"), with
the official client over stdio, on both stores; on main the tools reject the arguments."""

from __future__ import annotations

from datetime import timedelta

from asof_support import seed_work
from mcp_support import data, error_text, run, stdio_client

from mnemo.schemas import utcnow


def test_recall_and_context_as_of(target: dict[str, str]) -> None:
    db = target.get("url") or target["path"]  # --db takes a path or a PostgreSQL URL
    seed_work(target)

    async def body() -> None:
        async with stdio_client(db) as client:
            schema = next(t for t in (await client.list_tools()).tools if t.name == "recall")
            assert {"as_of", "now"} <= set(schema.input_schema["properties"])
            ask = {"query": "where do I work", "user_id": "tia"}
            today = data(await client.call_tool("recall", ask))["hits"]
            assert any("pilot" in h["content"] for h in today)
            then = data(await client.call_tool("recall", {**ask, "as_of": "2021-06-01"}))["hits"]
            assert [h["content"] for h in then] == ["I work as a nurse at the city hospital"]
            ctx = data(
                await client.call_tool(
                    "context", {**ask, "as_of": "2021-06-01", "now": "2021-06-01"}
                )
            )
            assert "nurse" in ctx["text"] and "pilot" not in ctx["text"]
            future = (utcnow() + timedelta(days=2)).isoformat()
            for tool in ("recall", "context"):
                bad = await client.call_tool(tool, {**ask, "as_of": future})
                assert "ValidationError" in error_text(bad) and "as_of" in error_text(bad)

    run(body)
