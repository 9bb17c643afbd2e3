"""Idempotency keys (migration 0009): a write's key reserved with its request hash and ids."""

from __future__ import annotations

import json

from mnemo.schemas import format_time, utcnow
from mnemo.storage.ports.idempotency import IdempotencyKeys, Receipt
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import writes
from mnemo.storage.sql.tx import Tx

COLUMNS = ("tenant", "key", "user_id", "request_hash", "ids", "created_at")


class IdempotencyTable(SQLRole, IdempotencyKeys):
    """The ``idempotency_keys`` table of one store (``store.idempotency``; the port,
    :class:`~mnemo.storage.ports.idempotency.IdempotencyKeys`, documents it)."""

    @writes
    def reserve(
        self,
        c: Tx,
        tenant: str,
        key: str,
        user_id: str,
        request_hash: str,
        ids: list[str],
        expired_before: str,
    ) -> Receipt:
        """An insert that skips an existing key, then a read, in one transaction: a concurrent
        reservation of the same key waits for the first and reads its receipt."""
        d = c.dialect
        q = d.mark
        c.execute(
            f"DELETE FROM idempotency_keys WHERE tenant={q} AND created_at < {q}",
            (tenant, expired_before),
        )
        now = format_time(utcnow())
        c.execute(
            d.insert_ignore("idempotency_keys", COLUMNS),
            (tenant, key, user_id, request_hash, json.dumps(ids), now),
        )
        row = c.execute(
            "SELECT user_id, request_hash, ids, created_at FROM idempotency_keys"
            f" WHERE tenant={q} AND key={q}",
            (tenant, key),
        ).fetchone()
        return Receipt(key, str(row[0]), str(row[1]), list(json.loads(row[2])), str(row[3]))


__all__ = ["IdempotencyTable"]
