"""Idempotency keys (migration 0009): a write's key reserved with its request hash and ids."""

from __future__ import annotations

import json

from mnemo.storage.ports.idempotency import IdempotencyKeys, Receipt
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import writes
from mnemo.storage.sql.tx import Tx

COLUMNS = ("tenant", "key", "user_id", "request_hash", "ids", "created_at")


class IdempotencyTable(SQLRole, IdempotencyKeys):
    """The ``idempotency_keys`` table of one store (``store.idempotency``; the port,
    :class:`~mnemo.storage.ports.idempotency.IdempotencyKeys`, documents it)."""

    @writes
    def reserve(self, c: Tx, tenant: str, wanted: Receipt, expired_before: str) -> Receipt:
        """An insert that skips an existing key, then a read, in one transaction: a concurrent
        reservation of the same key waits for the first and reads its receipt."""
        d = c.dialect
        q = d.mark
        c.execute(
            f"DELETE FROM idempotency_keys WHERE tenant={q} AND created_at < {q}",
            (tenant, expired_before),
        )
        ids = json.dumps(wanted.ids)
        stored = (wanted.key, wanted.user_id, wanted.request_hash, ids, wanted.created_at)
        c.execute(d.insert_ignore("idempotency_keys", COLUMNS), (tenant, *stored))
        row = c.execute(
            "SELECT user_id, request_hash, ids, created_at FROM idempotency_keys"
            f" WHERE tenant={q} AND key={q}",
            (tenant, wanted.key),
        ).fetchone()
        return Receipt(wanted.key, str(row[0]), str(row[1]), list(json.loads(row[2])), str(row[3]))


__all__ = ["IdempotencyTable"]
