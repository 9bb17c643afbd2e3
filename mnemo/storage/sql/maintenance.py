"""The maintenance port over SQL shared by both stores: re-embedding, key filling, repair.

Statements use ``?`` placeholders and run on the SQLite store's connections or the PostgreSQL
store's statement connections alike. The two backends differ in what they pass in: which
tables keep vectors as pgvector values (``vector_tables``) and what derived rows of their own
to check (``drift``: SQLite's full-text tables).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from mnemo.storage.ports.maintenance import VECTOR_TABLES, KeylessTurn, NewVector, TextRow

#: Key columns of each table of :data:`VECTOR_TABLES`.
KEYS: dict[str, tuple[str, ...]] = {
    "messages": ("rowid",),
    "memories": ("rowid",),
    "document_chunks": ("document_rowid", "idx"),
}
STALE = "embedder IS NOT NULL AND embedder <> ?"
MISSING = "embedding IS NULL AND content <> ''"
KEYLESS = "key_vectors IS NULL AND embedder = ?"
#: A backend's own drift check: (write connection, dry_run) -> count per kind of drift.
Drift = Callable[[Any, bool], dict[str, int]]


class StatementDB(Protocol):
    """Transactions whose connection runs ``?``-placeholder statements."""

    def read(self) -> AbstractContextManager[Any]:
        """A consistent snapshot."""
        ...

    def write(self) -> AbstractContextManager[Any]:
        """One write transaction."""
        ...


class SQLMaintenance:
    """:class:`~mnemo.storage.ports.maintenance.Maintenance` over one store's connections."""

    def __init__(
        self,
        db: StatementDB,
        vector_tables: frozenset[str] = frozenset(),
        drift: Drift | None = None,
    ) -> None:
        self.db = db
        self.vector_tables = vector_tables
        self.drift = drift

    def stale_counts(self, embedder_id: str) -> dict[str, int]:
        """Rows per table (and ``topics``) whose vector another embedder made."""
        with self.db.read() as c:
            return {
                table: int(
                    c.execute(
                        f"SELECT count(*) FROM {table} WHERE {STALE}", (embedder_id,)
                    ).fetchone()[0]
                )
                for table in (*VECTOR_TABLES, "topics")
            }

    def missing_counts(self) -> dict[str, int]:
        """Rows per table with text but no vector."""
        with self.db.read() as c:
            return {
                t: int(c.execute(f"SELECT count(*) FROM {t} WHERE {MISSING}").fetchone()[0])
                for t in VECTOR_TABLES
            }

    def text_batch(self, table: str, embedder_id: str, size: int, missing: bool) -> list[TextRow]:
        """The next rows of ``table`` to (re)embed, in key order."""
        keys = KEYS[table]
        which, args = (MISSING, [size]) if missing else (STALE, [embedder_id, size])
        order = ", ".join(keys)
        with self.db.read() as c:
            found = c.execute(
                f"SELECT {order}, content FROM {table} WHERE {which} ORDER BY {order} LIMIT ?",
                args,
            ).fetchall()
        n = len(keys)
        return [TextRow(tuple(int(r[i]) for i in range(n)), r[n]) for r in found]

    def write_vectors(self, table: str, embedder_id: str, rows: list[NewVector]) -> None:
        """Store rebuilt vectors (and hashes); a turn's extra keys are cleared."""
        keys = KEYS[table]
        has_hash = table != "document_chunks"
        sets = "embedder=?, embedding=?" + (", content_hash=?" if has_hash else "")
        if table == "messages":
            sets += ", key_vectors=NULL"  # made by the old embedder; see mnemo.ops.keyfill
        where = " AND ".join(f"{k}=?" for k in keys)
        params = [
            [
                embedder_id,
                self._vector(table, r.vector),
                *([r.content_hash] if has_hash else []),
                *r.key,
            ]
            for r in rows
        ]
        with self.db.write() as c:
            c.executemany(f"UPDATE {table} SET {sets} WHERE {where}", params)

    def _vector(self, table: str, v: np.ndarray) -> Any:
        v = np.asarray(v, dtype=np.float32)
        return v if table in self.vector_tables else v.tobytes()

    def refold_topics(self, embedder_id: str) -> int:
        """Recompute stale topic vectors from their linked user turns; bump every generation."""
        n = 0
        with self.db.write() as c:
            topics = c.execute(f"SELECT id FROM topics WHERE {STALE}", (embedder_id,)).fetchall()
            for (topic_id,) in topics:
                blobs = c.execute(
                    "SELECT m.embedding FROM topic_messages t JOIN messages m"
                    " ON m.id = t.message_id WHERE t.topic_id = ? AND m.role = 'user'"
                    " AND m.embedder = ?",
                    (topic_id, embedder_id),
                ).fetchall()
                vecs = [np.frombuffer(bytes(b[0]), np.float32) for b in blobs if b[0] is not None]
                mean = np.mean(vecs, axis=0).astype(np.float32).tobytes() if vecs else None
                c.execute(
                    "UPDATE topics SET embedder=?, embedding=?, embedding_weight=? WHERE id=?",
                    (embedder_id if vecs else None, mean, len(vecs), topic_id),
                )
                n += 1
            c.execute("UPDATE users SET generation = generation + 1")
        return n

    def keyless_count(self, embedder_id: str) -> int:
        """Turns by ``embedder_id`` whose extra keys were never computed."""
        with self.db.read() as c:
            sql = f"SELECT count(*) FROM messages WHERE {KEYLESS}"
            return int(c.execute(sql, (embedder_id,)).fetchone()[0])

    def keyless_batch(self, embedder_id: str, after: int, size: int) -> list[KeylessTurn]:
        """The next such turns past rowid ``after`` (keyset pagination), in rowid order."""
        with self.db.read() as c:
            found = c.execute(
                f"SELECT rowid, role, content, content_hash FROM messages WHERE {KEYLESS}"
                " AND rowid > ? ORDER BY rowid LIMIT ?",
                (embedder_id, after, size),
            ).fetchall()
        return [KeylessTurn(int(r[0]), r[1], r[2], r[3]) for r in found]

    def write_keys(self, keys: list[tuple[int, np.ndarray | None]]) -> None:
        """Store turns' keys by rowid; an empty blob for a turn that needs none."""
        params = [
            [b"" if vecs is None else vecs.astype("float32").tobytes(), rowid]
            for rowid, vecs in keys
        ]
        with self.db.write() as c:
            c.executemany("UPDATE messages SET key_vectors = ? WHERE rowid = ?", params)

    def repair_rows(self, dry_run: bool) -> dict[str, int]:
        """The backend's own drift, then the missing ``users`` rows, in one transaction."""
        with self.db.write() as c:
            out = self.drift(c, dry_run) if self.drift else {}
            out["users missing"] = _repair_users(c, dry_run)
        return out

    def bump_generations(self) -> None:
        """Advance every user's generation."""
        with self.db.write() as c:
            c.execute("UPDATE users SET generation = generation + 1")


def _repair_users(c: Any, dry_run: bool) -> int:
    """Add the missing ``users`` rows (created at the user's first turn or memory)."""
    found = "SELECT tenant, user_id, min(created_at) FROM {t} GROUP BY tenant, user_id"
    missing: dict[tuple[str, str], str] = {}
    for table in ("messages", "memories"):
        for tenant, user, first in c.execute(found.format(t=table)).fetchall():
            known = c.execute(
                "SELECT 1 FROM users WHERE tenant=? AND user_id=?", (tenant, user)
            ).fetchone()
            if known is None:
                key = (tenant, user)
                missing[key] = min(first, missing.get(key, first))
    if not dry_run:
        for (tenant, user), first in missing.items():
            c.execute(
                "INSERT INTO users (tenant, user_id, generation, created_at) VALUES (?,?,0,?)",
                (tenant, user, first),
            )
    return len(missing)
