"""The idempotency-keys port: per tenant and key, what a write will be (or was) stored as."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Receipt:
    """A reserved idempotency key: the hash of the request it was first given with, the ids
    that request's rows are written under, and when it was reserved (a stored time)."""

    key: str
    user_id: str
    request_hash: str
    ids: list[str]
    created_at: str


class IdempotencyKeys(Protocol):
    """The ``idempotency_keys`` table of a store."""

    def reserve(self, tenant: str, wanted: Receipt, expired_before: str) -> Receipt:
        """The receipt of the key of ``wanted`` in ``tenant``: the stored one, or (when there
        is none, or it was made before ``expired_before``) ``wanted``, stored. In the same
        transaction the tenant's receipts older than ``expired_before`` are deleted. Two
        concurrent calls with one key get the same receipt."""
        ...


class IdempotencyHolder(Protocol):
    """A store that keeps idempotency keys."""

    @property
    def idempotency(self) -> IdempotencyKeys:
        """The store's idempotency-key table."""
        ...


__all__ = ["IdempotencyHolder", "IdempotencyKeys", "Receipt"]
