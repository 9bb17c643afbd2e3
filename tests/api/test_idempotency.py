"""``Idempotency-Key`` on ``POST /v1/memories`` and ``POST /v1/messages``: a retry returns the
first result and writes nothing, whether the first attempt's answer was lost, it died before
its write, or both attempts race; the same key with another body is a 422; keys are per tenant,
expire, and go with an erased user. Real HTTP on both stores."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import served, turn
from scripted_server import ScriptedServer

from mnemo import Memory, Settings, ValidationError
from mnemo.api.app import create_app
from mnemo.api.auth import create_key
from mnemo.api.server import BackgroundServer

MEMORY = {"user_id": "u1", "content": "Ann is vegetarian", "tags": ["diet"]}
TURNS = {
    "user_id": "u1",
    "session_id": "s1",
    "messages": [turn("I booked the ferry"), turn("Great, when?", "assistant")],
}


@pytest.fixture
def client(target: dict[str, str], tmp_path: Path) -> Iterator[httpx.Client]:
    """A served API on each store."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def count(client: httpx.Client, what: str, **params: str) -> int:
    """Rows of user u1 the API lists (narrowed by ``params``)."""
    query = {"user_id": "u1", "limit": 1000, **params}
    return len(client.get(f"/v1/{what}", params=query).json()["data"])


def test_a_retried_memory_returns_the_first_result(client: httpx.Client) -> None:
    key = {"Idempotency-Key": "create-ann-1"}
    first = client.post("/v1/memories", json=MEMORY, headers=key)
    assert first.status_code == 201
    again = client.post("/v1/memories", json=MEMORY, headers=key)  # the first answer was lost
    assert again.status_code == 201 and again.json() == first.json()
    assert count(client, "memories") == 1
    other = client.post("/v1/memories", json={**MEMORY, "content": "Ann eats fish"}, headers=key)
    assert other.status_code == 422 and "different request" in other.json()["error"]["message"]
    assert count(client, "memories") == 1
    new_key = client.post("/v1/memories", json=MEMORY, headers={"Idempotency-Key": "k2"})
    assert new_key.status_code == 201 and new_key.json()["id"] != first.json()["id"]
    plain = [client.post("/v1/memories", json=MEMORY).status_code for _ in range(2)]
    assert plain == [201, 201] and count(client, "memories") == 4  # no key: two writes


def test_retried_turns_return_the_first_ids(client: httpx.Client) -> None:
    key = {"Idempotency-Key": "turns-1"}
    first = client.post("/v1/messages", json=TURNS, headers=key)
    assert first.status_code == 201 and len(first.json()["ids"]) == 2
    again = client.post("/v1/messages", json=TURNS, headers=key)
    assert again.status_code == 201 and again.json() == first.json()
    assert count(client, "messages") == 2
    swapped = {**TURNS, "messages": TURNS["messages"][::-1]}
    assert client.post("/v1/messages", json=swapped, headers=key).status_code == 422
    too_long = client.post("/v1/messages", json=TURNS, headers={"Idempotency-Key": "x" * 256})
    assert too_long.status_code == 422 and count(client, "messages") == 2


def test_racing_retries_write_once(client: httpx.Client) -> None:
    """Eight clients send the same request with the same key at once."""
    base = str(client.base_url)
    barrier = threading.Barrier(8)
    answers: list[tuple[int, Any]] = []

    def post(path: str, body: dict[str, Any], key: str) -> None:
        with httpx.Client(base_url=base, timeout=60) as own:
            barrier.wait()
            r = own.post(path, json=body, headers={"Idempotency-Key": key})
            answers.append((r.status_code, r.json()))

    for path, body in (("/v1/memories", MEMORY), ("/v1/messages", TURNS)):
        answers.clear()
        threads = [
            threading.Thread(target=post, args=(path, body, f"race{path}")) for _ in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert [a[0] for a in answers] == [201] * 8, answers
        assert all(a[1] == answers[0][1] for a in answers)
    # the memory written once (the worker may meanwhile add a rule fact of the turns: untagged)
    assert count(client, "memories", tag="diet") == 1 and count(client, "messages") == 2


def test_a_retry_after_a_failed_first_attempt_writes_once(db_path: str) -> None:
    """The first attempt reserves its key and then dies before its write (its embedder
    fails); the retry writes, under the reserved ids, and a third attempt writes nothing."""
    with ScriptedServer() as up:
        settings = Settings(
            path=db_path, embedder="openai", llm_base_url=up.url, embed_max_retries=0
        )
        srv = BackgroundServer(create_app(settings)).start()
        try:
            with httpx.Client(base_url=srv.url, timeout=30) as c:
                _fail_then_retry(up, c)
        finally:
            srv.stop()


def _fail_then_retry(up: ScriptedServer, c: httpx.Client) -> None:
    warm = {"user_id": "warm", "messages": [turn("warming up the embedder")]}
    assert c.post("/v1/messages", json=warm).status_code == 201
    up.enqueue(status=400, json={"error": {"message": "model overloaded"}})
    key = {"Idempotency-Key": "after-a-crash"}
    failed = c.post("/v1/messages", json=TURNS, headers=key)
    assert failed.status_code == 502 and count(c, "messages") == 0
    retry = c.post("/v1/messages", json=TURNS, headers=key)
    assert retry.status_code == 201 and count(c, "messages") == 2
    assert c.post("/v1/messages", json=TURNS, headers=key).json() == retry.json()
    assert count(c, "messages") == 2


def test_keys_are_per_tenant_and_erased_with_the_user(db_path: str) -> None:
    with served(db_path) as (srv, anon):
        keys = srv.server.config.app.state.mnemo.keys
        a, _ = create_key(keys, "tenant-a")
        b, _ = create_key(keys, "tenant-b")
        same = {"Idempotency-Key": "shared"}
        first = anon.post("/v1/memories", json=MEMORY, headers={**same, "X-API-Key": a})
        other = anon.post("/v1/memories", json=MEMORY, headers={**same, "X-API-Key": b})
        assert first.status_code == other.status_code == 201
        assert first.json()["id"] != other.json()["id"]  # tenant B's key is its own
        gone = anon.delete("/v1/users/u1", headers={"X-API-Key": a}).json()["deleted"]
        assert gone["idempotency_keys"] == 1 and gone["memories"] == 1
        again = anon.post("/v1/memories", json=MEMORY, headers={**same, "X-API-Key": a})
        assert again.status_code == 201 and again.json()["id"] != first.json()["id"]


def test_a_key_expires_after_its_ttl(open_mem: Any) -> None:
    mem: Memory = open_mem(idempotency_ttl_s=0.5)
    first = mem.add("tea", user_id="u", idempotency_key="k")
    assert mem.add("tea", user_id="u", idempotency_key="k").id == first.id
    with pytest.raises(ValidationError, match="different request"):
        mem.add("coffee", user_id="u", idempotency_key="k")
    time.sleep(0.6)
    later = mem.add("coffee", user_id="u", idempotency_key="k")  # a new use of the old key
    assert later.id != first.id and len(mem.list(user_id="u")) == 2
