"""The default store: one SQLite file (WAL, FTS5 with bm25, float32 vector blobs).

Everything but full text and the job claim is the shared SQL of :class:`~mnemo.storage.sql.store.
SQLStore`; this module opens the file, migrates it and adds the :class:`SQLiteSearch` role.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from mnemo.errors import StorageError
from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.sql import agent_erasure
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql.store import SQLStore
from mnemo.storage.sql.sweep import Swept, sweep
from mnemo.storage.sql.tx import Tx
from mnemo.storage.sqlite import jobs
from mnemo.storage.sqlite.conn import Connections
from mnemo.storage.sqlite.erasure import checkpoint, purge_fts, secure_delete
from mnemo.storage.sqlite.fts_repair import repair_fts
from mnemo.storage.sqlite.search import SQLiteSearch, owner_token
from mnemo.storage.sqlite.tables import SQLiteTableRows
from mnemo.storage.sqlite.tx import SQLiteTransactions

T = TypeVar("T")


class SQLiteStore(SQLiteSearch, SQLStore):
    """Store protocol over one SQLite file; safe to share between threads and processes."""

    def __init__(
        self,
        path: str,
        busy_timeout_ms: int = 30_000,
        synchronous: str = "FULL",
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.db = Connections(path, busy_timeout_ms, synchronous)
        try:
            self.db.migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StorageError(f"{path} is not a usable mnemo database: {exc}") from exc
        tx = SQLiteTransactions(self.db)
        SQLStore.__init__(self, path, tx, jobs.claim, repair_fts, clock)
        self.table_rows = SQLiteTableRows(self.db, path)

    def erase_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user, leaving none of its text in the file.

        The erasing connection runs with ``PRAGMA secure_delete`` (freed space is zeroed, not
        left for reuse), the full-text indexes are merged into fresh segments
        (:func:`~mnemo.storage.sqlite.erasure.purge_fts`; FTS5 keeps deleted entries in old
        segments until a merge), and a ``TRUNCATE`` checkpoint empties the WAL, which held the
        old page images. The merge rewrites both full-text indexes, so erasure takes time in
        proportion to the store's full text.
        """
        return self._erased(lambda c: stats_sql.delete_user(c, tenant, user_id))

    def erase_agent(self, tenant: str, agent_id: str) -> tuple[dict[str, int], list[str]]:
        """Erase every row tagged with an agent, leaving none of its text in the file (as
        :meth:`erase_user` does)."""
        return self._erased(lambda c: agent_erasure.delete_agent(c, tenant, agent_id))

    def _erased(self, erase: Callable[[Tx], T]) -> T:
        """Run ``erase`` in a write transaction under ``secure_delete``, merge the full-text
        indexes in it, then checkpoint the WAL (see :meth:`erase_user`)."""
        with secure_delete(self.db.get()):
            with self.tx.write() as c:
                out = erase(c)
                purge_fts(c)
            checkpoint(self.db.get())
        return out

    def erase_expired(self, tenant: str | None, now: str) -> Swept:
        """The sweep, leaving none of the swept text in the file (as :meth:`erase_user`)."""
        with secure_delete(self.db.get()):
            with self.tx.write() as c:
                swept = sweep(c, tenant, now)
                if swept.messages or swept.memories:
                    purge_fts(c)
            if swept.messages or swept.memories:
                checkpoint(self.db.get())
        return swept

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file ('ok' when sound)."""
        return str(self.db.get().execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        """Close every connection."""
        self.db.close()


__all__ = ["SQLiteStore", "owner_token"]
