"""Who may use the server, over real HTTP: while it has no API keys it serves only loopback
clients, and only for ``Host`` names that are loopback or listed in ``allowed_hosts`` (DNS
rebinding); with keys, the key rules. ``app_from_env`` checks the bind address too, and
``/metrics`` needs a key once keys exist unless ``metrics_public``."""

from __future__ import annotations

import socket

import httpx
import pytest
from api_support import served

from mnemo import ConfigError, Settings
from mnemo.api.app import app_from_env, create_app
from mnemo.api.auth import create_key, is_loopback
from mnemo.api.hosts import host_name
from mnemo.api.server import BackgroundServer

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


def local_address() -> str | None:
    """A non-loopback address of this machine (None when it has only loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))  # no packet is sent; picks the outgoing address
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if is_loopback(address) else address


def test_an_open_server_bound_wide_serves_only_loopback_clients(db_path: str) -> None:
    """As ``uvicorn --factory ... --host 0.0.0.0`` without keys would run it."""
    address = local_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address to connect from")
    app = create_app(Settings(path=db_path, embedder="hashing"))
    srv = BackgroundServer(app, host="0.0.0.0").start()
    try:
        with httpx.Client(base_url=f"http://{address}:{srv.port}", timeout=10) as remote:
            r = remote.get("/v1/memories", headers={"Host": "localhost"})
            assert r.status_code == 403 and "local clients" in r.json()["error"]["message"]
        with httpx.Client(base_url=f"http://127.0.0.1:{srv.port}", timeout=10) as local:
            assert local.get("/v1/memories").status_code == 200
    finally:
        srv.stop()


def test_app_from_env_checks_the_bind_address(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMO_PATH", db_path)
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    monkeypatch.setenv("MNEMO_HOST", "0.0.0.0")
    with pytest.raises(ConfigError, match="without API keys"):
        app_from_env()
    monkeypatch.setenv("MNEMO_HOST", "127.0.0.1")
    assert app_from_env().state.mnemo.require_keys is False


def test_metrics_need_a_key_once_keys_exist_unless_public(db_path: str) -> None:
    with served(db_path) as (srv, client):
        assert client.get("/metrics").status_code == 200  # open server: local clients
        key, _ = create_key(srv.server.config.app.state.mnemo.keys, "t1")
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"X-API-Key": key}).status_code == 200
    with served(db_path, metrics_public=True) as (_, client):
        r = client.get("/metrics", headers={"Host": "scraper.lan"})
        assert r.status_code == 200 and "mnemo_http_requests" in r.text
