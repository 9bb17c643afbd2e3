"""``as_of`` and ``now`` in the REST search and context bodies (issue 24, "Time"), through real
HTTP on both stores; on main the fields are ignored and the 2024 turn is returned."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from api_support import served
from asof_support import WORK_TURNS

from mnemo.schemas import utcnow


@pytest.fixture
def client(target: dict[str, str], tmp_path) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    """A served API on each store (conftest's ``backend``)."""
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def test_search_and_context_as_of(client: httpx.Client) -> None:
    r = client.post("/v1/messages", json={"user_id": "tia", "messages": WORK_TURNS})
    assert r.status_code == 201, r.text
    body = {"query": "where do I work", "user_id": "tia"}
    today = client.post("/v1/search", json=body).json()["data"]
    assert any("pilot" in h["content"] for h in today)
    then = client.post("/v1/search", json={**body, "as_of": "2021-06-01"}).json()["data"]
    assert [h["content"] for h in then] == ["I work as a nurse at the city hospital"]
    at = client.post("/v1/search", json={**body, "as_of": "2021-06-01", "now": "2021-06-01"})
    assert [h["score"] for h in at.json()["data"]] == [h["score"] for h in then]
    ctx = client.post("/v1/context", json={**body, "as_of": 1622505600}).json()  # 2021-06-01
    assert "nurse" in ctx["text"] and "pilot" not in ctx["text"]
    assert "pilot" in client.post("/v1/context", json=body).json()["text"]


@pytest.mark.parametrize("path", ["/v1/search", "/v1/context"])
def test_bad_as_of_and_now_get_422(client: httpx.Client, path: str) -> None:
    body = {"query": "work", "user_id": "tia"}
    future = (utcnow() + timedelta(days=2)).isoformat()
    for bad in ({"as_of": future}, {"as_of": "yesterday-ish"}, {"now": "not a time"},
                {"as_of": [1]}):  # fmt: skip
        r = client.post(path, json={**body, **bad})
        assert r.status_code == 422, (bad, r.text)
        assert ("as_of" in r.text) or ("now" in r.text)


def test_a_write_dated_outside_the_years_1000_to_8999_gets_422(client: httpx.Client) -> None:
    # found by the REST fuzz test: a batch with an undated turn before one dated 0001-01-01
    # was a 500 (OverflowError) while filling in the undated turn's time
    turns = [
        {"role": "user", "content": "undated"},
        {"role": "user", "content": "dated", "created_at": "0001-01-01T00:00:00Z"},
    ]
    r = client.post("/v1/messages", json={"user_id": "yr", "messages": turns})
    assert r.status_code == 422 and "messages[1].created_at" in r.text, r.text
    r = client.post(
        "/v1/memories", json={"user_id": "yr", "content": "x", "created_at": "0999-01-01"}
    )
    assert r.status_code == 422 and "years 1000-8999" in r.text, r.text
    assert client.get("/v1/messages", params={"user_id": "yr"}).json()["data"] == []
    turns[1]["created_at"] = "1000-01-01T00:00:00Z"
    assert client.post("/v1/messages", json={"user_id": "yr", "messages": turns}).status_code == 201
