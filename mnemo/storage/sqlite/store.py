"""The default store: one SQLite file (WAL, FTS5 with bm25, float32 vector blobs).

Everything but full text, the job claim and erasure is the shared SQL of :class:`~mnemo.storage.
sql.store.SQLStore`; this module opens the file, migrates it and passes in the
:class:`SQLiteSearch` role and the :class:`~mnemo.storage.sqlite.erasure.SecureErasure`.
"""

from __future__ import annotations

import sqlite3

from mnemo.errors import StorageError
from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.sql.role import StoreCore
from mnemo.storage.sql.store import SQLStore
from mnemo.storage.sqlite import jobs
from mnemo.storage.sqlite.conn import Connections
from mnemo.storage.sqlite.erasure import SecureErasure
from mnemo.storage.sqlite.fts_repair import repair_fts
from mnemo.storage.sqlite.search import SQLiteSearch, owner_token
from mnemo.storage.sqlite.tables import SQLiteTableRows
from mnemo.storage.sqlite.tx import SQLiteTransactions


class SQLiteStore(SQLStore):
    """Store protocol over one SQLite file; safe to share between threads and processes."""

    search: SQLiteSearch

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
        core = StoreCore(SQLiteTransactions(self.db), clock)
        search = SQLiteSearch(core, self.db)
        erasure = SecureErasure(core, self.db)
        super().__init__(path, core, search, jobs.claim, erasure, repair_fts)
        self.table_rows = SQLiteTableRows(self.db, path)

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file ('ok' when sound)."""
        return str(self.db.get().execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        """Close every connection."""
        self.db.close()


__all__ = ["SQLiteStore", "owner_token"]
