"""The SQLite store's search side: FTS5 with bm25, float32 vector blobs for the in-process index.

* ``lexical``: FTS5 ``MATCH`` over ``messages_fts`` and ``memories_fts``, confined to one owner
  by the ``owner`` column the triggers write (:func:`owner_token`).
* ``load_vectors`` and friends: what the in-process vector index loads, and the vectors (and
  extra keys) already stored for a text, so the same text is never embedded twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemo.storage.base import MEMORY, MESSAGE, Ref, VectorRows, VectorState
from mnemo.storage.sql import rows
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sqlite import fts_stats
from mnemo.storage.sqlite.conn import Connections
from mnemo.storage.sqlite.tx import SQLiteTx


def owner_token(tenant: str, user_id: str) -> str:
    """The FTS token that confines a query to one (tenant, user), as the triggers write it."""
    return "o" + (tenant + "\x1f" + user_id).encode("utf-8").hex().upper()


class SQLiteSearch:
    """:class:`~mnemo.storage.ports.search.SearchSource` over one SQLite file."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        return stats_sql.count_items(SQLiteTx(self.db.get()), tenant, user_id, session_id)

    def lexical(
        self,
        tenant: str,
        user_id: str,
        match: str,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """BM25 candidates for an FTS5 query over messages and memories, best first."""
        c = self.db.get()
        owners = c.execute("SELECT tenant, user_id FROM users LIMIT 2").fetchall()
        if [tuple(o) for o in owners] == [(tenant, user_id)]:
            query = match  # the only owner: confining to it would cost a full doclist read
        else:
            query = f'owner : "{owner_token(tenant, user_id)}" AND ({match})'
        out: list[tuple[Ref, float]] = []
        if kinds is None or "message" in kinds:
            sql = (
                "SELECT f.rowid, -bm25(messages_fts, 1.0, 0.0) FROM messages_fts f"
                " WHERE messages_fts MATCH ?"
            )
            args: list[Any] = [query]
            if session_id is not None:
                sql += " AND f.rowid IN (SELECT rowid FROM messages WHERE tenant=? AND user_id=?"
                sql += " AND session_id=?)"
                args += [tenant, user_id, session_id]
            sql += " ORDER BY bm25(messages_fts, 1.0, 0.0) LIMIT ?"
            out += [((MESSAGE, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]
        mem_kinds = [k for k in (kinds or ("fact", "episode", "summary", "note")) if k != "message"]
        if mem_kinds:
            sql = (
                "SELECT f.rowid, -bm25(memories_fts, 1.0, 0.0) FROM memories_fts f"
                " JOIN memories m ON m.rowid = f.rowid WHERE memories_fts MATCH ?"
                f" AND m.kind IN ({','.join('?' * len(mem_kinds))})"
            )
            args = [query, *mem_kinds]
            if session_id is not None:
                sql += " AND m.session_id = ?"
                args.append(session_id)
            sql += " ORDER BY bm25(memories_fts, 1.0, 0.0) LIMIT ?"
            out += [((MEMORY, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]
        out.sort(key=lambda x: -x[1])
        return out[:limit]

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the bm25 idf of the query's terms in each full-text table (MESSAGE, MEMORY).

        FTS5 takes its statistics over the whole table, every owner's rows, so ``tenant`` and
        ``user_id`` do not change the result (see :mod:`mnemo.storage.sqlite.fts_stats`).
        """
        c = self.db.get()
        return {
            MESSAGE: fts_stats.idf_total(c, "messages_fts", terms),
            MEMORY: fts_stats.idf_total(c, "memories_fts", terms),
        }

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Hit fields of the given refs (those still present); see ``sqlite_rows.fetched``."""
        out: dict[Ref, dict[str, Any]] = {}
        c = self.db.get()
        for table, name in ((MESSAGE, "messages"), (MEMORY, "memories")):
            ids = [r for t, r in refs if t == table]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for r in c.execute(f"SELECT * FROM {name} WHERE rowid IN ({marks})", chunk):
                    out[(table, r["rowid"])] = rows.fetched(table == MESSAGE, r)
        return out

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        c = self.db.get()
        gen = c.execute(
            "SELECT generation FROM users WHERE tenant=? AND user_id=?", (tenant, user_id)
        ).fetchone()
        mm = c.execute(
            "SELECT coalesce(max(rowid), 0) FROM messages WHERE tenant=? AND user_id=?",
            (tenant, user_id),
        ).fetchone()[0]
        xm = c.execute(
            "SELECT coalesce(max(rowid), 0) FROM memories WHERE tenant=? AND user_id=?",
            (tenant, user_id),
        ).fetchone()[0]
        return VectorState(gen[0] if gen else -1, int(mm), int(xm))

    def load_vectors(
        self,
        tenant: str,
        user_id: str,
        embedder: str,
        after: VectorState | None,
        upto: VectorState,
    ) -> VectorRows:
        """Embedded live rows of a user made by ``embedder``, newer than ``after`` (if given)
        and no newer than ``upto``: bounding both ends keeps concurrent inserts from being
        loaded twice."""
        lo_msg = after.max_message_rowid if after else 0
        lo_mem = after.max_memory_rowid if after else 0
        sql = (
            "SELECT 0, rowid, session_id, 'message', created_at, embedding, role, name,"
            " key_vectors FROM messages"
            " WHERE tenant=? AND user_id=? AND +embedder=? AND rowid>? AND rowid<=?"
            " AND evicted_at IS NULL"
            " UNION ALL SELECT 1, rowid, session_id, kind, created_at, embedding, NULL, NULL,"
            " NULL FROM memories"
            " WHERE tenant=? AND user_id=? AND +embedder=? AND rowid>? AND rowid<=?"
            " AND deleted_at IS NULL"
        )
        args = (
            tenant,
            user_id,
            embedder,
            lo_msg,
            upto.max_message_rowid,
            tenant,
            user_id,
            embedder,
            lo_mem,
            upto.max_memory_rowid,
        )
        with self.db.read() as c:
            data = c.execute(sql, args).fetchall()
        return rows.vector_rows(data)

    def embeddings_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Already-stored vectors of ``tenant``'s rows (None: any tenant's) for content hashes
        made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        c = self.db.get()
        uniq = list(dict.fromkeys(hashes))
        for start in range(0, len(uniq), 500):
            chunk = uniq[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for table in ("messages", "memories"):
                for h, blob in c.execute(
                    f"SELECT content_hash, embedding FROM {table} WHERE content_hash IN ({marks})"
                    " AND +embedder=? AND embedding IS NOT NULL"  # '+': look up by hash
                    " AND (? IS NULL OR +tenant=?)",
                    [*chunk, embedder, tenant, tenant],
                ):
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def key_vectors_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of ``tenant``'s messages (None: any tenant's) by
        content hash, made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        c = self.db.get()
        uniq = list(dict.fromkeys(hashes))
        for start in range(0, len(uniq), 500):
            chunk = uniq[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for h, vec, keys in c.execute(
                f"SELECT content_hash, embedding, key_vectors FROM messages"
                f" WHERE content_hash IN ({marks}) AND +embedder=? AND length(key_vectors) > 0"
                " AND (? IS NULL OR +tenant=?)",
                [*chunk, embedder, tenant, tenant],
            ):
                out[h] = rows.unpack_keys(keys, len(vec) // 4)
        return out

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors."""
        cur = self.db.get().execute(
            "SELECT DISTINCT embedder FROM messages WHERE embedder IS NOT NULL UNION "
            "SELECT DISTINCT embedder FROM memories WHERE embedder IS NOT NULL"
        )
        return sorted(r[0] for r in cur)
