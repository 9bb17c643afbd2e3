"""The search side of the PostgreSQL store that differs from SQLite's: full text and HNSW.

* ``lexical``: the generated ``fts`` tsvector (English stemming) with a GIN index finds the
  rows; they are ranked by BM25 with FTS5's formula (:mod:`mnemo.storage.postgres.bm25`).
* ``vector_search``: a store-side nearest-neighbour query through the per-embedder HNSW
  (cosine) index, for large multi-user deployments and the benchmark.

Vector loading, hit fields and the rest of the search port are the shared
:class:`~mnemo.storage.sql.search.SQLSearch` (the in-process exact index, as on SQLite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg import sql
from psycopg.adapt import Loader
from psycopg.pq import Format

from mnemo.storage.base import MEMORY, MESSAGE, Ref
from mnemo.storage.postgres import bm25
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql import scoping
from mnemo.storage.sql.dialect import POSTGRES
from mnemo.storage.sql.role import StoreCore
from mnemo.storage.sql.search import LexicalQuery, SQLSearch

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import Conn, PgConnections


class _RawVector(Loader):
    """Binary pgvector values as raw bytes (int16 dim, int16 unused, dim big-endian float32)."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return bytes(data)


def unpack_vectors(blobs: list[bytes]) -> np.ndarray:
    """A float32 (n, dim) matrix from binary pgvector values, in one numpy step."""
    if not blobs:
        return np.zeros((0, 0), np.float32)
    dim = len(blobs[0]) // 4 - 1
    packed = np.frombuffer(b"".join(blobs), dtype=">f4").reshape(len(blobs), dim + 1)
    return np.ascontiguousarray(packed[:, 1:], dtype=np.float32)


def raw_vector_cursor(c: Conn, name: str | None = None) -> Any:
    """A binary cursor on ``c`` returning vectors as raw bytes (see :func:`unpack_vectors`);
    server-side when ``name`` is given (then it must run inside a transaction)."""
    cur = c.cursor(name, binary=True) if name else c.cursor(binary=True)
    info = c.adapters.types.get("vector")
    if info is not None:
        cur.adapters.register_loader(info.oid, _RawVector)
    return cur


class PgSearch(SQLSearch):
    """:class:`~mnemo.storage.ports.search.SearchSource` over PostgreSQL (the full text here,
    the rest shared), plus store-side vector queries through the HNSW indexes
    (:mod:`mnemo.storage.postgres.hnsw`): the search role of
    :class:`~mnemo.storage.postgres.store.PostgresStore`."""

    def __init__(self, core: StoreCore, db: PgConnections) -> None:
        super().__init__(core)
        self.db = db

    def bm25(self, q: LexicalQuery) -> list[tuple[Ref, float]]:
        """BM25 candidates for the query's terms over messages and memories (see
        :mod:`mnemo.storage.postgres.bm25`)."""
        out: list[tuple[Ref, float]] = []
        with self.db.connection() as c:
            lexemes = bm25.query_lexemes(c, q.terms)
            if not lexemes:
                return []
            for table, wanted in ((MESSAGE, q.scope.turns), (MEMORY, q.scope.memories)):
                if wanted:
                    found = bm25.candidates(c, table, q.scope, lexemes)
                    out += [((table, rowid), score) for rowid, score in bm25.ranked(found, q.limit)]
        return out

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the BM25 idf of the query's lexemes among the user's rows of each table
        (MESSAGE, MEMORY), as :meth:`lexical` scores them."""
        scope = ReadScope(tenant, user_id).at_clock(self.clock)
        with self.db.connection() as c:
            lexemes = bm25.query_lexemes(c, terms)
            return {table: bm25.idf_total(c, table, scope, lexemes) for table in (MESSAGE, MEMORY)}

    def vector_search(
        self, scope: ReadScope, embedder: str, query: np.ndarray, limit: int
    ) -> list[tuple[Ref, float]]:
        """Nearest rows of ``scope`` (one user's; "now" by the store's clock unless the scope
        names its time) made by ``embedder``, by cosine via the HNSW index; (ref, cosine),
        best first. Every condition of the scope applies (:mod:`mnemo.storage.sql.scoping`):
        agent view, session, kinds, liveness and filter.

        Approximate: the index is walked with pgvector's iterative scan so the scope still
        fills ``limit`` rows. The pipeline keeps using the exact in-process index.
        """
        if scope.user_id is None:
            raise ValueError("a vector search reads one user's rows")
        scope = scope.at_clock(self.clock)
        dist = sql.SQL("embedding::vector({}) <=> %s").format(sql.Literal(len(query)))
        out: list[tuple[Ref, float]] = []
        with self.db.write() as c:
            c.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            c.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(40, limit))))
            for table, wanted in ((MESSAGE, scope.turns), (MEMORY, scope.memories)):
                if not wanted:
                    continue
                where = scoping.condition(scope, table, POSTGRES)
                q = sql.SQL(
                    "SELECT rowid, {d} AS dist FROM {t} WHERE embedder = %s AND {w}"
                    " ORDER BY {d} LIMIT %s"
                ).format(d=dist, t=sql.Identifier(scoping.TABLES[table]), w=sql.SQL(where.sql))
                for r in c.execute(q, [query, embedder, *where.args, query, limit]):
                    out.append(((table, r["rowid"]), 1.0 - float(r["dist"])))
        out.sort(key=lambda x: -x[1])
        return out[:limit]


__all__ = ["PgSearch", "raw_vector_cursor", "unpack_vectors"]
