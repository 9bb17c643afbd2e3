"""A throwaway store for the crash benchmarks, and the processes they run against it.

:func:`scratch_store` gives a SQLite file in a new temporary directory, or, with a
``postgresql://`` URL, a schema of its own on that server (``bench_<name>_<random>``, first
on the ``search_path``; pgvector stays in ``public``). Both are removed on exit, so a run never
reads or writes anyone else's rows. The store is read back with plain SQL (``sqlite3`` or
``psycopg``), not through mnemo, as a monitoring script would.

:func:`child_env` is the environment of a ``python -m mnemo`` child: this process's, minus every
``MNEMO_*`` variable, plus the checkout on ``PYTHONPATH`` and the given settings.
:func:`end` stops such a child and waits for it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from common import ROOT
from mnemo.redact import mask_credentials

PG_SCHEMES = ("postgresql://", "postgres://")


class ScratchStore:
    """Where a benchmark's store lives: ``db`` is what ``mnemo --db`` takes, ``tmp`` a
    temporary directory for other files (both removed by :func:`scratch_store`)."""

    def __init__(self, kind: str, db: str, tmp: Path, label: str) -> None:
        self.kind, self.db, self.tmp, self.label = kind, db, tmp, label

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` (no parameters), read in a short connection of its own."""
        if self.kind == "sqlite":
            if not Path(self.db).exists():
                return []
            conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)
            try:
                return conn.execute(sql).fetchall()
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(self.db, autocommit=True) as c:
            return c.execute(sql).fetchall()

    def count(self, table: str, where: str = "TRUE") -> int:
        """Rows of ``table`` matching ``where``; 0 while the table does not exist yet."""
        sql = f"SELECT count(*) FROM {table} WHERE {where}"
        if self.kind == "sqlite":
            if not Path(self.db).exists():
                return 0
            try:
                return int(self.query(sql)[0][0])
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return 0
                raise
        import psycopg

        try:
            return int(self.query(sql)[0][0])
        except psycopg.errors.UndefinedTable:
            return 0

    def integrity(self) -> str | None:
        """``PRAGMA integrity_check`` of the SQLite file ("ok" when sound); None on PostgreSQL."""
        if self.kind != "sqlite":
            return None
        return "; ".join(str(r[0]) for r in self.query("PRAGMA integrity_check"))


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``options=-csearch_path=<schema>,public`` (its other parameters kept)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema},public"))
    return urlunsplit(parts._replace(query=urlencode(query)))


@contextmanager
def scratch_store(database_url: str | None, name: str) -> Iterator[ScratchStore]:
    """A fresh, empty store for one run (see the module docstring); removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=f"mnemo-bench-{name}-"))
    schema = None
    try:
        if not database_url:
            db = str(tmp / f"{name}.db")
            yield ScratchStore("sqlite", db, tmp, "sqlite (temporary file)")
            return
        import psycopg

        schema = f"bench_{name}_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(database_url, autocommit=True) as c:
            c.execute(f"CREATE SCHEMA {schema}")
        label = f"postgresql, schema {schema} of {mask_credentials(database_url)}"
        yield ScratchStore("postgres", with_search_path(database_url, schema), tmp, label)
    finally:
        if schema is not None:
            import psycopg

            with psycopg.connect(database_url, autocommit=True) as c:
                c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        shutil.rmtree(tmp, ignore_errors=True)


def check_url(url: str | None) -> str | None:
    """``url`` when it names a PostgreSQL server (or is empty); a ValueError otherwise."""
    if url and not url.startswith(PG_SCHEMES):
        raise ValueError("--database-url must be a postgresql:// URL (omit it for SQLite)")
    return url or None


def child_env(**settings: str) -> dict[str, str]:
    """Environment of a ``python -m mnemo`` child: no inherited ``MNEMO_*``, the checkout on
    ``PYTHONPATH``, ``settings`` added as given (e.g. ``MNEMO_EMBEDDER="hashing"``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(settings)
    return env


def end(
    proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, wait_s: float = 30
) -> None:
    """Send ``sig`` to a child still running and wait for it (SIGKILL after ``wait_s``)."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so ``finally`` blocks remove children and files."""
    signal.signal(signal.SIGTERM, _sigterm)
