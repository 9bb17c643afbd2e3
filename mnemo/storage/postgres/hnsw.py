"""The HNSW (cosine) vector indexes of the PostgreSQL store, one per embedder and table.

pgvector indexes need a fixed dimension, so each is an expression index over
``embedding::vector(dim)``, partial on the embedder id. :class:`HnswIndexes` is the store's
vector-index hook (:attr:`mnemo.storage.sql.role.StoreCore.index_vectors`): it creates an
embedder's indexes before its first vectors are written.
"""

from __future__ import annotations

import hashlib

from psycopg import sql

from mnemo.storage.postgres.conn import Conn, PgConnections
from mnemo.storage.sql.role import Samples


def index_name(table: str, embedder: str) -> str:
    """The HNSW index of one embedder's vectors in ``table``."""
    return f"{table}_hnsw_{hashlib.sha1(embedder.encode()).hexdigest()[:12]}"


class HnswIndexes:
    """The HNSW indexes of one database, created per embedder as vectors arrive."""

    def __init__(self, db: PgConnections) -> None:
        self.db = db
        #: Embedders whose HNSW indexes are known to exist.
        self.indexed: set[str] = set()

    def index_vectors(self, samples: Samples) -> None:
        """Create the indexes (on messages and memories) of each embedder in ``samples`` that
        lacks them, sized by its sample vector."""
        for embedder, vec in samples.items():
            if not embedder or vec is None or embedder in self.indexed:
                continue
            with self.db.write() as c:
                c.execute("SELECT pg_advisory_xact_lock(hashtext('mnemo.hnsw'))")
                for table in ("messages", "memories"):
                    create_hnsw_index(c, table, embedder, len(vec))
            self.indexed.add(embedder)


def create_hnsw_index(c: Conn, table: str, embedder: str, dim: int) -> None:
    """``CREATE INDEX`` the HNSW (cosine) index of ``embedder`` on ``table`` unless present."""
    name = index_name(table, embedder)
    got = c.execute("SELECT to_regclass(%s) IS NOT NULL AS present", (name,)).fetchone()
    if got and got["present"]:
        return
    c.execute(
        sql.SQL(
            "CREATE INDEX IF NOT EXISTS {n} ON {t} USING hnsw"
            " ((embedding::vector({d})) vector_cosine_ops) WHERE embedder = {e}"
        ).format(
            n=sql.Identifier(name),
            t=sql.Identifier(table),
            d=sql.Literal(dim),
            e=sql.Literal(embedder),
        )
    )


__all__ = ["HnswIndexes", "create_hnsw_index", "index_name"]
