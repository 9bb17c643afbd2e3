"""The entity routes through real HTTP, on both stores: the server's worker indexes the
entities of the turns written, the routes read them, erasing the user erases them."""

from __future__ import annotations

import time

import httpx
import pytest
from api_support import served, turn


@pytest.fixture
def client(target: dict[str, str], tmp_path):  # type: ignore[no-untyped-def]
    """A served API (with its worker) on each store (conftest's ``backend``)."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def entities(client: httpx.Client, user: str, want: int) -> list[dict[str, object]]:
    """The user's entities once the worker has indexed ``want`` of them."""
    deadline, got = time.monotonic() + 20, []
    while len(got) < want and time.monotonic() < deadline:
        time.sleep(0.1)
        r = client.get(f"/v1/users/{user}/entities")
        assert r.status_code == 200
        got = r.json()["data"]
    return got


def test_entities_routes_and_erasure(client: httpx.Client) -> None:
    said = ["My husband Raj is a pilot, he flies for KLM.", "Raj and I love Lisbon."]
    client.post("/v1/messages", json={"user_id": "u1", "messages": [turn(t) for t in said]})
    got = entities(client, "u1", 2)
    assert {e["name"]: e["kind"] for e in got} == {"Raj": "person", "KLM": "org"}
    assert got[0]["name"] == "Raj" and got[0]["mentions"] == 2  # the most mentioned first
    assert (
        "/v1/users/{user_id}/entities/{name_or_id}" in client.get("/openapi.json").json()["paths"]
    )
    detail = client.get("/v1/users/u1/entities/my husband")
    assert detail.status_code == 200
    body = detail.json()
    assert body["entity"]["name"] == "Raj"
    assert body["entity"]["aliases"] == ["my husband", "husband"]
    assert [t["content"] for t in body["turns"]] == said
    assert all("Raj" in f["content"] or "husband" in f["content"] for f in body["facts"])
    missing = client.get("/v1/users/u1/entities/Bob")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found"
    erased = client.delete("/v1/users/u1").json()["deleted"]
    assert erased["entities"] == 2 and erased["entity_mentions"] == 3
    assert client.get("/v1/users/u1/entities").json()["data"] == []
    assert client.get("/v1/users/u1/entities/Raj").status_code == 404
