"""MCP over streamable HTTP: the SDK's client against a real uvicorn on 127.0.0.1 serving
``mnemo serve``'s app (REST + MCP at /mcp) or ``mnemo mcp --http``, behind API keys."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from mcp_support import ROOT, data, error_text, http_client, run

from mnemo import Memory, Settings
from mnemo.api.auth import create_key, key_store
from mnemo.api.server import BackgroundServer
from mnemo.cli.mcp import http_app, serve_app
from mnemo.errors import ConfigError
from mnemo.storage import open_store

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def keys_for(db_path: str, *tenants: str) -> list[str]:
    """One new API key per tenant in the store at ``db_path``."""
    store = open_store(Settings(path=db_path, embedder="hashing"))
    try:
        return [create_key(key_store(store), t)[0] for t in tenants]
    finally:
        store.close()


@contextmanager
def serving(db_path: str) -> Iterator[str]:
    """``mnemo serve``'s app on a free loopback port; yields the MCP URL."""
    app = serve_app(Settings(path=db_path, embedder="hashing"), "127.0.0.1")
    srv = BackgroundServer(app).start()
    try:
        yield f"{srv.url}/mcp"
    finally:
        srv.stop()


def test_remember_recall_update_forget_over_http(db_path: str) -> None:
    (key,) = keys_for(db_path, "acme")

    async def body(url: str) -> None:
        async with http_client(url, key) as client:
            mid = data(
                await client.call_tool("remember", {"user_id": "ann", "content": "Ann likes tea"})
            )["ids"][0]
            hits = data(await client.call_tool("recall", {"query": "tea", "user_id": "ann"}))
            assert hits["hits"][0]["id"] == mid
            data(
                await client.call_tool(
                    "update_memory", {"memory_id": mid, "content": "Ann likes green tea"}
                )
            )
            hits = data(await client.call_tool("recall", {"query": "green", "user_id": "ann"}))
            assert hits["hits"][0]["content"] == "Ann likes green tea"
            data(await client.call_tool("forget_memory", {"memory_id": mid}))
            hits = data(await client.call_tool("recall", {"query": "tea", "user_id": "ann"}))
            assert hits["hits"] == []
            bad = await client.call_tool(
                "context", {"query": "x", "user_id": "ann", "budget_tokens": -1}
            )
            assert "budget_tokens" in error_text(bad)

    with serving(db_path) as url:
        run(lambda: body(url))
    with Memory(db_path, embedder="hashing", tenant="acme") as mem:
        assert mem.list("ann", include_deleted=True)[0].content == "Ann likes green tea"


def test_a_key_of_tenant_a_cannot_read_or_forget_tenant_b(db_path: str) -> None:
    key_a, key_b = keys_for(db_path, "tenant-a", "tenant-b")

    async def body(url: str) -> None:
        async with http_client(url, key_b) as b:
            secret = data(
                await b.call_tool("remember", {"user_id": "bob", "content": "Bob's PIN is 4321"})
            )["ids"][0]
        async with http_client(url, key_a) as a:
            for tool, args in (
                ("get_memory", {"memory_id": secret}),
                ("forget_memory", {"memory_id": secret}),
                ("update_memory", {"memory_id": secret, "content": "hijacked"}),
            ):
                assert "NotFoundError" in error_text(await a.call_tool(tool, args)), tool
            hits = data(await a.call_tool("recall", {"query": "PIN", "user_id": "bob"}))
            assert hits["hits"] == []
            listed = data(await a.call_tool("list_memories", {"user_id": "bob"}))
            assert listed["memories"] == []
            res = await a.read_resource("mnemo://users/bob/memories")
            assert "PIN is 4321" not in getattr(res.contents[0], "text", "")
            erased = data(await a.call_tool("forget_user", {"user_id": "bob", "confirm": True}))
            assert sum(erased["deleted"].values()) == 0
        async with http_client(url, key_b) as b:
            still = data(await b.call_tool("get_memory", {"memory_id": secret}))
            assert still["content"] == "Bob's PIN is 4321" and still["tenant"] == "tenant-b"

    with serving(db_path) as url:
        run(lambda: body(url))


def test_missing_or_bad_keys_get_401_and_sessions_belong_to_their_tenant(db_path: str) -> None:
    key_a, key_b = keys_for(db_path, "tenant-a", "tenant-b")
    with serving(db_path) as url, httpx.Client(timeout=30) as http:
        assert http.post(url, json=INIT, headers=ACCEPT).status_code == 401
        bad = {**ACCEPT, "Authorization": "Bearer mnemo_nope_nope"}
        assert http.post(url, json=INIT, headers=bad).status_code == 401
        assert http.post(url, json=INIT, headers={**ACCEPT, "X-API-Key": "x"}).status_code == 401
        opened = http.post(url, json=INIT, headers={**ACCEPT, "X-API-Key": key_a})
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        as_b = {**ACCEPT, "Authorization": f"Bearer {key_b}", "mcp-session-id": session}
        assert http.post(url, json=ping, headers=as_b).status_code == 404
        as_a = {**ACCEPT, "Authorization": f"Bearer {key_a}", "mcp-session-id": session}
        assert http.post(url, json=ping, headers=as_a).status_code == 200
        # the REST API of the same server still answers beside /mcp
        health = http.get(url.removesuffix("/mcp") + "/health")
        assert health.json()["auth"] is True


def test_open_loopback_server_uses_the_configured_tenant(db_path: str) -> None:
    async def body(url: str) -> None:
        async with http_client(url) as client:
            data(await client.call_tool("remember", {"user_id": "ann", "content": "open door"}))

    with serving(db_path) as url:
        run(lambda: body(url))
    with Memory(db_path, embedder="hashing") as mem:
        assert [m.content for m in mem.list("ann")] == ["open door"]


def test_standalone_http_refuses_a_public_address_without_keys(db_path: str) -> None:
    with pytest.raises(ConfigError, match="without API keys"):
        http_app(Settings(path=db_path, embedder="hashing"), "0.0.0.0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_mnemo_mcp_http_subprocess_serves_tenants_by_key(db_path: str) -> None:
    key_a, key_b = keys_for(db_path, "tenant-a", "tenant-b")
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MNEMO_PATH": db_path,
        "MNEMO_EMBEDDER": "hashing",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mnemo", "mcp", "--http", "--port", str(port)],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(url, json=INIT, headers=ACCEPT, timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "mnemo mcp --http did not start"
                time.sleep(0.2)

        async def body() -> None:
            async with http_client(url, key_a) as a:
                mid = data(await a.call_tool("remember", {"user_id": "u", "content": "A's"}))
            async with http_client(url, key_b) as b:
                got = await b.call_tool("get_memory", {"memory_id": mid["ids"][0]})
                assert "NotFoundError" in error_text(got)
            async with http_client(url, key_a) as a:
                hits = data(await a.call_tool("recall", {"query": "A's", "user_id": "u"}))
                assert hits["hits"][0]["content"] == "A's"

        run(body)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
