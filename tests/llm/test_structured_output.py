"""Structured output: a ``JsonSchema`` goes out as ``response_format`` ``json_schema``; a
server that rejects it is asked again one step down (``json_object``, then no format) and the
client remembers each step. Against the scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from scripted_server import RecordedRequest, ScriptedServer

from mnemo.llm import JsonSchema, LLMClient

USER = [{"role": "user", "content": "Where do I live? Answer as json."}]
CITY = JsonSchema("city", {"type": "object", "properties": {"city": {"type": "string"}}})


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def client(server: ScriptedServer) -> Iterator[LLMClient]:
    c = LLMClient(server.url, "test-model", max_retries=0)
    yield c
    c.close()


def fmt(req: RecordedRequest) -> Any:
    return (req.json or {}).get("response_format", {}).get("type")


def test_a_schema_goes_out_as_json_schema(server: ScriptedServer, client: LLMClient) -> None:
    server.enqueue_chat('{"city": "Leeds"}')
    assert client.complete(USER, schema=CITY).data == {"city": "Leeds"}
    [req] = server.requests
    assert req.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "city", "schema": CITY.schema, "strict": True},
    }
    assert client.schema_mode is True and client.json_mode is None


def test_a_rejected_schema_steps_down_to_json_object_then_none_and_is_remembered(
    server: ScriptedServer, client: LLMClient
) -> None:
    def rejects(kind: str) -> Any:
        return lambda r: fmt(r) == kind

    server.when(rejects("json_schema"), status=400, json={"error": {"message": "json_schema?"}})
    server.when(rejects("json_object"), status=422, json={"error": {"message": "response_format"}})
    server.when(lambda r: True, chat='Sure: {"city": "Leeds"}')
    assert client.complete(USER, schema=CITY).data == {"city": "Leeds"}
    assert [fmt(r) for r in server.requests] == ["json_schema", "json_object", None]
    assert client.schema_mode is False and client.json_mode is False
    assert client.complete(USER, schema=CITY).data == {"city": "Leeds"}
    assert [fmt(r) for r in server.requests][3:] == [None]  # not tried again


def test_json_object_still_serves_a_server_without_schemas(
    server: ScriptedServer, client: LLMClient
) -> None:
    no_schema = {"error": {"message": "Unsupported response_format type json_schema"}}
    server.when(lambda r: fmt(r) == "json_schema", status=400, json=no_schema)
    server.when(lambda r: True, chat='{"city": "Leeds"}')
    client.complete(USER, schema=CITY)
    client.complete(USER, json=True)
    assert [fmt(r) for r in server.requests] == ["json_schema", "json_object", "json_object"]
    assert client.schema_mode is False and client.json_mode is True
