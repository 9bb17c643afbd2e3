"""Size limits over real HTTP: request bodies (413 before they are read whole), metadata, tag
count and length and ids (422 naming the setting), each configurable; nothing is stored."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from api_support import served

from mnemo import Settings
from mnemo.errors import ConfigError


def stored(client: httpx.Client) -> int:
    return len(client.get("/v1/memories").json()["data"])


def test_metadata_and_tags_over_the_default_limits_are_422(db_path: str) -> None:
    with served(db_path) as (_, client):
        cases = [
            ({"metadata": {"blob": "x" * 70_000}}, "max_metadata_bytes"),
            ({"tags": [f"t{i}" for i in range(101)]}, "max_tags"),
            ({"tags": ["y" * 201]}, "max_tag_chars"),
        ]
        for extra, setting in cases:
            r = client.post("/v1/memories", json={"user_id": "u1", "content": "x", **extra})
            assert r.status_code == 422, r.text
            assert setting in r.json()["error"]["message"]
        turn = {"role": "user", "content": "hi", "metadata": {"blob": "x" * 70_000}}
        r = client.post("/v1/messages", json={"user_id": "u1", "messages": [turn]})
        assert r.status_code == 422 and "max_metadata_bytes" in r.text
        r = client.post("/v1/memories", json={"user_id": "u" * 257, "content": "x"})
        assert r.status_code == 422
        assert stored(client) == 0
        ok = client.post(
            "/v1/memories",
            json={"user_id": "u1", "content": "x", "tags": ["a"] * 100, "metadata": {"k": "v"}},
        )
        assert ok.status_code == 201 and ok.json()["tags"] == ["a"]


def test_limits_are_settings(db_path: str) -> None:
    with served(db_path, max_tags=2, max_tag_chars=5, max_metadata_bytes=20) as (_, client):
        for extra in (
            {"tags": ["a", "b", "c"]},
            {"tags": ["abcdef"]},
            {"metadata": {"k": "v" * 20}},
        ):
            r = client.post("/v1/memories", json={"user_id": "u1", "content": "x", **extra})
            assert r.status_code == 422, r.text
        ok = client.post("/v1/memories", json={"user_id": "u1", "content": "x", "tags": ["a", "b"]})
        assert ok.status_code == 201


def test_a_body_over_the_limit_is_413_before_it_is_read(db_path: str) -> None:
    with served(db_path, max_request_bytes=4096) as (_, client):
        body = b'{"user_id": "u1", "content": "' + b"x" * 60_000 + b'"}'
        r = client.post("/v1/memories", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert r.json()["error"] == {
            "type": "too_large",
            "message": "request body is larger than 4,096 bytes (setting max_request_bytes)",
        }
        ok = client.post("/v1/memories", json={"user_id": "u1", "content": "small"})
        assert ok.status_code == 201
        assert 'route="unmatched",status="413"' in client.get("/metrics").text


def test_a_chunked_body_is_counted_as_it_arrives(db_path: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"user_id": "u1", "content": "'
        for _ in range(20):
            yield b"x" * 1000
        yield b'"}'

    with served(db_path, max_request_bytes=4096) as (_, client):
        r = client.post(
            "/v1/memories", content=chunks(), headers={"content-type": "application/json"}
        )
        assert r.status_code == 413 and "max_request_bytes" in r.json()["error"]["message"]
        assert stored(client) == 0


def test_request_limit_has_a_floor() -> None:
    with pytest.raises(ConfigError, match="max_request_bytes"):
        Settings(max_request_bytes=1023)
