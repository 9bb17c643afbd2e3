"""Recall in live chat through the proxy: questions, non-answers and repeats do not crowd out
what the user told us. A real uvicorn, the bundled embedder, the official `openai` client and
tests/scripted_server.py as the upstream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import openai
import pytest
from scripted_server import ScriptedServer

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.server import BackgroundServer

NOT_SURE = "I'm not sure, could you remind me?"
QUESTION = "What is my dog's name?"
BISCUIT = "I adopted a beagle called Biscuit"


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@contextmanager
def serving(db_path: str, **settings: Any) -> Iterator[tuple[BackgroundServer, httpx.Client]]:
    """The proxy with the bundled embedder (the one a new user gets)."""
    srv = BackgroundServer(create_app(Settings(path=db_path, **settings))).start()
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            yield srv, http
    finally:
        srv.stop()


@pytest.fixture
def proxy(
    db_path: str, upstream: ScriptedServer
) -> Iterator[tuple[BackgroundServer, httpx.Client]]:
    """The proxy in front of ``upstream``."""
    with serving(db_path, upstream_base_url=upstream.url) as served:
        yield served


def tell_about_biscuit(http: httpx.Client) -> None:
    turns = [
        {"role": "user", "content": BISCUIT, "created_at": "2024-03-02T09:15:00"},
        {"role": "assistant", "content": "Congratulations on Biscuit!"},
    ]
    r = http.post("/v1/messages", json={"user_id": "maya", "session_id": "s1", "messages": turns})
    assert r.status_code in (200, 201), r.text


def ask(client: openai.OpenAI, session: str, stream: bool = False) -> Any:
    return client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": QUESTION}],
        user="maya",
        stream=stream,
        extra_body={"memory_id": session},
    )


def test_asking_twice_does_not_bury_the_answer(
    proxy: tuple[BackgroundServer, httpx.Client], upstream: ScriptedServer
) -> None:
    srv, http = proxy
    tell_about_biscuit(http)
    client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
    for session in ("chat-1", "chat-2"):  # the assistant did not know, twice
        upstream.enqueue_chat(NOT_SURE)
        ask(client, session)
    upstream.enqueue_chat("Biscuit!")
    hits = ask(client, "chat-3").model_extra["memory_hits"]
    contents = [h["content"] for h in hits]
    assert contents[0] == BISCUIT, contents  # on main: the question x2, the non-answer x2 first
    assert NOT_SURE not in contents  # a non-answer tells nothing: not in the context
    assert QUESTION not in contents  # the request carries it already
    assert len(contents) == len(set(contents))  # no two identical texts
    # the context block sent upstream puts the beagle first, and no failed answer
    block = upstream.requests[-1].json["messages"][0]["content"]
    lines = [line for line in block.splitlines() if line.startswith("- [")]
    assert BISCUIT in lines[0] and NOT_SURE not in block


def test_a_reply_without_time_stays_next_to_its_dated_question(
    proxy: tuple[BackgroundServer, httpx.Client],
) -> None:
    _, http = proxy
    tell_about_biscuit(http)
    turns = http.get("/v1/messages", params={"user_id": "maya", "session_id": "s1"}).json()["data"]
    assert [t["created_at"][:19] for t in turns] == ["2024-03-02T09:15:00", "2024-03-02T09:15:01"]


def test_streaming_replies_carry_memory_hits_and_feed_the_fact_job(
    db_path: str, upstream: ScriptedServer
) -> None:
    reply = "Your beagle is called Biscuit."
    upstream.when(lambda r: (r.json or {}).get("model") == "m", chat=reply)  # the proxied chat
    settings = {"upstream_base_url": upstream.url, "llm_base_url": upstream.url}
    with serving(db_path, fact_extraction="single", **settings) as (srv, http):
        tell_about_biscuit(http)
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
        chunks = list(ask(client, "chat-1", stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == reply
        last = chunks[-1]  # the chunk with no choices just before [DONE]
        assert last.choices == [] and last.model_extra["memory_hits"][0]["content"] == BISCUIT
        assert last.id == chunks[0].id
        # the worker's fact job reads the whole exchange: the reply, never "(no reply yet)"
        prompt = ""
        deadline = time.monotonic() + 20
        while f"User: {QUESTION}" not in prompt and time.monotonic() < deadline:
            time.sleep(0.1)
            prompts = [
                m.get("content", "")
                for r in list(upstream.requests)
                if (r.json or {}).get("model") != "m"
                for m in (r.json or {}).get("messages", [])
            ]
            prompt = next((p for p in prompts if f"User: {QUESTION}" in p), "")
        assert f"User: {QUESTION}\nAssistant: {reply}" in prompt
