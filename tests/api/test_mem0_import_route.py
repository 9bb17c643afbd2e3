"""POST /mem0/import over real HTTP on both stores: a mem0 dump's memories land in the
caller's tenant with their ids (found again by the mem0 routes), scopes, metadata and times;
a repeated call skips them; a bad dump is a 422 naming the item and writes nothing; another
tenant sees none of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_support import served

DUMP = {
    "results": [
        {"id": "m0-1", "memory": "Is allergic to peanuts", "metadata": {"category": "health"},
         "created_at": "2025-03-01T09:30:00-05:00", "user_id": "sam"},
        {"id": "m0-2", "memory": "Prefers short answers", "user_id": "sam",
         "agent_id": "helper", "run_id": "r1"},
    ]
}  # fmt: skip


@pytest.fixture
def client(target: dict[str, str], tmp_path: Path) -> Iterator[httpx.Client]:
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def test_a_mem0_dump_is_imported_once_with_its_ids(client: httpx.Client) -> None:
    r = client.post("/mem0/import", json=DUMP)
    assert r.status_code == 200, r.text
    assert r.json() == {"imported": 2, "skipped": 0}
    assert client.post("/mem0/import", json=DUMP["results"]).json() == {
        "imported": 0,
        "skipped": 2,
    }
    one = client.get("/mem0/memories/m0-1").json()
    assert one["memory"] == "Is allergic to peanuts" and one["metadata"]["category"] == "health"
    assert one["created_at"] == "2025-03-01T14:30:00+00:00"
    helper = client.get("/mem0/memories", params={"user_id": "sam", "agent_id": "helper"})
    scoped = {m["memory"]: m.get("agent_id") for m in helper.json()["results"]}
    assert scoped == {"Prefers short answers": "helper"}  # as in mem0: stored with both ids
    assert client.get("/mem0/memories/m0-2").json()["run_id"] == "r1"


def test_a_bad_dump_is_a_422_and_writes_nothing(client: httpx.Client) -> None:
    bad = {"results": [DUMP["results"][0], {"id": "m0-3", "user_id": "sam"}]}
    r = client.post("/mem0/import", json=bad)
    assert r.status_code == 422 and "mem0 item 1 (m0-3)" in r.text
    assert client.post("/mem0/import", json={"not": "a dump"}).status_code == 422
    assert client.get("/mem0/memories", params={"user_id": "sam"}).json()["results"] == []
