"""DNS-rebinding protection over real HTTP: while the server has no API keys it answers only
for ``Host`` names that are loopback or listed in ``allowed_hosts``; with keys, the key rules."""

from __future__ import annotations

import httpx
import pytest
from api_support import served

from mnemo.api.auth import create_key
from mnemo.api.hosts import host_name

ROUTES = [
    ("GET", "/v1/memories", None),
    ("GET", "/v1/messages", None),
    ("POST", "/v1/search", {"user_id": "u1", "query": "secret"}),
    ("POST", "/v1/context", {"user_id": "u1", "query": "secret"}),
    ("POST", "/v1/memories", {"user_id": "u1", "content": "planted"}),
    ("DELETE", "/v1/users/u1", None),
]


def call(client: httpx.Client, method: str, path: str, body: object, host: str) -> httpx.Response:
    return client.request(method, path, json=body, headers={"Host": host})


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_foreign_host_is_refused_while_open(
    db_path: str, method: str, path: str, body: object
) -> None:
    with served(db_path) as (_, client):
        client.post("/v1/memories", json={"user_id": "u1", "content": "the secret is 42"})
        r = call(client, method, path, body, "attacker.example:8000")
        assert r.status_code == 403, r.text
        assert r.json()["error"]["type"] == "forbidden_host"
        assert "allowed_hosts" in r.json()["error"]["message"]
        assert len(client.get("/v1/memories").json()["data"]) == 1  # nothing changed


@pytest.mark.parametrize(
    "host", ["localhost", "LOCALHOST:8000", "127.0.0.1:8000", "127.0.0.2", "[::1]:8000", "::1"]
)
def test_loopback_names_are_served(db_path: str, host: str) -> None:
    with served(db_path) as (_, client):
        assert call(client, "GET", "/v1/memories", None, host).status_code == 200


def test_allowed_hosts_extend_the_list(db_path: str) -> None:
    with served(db_path, allowed_hosts="box.lan, Other.Example") as (_, client):
        assert call(client, "GET", "/v1/memories", None, "box.lan:8000").status_code == 200
        assert call(client, "GET", "/v1/memories", None, "other.example").status_code == 200
        assert call(client, "GET", "/v1/memories", None, "box.lan.evil").status_code == 403


def test_with_keys_any_host_may_carry_a_key(db_path: str) -> None:
    with served(db_path) as (srv, client):
        key, _ = create_key(srv.server.config.app.state.mnemo.keys, "t1")
        r = client.get("/v1/memories", headers={"Host": "api.example.com", "X-API-Key": key})
        assert r.status_code == 200
        assert call(client, "GET", "/v1/memories", None, "api.example.com").status_code == 401


def test_host_name_parsing() -> None:
    assert host_name("[::1]:8000") == "::1"
    assert host_name("Example.COM.:443") == "example.com"
    assert host_name("::1") == "::1"
    assert host_name("") == ""
