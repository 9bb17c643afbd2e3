"""The MCP tools built on a request model take its fields as arguments: every field but the
tool's named exceptions, with the field's JSON schema, so a new field is a new argument."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mnemo import Memory
from mnemo.list_query import MemoryQuery
from mnemo.mcp.params import tool_params
from mnemo.mcp.server import create_server
from mnemo.mcp.source import FixedMemory
from mnemo.mcp.tools import NOT_SEARCH_TOOL
from mnemo.search_query import SearchQuery


def schemas(db_path: str) -> dict[str, dict[str, Any]]:
    with Memory(db_path, embedder="hashing") as mem:
        tools = asyncio.run(create_server(FixedMemory(mem)).list_tools())
    return {t.name: t.input_schema for t in tools}


def test_recall_and_context_take_every_search_field_but_their_exceptions(db_path: str) -> None:
    tools = schemas(db_path)
    fields = set(SearchQuery.model_fields) - NOT_SEARCH_TOOL
    assert set(tools["recall"]["properties"]) == fields - {"explain"}
    assert set(tools["context"]["properties"]) == (
        fields - {"explain", "limit", "kinds", "current_session"} | {"budget_tokens"}
    )
    for name in ("recall", "context"):
        assert tools[name]["required"] == ["query", "user_id"]
    model = SearchQuery.model_json_schema()["properties"]
    recall = tools["recall"]["properties"]
    for name in ("session_id", "kinds", "as_of", "now", "agent_id", "filters"):
        assert recall[name] == model[name], name
    assert recall["limit"] == {**model["limit"], "default": 10}


def test_list_memories_takes_every_listing_field_but_times_and_deleted(db_path: str) -> None:
    listed = schemas(db_path)["list_memories"]
    hidden = {"since", "until", "include_deleted"}
    assert set(listed["properties"]) == set(MemoryQuery.model_fields) - hidden
    model = MemoryQuery.model_json_schema()["properties"]
    assert listed["properties"]["limit"] == model["limit"]


def test_an_exception_must_name_a_field() -> None:
    with pytest.raises(ValueError, match="SearchQuery has no field limt"):
        tool_params(SearchQuery, hidden={"limt"})
    with pytest.raises(ValueError, match="MemoryQuery has no field kinds"):
        tool_params(MemoryQuery, defaults={"kinds": None})
