"""Shared fixtures: real SQLite files in tmp_path, real PostgreSQL schemas, the hashing embedder.

Storage tests run on both stores through the ``backend`` fixture (``sqlite`` and ``postgres``).
The PostgreSQL runs need a server: set ``MNEMO_TEST_DATABASE_URL`` (``make test`` starts one
with ``../shared/ci/pgvector.sh`` when it can); without it they are skipped with that reason.
Each PostgreSQL test gets a fresh schema (first on its ``search_path``), dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from mnemo import Memory

PG_ENV = "MNEMO_TEST_DATABASE_URL"
PG_SKIP = (
    f"PostgreSQL tests need {PG_ENV}=postgresql://... "
    "(start a server with: bash ../shared/ci/pgvector.sh)"
)
BACKENDS = ("sqlite", "postgres")

try:  # the PostgreSQL-only modules import psycopg; without the extra they are not collected
    import psycopg  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_postgres*.py"]


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``options=-csearch_path=<schema>,public`` (pgvector lives in public)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema},public"))
    return urlunsplit(parts._replace(query=urlencode(query)))


@pytest.fixture(scope="session")
def pg_server_url() -> str | None:
    """The PostgreSQL server of this run (read once, before ``clean_env`` hides MNEMO_*)."""
    return os.environ.get(PG_ENV) or None


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, pg_server_url: str | None) -> None:
    """No MNEMO_* variable of the developer's shell leaks into a test (the test server's URL
    is read first)."""
    for key in list(os.environ):
        if key.startswith("MNEMO_"):
            monkeypatch.delenv(key)


@pytest.fixture
def pg_url(pg_server_url: str | None) -> Iterator[str]:
    """A URL of the test server whose ``search_path`` starts with a fresh, empty schema."""
    if not pg_server_url:
        pytest.skip(PG_SKIP)
    psycopg = pytest.importorskip("psycopg", reason='PostgreSQL tests need "mnemo[postgres]"')

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server_url, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    yield with_search_path(pg_server_url, schema)
    with psycopg.connect(pg_server_url, autocommit=True) as c:
        c.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """A fresh SQLite file path."""
    return str(tmp_path / "mnemo.db")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Which store a storage test runs on: ``sqlite`` or ``postgres``."""
    return str(request.param)


@pytest.fixture
def target(backend: str, request: pytest.FixtureRequest) -> dict[str, str]:
    """``Memory`` keyword arguments selecting a fresh store of ``backend``."""
    if backend == "sqlite":
        return {"path": request.getfixturevalue("db_path")}
    return {"url": request.getfixturevalue("pg_url")}


@pytest.fixture
def open_mem(target: dict[str, str]) -> Iterator[Callable[..., Memory]]:
    """Open ``Memory`` objects (hashing embedder) on the test's store; all closed afterwards."""
    opened: list[Memory] = []

    def open_(**overrides: Any) -> Memory:
        overrides.setdefault("embedder", "hashing")
        m = Memory(**target, **overrides)
        opened.append(m)
        return m

    yield open_
    for m in opened:
        m.close()


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """A Memory on a fresh store of each backend with the deterministic hashing embedder."""
    return open_mem()
