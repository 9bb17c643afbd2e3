"""``GET /v1/jobs`` and ``POST /v1/jobs/requeue-dead`` over real HTTP, per tenant; users and
their sessions (``GET /v1/users``, ``/v1/users/{id}/sessions``)."""

from __future__ import annotations

from pathlib import Path

from api_support import served, turn

from mnemo import Memory
from mnemo.api.auth import create_key, key_store
from mnemo.storage.base import NewJob


def dead_job(db: str, tenant: str) -> None:
    """One dead job of ``tenant`` in the store at ``db`` (a kind no handler runs)."""
    with Memory(db, embedder="hashing", tenant=tenant) as mem:
        mem.store.jobs.enqueue(
            [NewJob(kind="nobody.handles", payload={}, tenant=tenant, user_id="u")]
        )
        mem.drain()


def test_jobs_listed_and_dead_ones_requeued_within_the_callers_tenant(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    with Memory(db, embedder="hashing") as mem:
        key_a, _ = create_key(key_store(mem.store), "a")
        key_b, _ = create_key(key_store(mem.store), "b")
    dead_job(db, "a")
    dead_job(db, "b")
    with served(db, serve_worker=False) as (_, client):
        a = {"X-API-Key": key_a}
        assert client.get("/v1/jobs").status_code == 401
        assert client.post("/v1/jobs/requeue-dead").status_code == 401
        [job] = client.get("/v1/jobs", params={"status": "dead"}, headers=a).json()["data"]
        assert job["user_id"] == "u" and "no handler" in job["last_error"]
        assert client.post("/v1/jobs/requeue-dead", headers=a).json() == {"requeued": 1}
        assert client.post("/v1/jobs/requeue-dead", headers=a).json() == {"requeued": 0}
        assert client.get("/v1/jobs", params={"status": "dead"}, headers=a).json()["data"] == []
        b = client.get("/v1/jobs", headers={"X-API-Key": key_b}).json()["data"]
        assert [j["status"] for j in b] == ["dead"]  # tenant b's dead job stayed dead
        bad = client.get("/v1/jobs", params={"status": "zombie"}, headers=a)
        assert bad.status_code == 422 and "status" in bad.json()["error"]["message"]
        assert client.get("/v1/jobs", params={"limit": 0}, headers=a).status_code == 422


def test_jobs_page_with_their_total(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    with Memory(db, embedder="hashing") as mem:
        mem.store.jobs.enqueue([NewJob(kind="nobody.handles", payload={}, user_id="u")] * 5)
        ids = [j.id for j in mem.jobs()]
    with served(db, serve_worker=False) as (_, client):
        seen, offset = [], 0
        while offset is not None:
            page = client.get("/v1/jobs", params={"limit": 2, "offset": offset}).json()
            assert page["total"] == 5 and len(page["data"]) <= 2
            seen += [j["id"] for j in page["data"]]
            offset = page["next_offset"]
        assert seen == ids
        assert client.get("/v1/jobs", params={"offset": 10_000}).status_code == 422


def test_users_and_sessions(tmp_path: Path) -> None:
    with served(str(tmp_path / "m.db"), serve_worker=False) as (_, client):
        for session in ("s1", "s2"):
            body = {"user_id": "ann", "session_id": session, "messages": [turn("hello")]}
            assert client.post("/v1/messages", json=body).status_code == 201
        client.post("/v1/memories", json={"user_id": "bob", "content": "Bob likes tea"})
        page = client.get("/v1/users", params={"limit": 1}).json()
        assert [u["user_id"] for u in page["data"]] == ["ann"] and page["next_offset"] == 1
        assert page["data"][0]["sessions"] == 2 and page["data"][0]["messages"] == 2
        rest = client.get("/v1/users", params={"offset": 1}).json()
        assert [u["user_id"] for u in rest["data"]] == ["bob"] and rest["next_offset"] is None
        sessions = client.get("/v1/users/ann/sessions").json()
        assert sorted(s["session_id"] for s in sessions["data"]) == ["s1", "s2"]
        assert client.get("/v1/users/nobody/sessions").json()["data"] == []
        assert client.get("/v1/users", params={"limit": 0}).status_code == 422
