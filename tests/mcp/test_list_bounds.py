"""One listing, one set of bounds: the library, REST (a real uvicorn), MCP (the SDK's client over
stdio, a real ``python -m mnemo mcp``) and the CLI accept and refuse the same ``limit`` and
``offset`` of a memory listing, with the same message, and the schemas say so."""

from __future__ import annotations

from typing import Any

import pytest
from api_support import served
from mcp_support import data, error_text, run, stdio_client
from typer.testing import CliRunner

from mnemo import Memory, MemoryQuery, MessageQuery, ValidationError
from mnemo.cli.main import app

LIMIT_MESSAGE = "limit must be an integer in [1, 10000]"
OFFSET_MESSAGE = "offset must be a non-negative integer"
FAR_MESSAGE = "offset must be at most 10000000"


def seed(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.add("I keep bees on the roof", user_id="ann")
        mem.add_messages([{"role": "user", "content": "and two cats"}], user_id="ann")


def test_the_library_takes_10000_rows_and_refuses_10001(db_path: str) -> None:
    seed(db_path)
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.list_page("ann", limit=10_000, offset=10_000_000).total == 1
        q = MemoryQuery(user_id="ann", limit=10_000)
        assert mem.list_page(q) == mem.list_page("ann", limit=10_000)
        assert [m.id for m in mem.list(q)] == [m.id for m in mem.list("ann")]
        turns = MessageQuery(user_id="ann")
        assert mem.messages_page(turns) == mem.messages_page("ann")
        assert [t.content for t in mem.messages(turns)] == ["and two cats"]
        for listing in (mem.list, mem.list_page, mem.messages, mem.messages_page):
            for bad in (0, 10_001, "5", True):
                with pytest.raises(ValidationError) as refused:
                    listing("ann", limit=bad)
                assert str(refused.value) == LIMIT_MESSAGE
            for bad_offset, message in ((-1, OFFSET_MESSAGE), (10_000_001, FAR_MESSAGE)):
                with pytest.raises(ValidationError) as refused:
                    listing("ann", offset=bad_offset)
                assert str(refused.value) == message
        for query in (MemoryQuery, MessageQuery):
            with pytest.raises(ValidationError, match=r"limit must be an integer in \[1, 10000\]"):
                query(user_id="ann", limit=10_001)
        with pytest.raises(ValidationError, match="not both"):
            mem.list_page(q, kind="fact")
        with pytest.raises(ValidationError, match="not both"):
            mem.messages(turns, limit=5)


def test_rest_takes_10000_rows_and_refuses_10001_with_the_library_message(db_path: str) -> None:
    seed(db_path)
    with served(db_path) as (_, client):
        for route in ("/v1/memories", "/v1/messages"):
            ok = client.get(route, params={"user_id": "ann", "limit": 10_000})
            assert ok.status_code == 200 and ok.json()["total"] == 1, ok.text
            far = client.get(route, params={"user_id": "ann", "offset": 10_000_000})
            assert far.status_code == 200 and far.json()["data"] == []
            for params, message in (
                ({"limit": 0}, LIMIT_MESSAGE),
                ({"limit": 10_001}, LIMIT_MESSAGE),
                ({"limit": "five"}, LIMIT_MESSAGE),
                ({"offset": -1}, OFFSET_MESSAGE),
                ({"offset": 10_000_001}, FAR_MESSAGE),
            ):
                r = client.get(route, params={"user_id": "ann", **params})
                assert r.status_code == 422, r.text
                assert r.json() == {"error": {"type": "invalid_request", "message": message}}
        paths = client.get("/openapi.json").json()["paths"]
        for route in ("/v1/memories", "/v1/messages"):
            params = {p["name"]: p["schema"] for p in paths[route]["get"]["parameters"]}
            assert bounds(params["limit"]) == (1, 10_000)
            assert bounds(params["offset"]) == (0, 10_000_000)


def test_mcp_takes_10000_rows_and_refuses_10001(db_path: str) -> None:
    seed(db_path)

    async def body() -> None:
        async with stdio_client(db_path) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            props = tools["list_memories"]["properties"]
            assert bounds(props["limit"]) == (1, 10_000)
            assert bounds(props["offset"]) == (0, 10_000_000)
            ask = {"user_id": "ann"}
            listed = data(await client.call_tool("list_memories", {**ask, "limit": 10_000}))
            assert listed["total"] == 1
            for bad in (0, 10_001):
                refused = await client.call_tool("list_memories", {**ask, "limit": bad})
                assert LIMIT_MESSAGE in error_text(refused)
            refused = await client.call_tool("list_memories", {**ask, "offset": 10_000_001})
            assert FAR_MESSAGE in error_text(refused)

    run(body)


def test_the_cli_takes_10000_rows_and_refuses_10001_with_the_library_message(
    db_path: str,
) -> None:
    seed(db_path)

    def mnemo(*args: str) -> tuple[int, str]:
        out = CliRunner().invoke(
            app, ["list", "--user", "ann", *args, "--db", db_path, "--embedder", "hashing"]
        )
        return out.exit_code, out.output

    code, out = mnemo("--limit", "10000", "--json")
    assert code == 0 and '"total": 1' in out, out
    for args, message in (
        (("--limit", "0"), LIMIT_MESSAGE),
        (("--limit", "10001"), LIMIT_MESSAGE),
        (("--offset", "-1"), OFFSET_MESSAGE),
        (("--offset", "10000001"), FAR_MESSAGE),
    ):
        code, out = mnemo(*args)
        assert code == 2 and " ".join(out.split()) == f"error: {message}", out


def bounds(prop: dict[str, Any]) -> tuple[int, int]:
    """(minimum, maximum) of an integer property, optional or not."""
    for schema in [prop, *prop.get("anyOf", [])]:
        if schema.get("type") == "integer":
            return schema["minimum"], schema["maximum"]
    raise AssertionError(f"no integer in {prop}")
