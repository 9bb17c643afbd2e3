"""API keys in SQLite (migration 0007): hashed at rest, each mapped to a tenant."""

from __future__ import annotations

import sqlite3
from typing import Any

from mnemo.schemas import format_time, utcnow
from mnemo.storage.sqlite.conn import Connections


def _row(r: sqlite3.Row) -> dict[str, Any]:
    return {k: r[k] for k in ("id", "tenant", "name", "created_at", "revoked_at", "last_used_at")}


class SQLiteKeys:
    """The ``api_keys`` table of one SQLite store."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def add(self, key_id: str, tenant: str, name: str | None, key_hash: str) -> dict[str, Any]:
        """Insert a key (its hash only) and return its public record."""
        with self.db.write() as c:
            c.execute(
                "INSERT INTO api_keys (id, tenant, name, key_hash, created_at) VALUES (?,?,?,?,?)",
                (key_id, tenant, name, key_hash, format_time(utcnow())),
            )
            return _row(c.execute("SELECT * FROM api_keys WHERE id=?", (key_id,)).fetchone())

    def tenant_of(self, key_hash: str) -> str | None:
        """The tenant of a live (not revoked) key with this hash, or None."""
        row = (
            self.db.get()
            .execute(
                "SELECT tenant FROM api_keys WHERE key_hash=? AND revoked_at IS NULL", (key_hash,)
            )
            .fetchone()
        )
        return None if row is None else str(row[0])

    def any_live(self) -> bool:
        """True when at least one key is not revoked."""
        sql = "SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"
        return self.db.get().execute(sql).fetchone() is not None

    def list(self) -> list[dict[str, Any]]:
        """Every key's public record (never the hash), oldest first."""
        cur = self.db.get().execute("SELECT * FROM api_keys ORDER BY created_at, id")
        return [_row(r) for r in cur]

    def revoke(self, key_id: str) -> bool:
        """Revoke a key; False when no live key has this id."""
        with self.db.write() as c:
            cur = c.execute(
                "UPDATE api_keys SET revoked_at=? WHERE id=? AND revoked_at IS NULL",
                (format_time(utcnow()), key_id),
            )
            return cur.rowcount > 0
