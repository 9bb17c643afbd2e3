"""Text that cannot be stored or sent back (lone surrogates, NUL) is a 422 at every route, on
both stores, before anything is written; reads keep working afterwards.

Bodies are sent as ASCII JSON with ``\\ud800`` escapes, as a hostile client would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import served

BAD = "lone \ud800 surrogate"
HEADERS = {"content-type": "application/json"}


@pytest.fixture
def client(target: dict[str, str], tmp_path: Path) -> Iterator[httpx.Client]:
    path = target.get("path", str(tmp_path / "unused.db"))
    with served(path, database_url=target.get("url")) as (_, c):
        yield c


def send(client: httpx.Client, method: str, url: str, body: Any) -> httpx.Response:
    return client.request(method, url, content=json.dumps(body).encode(), headers=HEADERS)


CASES = [
    ("POST", "/v1/memories", {"user_id": "u1", "content": "x", "metadata": {BAD: 1}}),
    ("POST", "/v1/memories", {"user_id": "u1", "content": "x", "metadata": {"k": [BAD]}}),
    ("POST", "/v1/memories", {"user_id": "u1", "content": "x", "tags": [BAD]}),
    ("POST", "/v1/memories", {"user_id": "u1", "content": "x", "tags": ["a\u0000b"]}),
    ("POST", "/v1/memories", {"user_id": "u1", "content": "x", "metadata": {"k": "\u0000"}}),
    ("POST", "/v1/memories", {"user_id": "u\u0000", "content": "x"}),
    (
        "POST",
        "/v1/messages",
        {"user_id": "u1", "messages": [{"role": "user", "content": "hi", "metadata": {"m": BAD}}]},
    ),
    ("POST", "/v1/messages", {"user_id": "u1", "session_id": "s\u0000", "messages": []}),
    ("POST", "/v1/search", {"user_id": "u1", "query": BAD}),
    ("POST", "/v1/context", {"user_id": "u1", "query": BAD}),
    ("POST", "/v1/context", {"user_id": "u1", "query": "cats", "location": BAD}),
]


@pytest.mark.parametrize(("method", "url", "body"), CASES)
def test_invalid_text_is_422_and_nothing_is_stored(
    client: httpx.Client, method: str, url: str, body: dict[str, Any]
) -> None:
    r = send(client, method, url, body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["type"] == "invalid_request"
    for listing in ("/v1/memories", "/v1/messages"):
        page = client.get(listing)
        assert page.status_code == 200 and page.json()["data"] == []


def test_patch_with_invalid_text_is_422_and_the_memory_unchanged(client: httpx.Client) -> None:
    item = client.post("/v1/memories", json={"user_id": "u1", "content": "Ann likes tea"}).json()
    for change in ({"tags": [BAD]}, {"metadata": {BAD: "x"}}):
        r = send(client, "PATCH", f"/v1/memories/{item['id']}", change)
        assert r.status_code == 422, r.text
    got = client.get(f"/v1/memories/{item['id']}")
    assert got.status_code == 200 and got.json()["tags"] == [] and got.json()["metadata"] == {}
    search = client.post("/v1/search", json={"user_id": "u1", "query": "tea"})
    assert search.status_code == 200 and search.json()["data"]
