"""The OpenAI-compatible proxy, driven by the official `openai` client over real HTTP, with
tests/scripted_server.py as the upstream."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import openai
import pytest
from api_support import served
from scripted_server import ScriptedServer

from mnemo.api.auth import create_key


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def stored(client: httpx.Client, user: str, session: str | None = None) -> list[dict[str, Any]]:
    params = {"user_id": user, **({"session_id": session} if session else {})}
    return client.get("/v1/messages", params=params).json()["data"]  # type: ignore[no-any-return]


def test_non_streaming_injects_memory_and_stores_the_turn(
    db_path: str, upstream: ScriptedServer
) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        http.post("/v1/memories", json={"user_id": "u1", "content": "Ann is allergic to peanuts"})
        jobs: list[dict[str, Any]] = []
        srv.server.config.app.state.mnemo.tenants.get("default").handlers["turns.seen"] = (
            jobs.append
        )
        upstream.enqueue_chat("Avoid the satay, Ann.")
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client")
        reply = client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "What is Ann allergic to? peanuts?"}],
            user="u1",
            extra_body={"memory_id": "s1", "memory_top_k": 3},
        )
        assert reply.choices[0].message.content == "Avoid the satay, Ann."
        hits = reply.model_extra["memory_hits"]  # type: ignore[index]
        assert hits[0]["content"] == "Ann is allergic to peanuts" and "score" in hits[0]
        sent = chat_requests(upstream)[0]
        assert (
            sent["model"] == "gpt-test" and "memory_id" not in sent and "memory_top_k" not in sent
        )
        assert sent["messages"][0]["role"] == "system"
        assert "Ann is allergic to peanuts" in sent["messages"][0]["content"]
        assert sent["messages"][-1]["content"] == "What is Ann allergic to? peanuts?"
        assert upstream.requests[0].headers["authorization"] == "Bearer sk-client"
        turns = stored(http, "u1", "s1")
        assert [(t["role"], t["content"]) for t in turns] == [
            ("user", "What is Ann allergic to? peanuts?"),
            ("assistant", "Avoid the satay, Ann."),
        ]
        mem = srv.server.config.app.state.mnemo.tenants.get("default")
        assert mem.drain() >= 1 and [j["session_id"] for j in jobs] == ["s1"]


def test_streaming_passes_events_through_and_stores_the_reply(
    db_path: str, upstream: ScriptedServer
) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        upstream.enqueue_chat("Luna is your cat")
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
        stream = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Who is Luna?"}],
            user="u2",
            stream=True,
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "Luna is your cat"
        assert chat_requests(upstream)[0]["stream"] is True
        turns = stored(http, "u2", "default")  # stored before [DONE] was relayed
        assert [(t["role"], t["content"]) for t in turns] == [
            ("user", "Who is Luna?"),
            ("assistant", "Luna is your cat"),
        ]


def test_agent_cli_preset_replaces_the_last_user_message(
    db_path: str, upstream: ScriptedServer
) -> None:
    with served(db_path, upstream_base_url=upstream.url, preset="agent-cli") as (srv, http):
        cello = [{"role": "user", "content": "I play the cello"}]
        http.post("/v1/messages", json={"user_id": "u1", "session_id": "c1", "messages": cello})
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
        client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "what instrument do I play? cello"}],
            user="u1",
            extra_body={
                "memory_id": "c1",
                "memory_recency_weight": 0.0,
                "memory_score_threshold": 0.0,
            },
        )
        last = chat_requests(upstream)[0]["messages"][-1]["content"]
        assert last.startswith("Long-term memory (most relevant first):\n- [user] I play the cello")
        assert last.endswith("Current message: what instrument do I play? cello")
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "cello?"}], user="u1",
            extra_body={"memory_id": "c1", "memory_top_k": 0},
        )  # fmt: skip
        # seed 002: "if top_k <= 0: skip retrieval and send request as-is"
        assert chat_requests(upstream)[1]["messages"] == [{"role": "user", "content": "cello?"}]


def test_models_and_upstream_errors(db_path: str, upstream: ScriptedServer) -> None:
    with served(db_path, upstream_base_url=upstream.url, upstream_api_key="sk-up") as (srv, http):
        model = {"id": "m1", "object": "model", "created": 0, "owned_by": "me"}
        upstream.enqueue(json={"object": "list", "data": [model]})
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-client", max_retries=0)
        assert [m.id for m in client.models.list()] == ["m1"]
        assert upstream.requests[-1].headers["authorization"] == "Bearer sk-up"
        upstream.enqueue(status=500)
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], user="u3"
            )
        assert stored(http, "u3") == []  # nothing acknowledged, nothing stored
        bad = http.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert bad.status_code == 422
        bad = http.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user",
                        "content": "x"}], "memory_top_k": -1})  # fmt: skip
        assert bad.status_code == 422


def test_unreachable_upstream_is_a_502(db_path: str) -> None:
    with served(db_path, upstream_base_url="http://127.0.0.1:9/v1") as (_, http):
        r = http.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "x"}], "user": "u"},
        )
        assert r.status_code == 502 and "upstream" in r.json()["error"]["message"]
    with served(db_path) as (_, http):
        r = http.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "x"}], "user": "u"},
        )
        assert r.status_code == 400 and "no upstream" in r.json()["error"]["message"]


def test_mnemo_key_is_never_forwarded_upstream(db_path: str, upstream: ScriptedServer) -> None:
    with served(db_path, upstream_base_url=upstream.url, llm_api_key="sk-llm") as (srv, _):
        key, _ = create_key(srv.server.config.app.state.mnemo.keys, "acme")
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key=key)
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], user="u"
        )
        assert upstream.requests[-1].headers["authorization"] == "Bearer sk-llm"
        other = openai.OpenAI(
            base_url=srv.url + "/v1", api_key="sk-client", default_headers={"X-API-Key": key}
        )
        other.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], user="u"
        )
        assert upstream.requests[-1].headers["authorization"] == "Bearer sk-client"
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=srv.url + "/v1", api_key="sk-nokey", max_retries=0).models.list()


class SlowStream(BaseHTTPRequestHandler):
    """An upstream that streams one chunk every 0.2 s, forever (until the client goes)."""

    closed = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for i in range(200):
                chunk = {"choices": [{"index": 0, "delta": {"content": f"w{i} "}}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                time.sleep(0.2)
        except (BrokenPipeError, ConnectionResetError):
            SlowStream.closed.set()


def test_client_disconnect_stores_the_partial_reply(db_path: str) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), SlowStream)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        with served(db_path, upstream_base_url=url) as (srv, http):
            body = {
                "model": "m",
                "stream": True,
                "user": "u9",
                "messages": [{"role": "user", "content": "talk"}],
            }
            with (
                httpx.Client(base_url=srv.url) as c,
                c.stream("POST", "/v1/chat/completions", json=body) as r,
            ):
                lines = r.iter_lines()
                got = [next(lines) for _ in range(4)]  # two events and their blank lines
                assert got[0].startswith("data: ")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                turns = stored(http, "u9")
                if len(turns) == 2:
                    break
                time.sleep(0.1)
            assert turns[0]["content"] == "talk"
            assert turns[1]["role"] == "assistant" and turns[1]["content"].startswith("w0 w1")
            assert turns[1]["metadata"]["incomplete"] is True
            assert SlowStream.closed.wait(10)  # the upstream connection was closed too
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_mnemo_chat_shows_what_was_recalled(db_path: str, upstream: ScriptedServer) -> None:
    from typer.testing import CliRunner

    from mnemo.cli.main import app as cli_app

    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        http.post("/v1/memories", json={"user_id": "ann", "content": "Ann's sister is called Mia"})
        upstream.enqueue_chat("Your sister is Mia.")
        args = ["chat", "--user", "ann", "--url", srv.url, "--model", "m"]
        out = CliRunner().invoke(cli_app, args, input="who is my sister Mia?\n/quit\n")
        assert out.exit_code == 0, out.output
        assert "recalled" in out.output and "Ann's sister is called Mia" in out.output
        assert "assistant> Your sister is Mia." in out.output
        assert [t["role"] for t in stored(http, "ann")] == ["user", "assistant"]
    bad = CliRunner().invoke(cli_app, ["chat", "--url", "http://127.0.0.1:9"], input="hi\n")
    assert bad.exit_code == 2 and "cannot reach" in bad.output


def test_mnemo_chat_says_which_user_it_is(db_path: str) -> None:
    """Without --user it chats as `default` (a one-person local tool) and says so, naming
    --user; the proxy itself would refuse a request without a user."""
    from typer.testing import CliRunner

    from mnemo.cli.main import app as cli_app

    with served(db_path, upstream_base_url="echo") as (srv, http):
        env = {"COLUMNS": "300"}
        out = CliRunner().invoke(cli_app, ["chat", "--url", srv.url], input="hi\n", env=env)
        assert out.exit_code == 0, out.output
        assert out.output.splitlines()[0] == (
            "chatting as user 'default' (no --user given; `--user NAME` chats as another user, "
            "with that user's own memory); /quit ends"
        )
        assert [t["content"] for t in stored(http, "default")] == ["hi"]
        args = ["chat", "--url", srv.url, "--user", "[b]ann"]
        out = CliRunner().invoke(cli_app, args, input="hello\n", env=env)
        assert out.exit_code == 0, out.output
        assert out.output.splitlines()[0] == "chatting as user '[b]ann'; /quit ends"
        assert [t["content"] for t in stored(http, "[b]ann")] == ["hello"]


def test_stream_without_done_and_garbage_replies(db_path: str, upstream: ScriptedServer) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        chunk = {"choices": [{"index": 0, "delta": {"content": "half an answer"}}]}
        upstream.enqueue(sse=[chunk])  # the upstream ends the stream without [DONE]
        body = {
            "model": "m",
            "stream": True,
            "user": "u5",
            "messages": [{"role": "user", "content": "q"}],
        }
        with (
            httpx.Client(base_url=srv.url) as c,
            c.stream("POST", "/v1/chat/completions", json=body) as r,
        ):
            events = [line for line in r.iter_lines() if line.startswith("data: ")]
        assert len(events) == 1 and "half an answer" in events[0]
        turns = stored(http, "u5")
        assert [t["content"] for t in turns] == ["q", "half an answer"]
        assert turns[1]["metadata"]["incomplete"] is True  # no [DONE]: it may be cut short
        upstream.enqueue(raw=b"<html>not json</html>")
        r = http.post("/v1/chat/completions", json={**body, "stream": False, "user": "u6"})
        assert r.status_code == 502 and "not a chat completion" in r.json()["error"]["message"]
        assert stored(http, "u6") == []


# ---- hardening: long replies, validation first, refusals, one storage rule -----------------
def chat(text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"model": "m", "user": "u1", "messages": [{"role": "user", "content": text}], **extra}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_reply_longer_than_max_content_chars_is_stored_cut_and_marked(
    db_path: str, upstream: ScriptedServer, stream: bool
) -> None:
    long_reply = " ".join(f"word{i}" for i in range(60))  # 409 characters
    with served(db_path, upstream_base_url=upstream.url, max_content_chars=100) as (srv, http):
        upstream.enqueue_chat(long_reply)
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x", max_retries=0)
        if stream:
            events = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "talk"}], user="u1", stream=True
            )
            got = "".join(e.choices[0].delta.content or "" for e in events if e.choices)
        else:
            reply = client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "talk"}], user="u1"
            )
            got = reply.choices[0].message.content or ""
        assert got == long_reply  # the client gets all of it
        user, assistant = stored(http, "u1")
        assert user["content"] == "talk"
        assert assistant["content"] == long_reply[:100]
        assert assistant["metadata"]["truncated"] is True
        assert assistant["metadata"]["original_chars"] == len(long_reply)


@pytest.mark.parametrize(
    "body",
    [
        chat("x" * 101),
        chat("lone \ud800 surrogate"),
        chat(model="m" * 70_000),
        {**chat(), "user": "u" * 300},
    ],
    ids=["long-user-turn", "surrogate", "huge-model-name", "long-user-id"],
)
def test_a_turn_that_cannot_be_stored_is_422_before_the_upstream_is_called(
    db_path: str, upstream: ScriptedServer, body: dict[str, Any]
) -> None:
    with served(db_path, upstream_base_url=upstream.url, max_content_chars=100) as (_, http):
        for stream in (False, True):
            raw = json.dumps({**body, "stream": stream}).encode()
            r = http.post(
                "/v1/chat/completions", content=raw, headers={"content-type": "application/json"}
            )
            assert r.status_code == 422, r.text
        assert chat_requests(upstream) == []
        assert stored(http, "u1") == []


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_in_a_pass_through_field_is_422(
    db_path: str, upstream: ScriptedServer, literal: str
) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        raw = json.dumps(chat())[:-1] + f', "temperature": {literal}}}'
        r = http.post(
            "/v1/chat/completions",
            content=raw.encode(),
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422 and "temperature" in r.json()["error"]["message"]
        assert chat_requests(upstream) == []


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_refusals_pass_retry_after_store_nothing_and_are_counted(
    db_path: str, upstream: ScriptedServer, stream: bool
) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        limits = {"Retry-After": "7", "x-ratelimit-remaining-requests": "0"}
        upstream.enqueue(status=429, headers=limits)
        r = http.post("/v1/chat/completions", json=chat(stream=stream))
        assert r.status_code == 429
        assert r.headers["retry-after"] == "7"
        assert r.headers["x-ratelimit-remaining-requests"] == "0"
        upstream.enqueue(status=503)
        assert http.post("/v1/chat/completions", json=chat(stream=stream)).status_code == 503
        assert stored(http, "u1") == []  # refused: nothing stored, streaming or not
        metrics = http.get("/metrics").text
        assert 'mnemo_upstream_errors_total{reason="rate_limited"} 1.0' in metrics
        assert 'mnemo_upstream_errors_total{reason="http_5xx"} 1.0' in metrics


def _ask(srv_url: str, http: httpx.Client, stream: bool) -> tuple[int, str, list[str]]:
    """One chat turn of user u1: (status, the reply text the client got, SSE payloads)."""
    if not stream:
        r = http.post("/v1/chat/completions", json=chat("talk"))
        content = r.json()["choices"][0]["message"]["content"] if r.status_code == 200 else ""
        return r.status_code, content, []
    with (
        httpx.Client(base_url=srv_url, timeout=30) as c,
        c.stream("POST", "/v1/chat/completions", json=chat("talk", stream=True)) as r,
    ):
        events = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    text = "".join(
        c["choices"][0]["delta"].get("content") or "" for c in chunks if c.get("choices")
    )
    return r.status_code, text, events


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(
    "reply",
    ["a NUL \x00 inside", "a lone \ud800 surrogate", "lone \udfff twice \x00"],
    ids=["nul", "surrogate", "both"],
)
def test_a_reply_with_unstorable_characters_reaches_the_client_and_is_stored_replaced(
    db_path: str, upstream: ScriptedServer, stream: bool, reply: str
) -> None:
    """A NUL or a lone surrogate in the upstream's reply (valid JSON escapes) is the model's
    doing, not the client's: the client gets the reply as sent (a stream to its [DONE]), and
    the stored copy has each such character replaced by U+FFFD, counted in the metadata."""
    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        upstream.enqueue_chat(reply)
        status, got, events = _ask(srv.url, http, stream)
        assert status == 200
        assert got == reply
        if stream:
            assert events[-1] == "[DONE]" and "memory_hits" in events[-2]
        user, assistant = stored(http, "u1")
        assert user["content"] == "talk"
        clean = reply.replace("\x00", "\ufffd").replace("\ud800", "\ufffd")
        assert assistant["content"] == clean.replace("\udfff", "\ufffd")
        assert assistant["metadata"]["replaced_chars"] == reply.count("\x00") + sum(
            "\ud800" <= ch <= "\udfff" for ch in reply
        )


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_reply_that_is_not_strict_json_is_a_502_and_stores_nothing(
    db_path: str, upstream: ScriptedServer, literal: str
) -> None:
    """``NaN`` and ``Infinity`` are not JSON: such a reply is not a chat completion (502, the
    turn is not stored, so a retry duplicates nothing) rather than a 500 after storing it."""
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        body = json.dumps(chat_body_with_usage())[:-1] + f', "system_fingerprint": {literal}}}'
        upstream.enqueue(raw=body.encode(), headers={"Content-Type": "application/json"})
        r = http.post("/v1/chat/completions", json=chat("talk"))
        assert r.status_code == 502, r.text
        assert "not a chat completion" in r.json()["error"]["message"]
        assert stored(http, "u1") == []


def test_a_reply_nested_too_deeply_is_a_502(db_path: str, upstream: ScriptedServer) -> None:
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        deep = "[" * 100_000 + "]" * 100_000
        body = json.dumps(chat_body_with_usage())[:-1] + f', "extra": {deep}}}'
        upstream.enqueue(raw=body.encode(), headers={"Content-Type": "application/json"})
        r = http.post("/v1/chat/completions", json=chat("talk"))
        assert r.status_code == 502, r.text
        assert stored(http, "u1") == []


def test_a_lone_surrogate_elsewhere_in_the_reply_is_passed_on(
    db_path: str, upstream: ScriptedServer
) -> None:
    """A lone surrogate in a field mnemo does not store (here ``id``) reaches the client as
    the same JSON escape, not a 500 from encoding the response."""
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        body = chat_body_with_usage() | {"id": "chatcmpl-\ud800"}
        upstream.enqueue(json=body)
        r = http.post("/v1/chat/completions", json=chat("talk"))
        assert r.status_code == 200, r.text
        assert json.loads(r.content)["id"] == "chatcmpl-\ud800"
        assert [t["content"] for t in stored(http, "u1")] == ["talk", "fine"]


def chat_body_with_usage() -> dict[str, Any]:
    """A complete upstream chat completion answering "fine"."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "fine"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def test_a_reply_in_content_parts_is_stored_as_its_text(
    db_path: str, upstream: ScriptedServer
) -> None:
    """Some upstreams answer ``content`` as a list of text parts: stored as their text."""
    with served(db_path, upstream_base_url=upstream.url) as (_, http):
        parts = [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]
        body = chat_body_with_usage()
        body["choices"][0]["message"]["content"] = parts
        upstream.enqueue(json=body)
        r = http.post("/v1/chat/completions", json=chat("talk"))
        assert r.status_code == 200, r.text
        assert r.json()["choices"][0]["message"]["content"] == parts
        assert [t["content"] for t in stored(http, "u1")] == ["talk", "part one\npart two"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_database_that_refuses_the_exchange_is_an_error_not_a_broken_stream(
    db_path: str, upstream: ScriptedServer, stream: bool
) -> None:
    """The store fails when the exchange is written (a SQLite trigger aborts every insert of a
    turn): non-streaming is a 503 without the database's details; a stream, whose reply was
    already relayed, gets one error event saying the exchange was not stored, then [DONE]."""
    with served(db_path, upstream_base_url=upstream.url) as (srv, http):
        with sqlite3.connect(db_path) as c:
            c.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON messages "
                "BEGIN SELECT RAISE(ABORT, 'secret detail of the failure'); END"
            )
        upstream.enqueue_chat("Luna is your cat")
        status, got, events = _ask(srv.url, http, stream)
        if not stream:
            assert status == 503
        else:
            assert status == 200 and got == "Luna is your cat" and events[-1] == "[DONE]"
            errors = [json.loads(e)["error"] for e in events[:-1] if "error" in json.loads(e)]
            assert [e["type"] for e in errors] == ["storage_error"]
            assert errors[0]["message"].startswith("not stored")
        assert "secret detail" not in json.dumps(events) and stored(http, "u1") == []
