"""The SQLite store's vector reads: what the in-process index loads, and the vectors (and
extra keys) already stored for a text, so the same text is never embedded twice."""

from __future__ import annotations

import numpy as np

from mnemo.storage.base import VectorRows, VectorState
from mnemo.storage.sql import rows
from mnemo.storage.sqlite.conn import Connections


class SQLiteVectors:
    """Vector methods of :class:`~mnemo.storage.sqlite.store.SQLiteStore` (a mixin)."""

    db: Connections

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

    def embeddings_for(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Already-stored vectors for content hashes made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        c = self.db.get()
        uniq = list(dict.fromkeys(hashes))
        for start in range(0, len(uniq), 500):
            chunk = uniq[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for table in ("messages", "memories"):
                for h, blob in c.execute(
                    f"SELECT content_hash, embedding FROM {table} WHERE content_hash IN ({marks})"
                    " AND +embedder=? AND embedding IS NOT NULL",  # '+': look up by hash
                    [*chunk, embedder],
                ):
                    out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def key_vectors_for(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of messages by content hash, made by ``embedder``."""
        out: dict[str, np.ndarray] = {}
        c = self.db.get()
        uniq = list(dict.fromkeys(hashes))
        for start in range(0, len(uniq), 500):
            chunk = uniq[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for h, vec, keys in c.execute(
                f"SELECT content_hash, embedding, key_vectors FROM messages"
                f" WHERE content_hash IN ({marks}) AND +embedder=? AND length(key_vectors) > 0",
                [*chunk, embedder],
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
