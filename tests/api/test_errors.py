"""HTTP error bodies and connections: a crash is a JSON 500 on a connection that stays open,
and a database failure tells the client nothing about the database (its URL is logged only)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest
from api_support import served

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.auth import AuthError
from mnemo.api.errors import status_of
from mnemo.api.hosts import HostRefused
from mnemo.api.server import running
from mnemo.api.upstream import UpstreamError
from mnemo.errors import (
    ConfigError,
    EmbeddingError,
    EmbeddingTransientError,
    LLMError,
    LLMOutputError,
    LLMTransientError,
    MnemoError,
    NotFoundError,
    SchemaError,
    StorageError,
    TransientError,
    ValidationError,
)


def raw_get(sock: socket.socket, path: str) -> bytes:
    """One HTTP/1.1 request on an open socket; the whole response (Content-Length framed)."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_crash_is_a_json_500_and_the_connection_stays_open(db_path: str) -> None:
    app = create_app(Settings(path=db_path, embedder="hashing"))

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("unexpected")

    with running(app) as srv, socket.create_connection((srv.host, srv.port), timeout=10) as sock:
        first = raw_get(sock, "/boom")
        assert first.startswith(b"HTTP/1.1 500")
        assert b'"internal_error"' in first and b"RuntimeError" in first
        second = raw_get(sock, "/health")  # same connection
        assert second.startswith(b"HTTP/1.1 200"), second[:200]


def test_a_database_failure_is_a_503_without_the_database_url(
    pg_url: str, tmp_path: pytest.TempPathFactory, caplog: pytest.LogCaptureFixture
) -> None:
    import psycopg  # the postgres extra: only when a PostgreSQL test runs

    where = urlsplit(pg_url)
    with served(str(tmp_path), database_url=pg_url) as (_, client):
        assert client.get("/v1/memories").status_code == 200
        schema = pg_url.split("search_path%3D")[1].split("%2C")[0]
        with psycopg.connect(pg_url, autocommit=True) as c:
            c.execute(f"DROP TABLE {schema}.memories CASCADE")
        r = client.get("/v1/memories")
        assert r.status_code == 503
        body = r.text
        assert r.json()["error"]["type"] == "storage_error"
        for secret in ("postgresql://", str(where.hostname), str(where.port), schema):
            assert secret not in body
    assert "memories" in caplog.text  # the server log keeps the details


@pytest.mark.parametrize(
    ("cls", "status", "kind"),
    [
        (AuthError, 401, "unauthorized"),
        (HostRefused, 403, "forbidden_host"),
        (UpstreamError, 502, "upstream_error"),
        (ValidationError, 422, "invalid_request"),
        (NotFoundError, 404, "not_found"),
        (ConfigError, 400, "config_error"),
        (SchemaError, 409, "schema_error"),
        (StorageError, 503, "storage_error"),
        (TransientError, 503, "unavailable"),
        (EmbeddingTransientError, 503, "unavailable"),
        (LLMTransientError, 503, "unavailable"),
        (EmbeddingError, 502, "embedding_error"),
        (LLMError, 500, "internal_error"),
        (LLMOutputError, 500, "internal_error"),
        (MnemoError, 500, "internal_error"),
    ],
)
def test_each_error_class_carries_its_http_answer(
    cls: type[MnemoError], status: int, kind: str
) -> None:
    """The one status table: on the classes, read by the REST API and the UI alike (these
    are the statuses the two tables of before gave)."""
    assert (cls.http_status, cls.error_type) == (status, kind)
    assert status_of(cls("x")) == (status, kind)


@pytest.mark.parametrize(
    ("path", "body", "why"),
    [
        ("/v1/search", b'{"query": "x",', "Expecting property name enclosed in double quotes (at "
         "character 14)"),
        ("/v1/search", b"not json", "Expecting value (at character 0)"),
        ("/v1/memories", b"{bad", "Expecting property name enclosed in double quotes (at "
         "character 1)"),
        ("/v1/context", b'{"query": "x"} trailing', "Extra data (at character 15)"),
        ("/v1/chat/completions", b"[1,", "Expecting value (at character 3)"),
    ],
)  # fmt: skip
def test_a_body_that_is_not_json_says_so_as_the_other_422s(
    db_path: str, path: str, body: bytes, why: str
) -> None:
    with served(db_path) as (_, client):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        message = f"request body is not valid JSON: {why}"
        assert r.json() == {"error": {"type": "invalid_request", "message": message}}
        bad_field = client.post("/v1/search", json={"query": "x", "user_id": "u", "limit": 0})
        assert bad_field.status_code == 422  # the same status and type as a refused field
        assert bad_field.json()["error"]["type"] == "invalid_request"
