"""One search, one set of bounds: the library, REST (a real uvicorn) and MCP (the SDK's client
over stdio, a real ``python -m mnemo mcp``) accept and refuse the same ``limit`` and context
``budget_tokens``, with the same message, and their schemas say so."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import served
from mcp_support import data, error_text, run, stdio_client

from mnemo import Memory, SearchQuery, ValidationError

LIMIT_MESSAGE = "limit must be an integer in [1, 1000]"
BUDGET_MESSAGE = "budget_tokens must be an integer in [50, 1000000]"


def seed(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.add_messages([{"role": "user", "content": "I keep bees on the roof"}], user_id="ann")


def test_the_library_takes_1000_hits_and_refuses_1001(db_path: str) -> None:
    seed(db_path)
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.search("bees", user_id="ann", limit=1000)[0].content.startswith("I keep")
        q = SearchQuery(query="bees", user_id="ann", limit=1000)
        assert [h.id for h in mem.search(q)] == [h.id for h in mem.search("bees", "ann")]
        for bad in (0, 1001, "5", True):
            with pytest.raises(ValidationError) as refused:
                mem.search("bees", user_id="ann", limit=bad)
            assert str(refused.value) == LIMIT_MESSAGE
        with pytest.raises(ValidationError, match=r"limit must be an integer in \[1, 1000\]"):
            SearchQuery(query="bees", user_id="ann", limit=1001)
        with pytest.raises(ValidationError, match="not both"):
            mem.search(q, user_id="bob")
        with pytest.raises(ValidationError) as refused:
            mem.context("bees", "ann", budget_tokens=49)
        assert str(refused.value) == BUDGET_MESSAGE


def test_rest_takes_1000_hits_and_refuses_1001_with_the_library_message(db_path: str) -> None:
    seed(db_path)
    with served(db_path) as (_, client):
        body = {"query": "bees", "user_id": "ann"}
        ok = client.post("/v1/search", json={**body, "limit": 1000})
        assert ok.status_code == 200 and ok.json()["data"]
        for bad in (0, 1001, "5"):
            r = client.post("/v1/search", json={**body, "limit": bad})
            assert r.status_code == 422, r.text
            assert r.json() == {"error": {"type": "invalid_request", "message": LIMIT_MESSAGE}}
        assert client.post("/v1/context", json={**body, "budget_tokens": 1_000_000}).is_success
        r = client.post("/v1/context", json={**body, "budget_tokens": 49})
        assert r.status_code == 422 and "budget_tokens" in r.json()["error"]["message"]
        schemas = client.get("/openapi.json").json()["components"]["schemas"]
        assert bounds(schemas["SearchQuery"]["properties"]["limit"]) == (1, 1000)
        context = schemas["ContextRequestBody"]["properties"]["budget_tokens"]
        assert bounds(context) == (50, 1_000_000)


def test_mcp_takes_1000_hits_and_refuses_1001(db_path: str) -> None:
    seed(db_path)

    async def body() -> None:
        async with stdio_client(db_path) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            assert bounds(tools["recall"]["properties"]["limit"]) == (1, 1000)
            assert bounds(tools["context"]["properties"]["budget_tokens"]) == (50, 1_000_000)
            ask = {"query": "bees", "user_id": "ann"}
            assert data(await client.call_tool("recall", {**ask, "limit": 1000}))["hits"]
            for bad in (0, 1001):
                refused = await client.call_tool("recall", {**ask, "limit": bad})
                assert LIMIT_MESSAGE in error_text(refused)
            ctx = await client.call_tool("context", {**ask, "budget_tokens": 1_000_000})
            assert data(ctx)["budget_tokens"] == 1_000_000
            assert "budget_tokens" in error_text(
                await client.call_tool("context", {**ask, "budget_tokens": 49})
            )

    run(body)


def bounds(prop: dict[str, Any]) -> tuple[int, int]:
    """(minimum, maximum) of an integer property, optional or not."""
    for schema in [prop, *prop.get("anyOf", [])]:
        if schema.get("type") == "integer":
            return schema["minimum"], schema["maximum"]
    raise AssertionError(f"no integer in {prop}")
