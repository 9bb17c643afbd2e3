"""The search side of the PostgreSQL store: full text, vector loading, HNSW vector queries.

* ``lexical``: the generated ``fts`` tsvector (English stemming) with a GIN index finds the
  rows; they are ranked by BM25 with FTS5's formula (:mod:`mnemo.storage.postgres.bm25`).
* ``load_vectors``: a user's vectors for the in-process exact index (the same design as SQLite),
  read in binary and unpacked with numpy in one step.
* ``vector_search``: a store-side nearest-neighbour query through the per-embedder HNSW
  (cosine) index, for large multi-user deployments and the benchmark.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg import sql
from psycopg.adapt import Loader
from psycopg.pq import Format

from mnemo.storage.base import MEMORY, MESSAGE, Ref, VectorRows, VectorState
from mnemo.storage.postgres import bm25
from mnemo.storage.postgres.tx import PgTx
from mnemo.storage.sql import rows
from mnemo.storage.sql import stats as stats_sql

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import Conn, PgConnections

_PHRASE = re.compile(r'"((?:[^"]|"")*)"')
MEMORY_KINDS = ("fact", "episode", "summary", "note")


def match_terms(match: str) -> list[str]:
    """The words of an FTS5 match expression built by the retrieval pipeline.

    The pipeline builds ``text : ("t1" OR "t2")`` (see ``retrieval.lexical``); its quoted
    phrases are the terms. Text without phrases is split on white space.
    """
    phrases = [p.replace('""', '"') for p in _PHRASE.findall(match)]
    return phrases or match.split()


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


def index_name(table: str, embedder: str) -> str:
    """The HNSW index of one embedder's vectors in ``table``."""
    return f"{table}_hnsw_{hashlib.sha1(embedder.encode()).hexdigest()[:12]}"


class PgSearch:
    """:class:`~mnemo.storage.ports.search.SearchSource` over PostgreSQL, plus the HNSW vector
    indexes (created per embedder as vectors arrive) and store-side vector queries."""

    def __init__(self, db: PgConnections) -> None:
        self.db = db
        self._indexed: set[str] = set()

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        with self.db.connection() as c:
            return stats_sql.count_items(PgTx(c), tenant, user_id, session_id)

    def lexical(
        self,
        tenant: str,
        user_id: str,
        match: str,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """BM25 candidates for a match expression over messages and memories, best first
        (see :mod:`mnemo.storage.postgres.bm25`)."""
        out: list[tuple[Ref, float]] = []
        with self.db.connection() as c:
            lexemes = bm25.query_lexemes(c, match_terms(match))
            if not lexemes:
                return []
            if kinds is None or "message" in kinds:
                found = bm25.candidates(c, "messages", tenant, user_id, lexemes)
                ranked = bm25.ranked(found, limit, session_id, None)
                out += [((MESSAGE, rowid), score) for rowid, score in ranked]
            mem_kinds = [k for k in (kinds or MEMORY_KINDS) if k != "message"]
            if mem_kinds:
                found = bm25.candidates(c, "memories", tenant, user_id, lexemes)
                ranked = bm25.ranked(found, limit, session_id, mem_kinds)
                out += [((MEMORY, rowid), score) for rowid, score in ranked]
        out.sort(key=lambda x: -x[1])
        return out[:limit]

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the BM25 idf of the query's lexemes among the user's rows of each table
        (MESSAGE, MEMORY), as :meth:`lexical` scores them."""
        with self.db.connection() as c:
            lexemes = bm25.query_lexemes(c, terms)
            return {
                MESSAGE: bm25.idf_total(c, "messages", tenant, user_id, lexemes),
                MEMORY: bm25.idf_total(c, "memories", tenant, user_id, lexemes),
            }

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        with self.db.connection() as c:
            r = c.execute(
                "SELECT (SELECT generation FROM users WHERE tenant=%s AND user_id=%s) AS g,"
                " (SELECT max(rowid) FROM messages WHERE tenant=%s AND user_id=%s) AS mm,"
                " (SELECT max(rowid) FROM memories WHERE tenant=%s AND user_id=%s) AS xm",
                (tenant, user_id) * 3,
            ).fetchone()
        assert r is not None
        gen = -1 if r["g"] is None else int(r["g"])
        return VectorState(gen, int(r["mm"] or 0), int(r["xm"] or 0))

    def load_vectors(
        self,
        tenant: str,
        user_id: str,
        embedder: str,
        after: VectorState | None,
        upto: VectorState,
    ) -> VectorRows:
        """Embedded live rows of a user made by ``embedder``, in (``after``, ``upto``]."""
        lo_msg = after.max_message_rowid if after else 0
        lo_mem = after.max_memory_rowid if after else 0
        query = (
            "SELECT 0::int2 AS t, rowid, session_id, 'message'::text AS kind, created_at,"
            " embedding, role, name, key_vectors FROM messages WHERE tenant=%s AND user_id=%s"
            " AND embedder=%s AND rowid>%s AND rowid<=%s AND evicted_at IS NULL UNION ALL"
            " SELECT 1::int2, rowid, session_id, kind, created_at, embedding, NULL, NULL,"
            " NULL::bytea FROM memories"
            " WHERE tenant=%s AND user_id=%s AND embedder=%s AND rowid>%s AND rowid<=%s"
            " AND deleted_at IS NULL"
            " ORDER BY 1, 2"  # SQLite's order: equal rows give bit-equal products
        )
        args = (tenant, user_id, embedder, lo_msg, upto.max_message_rowid)
        args2 = (tenant, user_id, embedder, lo_mem, upto.max_memory_rowid)
        with self.db.connection() as c:
            cur = raw_vector_cursor(c)
            data = cur.execute(query, args + args2).fetchall()
        n = len(data)
        if n == 0:
            return rows.vector_rows([])
        vectors = unpack_vectors([r["embedding"] for r in data])
        key_vectors, key_owners = rows.packed_keys(
            [r["key_vectors"] for r in data], vectors.shape[1]
        )
        return VectorRows(
            tables=np.fromiter((r["t"] for r in data), dtype=np.int8, count=n),
            rowids=np.fromiter((r["rowid"] for r in data), dtype=np.int64, count=n),
            sessions=[r["session_id"] for r in data],
            kinds=[r["kind"] for r in data],
            times=rows.epoch_seconds([r["created_at"] for r in data]),
            vectors=vectors,
            roles=[r["role"] for r in data],
            names=[r["name"] for r in data],
            key_vectors=key_vectors,
            key_owners=key_owners,
        )

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Hit fields of the given refs (those still present); see ``sqlite_rows.fetched``."""
        out: dict[Ref, dict[str, Any]] = {}
        cols = {
            MESSAGE: "rowid, id, content, created_at, user_id, session_id, role, name, metadata,"
            " seq",
            MEMORY: "rowid, id, kind, content, created_at, user_id, session_id, metadata, tags,"
            " source_message_ids",
        }
        with self.db.connection() as c:
            for table, name in ((MESSAGE, "messages"), (MEMORY, "memories")):
                ids = [r for t, r in refs if t == table]
                if not ids:
                    continue
                query = f"SELECT {cols[table]} FROM {name} WHERE rowid = ANY(%s)"
                for r in c.execute(query, (ids,)):
                    out[(table, r["rowid"])] = rows.fetched(table == MESSAGE, r)
        return out

    def embeddings_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Already-stored vectors of ``tenant``'s rows (None: any tenant's) for content hashes
        made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        uniq = list(dict.fromkeys(hashes))
        if not uniq:
            return out
        with self.db.connection() as c:
            for table in ("messages", "memories"):
                cur = raw_vector_cursor(c)
                data = cur.execute(
                    f"SELECT DISTINCT ON (content_hash) content_hash, embedding FROM {table}"
                    " WHERE content_hash = ANY(%s) AND embedder=%s AND embedding IS NOT NULL"
                    " AND (%s::text IS NULL OR tenant=%s)",
                    (uniq, embedder, tenant, tenant),
                ).fetchall()
                vecs = unpack_vectors([r["embedding"] for r in data])
                out.update(zip((r["content_hash"] for r in data), vecs, strict=True))
        return out

    def key_vectors_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of ``tenant``'s messages (None: any tenant's) by
        content hash, made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        uniq = list(dict.fromkeys(hashes))
        if not uniq:
            return out
        with self.db.connection() as c:
            data = (
                raw_vector_cursor(c)
                .execute(
                    "SELECT DISTINCT ON (content_hash) content_hash, embedding, key_vectors"
                    " FROM messages WHERE content_hash = ANY(%s) AND embedder=%s"
                    " AND octet_length(key_vectors) > 0 AND embedding IS NOT NULL"
                    " AND (%s::text IS NULL OR tenant=%s)",
                    (uniq, embedder, tenant, tenant),
                )
                .fetchall()
            )
        for r in data:
            dim = len(r["embedding"]) // 4 - 1  # binary pgvector: a 4-byte header, then floats
            out[r["content_hash"]] = rows.unpack_keys(r["key_vectors"], dim)
        return out

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors.

        A loose index scan (one index probe per distinct value) instead of ``DISTINCT``, which
        would read the whole embedder index: this runs every time a store is opened.
        """
        out: set[str] = set()
        with self.db.connection() as c:
            for table in ("messages", "memories"):
                t = sql.Identifier(table)
                found = c.execute(
                    sql.SQL(
                        "WITH RECURSIVE e(v) AS (SELECT min(embedder) FROM {t}"
                        " UNION ALL SELECT (SELECT min(embedder) FROM {t} WHERE embedder > e.v)"
                        " FROM e WHERE e.v IS NOT NULL) SELECT v FROM e WHERE v IS NOT NULL"
                    ).format(t=t)
                ).fetchall()
                out.update(r["v"] for r in found)
        return sorted(out)

    def ensure_vector_index(self, samples: dict[str | None, np.ndarray | None]) -> None:
        """Create the HNSW (cosine) index of each embedder in ``samples`` that lacks one.

        pgvector indexes need a fixed dimension, so each is an expression index over
        ``embedding::vector(dim)``, partial on the embedder id (one per embedder).
        """
        for embedder, vec in samples.items():
            if not embedder or vec is None or embedder in self._indexed:
                continue
            with self.db.write() as c:
                c.execute("SELECT pg_advisory_xact_lock(hashtext('mnemo.hnsw'))")
                for table in ("messages", "memories"):
                    create_hnsw_index(c, table, embedder, len(vec))
            self._indexed.add(embedder)

    def vector_search(
        self,
        tenant: str,
        user_id: str,
        embedder: str,
        query: np.ndarray,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """Nearest live rows of a user by cosine via the HNSW index; (ref, cosine), best first.

        Approximate: the index is walked with pgvector's iterative scan so the user filter
        still fills ``limit`` rows. The pipeline keeps using the exact in-process index.
        """
        dim = len(query)
        dist = sql.SQL("embedding::vector({}) <=> %s").format(sql.Literal(dim))
        out: list[tuple[Ref, float]] = []
        with self.db.write() as c:
            c.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            c.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(40, limit))))
            for table, name in ((MESSAGE, "messages"), (MEMORY, "memories")):
                where: sql.Composable = sql.SQL("tenant=%s AND user_id=%s AND embedder=%s")
                args: list[Any] = [query, tenant, user_id, embedder]
                if table == MEMORY:
                    wanted = [k for k in (kinds or MEMORY_KINDS) if k != "message"]
                    if not wanted:
                        continue
                    where += sql.SQL(" AND deleted_at IS NULL AND kind = ANY(%s)")
                    args.append(wanted)
                elif kinds is not None and "message" not in kinds:
                    continue
                else:
                    where += sql.SQL(" AND evicted_at IS NULL")
                if session_id is not None:
                    where += sql.SQL(" AND session_id=%s")
                    args.append(session_id)
                q = sql.SQL(
                    "SELECT rowid, {d} AS dist FROM {t} WHERE {w} ORDER BY {d} LIMIT %s"
                ).format(d=dist, t=sql.Identifier(name), w=where)
                for r in c.execute(q, [*args, query, limit]):
                    out.append(((table, r["rowid"]), 1.0 - float(r["dist"])))
        out.sort(key=lambda x: -x[1])
        return out[:limit]


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
