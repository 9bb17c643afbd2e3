"""The worker thread inside the server runs each turn job with its own tenant's handler."""

from __future__ import annotations

import time
from typing import Any

import httpx

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.auth import create_key
from mnemo.api.server import running


def test_server_worker_runs_jobs_per_tenant(db_path: str) -> None:
    app = create_app(Settings(path=db_path, embedder="hashing", worker_poll_s=0.05))
    state = app.state.mnemo
    ran: dict[str, list[dict[str, Any]]] = {"default": [], "acme": []}
    for tenant in ran:
        state.tenants.get(tenant).handlers["turns.record"] = ran[tenant].append
    key, _ = create_key(state.keys, "acme")
    with running(app) as srv, httpx.Client(base_url=srv.url, headers={"X-API-Key": key}) as http:
        body = {"user_id": "u1", "messages": [{"role": "user", "content": "I moved to Oslo"}]}
        ids = http.post("/v1/messages", json=body).json()["ids"]
        deadline = time.monotonic() + 10
        done: list[Any] = []
        while not done and time.monotonic() < deadline:
            time.sleep(0.05)
            done = state.tenants.get("acme").store.jobs.list_jobs(status="done")
    assert [p["message_ids"] for p in ran["acme"]] == [ids]
    assert ran["acme"][0]["tenant"] == "acme" and ran["default"] == []


def test_worker_can_be_turned_off(db_path: str) -> None:
    app = create_app(Settings(path=db_path, embedder="hashing", serve_worker=False))
    app.state.mnemo.tenants.get("default").handlers["turns.record"] = lambda p: None
    with running(app) as srv:
        body = {"user_id": "u1", "messages": [{"role": "user", "content": "hi"}]}
        httpx.post(srv.url + "/v1/messages", json=body)
        time.sleep(0.3)
        jobs = app.state.mnemo.tenants.get("default").store.jobs.list_jobs()
    assert jobs and {j.status for j in jobs} == {"pending"}  # no worker ran them
