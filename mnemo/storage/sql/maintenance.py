"""The maintenance port in SQL shared by both stores: re-embedding, key filling, repair.

Statements are spelled by the transaction's dialect; the backends differ only in the derived
rows of their own they check (``drift``: SQLite's full-text tables).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mnemo.storage.ports.maintenance import (
    VECTOR_TABLES,
    KeylessTurn,
    Maintenance,
    NewVector,
    TextRow,
)
from mnemo.storage.sql import turn_rules
from mnemo.storage.sql.role import SQLRole, StoreCore
from mnemo.storage.sql.transactional import reads, writes
from mnemo.storage.sql.tx import Tx

#: Key columns of each table of :data:`VECTOR_TABLES`.
KEYS: dict[str, tuple[str, ...]] = {
    "messages": ("rowid",),
    "memories": ("rowid",),
    "document_chunks": ("document_rowid", "idx"),
}
MISSING = "embedding IS NULL AND content <> ''"
#: A backend's own drift check: (write transaction, dry_run) -> count per kind of drift.
Drift = Callable[[Tx, bool], dict[str, int]]


def _stale(q: str) -> str:
    """Rows whose vector another embedder made (the embedder id is the parameter)."""
    return f"embedder IS NOT NULL AND embedder <> {q}"


def _keyless(q: str) -> str:
    """Turns whose keys were never computed, by one embedder (the parameter)."""
    return f"key_vectors IS NULL AND embedder = {q}"


class SQLMaintenance(SQLRole, Maintenance):
    """:class:`~mnemo.storage.ports.maintenance.Maintenance` over a store's core (``store.
    maintenance``); the port documents every method."""

    def __init__(self, core: StoreCore, drift: Drift | None = None) -> None:
        super().__init__(core)
        self.drift = drift

    @reads
    def stale_counts(self, c: Tx, embedder_id: str) -> dict[str, int]:
        where = _stale(c.dialect.mark)
        return {
            table: int(
                c.execute(f"SELECT count(*) FROM {table} WHERE {where}", (embedder_id,)).fetchone()[
                    0
                ]
            )
            for table in (*VECTOR_TABLES, "topics")
        }

    @reads
    def missing_counts(self, c: Tx) -> dict[str, int]:
        return {
            t: int(c.execute(f"SELECT count(*) FROM {t} WHERE {MISSING}").fetchone()[0])
            for t in VECTOR_TABLES
        }

    @reads
    def text_batch(
        self, c: Tx, table: str, embedder_id: str, size: int, missing: bool
    ) -> list[TextRow]:
        keys = KEYS[table]
        order = ", ".join(keys)
        q = c.dialect.mark
        which, args = (MISSING, [size]) if missing else (_stale(q), [embedder_id, size])
        found = c.execute(
            f"SELECT {order}, content FROM {table} WHERE {which} ORDER BY {order} LIMIT {q}",
            args,
        ).fetchall()
        n = len(keys)
        return [TextRow(tuple(int(r[i]) for i in range(n)), r[n]) for r in found]

    @writes
    def write_vectors(self, c: Tx, table: str, embedder_id: str, rows: list[NewVector]) -> None:
        has_hash = table != "document_chunks"
        d = c.dialect
        q = d.mark
        sets = f"embedder={q}, embedding={q}" + (f", content_hash={q}" if has_hash else "")
        if table == "messages":
            sets += ", key_vectors=NULL"  # made by the old embedder; see mnemo.ops.keyfill
        where = " AND ".join(f"{k}={q}" for k in KEYS[table])
        c.executemany(
            f"UPDATE {table} SET {sets} WHERE {where}",
            [
                [
                    embedder_id,
                    _vector(c, table, r.vector),
                    *([r.content_hash] if has_hash else []),
                    *r.key,
                ]
                for r in rows
            ],
        )

    @writes
    def refold_topics(self, c: Tx, embedder_id: str) -> int:
        n = 0
        q = c.dialect.mark
        found = c.execute(f"SELECT id FROM topics WHERE {_stale(q)}", (embedder_id,))
        for (topic_id,) in found.fetchall():
            blobs = c.execute(
                "SELECT m.embedding FROM topic_messages t JOIN messages m"
                f" ON m.id = t.message_id WHERE t.topic_id = {q} AND m.role = 'user'"
                f" AND m.embedder = {q}",
                (topic_id, embedder_id),
            ).fetchall()
            vecs = [np.frombuffer(bytes(b[0]), np.float32) for b in blobs if b[0] is not None]
            mean = np.mean(vecs, axis=0).astype(np.float32).tobytes() if vecs else None
            c.execute(
                f"UPDATE topics SET embedder={q}, embedding={q}, embedding_weight={q} WHERE id={q}",
                (embedder_id if vecs else None, mean, len(vecs), topic_id),
            )
            n += 1
        c.execute("UPDATE users SET generation = generation + 1")
        return n

    @reads
    def keyless_count(self, c: Tx, embedder_id: str) -> int:
        sql = f"SELECT count(*) FROM messages WHERE {_keyless(c.dialect.mark)}"
        return int(c.execute(sql, (embedder_id,)).fetchone()[0])

    @reads
    def keyless_batch(self, c: Tx, embedder_id: str, after: int, size: int) -> list[KeylessTurn]:
        q = c.dialect.mark
        found = c.execute(
            f"SELECT rowid, role, content, content_hash FROM messages WHERE {_keyless(q)}"
            f" AND rowid > {q} ORDER BY rowid LIMIT {q}",
            (embedder_id, after, size),
        ).fetchall()
        return [KeylessTurn(int(r[0]), r[1], r[2], r[3]) for r in found]

    @writes
    def write_keys(self, c: Tx, keys: list[tuple[int, np.ndarray | None]]) -> None:
        """An empty blob for a turn that needs none."""
        params = [
            [b"" if vecs is None else vecs.astype("float32").tobytes(), rowid]
            for rowid, vecs in keys
        ]
        q = c.dialect.mark
        c.executemany(f"UPDATE messages SET key_vectors = {q} WHERE rowid = {q}", params)

    @writes
    def repair_rows(self, c: Tx, dry_run: bool) -> dict[str, int]:
        """The backend's own drift, then the missing ``users`` rows, in one transaction."""
        out = self.drift(c, dry_run) if self.drift else {}
        out["users missing"] = _repair_users(c, dry_run)
        return out

    def refresh_turn_rules(self) -> int:
        return turn_rules.refresh(self.core.tx)

    @writes
    def bump_generations(self, c: Tx) -> None:
        c.execute("UPDATE users SET generation = generation + 1")


def _vector(c: Tx, table: str, v: np.ndarray) -> Any:
    """A rebuilt vector as ``table`` stores it (pgvector for turns and memories on PostgreSQL)."""
    v = np.asarray(v, dtype=np.float32)
    return c.dialect.vector(v) if table in ("messages", "memories") else v.tobytes()


def _repair_users(c: Tx, dry_run: bool) -> int:
    """Add the missing ``users`` rows (created at the user's first turn or memory)."""
    d = c.dialect
    found = "SELECT tenant, user_id, min(created_at) FROM {t} GROUP BY tenant, user_id"
    missing: dict[tuple[str, str], str] = {}
    for table in ("messages", "memories"):
        for tenant, user, first in c.execute(found.format(t=table)).fetchall():
            known = c.execute(
                f"SELECT 1 FROM users WHERE tenant={d.mark} AND user_id={d.mark}", (tenant, user)
            ).fetchone()
            if known is None:
                key = (tenant, user)
                missing[key] = min(first, missing.get(key, first))
    if not dry_run:
        for (tenant, user), first in missing.items():
            c.execute(
                f"INSERT INTO users (tenant, user_id, generation, created_at)"
                f" VALUES ({d.mark}, {d.mark}, 0, {d.mark})",
                (tenant, user, first),
            )
    return len(missing)


__all__ = ["KEYS", "MISSING", "Drift", "SQLMaintenance"]
