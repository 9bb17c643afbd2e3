"""What SQLite needs so that an erased user's text leaves the file, not just the tables.

A deleted row's bytes stay in its page's free space, an FTS5 delete only adds a tombstone to a
new segment (the old segment keeps the words until it is merged), and the WAL keeps the old
page images until a checkpoint. :class:`SecureErasure` (the SQLite store's erasure of a user,
an agent's rows and expired rows) erases under :func:`secure_delete`, calls :func:`purge_fts` in
the same transaction and then :func:`checkpoint`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from mnemo.storage.sql import agent_erasure
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql.erasure import Erasure
from mnemo.storage.sql.role import StoreCore
from mnemo.storage.sql.sweep import Swept, sweep
from mnemo.storage.sql.tx import Tx
from mnemo.storage.sqlite.conn import Connections

T = TypeVar("T")

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


class SecureErasure(Erasure):
    """Erasure that leaves none of the erased text in the file.

    The erasing connection runs with ``PRAGMA secure_delete`` (freed space is zeroed, not
    left for reuse), the full-text indexes are merged into fresh segments (:func:`purge_fts`;
    FTS5 keeps deleted entries in old segments until a merge), and a ``TRUNCATE`` checkpoint
    empties the WAL, which held the old page images. The merge rewrites both full-text
    indexes, so erasure takes time in proportion to the store's full text.
    """

    def __init__(self, core: StoreCore, db: Connections) -> None:
        super().__init__(core)
        self.db = db

    def user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user, leaving none of its text in the file."""
        return self._erased(lambda c: stats_sql.delete_user(c, tenant, user_id))

    def agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """Erase every row tagged with an agent, leaving none of its text in the file."""
        return self._erased(lambda c: agent_erasure.delete_agent(c, tenant, agent_id))

    def _erased(self, erase: Callable[[Tx], T]) -> T:
        """Run ``erase`` in a write transaction under ``secure_delete``, merge the full-text
        indexes in it, then checkpoint the WAL."""
        with secure_delete(self.db.get()):
            with self.core.tx.write() as c:
                out = erase(c)
                purge_fts(c)
            checkpoint(self.db.get())
        return out

    def expired(self, tenant: str | None, now: str) -> Swept:
        """The sweep, leaving none of the swept text in the file (as :meth:`user`)."""
        with secure_delete(self.db.get()):
            with self.core.tx.write() as c:
                swept = sweep(c, tenant, now)
                if swept.messages or swept.memories:
                    purge_fts(c)
            if swept.messages or swept.memories:
                checkpoint(self.db.get())
        return swept


__all__ = [
    "CHECKPOINT_WAIT_MS",
    "FTS_TABLES",
    "SecureErasure",
    "checkpoint",
    "purge_fts",
    "secure_delete",
]
