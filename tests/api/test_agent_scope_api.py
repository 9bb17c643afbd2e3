"""Agent scope over real HTTP, on both stores: agent_id in the add and messages bodies, the
search/context bodies and the list/get/profile query parameters; DELETE /v1/agents/{id}."""

from __future__ import annotations

import httpx
import pytest
from api_support import served, turn

NO_SCOPE = "a user_id or agent_id is required (whose memory this is); neither was given"


@pytest.fixture
def client(target: dict[str, str], tmp_path):  # type: ignore[no-untyped-def]
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def test_agents_see_shared_and_their_own_over_rest(client: httpx.Client) -> None:
    post = client.post
    shared = post("/v1/memories", json={"user_id": "u1", "content": "Heron ships in spring"})
    alpha = post(
        "/v1/memories",
        json={"user_id": "u1", "agent_id": "alpha", "content": "alpha code word Falcon"},
    )
    beta = post(
        "/v1/memories",
        json={"user_id": "u1", "agent_id": "beta", "content": "beta code word Osprey"},
    )
    assert shared.status_code == alpha.status_code == beta.status_code == 201
    assert alpha.json()["agent_id"] == "alpha" and shared.json()["agent_id"] is None
    own = post("/v1/memories", json={"agent_id": "alpha", "content": "alpha tool note"}).json()
    assert own["user_id"] == "" and own["agent_id"] == "alpha"
    r = post(
        "/v1/messages",
        json={"user_id": "u1", "agent_id": "beta", "messages": [turn("beta turn Osprey")]},
    )
    assert r.status_code == 201

    body = {"query": "code word Osprey Falcon", "user_id": "u1", "agent_id": "alpha"}
    hits = post("/v1/search", json=body).json()["data"]
    assert {h["content"] for h in hits} >= {"alpha code word Falcon"}
    assert all(h["agent_id"] in (None, "alpha") for h in hits)
    everything = post("/v1/search", json={**body, "agent_id": None}).json()["data"]
    assert "beta code word Osprey" in {h["content"] for h in everything}
    mine = post("/v1/search", json={"query": "tool note", "agent_id": "alpha"}).json()["data"]
    assert [h["id"] for h in mine] == [own["id"]]

    listed = client.get("/v1/memories", params={"user_id": "u1", "agent_id": "alpha"}).json()
    assert listed["total"] == 2
    turns = client.get("/v1/messages", params={"user_id": "u1", "agent_id": "alpha"}).json()
    assert turns["total"] == 0
    text = post(
        "/v1/context", json={"query": "code word", "user_id": "u1", "agent_id": "alpha"}
    ).json()["text"]
    assert "Falcon" in text and "Osprey" not in text

    hidden = client.get(
        f"/v1/memories/{beta.json()['id']}", params={"user_id": "u1", "agent_id": "alpha"}
    )
    assert hidden.status_code == 404
    profile = client.get("/v1/users/u1/profile", params={"agent_id": "alpha"})
    assert profile.status_code == 200
    assert [u["user_id"] for u in client.get("/v1/users").json()["data"]] == ["u1"]

    erased = client.delete("/v1/agents/beta")
    assert erased.status_code == 200
    assert erased.json()["agent_id"] == "beta" and erased.json()["deleted"]["memories"] == 1
    assert erased.json()["deleted"]["messages"] == 1
    assert client.get(f"/v1/memories/{beta.json()['id']}").status_code == 404
    assert client.get("/v1/memories", params={"user_id": "u1"}).json()["total"] == 2


def test_bad_agent_ids_are_422_and_change_nothing(client: httpx.Client) -> None:
    bad = [
        client.post("/v1/memories", json={"user_id": "u1", "agent_id": "", "content": "x"}),
        client.post("/v1/memories", json={"content": "no user, no agent"}),
        client.post("/v1/messages", json={"agent_id": "x" * 300, "messages": [turn("hi")]}),
        client.post("/v1/search", json={"query": "x", "user_id": "u1", "agent_id": ""}),
        client.post("/v1/search", json={"query": "x"}),
        client.get("/v1/memories", params={"agent_id": ""}),
        client.post("/v1/context", json={"query": "x"}),
        client.delete("/v1/agents/%20"),
    ]
    for r in bad:
        assert r.status_code == 422, r.text
        assert r.json()["error"]["message"]
    for r in (bad[1], bad[4], bad[6]):  # neither user nor agent: said plainly
        assert r.json()["error"]["message"] == NO_SCOPE
    assert client.get("/v1/memories").json()["total"] == 0
    assert client.get("/v1/messages").json()["total"] == 0
