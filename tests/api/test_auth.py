"""API keys and tenant isolation: a key of tenant A never reaches tenant B's data, on any route."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import served
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from mnemo import ConfigError, Memory, Settings
from mnemo.api.auth import check_bind, create_key, is_loopback, key_store
from mnemo.api.server import build
from mnemo.cli.main import app as cli_app
from mnemo.storage import open_store

SECRET = "the launch code is 4521"


@pytest.fixture
def two_tenants(
    db_path: str,
) -> Iterator[tuple[httpx.Client, httpx.Client, httpx.Client, ScriptedServer]]:
    with ScriptedServer() as up, served(db_path, upstream_base_url=up.url) as (srv, anon):
        keys = srv.server.config.app.state.mnemo.keys
        key_a, _ = create_key(keys, "tenant-a")
        key_b, _ = create_key(keys, "tenant-b")
        with (
            httpx.Client(base_url=srv.url, headers={"X-API-Key": key_a}) as a,
            httpx.Client(base_url=srv.url, headers={"Authorization": f"Bearer {key_b}"}) as b,
        ):
            yield a, b, anon, up


def seed_a(a: httpx.Client) -> dict[str, Any]:
    item = a.post("/v1/memories", json={"user_id": "u1", "content": SECRET, "tags": ["t"]}).json()
    a.post("/v1/messages", json={"user_id": "u1", "session_id": "s1",
                                 "messages": [{"role": "user", "content": SECRET}]})  # fmt: skip
    return item  # type: ignore[no-any-return]


def routes(mem_id: str) -> list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]]:
    """Every tenant-scoped route: (method, path, query params, json body)."""
    q = {"user_id": "u1", "query": "launch code 4521"}
    chat = {"model": "m", "user": "u1", "memory_id": "s1",
            "messages": [{"role": "user", "content": "what is the launch code 4521"}]}  # fmt: skip
    return [
        ("GET", "/v1/memories", {"user_id": "u1"}, None),
        ("GET", "/v1/memories", None, None),
        ("GET", f"/v1/memories/{mem_id}", None, None),
        ("PATCH", f"/v1/memories/{mem_id}", None, {"content": "hijacked"}),
        ("GET", f"/v1/memories/{mem_id}/history", None, None),
        ("DELETE", f"/v1/memories/{mem_id}", None, None),
        ("POST", "/v1/search", None, q),
        ("GET", "/v1/messages", {"user_id": "u1"}, None),
        ("GET", "/v1/messages", None, None),
        ("POST", "/v1/context", None, q),
        ("GET", "/v1/users/u1/profile", None, None),
        ("GET", "/v1/users", None, None),
        ("GET", "/v1/users/u1/sessions", None, None),
        ("GET", "/v1/users/u1/audit", None, None),
        ("POST", "/v1/users/u1/audit/fix", None, None),
        ("GET", "/v1/users/u1/entities", None, None),
        ("GET", "/v1/users/u1/entities/ent_x", None, None),
        ("GET", "/v1/jobs", None, None),
        ("POST", "/v1/jobs/requeue-dead", None, None),
        ("POST", "/v1/sweep", None, None),
        (
            "POST",
            "/query",
            None,
            {"user_id": "u1", "query": "do you remember the launch code 4521?"},
        ),
        ("POST", "/v1/chat/completions", None, chat),
        *([("GET", "/v1/topics", {"user_id": "u1"}, None)] if hasattr(Memory, "topics") else []),
        ("POST", "/v1/memories", None, {"user_id": "u1", "content": "b's own fact"}),
        (
            "POST",
            "/v1/messages",
            None,
            {"user_id": "u1", "messages": [{"role": "user", "content": "b"}]},
        ),
        ("POST", "/v1/memories/count", None, {"user_id": "u1", "filters": {"kind": "fact"}}),
        ("POST", "/v1/memories/delete", None, {"user_id": "u1", "filters": {"kind": "fact"}}),
        ("POST", "/v1/memories/delete", None, {"user_id": "u1", "agent_id": "a1"}),
        ("DELETE", "/v1/agents/a1", None, None),
        ("DELETE", "/v1/users/u1", None, None),
        ("GET", "/v1/models", None, None),
        # mem0's server routes (mnemo.api.mem0_routes)
        ("GET", "/mem0/memories", {"user_id": "u1"}, None),
        ("GET", f"/mem0/memories/{mem_id}", None, None),
        ("PUT", f"/mem0/memories/{mem_id}", None, {"text": "hijacked"}),
        ("GET", f"/mem0/memories/{mem_id}/history", None, None),
        ("DELETE", f"/mem0/memories/{mem_id}", None, None),
        ("POST", "/mem0/search", None, {**q, "filters": {"user_id": "u1"}}),
        (
            "POST",
            "/mem0/memories",
            None,
            {"user_id": "u1", "messages": [{"role": "user", "content": "b"}]},
        ),
        ("DELETE", "/mem0/memories", {"user_id": "u1"}, None),
        ("POST", "/mem0/import", None, [{"id": "m0-b", "memory": "b's import", "user_id": "u1"}]),
        ("POST", "/mem0/reset", None, None),
    ]


def test_every_route_is_covered(two_tenants: Any) -> None:
    a, *_ = two_tenants
    spec = a.get("/openapi.json").json()["paths"]
    covered = {
        (
            m,
            p.replace("mem_x", "{memory_id}")
            .replace("ent_x", "{name_or_id}")
            .replace("/u1", "/{user_id}")
            .replace("/a1", "/{agent_id}"),
        )
        for m, p, *_ in routes("mem_x")
    }
    for path, ops in spec.items():
        for method in ops:
            if path not in ("/health", "/metrics"):
                assert (method.upper(), path) in covered, (method, path)


def test_tenant_b_never_sees_or_changes_tenant_a(two_tenants: Any) -> None:
    a, b, _, up = two_tenants
    item = seed_a(a)
    agents = {"user_id": "u1", "agent_id": "a1", "content": SECRET}
    private = a.post("/v1/memories", json=agents).json()
    for method, path, params, body in routes(item["id"]):
        if path == "/v1/models":
            assert all(SECRET not in r.body.decode() for r in up.requests)  # nothing of A upstream
            up.reset()
            up.enqueue(json={"object": "list", "data": []})
        r = b.request(method, path, params=params, json=body)
        assert SECRET not in r.text, (method, path)
        assert r.status_code in (200, 201, 404), (method, path, r.status_code, r.text)
        if path.startswith(("/v1/memories/mem_", "/mem0/memories/mem_")):
            assert r.status_code == 404, (method, path)
    # A's data is untouched by all of B's writes and its erasure of "u1"
    assert a.get(f"/v1/memories/{item['id']}").json()["content"] == SECRET
    a_turns = a.get("/v1/messages", params={"user_id": "u1"}).json()["data"]
    assert a_turns[0]["content"] == SECRET
    hits = a.post("/v1/search", json={"user_id": "u1", "query": "launch code 4521"}).json()["data"]
    assert SECRET in {h["content"] for h in hits}
    assert "b's own fact" not in a.get("/v1/memories").text
    assert a.get(f"/v1/memories/{private['id']}").json()["agent_id"] == "a1"  # B's delete_agent


def test_a_list_without_user_id_is_the_whole_tenant_and_the_page_says_so(
    two_tenants: Any,
) -> None:
    """``GET /v1/memories`` (and ``/v1/messages``) without ``user_id`` lists every user of the
    key's tenant, never another tenant's: tenant-scoped by design, and docs/server.md says so
    where the routes are listed."""
    a, b, _, _ = two_tenants
    for who, client in (("ann", a), ("bob", a), ("eve", b)):
        client.post("/v1/memories", json={"user_id": who, "content": f"{who} likes tea"})
        turn = {"user_id": who, "messages": [{"role": "user", "content": f"{who} says hi"}]}
        client.post("/v1/messages", json=turn)
    for path in ("/v1/memories", "/v1/messages"):
        assert sorted(m["user_id"] for m in a.get(path).json()["data"]) == ["ann", "bob"]
        assert [m["user_id"] for m in b.get(path).json()["data"]] == ["eve"]
    page = (Path(__file__).resolve().parents[2] / "docs" / "server.md").read_text("utf-8")
    memories = next(line for line in page.splitlines() if line.startswith("| `GET /v1/memories`"))
    said = "`user_id` (optional: without it the list holds every user's memories in the tenant"
    assert said in memories and "which the API key selects" in memories
    messages = next(line for line in page.splitlines() if "`GET /v1/messages` |" in line)
    assert "without `user_id`, every user's turns in the tenant" in messages


def test_keys_are_required_once_they_exist(two_tenants: Any) -> None:
    a, _, anon, _ = two_tenants
    for method, path, params, body in routes("mem_x"):
        r = anon.request(method, path, params=params, json=body)
        assert r.status_code == 401, (method, path)
        assert r.json()["error"]["type"] == "unauthorized"
    assert anon.get("/health").status_code == 200
    bad = anon.get("/v1/memories", headers={"X-API-Key": "mnemo_nope_nope"})
    assert bad.status_code == 401
    assert a.get("/v1/memories").status_code == 200


def test_revoked_key_and_hash_at_rest(db_path: str) -> None:
    store = open_store(Settings(path=db_path))
    keys = key_store(store)
    key, record = create_key(keys, "acme", "ci")
    assert keys.tenant_of(key) is None  # looked up by hash only
    assert keys.revoke(record["id"]) and not keys.revoke(record["id"])
    assert not keys.any_live()
    store.close()
    raw = sqlite3.connect(db_path).execute("SELECT * FROM api_keys").fetchall()
    assert key not in repr(raw) and key.split("_", 2)[2] not in repr(raw)
    with served(db_path, require_keys=True) as (_, http):
        assert http.get("/v1/memories", headers={"X-API-Key": key}).status_code == 401
        assert http.get("/v1/memories").status_code == 401  # no keys + required: closed


def test_non_loopback_bind_needs_keys(db_path: str) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    settings = Settings(path=db_path, embedder="hashing")
    with pytest.raises(ConfigError, match="without API keys"):
        build(settings, "0.0.0.0")
    store = open_store(settings)
    create_key(key_store(store), "acme")
    check_bind("0.0.0.0", key_store(store))  # keys exist: allowed
    store.close()
    app = build(settings, "0.0.0.0")
    assert app.state.mnemo.require_keys is True
    app.state.mnemo.tenants.close()


def test_keys_cli(db_path: str) -> None:
    runner = CliRunner()
    out = runner.invoke(
        cli_app, ["keys", "create", "--tenant", "acme", "--name", "ci", "--db", db_path]
    )
    assert out.exit_code == 0, out.output
    key = out.output.strip().splitlines()[-1]
    assert key.startswith("mnemo_")
    listed = runner.invoke(cli_app, ["keys", "list", "--db", db_path])
    key_id = key.split("_")[1]
    assert key_id in listed.output and key not in listed.output
    assert runner.invoke(cli_app, ["keys", "revoke", key_id, "--db", db_path]).exit_code == 0
    again = runner.invoke(cli_app, ["keys", "revoke", key_id, "--db", db_path])
    assert again.exit_code == 2 and "no live key" in again.output
    bad = runner.invoke(cli_app, ["keys", "create", "--tenant", "", "--db", db_path])
    assert bad.exit_code == 2
