"""What SQLite needs so that an erased user's text leaves the file, not just the tables.

A deleted row's bytes stay in its page's free space, an FTS5 delete only adds a tombstone to a
new segment (the old segment keeps the words until it is merged), and the WAL keeps the old
page images until a checkpoint. :meth:`mnemo.storage.sqlite.store.SQLiteStore.delete_user`
erases under :func:`secure_delete`, calls :func:`purge_fts` in the same transaction and then
:func:`checkpoint`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from mnemo.storage.sql.tx import Tx

#: The full-text tables of the SQLite store.
FTS_TABLES = ("messages_fts", "memories_fts")


@contextmanager
def secure_delete(conn: sqlite3.Connection) -> Iterator[None]:
    """``PRAGMA secure_delete = ON`` on ``conn`` for the block (freed content is zeroed)."""
    before = int(conn.execute("PRAGMA secure_delete").fetchone()[0])
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA secure_delete = {before}")


def purge_fts(c: Tx) -> None:
    """Merge every full-text table into one fresh segment (FTS5 ``optimize``): deleted
    entries are dropped, the old segments' pages freed (and zeroed under secure_delete)."""
    for table in FTS_TABLES:
        c.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


#: How long the checkpoint after an erasure waits for readers, in milliseconds.
CHECKPOINT_WAIT_MS = 1000


def checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the file and truncate it, waiting at most ``CHECKPOINT_WAIT_MS`` for
    readers; False when one kept it from finishing (the old pages then stay in the WAL until
    SQLite's next checkpoint, and are overwritten as the WAL is reused)."""
    before = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        conn.execute(f"PRAGMA busy_timeout = {before}")
    return int(busy) == 0


__all__ = ["CHECKPOINT_WAIT_MS", "FTS_TABLES", "checkpoint", "purge_fts", "secure_delete"]
