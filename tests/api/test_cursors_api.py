"""Page cursors through real HTTP: every list route takes ``cursor`` and answers
``next_cursor``; a walk by cursor while another client writes and deletes yields each row that
was there once; a cursor of another query, user or tenant, or a garbled one, is a 422."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from api_support import served

from mnemo.api.auth import create_key


@pytest.fixture
def clients(target: dict[str, str], tmp_path: Any) -> Iterator[tuple[httpx.Client, ...]]:
    """Clients of two tenants (and the same tenant twice) on one served API, each store."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (srv, _):
        keys = srv.server.config.app.state.mnemo.keys
        key_a, _ = create_key(keys, "tenant-a")
        key_b, _ = create_key(keys, "tenant-b")
        with (
            httpx.Client(base_url=srv.url, headers={"X-API-Key": key_a}) as a,
            httpx.Client(base_url=srv.url, headers={"X-API-Key": key_a}) as writer,
            httpx.Client(base_url=srv.url, headers={"X-API-Key": key_b}) as b,
        ):
            yield a, writer, b


def add(c: httpx.Client, content: str, user: str, when: str) -> dict[str, Any]:
    r = c.post("/v1/memories", json={"user_id": user, "content": content, "created_at": when})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_walk_by_cursor_while_another_client_writes(clients: tuple[httpx.Client, ...]) -> None:
    a, writer, _ = clients
    start = [add(a, f"n{i}", "u1", f"2024-02-{i % 5 + 1:02d}T00:00:00Z")["id"] for i in range(15)]
    order = [m["id"] for m in a.get("/v1/memories", params={"user_id": "u1"}).json()["data"]]
    assert set(order) == set(start)
    got: list[str] = []
    page = a.get("/v1/memories", params={"user_id": "u1", "limit": 4}).json()
    pages = [page]
    while True:
        got += [m["id"] for m in page["data"]]
        assert set(page) == {"data", "total", "limit", "offset", "next_offset", "next_cursor"}
        if page["next_cursor"] is None:
            break
        add(writer, "newer", "u1", "2030-01-01T00:00:00Z")
        add(writer, "tied", "u1", "2024-02-03T00:00:00Z")
        assert writer.delete(f"/v1/memories/{got[-1]}").status_code == 200  # the anchor
        page = a.get(
            "/v1/memories", params={"user_id": "u1", "limit": 4, "cursor": page["next_cursor"]}
        ).json()
        pages.append(page)
    assert len(got) == len(set(got))
    assert [i for i in got if i in set(order)] == order  # each original row once, in order
    assert pages[0]["total"] == 15 and all(p["total"] >= 12 for p in pages)

    msgs = {"user_id": "u1", "session_id": "s", "messages": [
        {"role": "user", "content": f"t{i}"} for i in range(5)]}  # fmt: skip
    assert a.post("/v1/messages", json=msgs).status_code == 201
    turns = a.get("/v1/messages", params={"user_id": "u1", "limit": 3}).json()
    rest = a.get("/v1/messages", params={"user_id": "u1", "cursor": turns["next_cursor"]}).json()
    assert [t["content"] for t in turns["data"] + rest["data"]] == [f"t{i}" for i in range(5)]
    assert rest["offset"] == 3 and rest["next_cursor"] is None and rest["total"] == 5
    users = a.get("/v1/users", params={"limit": 1}).json()
    assert users["next_cursor"] is None and users["total"] == 1
    jobs = a.get("/v1/jobs", params={"limit": 1}).json()
    more = a.get("/v1/jobs", params={"limit": 1, "cursor": jobs["next_cursor"]}).json()
    assert more["data"] and more["data"][0]["id"] < jobs["data"][0]["id"]


def test_foreign_and_garbled_cursors_are_422(clients: tuple[httpx.Client, ...]) -> None:
    a, _, b = clients
    for i in range(3):
        add(a, f"a{i}", "u1", f"2024-01-0{i + 1}T00:00:00Z")
        add(a, f"x{i}", "u2", f"2024-01-0{i + 1}T00:00:00Z")
        add(b, f"b{i}", "u1", f"2024-01-0{i + 1}T00:00:00Z")
    token = a.get("/v1/memories", params={"user_id": "u1", "limit": 1}).json()["next_cursor"]
    cases = [
        (b, "/v1/memories", {"user_id": "u1", "cursor": token}),  # another tenant
        (a, "/v1/memories", {"user_id": "u2", "cursor": token}),  # another user
        (a, "/v1/memories", {"user_id": "u1", "kind": "note", "cursor": token}),
        (a, "/v1/messages", {"user_id": "u1", "cursor": token}),  # another listing
        (a, "/v1/users", {"cursor": token}),
        (a, "/v1/jobs", {"cursor": token}),
        (a, "/v1/memories", {"user_id": "u1", "cursor": token[:-2] + "zz"}),
        (a, "/v1/memories", {"user_id": "u1", "cursor": "garbage!"}),
        (a, "/v1/memories", {"user_id": "u1", "cursor": "x" * 3000}),
        (a, "/v1/memories", {"user_id": "u1", "cursor": token, "offset": 2}),
    ]
    for client, path, params in cases:
        r = client.get(path, params=params)
        assert r.status_code == 422, (path, params, r.text)
        assert "cursor" in r.json()["error"]["message"]
    b_rows = b.get("/v1/memories", params={"user_id": "u1"}).json()
    assert {m["content"] for m in b_rows["data"]} == {"b0", "b1", "b2"}  # nothing changed
