"""mem0's self-hosted server routes under /mem0, over real HTTP on both stores: the paths,
bodies and answers of mem0's server/main.py, mnemo's errors, and keys and tenants."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from api_support import served

from mnemo.api.auth import create_key

ITEM_KEYS = {"id", "memory", "hash", "metadata", "created_at", "updated_at"}


@pytest.fixture
def client(target: dict[str, str], tmp_path) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def test_mem0_routes_round_trip(client: httpx.Client) -> None:
    turns = [
        {"role": "user", "content": "Hi, I'm Alex. I live in Paris."},
        {"role": "assistant", "content": "Hello Alex!"},
    ]
    r = client.post("/mem0/memories", json={"messages": turns, "user_id": "alex",
                                           "metadata": {"source": "chat"}})  # fmt: skip
    assert r.status_code == 200, r.text
    added = r.json()["results"]
    assert all(set(a) == {"id", "memory", "event"} and a["event"] == "ADD" for a in added)
    paris = next(a for a in added if "Paris" in a["memory"])
    moved = client.post(
        "/mem0/memories",
        json={"messages": [{"role": "user", "content": "I moved to Berlin"}], "user_id": "alex"},
    ).json()["results"]
    assert [(e["id"], e["event"]) for e in moved] == [(paris["id"], "UPDATE")]

    raw = client.post(
        "/mem0/memories",
        json={"messages": [{"role": "user", "content": "Plays chess"}], "user_id": "alex",
              "run_id": "r1", "infer": False},
    ).json()["results"]  # fmt: skip
    assert [(e["memory"], e["event"]) for e in raw] == [("Plays chess", "ADD")]

    listed = client.get("/mem0/memories", params={"user_id": "alex"}).json()["results"]
    assert {i["memory"] for i in listed} >= {"Plays chess", moved[0]["memory"]}
    assert all(set(i) >= ITEM_KEYS and i["user_id"] == "alex" for i in listed)
    in_run = client.get("/mem0/memories", params={"user_id": "alex", "run_id": "r1"}).json()
    assert [i["memory"] for i in in_run["results"]] == ["Plays chess"]

    found = client.post(
        "/mem0/search", json={"query": "chess", "filters": {"user_id": "alex"}, "top_k": 1}
    ).json()["results"]
    assert [h["memory"] for h in found] == ["Plays chess"] and isinstance(found[0]["score"], float)
    one = client.get(f"/mem0/memories/{raw[0]['id']}").json()
    assert set(one) == ITEM_KEYS | {"user_id", "run_id"} and one["memory"] == "Plays chess"

    r = client.put(f"/mem0/memories/{raw[0]['id']}", json={"text": "Plays go"})
    assert r.json() == {"message": "Memory updated successfully!"}
    history = client.get(f"/mem0/memories/{raw[0]['id']}/history").json()
    assert [(h["event"], h["new_memory"]) for h in history] == [
        ("ADD", "Plays chess"), ("UPDATE", "Plays go"),
    ]  # fmt: skip
    r = client.delete(f"/mem0/memories/{raw[0]['id']}")
    assert r.json() == {"message": "Memory deleted successfully"}
    assert client.get(f"/mem0/memories/{raw[0]['id']}").status_code == 404
    r = client.delete("/mem0/memories", params={"user_id": "alex"})
    assert r.json() == {"message": "All relevant memories deleted"}
    assert client.get("/mem0/memories", params={"user_id": "alex"}).json()["results"] == []
    assert client.post("/mem0/reset").json() == {"message": "All memories reset"}
    assert client.get("/v1/users").json()["data"] == []


def test_mem0_routes_bad_input_is_a_4xx_with_a_message(client: httpx.Client) -> None:
    r = client.post("/mem0/memories", json={"messages": [{"role": "user", "content": "x"}]})
    assert r.status_code == 422 and "user_id or agent_id" in r.text
    r = client.get("/mem0/memories", params={"run_id": "r1"})
    assert r.status_code == 422 and "user_id or agent_id" in r.text
    assert client.post("/mem0/search", json={"filters": {"user_id": "u"}}).status_code == 422
    r = client.put("/mem0/memories/mem_nope", json={"text": "x"})
    assert r.status_code == 404
    assert client.get("/mem0/memories/mem_nope/history").status_code == 404
    assert client.get("/v1/memories").json()["data"] == []


def test_mem0_routes_are_behind_keys_and_tenants(db_path: str) -> None:
    with served(db_path) as (srv, anon):
        keys = srv.server.config.app.state.mnemo.keys
        key_a, _ = create_key(keys, "tenant-a")
        key_b, _ = create_key(keys, "tenant-b")
        body = {"messages": [{"role": "user", "content": "secret 4521"}], "user_id": "u1",
                "infer": False}  # fmt: skip
        assert anon.post("/mem0/memories", json=body).status_code == 401
        a = httpx.Client(base_url=srv.url, headers={"X-API-Key": key_a})
        b = httpx.Client(base_url=srv.url, headers={"Authorization": f"Bearer {key_b}"})
        with a, b:
            (item,) = a.post("/mem0/memories", json=body).json()["results"]
            assert b.get(f"/mem0/memories/{item['id']}").status_code == 404
            assert b.get("/mem0/memories", params={"user_id": "u1"}).json()["results"] == []
            assert b.post("/mem0/reset").status_code == 200  # erases tenant-b only
            assert a.get(f"/mem0/memories/{item['id']}").json()["memory"] == "secret 4521"


def test_mem0_search_is_narrowed_by_run_id(client: httpx.Client) -> None:
    for run, text in (("r1", "Plays chess in the park"), ("r2", "Plays chess online")):
        body = {"messages": [{"role": "user", "content": text}], "user_id": "sam",
                "run_id": run, "infer": False}  # fmt: skip
        assert client.post("/mem0/memories", json=body).status_code == 200
    nowhere = {"query": "chess", "filters": {"user_id": "sam", "run_id": "nonexistent-run"}}
    assert client.post("/mem0/search", json=nowhere).json()["results"] == []
    r2 = client.post("/mem0/search", json={"query": "chess", "user_id": "sam", "run_id": "r2"})
    assert [h["memory"] for h in r2.json()["results"]] == ["Plays chess online"]
