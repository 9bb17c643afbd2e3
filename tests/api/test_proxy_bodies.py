"""Chat bodies OpenAI refuses are refused by the proxy too, with a 422 that says what is wrong,
before the upstream is called and with nothing stored: a message content that is neither a
string, null nor a list of content parts (``"content": 5`` was read as a message with no
text and forwarded), and a boolean that is not one (``"stream": "yes"`` was taken for
streaming). Driven by the official `openai` client and httpx over real HTTP, on SQLite and
PostgreSQL, with tests/scripted_server.py as the upstream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from api_support import served_on
from scripted_server import ScriptedServer

from mnemo.api.server import BackgroundServer

SHAPES = 'a string, null or a list of content parts such as {"type": "text", "text": "..."}'


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def server(
    target: dict[str, str], tmp_path: Path, upstream: ScriptedServer
) -> Iterator[tuple[BackgroundServer, httpx.Client]]:
    with served_on(target, tmp_path, upstream_base_url=upstream.url) as pair:
        yield pair


def chats(upstream: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in upstream.requests if r.path.endswith("/chat/completions")]


def nothing_happened(upstream: ScriptedServer, http: httpx.Client) -> None:
    """No upstream call was made and no turn stored."""
    assert chats(upstream) == []
    assert http.get("/v1/messages", params={"user_id": "ann"}).json()["data"] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (5, f"messages[1].content must be {SHAPES}, got 5"),
        ({"text": "hi"}, f'messages[1].content must be {SHAPES}, got {{"text": "hi"}}'),
        (["hi"], f"messages[1].content[0] must be a content part: {SHAPES}"),
        ([{"text": "hi"}], f"messages[1].content[0] must be a content part: {SHAPES}"),
        ([{"type": "text", "text": 5}], "messages[1].content[0].text must be a string"),
    ],
    ids=["number", "object", "list-of-strings", "part-without-type", "text-not-a-string"],
)
def test_a_content_openai_refuses_is_a_422(
    server: tuple[BackgroundServer, httpx.Client],
    upstream: ScriptedServer,
    content: Any,
    message: str,
) -> None:
    srv, http = server
    messages: Any = [{"role": "system", "content": "Be brief."}]
    messages.append({"role": "user", "content": content})
    with (
        openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client", max_retries=0) as client,
        pytest.raises(openai.UnprocessableEntityError) as refused,
    ):
        client.chat.completions.create(model="m", messages=messages, user="ann")
    assert refused.value.body == {"type": "invalid_request", "message": message}
    nothing_happened(upstream, http)


@pytest.mark.parametrize(
    "field",
    [{"stream": "yes"}, {"stream": 1}, {"stream": "true"}, {"logprobs": "yes"}],
    ids=["stream-yes", "stream-1", "stream-true-string", "logprobs-yes"],
)
def test_a_boolean_that_is_not_one_is_a_422(
    server: tuple[BackgroundServer, httpx.Client],
    upstream: ScriptedServer,
    field: dict[str, Any],
) -> None:
    _, http = server
    body = {"model": "m", "user": "ann", "messages": [{"role": "user", "content": "hi"}], **field}
    r = http.post("/v1/chat/completions", json=body)
    assert r.status_code == 422, r.text
    (name,) = field
    assert r.json()["error"]["message"] == f"{name}: Input should be a valid boolean"
    nothing_happened(upstream, http)


def test_the_contents_openai_takes_pass_and_a_bad_part_among_them_does_not(
    server: tuple[BackgroundServer, httpx.Client], upstream: ScriptedServer
) -> None:
    srv, http = server
    upstream.enqueue_chat("A cat.")
    messages: Any = [
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "user", "content": [{"type": "text", "text": "What is in the picture?"},
                                     {"type": "image_url", "image_url": {"url": "x"}}]},
    ]  # fmt: skip
    with openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client", max_retries=0) as client:
        reply = client.chat.completions.create(
            model="m", messages=messages, user="ann", logprobs=False
        )
    assert reply.choices[0].message.content == "A cat."
    (sent,) = chats(upstream)
    assert sent["logprobs"] is False and sent["stream"] is False
    stored = http.get("/v1/messages", params={"user_id": "ann"}).json()["data"]
    assert sorted(t["content"] for t in stored) == ["A cat.", "What is in the picture?"]
    messages[1]["content"].append({"type": "text"})  # a text part without its text
    with (
        openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client", max_retries=0) as client,
        pytest.raises(openai.UnprocessableEntityError, match=r"content\[2\]\.text must be"),
    ):
        client.chat.completions.create(model="m", messages=messages, user="ann")
    assert len(chats(upstream)) == 1
