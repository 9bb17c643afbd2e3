"""A proxied request with no user text (only a system message, or an empty last user
message) is forwarded as it came and stores nothing: never an assistant reply without the
message it answers. The official `openai` client over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from api_support import served_on
from scripted_server import ScriptedServer

SYSTEM_ONLY = [{"role": "system", "content": "Say hello to the user."}]
EMPTY_USER = [{"role": "user", "content": "Hi, I am Ann."}, {"role": "user", "content": ""}]
NO_TEXT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": []}]


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def serve(target: dict[str, str], tmp_path: Path, upstream: ScriptedServer) -> Any:
    """Start a server on the test's backend, in front of ``upstream``."""
    return functools.partial(served_on, target, tmp_path, upstream_base_url=upstream.url)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize(
    "messages", [SYSTEM_ONLY, EMPTY_USER, NO_TEXT], ids=["system", "empty", "parts"]
)
def test_a_request_without_user_text_is_answered_and_stores_nothing(
    serve: Any, upstream: ScriptedServer, messages: list[dict[str, Any]], stream: bool
) -> None:
    with serve() as (srv, http):
        upstream.enqueue_chat("Hello there!")
        sent_messages: Any = messages
        with openai.OpenAI(base_url=srv.url + "/v1", api_key="x", max_retries=0) as client:
            if stream:
                chunks = client.chat.completions.create(
                    model="m", messages=sent_messages, user="ann", stream=True
                )
                text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            else:
                reply = client.chat.completions.create(
                    model="m", messages=sent_messages, user="ann"
                )
                text = reply.choices[0].message.content or ""
        assert text == "Hello there!"
        sent = [r.json for r in upstream.requests if r.path.endswith("/chat/completions")]
        assert sent[0]["messages"] == messages  # forwarded as it came, no memory injected
        listed = http.get("/v1/messages", params={"user_id": "ann"}).json()
        assert listed["data"] == [] and http.get("/v1/users").json()["data"] == []
