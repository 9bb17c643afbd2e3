"""Whose memory a proxied chat is: the OpenAI ``user`` field, required unless the server sets
``proxy_default_user``; users who give no id never share one memory. Driven by the official
`openai` client over real HTTP, on SQLite and PostgreSQL, with tests/scripted_server.py as the
upstream."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from api_support import served_on
from scripted_server import ScriptedServer

from mnemo import Settings
from mnemo.api.server import BackgroundServer
from mnemo.errors import ConfigError

PHRASE = "My account recovery phrase is velvet-otter-42."
QUESTION = "What is my account recovery phrase?"


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def serve(target: dict[str, str], tmp_path: Path, upstream: ScriptedServer) -> Any:
    """Start a server on the test's backend with ``settings``, in front of ``upstream``."""
    return functools.partial(served_on, target, tmp_path, upstream_base_url=upstream.url)


def client(srv: BackgroundServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client", max_retries=0)


def ask(srv: BackgroundServer, text: str, **kw: Any) -> Any:
    messages: Any = [{"role": "user", "content": text}]
    with client(srv) as c:
        return c.chat.completions.create(model="m", messages=messages, **kw)


def turns(http: httpx.Client, user: str) -> list[tuple[str, str]]:
    rows = http.get("/v1/messages", params={"user_id": user}).json()["data"]
    return sorted((r["role"], r["content"]) for r in rows)


def users(http: httpx.Client) -> list[str]:
    return [u["user_id"] for u in http.get("/v1/users").json()["data"]]


def chats(upstream: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in upstream.requests if r.path.endswith("/chat/completions")]


def test_a_request_without_user_is_a_422_saying_how_to_pass_one(
    serve: Any, upstream: ScriptedServer
) -> None:
    with serve() as (srv, http):
        with pytest.raises(openai.UnprocessableEntityError) as err:
            ask(srv, PHRASE)
        message = str(err.value)
        assert 'user="alice"' in message and "extra_body" in message
        assert "MNEMO_PROXY_DEFAULT_USER" in message and "proxy_default_user" in message
        with pytest.raises(openai.UnprocessableEntityError):
            ask(srv, QUESTION, stream=True)
        assert chats(upstream) == [] and users(http) == []  # refused before anything


def test_an_empty_user_or_memory_id_is_a_422_like_a_blank_one(
    serve: Any, upstream: ScriptedServer
) -> None:
    with serve(proxy_default_user="solo") as (srv, http):  # a default does not cover ""
        for user in ("", "   "):
            with pytest.raises(openai.UnprocessableEntityError, match="user must not be empty"):
                ask(srv, PHRASE, user=user)
        with pytest.raises(openai.UnprocessableEntityError, match="memory_id must not be empty"):
            ask(srv, PHRASE, user="ann", extra_body={"memory_id": ""})
        assert chats(upstream) == [] and users(http) == []


def test_proxy_default_user_keeps_requests_without_one(
    serve: Any, upstream: ScriptedServer
) -> None:
    with serve(proxy_default_user="solo") as (srv, http):
        upstream.enqueue_chat("Noted.")
        ask(srv, PHRASE)
        upstream.enqueue_chat("Hello Ann.")
        ask(srv, "Hi, I am Ann.", user="ann")  # a given user still wins
        assert sorted(users(http)) == ["ann", "solo"]
        assert turns(http, "solo") == [("assistant", "Noted."), ("user", PHRASE)]
        assert turns(http, "ann") == [("assistant", "Hello Ann."), ("user", "Hi, I am Ann.")]


def test_two_users_never_see_each_others_memory(serve: Any, upstream: ScriptedServer) -> None:
    with serve(proxy_default_user="solo") as (srv, _):
        ask(srv, PHRASE)  # the default user
        ask(srv, "I keep my bike in the garage.", user="bob")
        for kw in ({"user": "bob"}, {"user": "carol"}):
            reply = ask(srv, QUESTION, **kw)
            hits = reply.model_extra["memory_hits"]
            assert all("velvet-otter" not in h["content"] for h in hits)
            assert "velvet-otter" not in str(chats(upstream)[-1]["messages"])
        reply = ask(srv, "Where do I keep my bike?")
        assert all("garage" not in h["content"] for h in reply.model_extra["memory_hits"])
        reply = ask(srv, QUESTION)  # the default user's own memory is recalled
        assert any("velvet-otter" in h["content"] for h in reply.model_extra["memory_hits"])


def test_the_agent_cli_preset_keeps_requests_without_user_as_default(
    serve: Any, upstream: ScriptedServer
) -> None:
    """agent-cli is one person's proxy: its client sends ``memory_id`` and no ``user``; the
    preset says so with ``proxy_default_user``, which the default preset leaves unset."""
    assert Settings(preset="agent-cli").proxy_default_user == "default"
    assert Settings(preset="default").proxy_default_user is None
    with serve(preset="agent-cli") as (srv, http):
        upstream.enqueue_chat("Noted.")
        ask(srv, PHRASE, extra_body={"memory_id": "c1"})
        assert turns(http, "default") == [("assistant", "Noted."), ("user", PHRASE)]


def test_a_blank_default_user_is_a_config_error() -> None:
    for value in ("", "  "):
        with pytest.raises(ConfigError, match=r"proxy_default_user: .*must not be blank"):
            Settings(proxy_default_user=value)
    assert Settings().proxy_default_user is None
