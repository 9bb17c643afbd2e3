"""PostgreSQL connections: a pool, transactions, errors as StorageError, and migrations.

Connections run in autocommit mode; :meth:`PgConnections.write` and :meth:`PgConnections.read`
wrap a block in one transaction. Every psycopg failure leaves as a
:class:`~mnemo.errors.StorageError` naming the database (never its password).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolClosed

from mnemo.errors import SchemaError, StorageError
from mnemo.redact import mask_credentials
from mnemo.storage.sql.migrations import numbered_scripts
from mnemo.storage.sql.tx import snapshot

Conn = psycopg.Connection[dict[str, Any]]

#: Serialises concurrent migrations of one schema (pg_advisory_xact_lock key prefix).
_MIGRATE_LOCK = "mnemo.ops.migrate."


def migration_files() -> list[tuple[int, str]]:
    """The numbered PostgreSQL ``NNNN_name.sql`` migrations shipped with mnemo, in order."""
    return numbered_scripts(Path(__file__).parent / "migrations")


def redact(url: str) -> str:
    """``url`` without its password, for messages and ``Store.location``."""
    return mask_credentials(url)


def configure(conn: psycopg.Connection[Any]) -> None:
    """Per-connection setup: the pgvector type adapters (numpy arrays in, vectors out)."""
    from pgvector.psycopg import register_vector

    register_vector(conn)


@contextmanager
def pg_errors(location: str) -> Iterator[None]:
    """Turn psycopg failures inside the block into StorageError naming ``location``."""
    try:
        yield
    except psycopg.Error as exc:
        raise StorageError(f"PostgreSQL error on {location}: {exc}") from exc


class PgConnections:
    """A pool of autocommit connections to one PostgreSQL database."""

    def __init__(self, url: str, pool_size: int = 10, connect_timeout_s: float = 10.0) -> None:
        self.url = url
        self.location = redact(url)
        self.connect_timeout_s = connect_timeout_s
        self.migrate()
        self.pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            min_size=1,
            max_size=max(pool_size, 1),
            kwargs={"autocommit": True, "row_factory": dict_row},
            configure=configure,
            check=ConnectionPool.check_connection,  # a server restart costs no failed call
            timeout=connect_timeout_s,
            open=False,
            name="mnemo",
        )
        try:
            self.pool.open(wait=True, timeout=connect_timeout_s)
        except psycopg.Error as exc:
            self.pool.close()
            raise StorageError(f"cannot connect to {self.location}: {exc}") from exc

    @contextmanager
    def connection(self) -> Iterator[Conn]:
        """A pooled connection in autocommit mode (each statement its own transaction)."""
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolClosed as exc:
            raise StorageError("the store is closed") from exc
        except psycopg.Error as exc:
            raise StorageError(f"PostgreSQL error on {self.location}: {exc}") from exc

    @contextmanager
    def write(self) -> Iterator[Conn]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self.connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def read(self) -> Iterator[Conn]:
        """Several reads from one consistent snapshot (REPEATABLE READ, read only)."""
        with (
            self.connection() as conn,
            snapshot(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
        ):
            yield conn

    def open_plain(self) -> Conn:
        """A connection outside the pool (migrations, COPY sessions); the caller closes it."""
        try:
            return psycopg.connect(
                self.url,
                autocommit=True,
                row_factory=dict_row,
                connect_timeout=max(int(self.connect_timeout_s), 1),
            )
        except psycopg.Error as exc:
            raise StorageError(f"cannot connect to {self.location}: {exc}") from exc

    def migrate(self) -> int:
        """Apply pending migrations, each in its own transaction; returns the schema version.

        An advisory lock per schema lets several processes open a new database at once.
        """
        files = migration_files()
        latest = files[-1][0] if files else 0
        conn = self.open_plain()
        try:
            for version, script in files:
                with conn.transaction():
                    conn.execute(
                        "SELECT pg_advisory_xact_lock(hashtext(%s || current_schema()))",
                        (_MIGRATE_LOCK,),
                    )
                    current = schema_version(conn)
                    if current > latest:
                        raise SchemaError(
                            f"{self.location} has schema version {current}; this mnemo knows "
                            f"up to {latest}. Upgrade mnemo."
                        )
                    if current >= version:
                        continue
                    conn.execute(script.encode("utf-8"))
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', %s)"
                        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(version),),
                    )
        except psycopg.Error as exc:
            raise StorageError(f"cannot migrate {self.location}: {exc}") from exc
        finally:
            conn.close()
        return latest

    def close(self) -> None:
        """Close the pool and every connection in it."""
        self.pool.close()


def schema_version(conn: Conn) -> int:
    """The applied schema version (0 for an empty database)."""
    row = conn.execute("SELECT to_regclass('meta') IS NOT NULL AS present").fetchone()
    if not row or not row["present"]:
        return 0
    got = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(got["value"]) if got else 0
