"""API keys (migration 0007): hashed at rest, each mapped to a tenant (``store.api_keys``)."""

from __future__ import annotations

from typing import Any

from mnemo.schemas import format_time, utcnow
from mnemo.storage.ports.api_keys import ApiKeys
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import auto, writes
from mnemo.storage.sql.tx import Row, Tx

PUBLIC = ("id", "tenant", "name", "created_at", "revoked_at", "last_used_at")


def _row(r: Row) -> dict[str, Any]:
    return {k: r[k] for k in PUBLIC}


class ApiKeyTable(SQLRole, ApiKeys):
    """The ``api_keys`` table of one store; the port
    (:class:`~mnemo.storage.ports.api_keys.ApiKeys`) documents every method. Key times are
    the wall clock's, not the store's."""

    @writes
    def add(
        self, c: Tx, key_id: str, tenant: str, name: str | None, key_hash: str
    ) -> dict[str, Any]:
        d = c.dialect
        c.execute(
            d.insert("api_keys", ("id", "tenant", "name", "key_hash", "created_at")),
            (key_id, tenant, name, key_hash, format_time(utcnow())),
        )
        return _row(c.execute(f"SELECT * FROM api_keys WHERE id={d.mark}", (key_id,)).fetchone())

    @auto
    def tenant_of(self, c: Tx, key_hash: str) -> str | None:
        row = c.execute(
            f"SELECT tenant FROM api_keys WHERE key_hash={c.dialect.mark} AND revoked_at IS NULL",
            (key_hash,),
        ).fetchone()
        return None if row is None else str(row[0])

    @auto
    def any_live(self, c: Tx) -> bool:
        sql = "SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"
        return c.execute(sql).fetchone() is not None

    @auto
    def list(self, c: Tx) -> list[dict[str, Any]]:
        return [_row(r) for r in c.execute("SELECT * FROM api_keys ORDER BY created_at, id")]

    @writes
    def revoke(self, c: Tx, key_id: str) -> bool:
        q = c.dialect.mark
        cur = c.execute(
            f"UPDATE api_keys SET revoked_at={q} WHERE id={q} AND revoked_at IS NULL",
            (format_time(utcnow()), key_id),
        )
        return cur.rowcount > 0


__all__ = ["PUBLIC", "ApiKeyTable"]
