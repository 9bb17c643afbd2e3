"""The LLM client against a real scripted OpenAI-compatible HTTP server on 127.0.0.1.

Covers: plain answers, usage, the auth header, JSON via response_format, a server that rejects
response_format (remembered per client), fenced JSON, one repair request, a second bad answer,
429 with Retry-After, 5xx exhausted, a hanging server, dropped connections, non-retryable
errors, malformed bodies, and the prompt files.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from scripted_server import RecordedRequest, ScriptedServer, chat_body

from mnemo.config.settings import Settings
from mnemo.errors import (
    EmbeddingError,
    LLMError,
    LLMOutputError,
    LLMTransientError,
    TransientError,
    ValidationError,
)
from mnemo.llm import ChatResult, LLMClient, Usage, create_chat_model, load_prompt, render_prompt
from mnemo.llm.json_output import parse_json_output
from mnemo.llm.prompts import fill, placeholders, prompt_names

USER = [{"role": "user", "content": "Where do I live? Answer as json."}]


@pytest.fixture(scope="module")
def _running_server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def server(_running_server: ScriptedServer) -> Iterator[ScriptedServer]:
    _running_server.reset()
    yield _running_server
    _running_server.reset()


class Recorder:
    """Stands in for time.sleep: records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> Recorder:
    return Recorder()


@pytest.fixture
def make(server: ScriptedServer, sleeps: Recorder) -> Iterator[Callable[..., LLMClient]]:
    """Build LLMClients aimed at ``server`` with the recording sleep; closed afterwards."""
    created: list[LLMClient] = []

    def factory(**kwargs: Any) -> LLMClient:
        kwargs.setdefault("base_url", server.url)
        kwargs.setdefault("model", "test-model")
        kwargs.setdefault("sleep", sleeps)
        client = LLMClient(**kwargs)
        created.append(client)
        return client

    yield factory
    for client in created:
        client.close()


def has_format(req: RecordedRequest) -> bool:
    return isinstance(req.json, dict) and "response_format" in req.json


# ---- plain answers -----------------------------------------------------------------------
def test_success_returns_text_usage_and_model(server, make) -> None:
    server.enqueue_chat("You live in Lisbon.")
    result = make().complete(USER, temperature=0.3, max_tokens=50)
    assert isinstance(result, ChatResult)
    assert result.text == "You live in Lisbon." and result.data is None
    assert result.model == "test-model"
    assert result.usage.completion_tokens == 4 and result.usage.prompt_tokens > 0
    assert result.usage.total_tokens == result.usage.prompt_tokens + 4
    [req] = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.json == {
        "model": "test-model",
        "messages": USER,
        "temperature": 0.3,
        "max_tokens": 50,
    }
    assert "authorization" not in req.headers


def test_usage_is_read_from_the_response(server, make) -> None:
    body = chat_body("hi") | {"usage": {"prompt_tokens": 11, "completion_tokens": 7}}
    server.enqueue(json=body)
    assert make().complete(USER).usage == Usage(11, 7, 18)  # total filled in
    server.enqueue(json={k: v for k, v in chat_body("hi").items() if k != "usage"})
    assert make().complete(USER).usage == Usage()


def test_bearer_token_is_sent_when_an_api_key_is_set(server, make) -> None:
    make(api_key="sk-secret").complete(USER)
    assert server.requests[0].headers["authorization"] == "Bearer sk-secret"


def test_base_url_without_v1_gets_it(server, make) -> None:
    make(base_url=server.url.removesuffix("/v1")).complete(USER)
    assert server.requests[0].path == "/v1/chat/completions"


def test_plain_requests_carry_no_response_format(server, make) -> None:
    make().complete(USER)
    assert not has_format(server.requests[0])


def test_bad_messages_are_rejected_before_any_request(server, make) -> None:
    client = make()
    for bad in ([], [{"role": "user"}], [{"role": "user", "content": 3}], "hi"):
        with pytest.raises(ValidationError):
            client.complete(bad)  # type: ignore[arg-type]
    assert server.requests == []


# ---- JSON output -----------------------------------------------------------------------------
def test_json_via_response_format(server, make) -> None:
    server.enqueue_chat('{"city": "Lisbon"}')
    client = make()
    result = client.complete(USER, json=True)
    assert result.data == {"city": "Lisbon"} and result.text == '{"city": "Lisbon"}'
    [req] = server.requests
    assert req.json["response_format"] == {"type": "json_object"}
    assert client.json_mode is True


@pytest.mark.parametrize("status", [400, 422])
def test_rejected_response_format_falls_back_and_is_remembered(server, make, status) -> None:
    error = {"error": {"message": "Unrecognized request argument: response_format"}}
    server.when(has_format, status=status, json=error)
    server.when(lambda r: True, chat='Here it is: {"city": "Porto"} - enjoy')
    client = make()
    assert client.complete(USER, json=True).data == {"city": "Porto"}
    assert [has_format(r) for r in server.requests] == [True, False]
    assert client.json_mode is False
    assert client.complete(USER, json=True).data == {"city": "Porto"}
    assert [has_format(r) for r in server.requests] == [True, False, False]  # not retried


def test_other_400_with_response_format_is_an_error(server, make) -> None:
    server.enqueue(status=400, json={"error": {"message": "model not found"}})
    client = make()
    with pytest.raises(LLMError, match="model not found") as info:
        client.complete(USER, json=True)
    assert not isinstance(info.value, TransientError)
    assert len(server.requests) == 1 and client.json_mode is None


def test_server_ignoring_response_format_still_parses(server, make) -> None:
    server.enqueue_chat('Sure. The answer is {"city": "Faro", "sure": true}. Anything else?')
    result = make().complete(USER, json=True)
    assert result.data == {"city": "Faro", "sure": True} and len(server.requests) == 1


def test_fenced_json_is_parsed_without_a_repair_request(server, make) -> None:
    server.enqueue_chat('```json\n{"facts": ["likes tea"]}\n```')
    assert make().complete(USER, json=True).data == {"facts": ["likes tea"]}
    assert len(server.requests) == 1


def test_broken_json_gets_one_repair_request(server, make) -> None:
    server.enqueue_chat('{"city": "Lisbon",')
    server.enqueue_chat('{"city": "Lisbon"}')
    result = make().complete(USER, json=True)
    assert result.data == {"city": "Lisbon"} and result.text == '{"city": "Lisbon"}'
    first, second = server.requests
    repair = second.json["messages"]
    assert repair[: len(USER)] == USER
    assert repair[-2] == {"role": "assistant", "content": '{"city": "Lisbon",'}
    assert repair[-1] == {"role": "user", "content": load_prompt("json_repair").strip()}
    one = first.json and chat_body('{"city": "Lisbon",', first.json)["usage"]
    two = chat_body('{"city": "Lisbon"}', second.json)["usage"]
    assert result.usage.as_dict() == {k: one[k] + two[k] for k in two}  # both requests counted


def test_broken_twice_raises_output_error(server, make) -> None:
    server.enqueue_chat("I think you live in Lisbon")
    server.enqueue_chat("Lisbon, definitely")
    with pytest.raises(LLMOutputError, match="invalid JSON twice"):
        make().complete(USER, json=True)
    assert len(server.requests) == 2


def test_json_mode_adds_an_instruction_when_no_message_mentions_json(server, make) -> None:
    server.enqueue_chat('{"ok": true}')
    plain = [{"role": "user", "content": "Where do I live?"}]
    make().complete(plain, json=True)
    sent = server.requests[0].json["messages"]
    assert sent[0] == {"role": "system", "content": load_prompt("json_system").strip()}
    assert sent[1:] == plain


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ('{"a": 1}', {"a": 1}),
        ("[1, 2]", [1, 2]),
        ('```\n{"a": {"b": [1]}}\n```', {"a": {"b": [1]}}),
        ('Result:\n```JSON\n{"a": 1}\n```\nthanks', {"a": 1}),
        ('noise {not json} then {"a": "}"} trailing }', {"a": "}"}),
    ],
)
def test_parse_json_output_accepts(text: str, data: Any) -> None:
    assert parse_json_output(text) == data


@pytest.mark.parametrize("text", ["", "42", '"just a string"', "NOTHING", '{"a": 1', "{'a': 1}"])
def test_parse_json_output_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_json_output(text)


# ---- transient failures -------------------------------------------------------------------------
def test_429_then_ok_honours_retry_after(server, make, sleeps) -> None:
    server.enqueue(status=429, headers={"Retry-After": "2"})
    server.enqueue(status=429, headers={"Retry-After": "600"})  # capped
    server.enqueue_chat("fine")
    assert make(backoff_cap_s=5.0).complete(USER).text == "fine"
    assert sleeps.delays == [2.0, 5.0] and len(server.requests) == 3


def test_500s_exhausted_raise_transient(server, make, sleeps) -> None:
    server.when(lambda r: True, status=503)
    with pytest.raises(LLMTransientError, match=r"HTTP 503.*gave up after 3 attempts") as info:
        make(max_retries=2).complete(USER)
    assert isinstance(info.value, TransientError)  # caught alongside embedder failures
    assert not isinstance(info.value, EmbeddingError)  # but an LLM timeout is no embedder's
    assert len(server.requests) == 3 and len(sleeps.delays) == 2
    assert all(0 < d <= 8 for d in sleeps.delays)


def test_500_then_ok(server, make) -> None:
    server.enqueue(status=500)
    server.enqueue(status=502)
    server.enqueue_chat("back")
    assert make().complete(USER).text == "back"


def test_hanging_server_times_out(server, make) -> None:
    server.enqueue(delay=3.0)
    started = time.monotonic()
    with pytest.raises(LLMTransientError, match="timed out"):
        make(timeout_s=0.3, max_retries=0).complete(USER)
    assert time.monotonic() - started < 2.0


def test_timeout_then_ok_is_retried(server, make) -> None:
    server.enqueue(delay=3.0)
    server.enqueue_chat("on time")
    assert make(timeout_s=0.3, max_retries=1).complete(USER).text == "on time"


def test_dropped_connection_is_retried_then_raises(server, make, sleeps) -> None:
    server.enqueue(drop=True)
    server.enqueue_chat("recovered")
    assert make().complete(USER).text == "recovered"
    server.reset()
    for _ in range(3):
        server.enqueue(drop=True)
    with pytest.raises(LLMTransientError, match="failed"):
        make(max_retries=2).complete(USER)
    assert len(server.requests) == 3


def test_unreachable_server_is_transient(make, sleeps) -> None:
    with pytest.raises(LLMTransientError):
        make(base_url="http://127.0.0.1:9/v1", max_retries=1).complete(USER)
    assert len(sleeps.delays) == 1


# ---- errors that are not retried --------------------------------------------------------------
def test_auth_failure_is_not_retried(server, make) -> None:
    server.enqueue(status=401, json={"error": {"message": "Incorrect API key"}})
    with pytest.raises(LLMError, match="HTTP 401: Incorrect API key") as info:
        make(api_key="bad").complete(USER)
    assert not isinstance(info.value, LLMTransientError) and len(server.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        {"raw": b"<html>gateway</html>"},
        {"json": {"choices": []}},
        {"json": {"choices": [{"message": {"role": "assistant", "content": None}}]}},
    ],
)
def test_malformed_body_is_an_llm_error(server, make, reply) -> None:
    server.enqueue(**reply)
    with pytest.raises(LLMError) as info:
        make().complete(USER)
    assert type(info.value) is LLMError


# ---- factory and prompts -----------------------------------------------------------------------
def test_create_chat_model_follows_settings(server) -> None:
    assert create_chat_model(Settings()) is None
    settings = Settings(
        llm_base_url=server.url, llm_model="m-1", llm_api_key="k", llm_max_retries=0
    )
    client = create_chat_model(settings)
    assert client is not None and client.model == "m-1"
    server.enqueue(status=500)
    with pytest.raises(LLMTransientError, match="after 1 attempts"):
        client.complete(USER)
    assert server.requests[0].headers["authorization"] == "Bearer k"
    client.close()


def test_prompts_are_package_files() -> None:
    assert {"json_repair", "json_system"} <= set(prompt_names())
    assert "JSON" in load_prompt("json_repair")
    assert render_prompt("json_repair") == load_prompt("json_repair")
    for bad in ("nope", "../config", "a/b", ""):
        with pytest.raises(ValidationError):
            load_prompt(bad)
    with pytest.raises(ValidationError, match="unexpected"):
        render_prompt("json_repair", extra="x")


def test_fill_substitutes_placeholders_once_and_keeps_json_braces() -> None:
    template = 'User said: {message}\nReply as {"facts": [...]} about {user_id}.'
    assert placeholders(template) == {"message", "user_id"}
    out = fill(template, "t", message="call me {user_id}", user_id="u1")
    assert out == 'User said: call me {user_id}\nReply as {"facts": [...]} about u1.'
    with pytest.raises(ValidationError, match="missing"):
        fill(template, "t", message="x")


def test_usage_adds_up() -> None:
    total = Usage(1, 2, 3) + Usage(10, 20, 30)
    assert total == Usage(11, 22, 33) and Usage() + Usage() == Usage()
    assert total.as_dict() == {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}
    assert Usage.from_response({"prompt_tokens": True, "completion_tokens": -1}) == Usage()
