"""SQLite connections: pragmas, per-thread connections, write transactions and migrations."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from mnemo.errors import SchemaError, StorageError
from mnemo.storage.sql.migrations import numbered_scripts
from mnemo.storage.sql.tx import snapshot

T = TypeVar("T")


def migration_files() -> list[tuple[int, str]]:
    """The numbered SQLite ``NNNN_name.sql`` migrations shipped with mnemo, in order."""
    return numbered_scripts(Path(__file__).parent / "migrations")


def split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers with inner ``;`` stay whole)."""
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        if not buf and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            statements.append(buf.strip())
            buf = ""
    if buf.strip():
        raise SchemaError(f"incomplete SQL statement in migration: {buf[:80]!r}")
    return statements


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


#: Modes of what a store creates: its folder and its file (SQLite gives the WAL and shared
#: memory files the database file's mode). Existing files keep theirs.
DIR_MODE, FILE_MODE = 0o700, 0o600


def create_private(path: Path) -> None:
    """Create ``path``'s folder (``DIR_MODE``) and an empty database file (``FILE_MODE``)
    unless they exist: memories are private to the user running mnemo. StorageError when
    the file system refuses."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        if not path.exists():
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))
    except FileExistsError:
        if not path.parent.is_dir():
            raise StorageError(
                f"cannot create the SQLite database {path}: {path.parent} is not a folder"
            ) from None
    except OSError as exc:
        raise StorageError(f"cannot create the SQLite database {path}: {exc}") from exc


class Connections:
    """One connection per thread to one SQLite file, with mnemo's pragmas applied."""

    def __init__(self, path: str, busy_timeout_ms: int, synchronous: str) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.synchronous = synchronous
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        self._uri = False
        self._anchor: sqlite3.Connection | None = None
        if path == ":memory:":
            # One private in-memory database shared by this object's per-thread connections.
            self.path = f"file:mnemo-{uuid.uuid4().hex}?mode=memory&cache=shared"
            self._uri = True
            self._anchor = self.get()
        else:
            create_private(Path(path).expanduser())

    def get(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise StorageError("the store is closed")
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
                uri=self._uri,
            )
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open SQLite database {self.path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
        self._retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL"))
        conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _retry_locked(self, fn: Callable[[], T]) -> T:
        """Run ``fn``; on "database is locked" retry with backoff for about one busy timeout.

        SQLite's own busy handler already waited before each failure; these retries cover
        the cases it does not (a lock met while upgrading, a WAL reset). Past the deadline the
        failure becomes a StorageError.
        """
        deadline = time.monotonic() + max(self.busy_timeout_ms / 1000, 1.0)
        attempt = 0
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_locked(exc):
                    raise StorageError(f"SQLite error on {self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StorageError(
                        f"{self.path} stayed locked by another writer for more than "
                        f"{self.busy_timeout_ms} ms (setting busy_timeout_ms)"
                    ) from exc
                time.sleep(min(0.01 * 2**attempt, 0.5))
                attempt += 1

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on error."""
        conn = self.get()
        self._retry_locked(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield conn
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise StorageError(f"SQLite error on {self.path}: {exc}") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            self._retry_locked(lambda: conn.execute("COMMIT"))

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several reads."""
        with snapshot(self.get(), "BEGIN") as conn:
            yield conn

    def migrate(self) -> int:
        """Apply pending migrations, each in its own transaction; returns the schema version."""
        files = migration_files()
        latest = files[-1][0] if files else 0
        for version, script in files:
            with self.write() as conn:
                current = conn.execute("PRAGMA user_version").fetchone()[0]
                if current > latest:
                    raise SchemaError(
                        f"{self.path} has schema version {current}; this mnemo knows up to "
                        f"{latest}. Upgrade mnemo."
                    )
                if current >= version:
                    continue
                for statement in split_statements(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")
        return latest

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            self._closed = True
            for conn in self._all:
                with suppress(sqlite3.ProgrammingError):
                    conn.close()
            self._all.clear()
        self._local = threading.local()
