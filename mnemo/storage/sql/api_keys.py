"""API keys (migration 0007): hashed at rest, each mapped to a tenant."""

from __future__ import annotations

from typing import Any

from mnemo.schemas import format_time, utcnow
from mnemo.storage.sql.tx import Row, Transactions

PUBLIC = ("id", "tenant", "name", "created_at", "revoked_at", "last_used_at")


def _row(r: Row) -> dict[str, Any]:
    return {k: r[k] for k in PUBLIC}


class ApiKeyTable:
    """The ``api_keys`` table of one store (:class:`~mnemo.storage.ports.api_keys.ApiKeys`)."""

    def __init__(self, tx: Transactions) -> None:
        self.tx = tx

    def add(self, key_id: str, tenant: str, name: str | None, key_hash: str) -> dict[str, Any]:
        """Insert a key (its hash only) and return its public record."""
        with self.tx.write() as c:
            d = c.dialect
            c.execute(
                d.insert("api_keys", ("id", "tenant", "name", "key_hash", "created_at")),
                (key_id, tenant, name, key_hash, format_time(utcnow())),
            )
            return _row(
                c.execute(f"SELECT * FROM api_keys WHERE id={d.mark}", (key_id,)).fetchone()
            )

    def tenant_of(self, key_hash: str) -> str | None:
        """The tenant of a live (not revoked) key with this hash, or None."""
        with self.tx.auto() as c:
            row = c.execute(
                f"SELECT tenant FROM api_keys WHERE key_hash={c.dialect.mark}"
                " AND revoked_at IS NULL",
                (key_hash,),
            ).fetchone()
        return None if row is None else str(row[0])

    def any_live(self) -> bool:
        """True when at least one key is not revoked."""
        with self.tx.auto() as c:
            sql = "SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"
            return c.execute(sql).fetchone() is not None

    def list(self) -> list[dict[str, Any]]:
        """Every key's public record (never the hash), oldest first."""
        with self.tx.auto() as c:
            return [_row(r) for r in c.execute("SELECT * FROM api_keys ORDER BY created_at, id")]

    def revoke(self, key_id: str) -> bool:
        """Revoke a key; False when no live key has this id."""
        with self.tx.write() as c:
            q = c.dialect.mark
            cur = c.execute(
                f"UPDATE api_keys SET revoked_at={q} WHERE id={q} AND revoked_at IS NULL",
                (format_time(utcnow()), key_id),
            )
            return cur.rowcount > 0
