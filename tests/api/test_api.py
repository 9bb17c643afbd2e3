"""The REST API through real HTTP: CRUD, pagination, search, turns, context, users, errors."""

from __future__ import annotations

import time

import httpx
import pytest
from api_support import served, turn


@pytest.fixture
def client(target: dict[str, str], tmp_path):  # type: ignore[no-untyped-def]
    """A served API on each store (conftest's ``backend``)."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def test_health_openapi_and_metrics(client: httpx.Client) -> None:
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["embedder"].startswith("hashing")
    assert health["auth"] is False and health["upstream"] is False
    spec = client.get("/openapi.json").json()
    for path in ("/v1/memories", "/v1/search", "/v1/messages", "/v1/context", "/query",
                 "/v1/users/{user_id}/profile", "/v1/users/{user_id}", "/v1/chat/completions",
                 "/v1/models", "/health", "/metrics"):  # fmt: skip
        assert path in spec["paths"], path
    assert client.get("/docs").status_code == 200
    text = client.get("/metrics").text
    assert 'mnemo_http_requests_total{method="GET",route="/health",status="200"} 1.0' in text


def test_memory_crud_history_and_errors(client: httpx.Client) -> None:
    r = client.post(
        "/v1/memories", json={"user_id": "u1", "content": "Ann is vegetarian", "tags": ["diet"]}
    )
    assert r.status_code == 201
    item = r.json()
    assert item["kind"] == "fact" and item["tags"] == ["diet"]
    got = client.get(f"/v1/memories/{item['id']}").json()
    assert got["content"] == "Ann is vegetarian"
    patched = client.patch(f"/v1/memories/{item['id']}", json={"content": "Ann is vegan"}).json()
    assert patched["content"] == "Ann is vegan"
    assert client.delete(f"/v1/memories/{item['id']}").json()["deleted_at"] is not None
    gone = client.get(f"/v1/memories/{item['id']}")
    assert gone.status_code == 404 and "deleted" in gone.json()["error"]["message"]
    events = client.get(f"/v1/memories/{item['id']}/history").json()["data"]
    assert [e["event"] for e in events] == ["ADD", "UPDATE", "DELETE"]
    bad = client.post("/v1/memories", json={"user_id": "u1", "content": "x", "importance": 3})
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "invalid_request"
    assert client.patch(f"/v1/memories/{item['id']}", json={}).status_code in (404, 422)
    assert client.get("/v1/memories/msg_123").status_code == 404
    nothing = client.post(
        "/v1/memories", content=b"not json", headers={"content-type": "application/json"}
    )
    assert nothing.status_code == 422 and "message" in nothing.json()["error"]


def test_list_pagination(client: httpx.Client) -> None:
    for i in range(5):
        client.post("/v1/memories", json={"user_id": "u1", "content": f"fact {i}", "kind": "note"})
    seen, offset = [], 0
    while offset is not None:
        page = client.get(
            "/v1/memories", params={"user_id": "u1", "limit": 2, "offset": offset}
        ).json()
        assert len(page["data"]) <= 2 and page["total"] == 5  # "2 of 5" on every page
        seen += [m["content"] for m in page["data"]]
        offset = page["next_offset"]
    assert seen == [f"fact {i}" for i in range(4, -1, -1)]
    body = {"user_id": "u1", "session_id": "s", "messages": [turn(f"t{i}") for i in range(3)]}
    client.post("/v1/messages", json=body)
    turns = client.get("/v1/messages", params={"user_id": "u1", "limit": 2}).json()
    assert (turns["total"], turns["next_offset"], len(turns["data"])) == (3, 2, 2)
    users = client.get("/v1/users", params={"limit": 1}).json()
    assert (users["total"], users["next_offset"]) == (1, None)
    assert client.get("/v1/memories", params={"limit": 0}).status_code == 422
    assert client.get("/v1/memories", params={"kind": "bogus"}).status_code == 422


def test_messages_search_and_context(client: httpx.Client) -> None:
    turns = [
        turn("I adopted a cat named Luna", created_at="2024-01-02T10:00:00"),
        turn("Lovely!", "assistant"),
    ]
    r = client.post("/v1/messages", json={"user_id": "u1", "session_id": "s1", "messages": turns})
    assert r.status_code == 201 and len(r.json()["ids"]) == 2
    listed = client.get("/v1/messages", params={"user_id": "u1", "session_id": "s1"}).json()
    assert [m["content"] for m in listed["data"]] == ["I adopted a cat named Luna", "Lovely!"]
    hits = client.post(
        "/v1/search", json={"user_id": "u1", "query": "cat Luna", "explain": True}
    ).json()
    assert hits["data"][0]["content"] == "I adopted a cat named Luna"
    assert "fused" in hits["data"][0]["scores"]
    ctx = client.post(
        "/v1/context", json={"user_id": "u1", "query": "cat", "budget_tokens": 200}
    ).json()
    assert "I adopted a cat named Luna" in ctx["text"] and ctx["token_count"] <= 200
    bad = client.post(
        "/v1/messages", json={"user_id": "u1", "messages": [{"role": "robot", "content": "x"}]}
    )
    assert bad.status_code == 422
    assert (
        client.get("/v1/messages", params={"user_id": "u1"}).json()["data"][-1]["content"]
        == "Lovely!"
    )


def test_profile_from_the_server_worker_and_erase_user(db_path: str) -> None:
    with served(db_path, profile_enabled=True, fact_extraction="off") as (_, client):
        profile_then_erase(client)


def profile_then_erase(client: httpx.Client) -> None:
    client.post("/v1/messages", json={"user_id": "u1", "messages": [turn("My name is Alex.")]})
    client.post("/v1/memories", json={"user_id": "u1", "content": "likes tea"})
    deadline, facts = time.monotonic() + 15, []
    while not facts and time.monotonic() < deadline:  # the worker thread runs the profile job
        time.sleep(0.1)
        facts = client.get("/v1/users/u1/profile").json()["facts"]
    assert [(f["key"], f["value"]) for f in facts] == [("name", "Alex")]
    assert client.get("/v1/users/u1/profile", params={"min_importance": 2}).status_code == 422
    erased = client.delete("/v1/users/u1").json()
    assert erased["deleted"]["messages"] == 1 and erased["deleted"]["memories"] == 1
    assert client.get("/v1/users/u1/profile").json()["facts"] == []
    assert client.get("/v1/memories", params={"user_id": "u1"}).json()["data"] == []


def test_query_endpoint_rule_based(client: httpx.Client) -> None:
    client.post("/v1/memories", json={"user_id": "u1", "content": "My favourite colour is teal"})
    r = client.post(
        "/query", json={"user_id": "u1", "query": "do you remember my favourite colour?"}
    )
    body = r.json()
    assert r.status_code == 200
    assert set(body) >= {"response", "citations", "memory_context", "intent", "agents_used",
                         "need_memory", "memory_reason"}  # fmt: skip
    assert body["intent"] == "memory_recall" and body["need_memory"] is True
    assert "teal" in body["response"] and body["answered_by"] == "rules"
    assert body["agents_used"] == ["coordinator", "memory", "writer"]
    assert body["citations"][0]["content"] == "My favourite colour is teal"
    assert set(body["memory_context"]) == {"context", "recent_messages", "summaries", "memories"}
    hello = client.post("/query", json={"user_id": "u1", "query": "hello"}).json()
    assert hello["intent"] == "greeting" and hello["need_memory"] is False
    stored = client.get("/v1/messages", params={"user_id": "u1"}).json()["data"]
    assert [m["role"] for m in stored] == ["user", "assistant", "user", "assistant"]


def test_intent_keywords_then_embeddings() -> None:
    from mnemo.api.intent import detect
    from mnemo.embedders.hashing import HashingEmbedder

    embedder = HashingEmbedder(dim=384)
    assert detect("Do you remember my dog?", embedder).name == "memory_recall"
    story = detect("a short story for me please", embedder)
    assert story.name == "writing" and "embedding" in story.reason and story.need_memory
    off = detect("what did I say?", embedder, use_memory=False)
    assert off.need_memory is False and off.reason == "use_memory is false"


def test_query_answers_with_the_llm_and_falls_back_on_5xx(db_path: str) -> None:
    from scripted_server import ScriptedServer

    with ScriptedServer() as up, served(db_path, upstream_base_url=up.url) as (_, client):
        client.post("/v1/memories", json={"user_id": "u1", "content": "My dog is called Rex"})
        up.enqueue_chat("Your dog is Rex.")
        body = {"user_id": "u1", "query": "do you remember my dog's name? Rex"}
        llm = client.post("/query", json=body).json()
        assert llm["response"] == "Your dog is Rex." and llm["answered_by"] == "llm"
        system = up.requests[-1].json["messages"][0]["content"]
        assert "My dog is called Rex" in system
        up.enqueue(status=503)
        rules = client.post("/query", json=body).json()
        assert rules["answered_by"] == "rules" and "Rex" in rules["response"]
