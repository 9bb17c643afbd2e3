"""The PostgreSQL store: the SQLite schema on PostgreSQL, with pgvector and tsvector.

Rows have the same columns and the same text encodings (times, JSON) as in SQLite, so the
shared SQL of :class:`~mnemo.storage.sql.store.SQLStore` (spelled by the PostgreSQL dialect)
serves both stores and ``mnemo migrate`` copies rows unchanged. The search side (full text,
vectors) is in :mod:`mnemo.storage.postgres.search`, the job claim in
:mod:`mnemo.storage.postgres.jobs`.

Concurrency: every write to a user's rows first takes a transaction-scoped advisory lock on
that (tenant, user) (:meth:`~mnemo.storage.postgres.tx.PgTx.lock_user`). It serialises the
per-session ``seq`` of concurrent writers, and it makes a user's ``rowid`` order their commit
order, which the incremental vector index relies on.
"""

from __future__ import annotations

from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.postgres import jobs
from mnemo.storage.postgres.conn import PgConnections
from mnemo.storage.postgres.copy import PgTableRows
from mnemo.storage.postgres.hnsw import HnswIndexes
from mnemo.storage.postgres.search import PgSearch
from mnemo.storage.postgres.tx import PgTransactions
from mnemo.storage.sql.erasure import Erasure
from mnemo.storage.sql.role import StoreCore
from mnemo.storage.sql.store import SQLStore


class PostgresStore(SQLStore):
    """Store protocol over one PostgreSQL database (pgvector + full-text search)."""

    search: PgSearch
    table_rows: PgTableRows

    def __init__(
        self,
        url: str,
        pool_size: int = 10,
        connect_timeout_s: float = 10.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.db = PgConnections(url, pool_size, connect_timeout_s)
        self.hnsw = HnswIndexes(self.db)
        core = StoreCore(PgTransactions(self.db), clock, self.hnsw.index_vectors)
        search = PgSearch(core, self.db)
        super().__init__(self.db.location, core, search, jobs.claim, Erasure(core))
        self.table_rows = PgTableRows(self.db)

    def close(self) -> None:
        """Close every connection."""
        self.table_rows.close()
        self.db.close()
