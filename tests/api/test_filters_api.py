"""Filters through the REST API on both backends: search, context, list (query parameter),
count and delete, a 422 naming the offending part, inert injection, a 1 MB filter refused."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from api_support import served

INJECTION = "x'); DROP TABLE memories; --"


@pytest.fixture
def client(target: dict[str, str], tmp_path) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    """A served API on each store, with three memories of user ``u``."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        for content, team, tags in (
            ("Ann plans the coffee budget", "blue", ["work"]),
            ("Ann buys coffee beans", "red", ["home"]),
            ("Ann likes coffee with milk", "blue", ["home"]),
        ):
            body = {"user_id": "u", "content": content, "metadata": {"team": team}, "tags": tags}
            assert c.post("/v1/memories", json=body).status_code == 201
        yield c


def test_search_context_list_count_and_delete_take_filters(client: httpx.Client) -> None:
    blue = {"team": "blue"}
    hits = client.post(
        "/v1/search", json={"query": "coffee", "user_id": "u", "filters": blue}
    ).json()["data"]
    assert len(hits) == 2 and all(h["metadata"]["team"] == "blue" for h in hits)
    bundle = client.post(
        "/v1/context", json={"query": "coffee", "user_id": "u", "filters": {"tags": "work"}}
    ).json()
    assert "budget" in bundle["text"] and "beans" not in bundle["text"]
    page = client.get(
        "/v1/memories", params={"user_id": "u", "filters": json.dumps(blue), "limit": 1}
    ).json()
    assert page["total"] == 2 and page["next_offset"] == 1
    count = client.post("/v1/memories/count", json={"user_id": "u", "filters": {"tags": "home"}})
    assert count.json() == {"count": 2}
    gone = client.post("/v1/memories/delete", json={"user_id": "u", "filters": blue}).json()
    assert gone == {"deleted": 2}
    left = client.get("/v1/memories", params={"user_id": "u"}).json()["data"]
    assert [m["content"] for m in left] == ["Ann buys coffee beans"]
    assert client.post("/v1/memories/count", json={"user_id": "u"}).json() == {"count": 1}


@pytest.mark.parametrize(
    ("route", "filters", "names"),
    [
        ("/v1/search", {"AND": [{"team": "blue"}, {"kind": {"gte": "fact"}}]}, "AND[1].kind"),
        ("/v1/memories/count", {"team": {"between": [1, 2]}}, "team"),
        ("/v1/memories/delete", {"user_id": "v"}, "user_id"),
        ("/v1/context", {"created_at": {"gt": "yesterday-ish"}}, "created_at"),
    ],
)
def test_a_bad_filter_is_a_422_naming_its_part(
    client: httpx.Client, route: str, filters: dict[str, object], names: str
) -> None:
    body: dict[str, object] = {"user_id": "u", "filters": filters}
    if route in ("/v1/search", "/v1/context"):
        body["query"] = "coffee"
    r = client.post(route, json=body)
    assert r.status_code == 422
    assert r.json()["error"]["message"].startswith(names)
    assert client.post("/v1/memories/count", json={"user_id": "u"}).json() == {"count": 3}


def test_bad_json_in_the_query_parameter_is_a_422(client: httpx.Client) -> None:
    for text in ("{not json", "[1, 2]"):
        r = client.get("/v1/memories", params={"user_id": "u", "filters": text})
        assert r.status_code == 422 and "filters" in r.json()["error"]["message"]


def test_a_1mb_filter_is_refused_and_changes_nothing(client: httpx.Client) -> None:
    huge = {"team": "x" * 1_000_000}
    r = client.post("/v1/memories/delete", json={"user_id": "u", "filters": huge})
    assert r.status_code == 422 and "characters" in r.json()["error"]["message"]
    assert client.post("/v1/memories/count", json={"user_id": "u"}).json() == {"count": 3}


def test_injection_is_inert(client: httpx.Client) -> None:
    for filters in ({INJECTION: "1"}, {"team": INJECTION}, {"tags": {"in": [INJECTION]}}):
        body = {"user_id": "u", "filters": filters}
        assert client.post("/v1/memories/delete", json=body).json() == {"deleted": 0}
        search = {"query": "coffee", **body}
        assert client.post("/v1/search", json=search).json()["data"] == []
    assert client.post("/v1/memories/count", json={"user_id": "u"}).json() == {"count": 3}
