"""Idempotent writes: a retry with the same idempotency key writes nothing new and gets the
first result.

A key is reserved before the write (:meth:`Keys.reserve`): the store keeps, per tenant and
key, a hash of the request and the ids its rows will be written under. The write then uses
those ids. So whatever point a first attempt died at, a retry knows what to do:

* the rows are there (the first attempt committed, its answer was lost): return them;
* they are not (it died before its transaction committed, or failed): write them now, under
  the same ids;
* two attempts race: both get the same ids, the store's unique ids let one insert win, and
  the other, whose insert fails, finds the winner's rows and returns them.

A key given with a different request is a ValidationError. Keys are scoped to the tenant and
forgotten ``idempotency_ttl_s`` after their first use (then the key is new again); erasing a
user erases their keys.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.errors import ValidationError
from mnemo.ids import new_id
from mnemo.schemas import format_time, utcnow
from mnemo.storage.ports.idempotency import IdempotencyKeys, Receipt

#: Longest idempotency key accepted, in characters.
MAX_KEY_CHARS = 255


def request_hash(request: dict[str, Any]) -> str:
    """SHA-256 of a request's validated values as canonical JSON (what a key is bound to).

    >>> request_hash({"b": 1, "a": [2]}) == request_hash({"a": [2], "b": 1})
    True
    """
    text = json.dumps(request, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class Keys:
    """The idempotency keys of one tenant."""

    def __init__(self, table: IdempotencyKeys, settings: Settings) -> None:
        self.table = table
        self.tenant = settings.tenant
        self.ttl_s = settings.idempotency_ttl_s

    def reserve(
        self, key: Any, user_id: str, request: dict[str, Any], count: int, prefix: str
    ) -> list[str]:
        """The ids the request's ``count`` rows are (or were) written under, reserving
        ``key`` for ``request``; ValidationError for a bad key or one used with another
        request."""
        key = check.identifier(key, "idempotency key")
        if len(key) > MAX_KEY_CHARS:
            raise ValidationError(f"an idempotency key has at most {MAX_KEY_CHARS} characters")
        digest = request_hash(request)
        fresh = [new_id(prefix) for _ in range(count)]
        now = utcnow()
        wanted = Receipt(key, user_id, digest, fresh, format_time(now))
        expired = format_time(now - timedelta(seconds=self.ttl_s))
        receipt = self.table.reserve(self.tenant, wanted, expired)
        if receipt.request_hash != digest or len(receipt.ids) != count:
            raise ValidationError(
                f"idempotency key {key!r} was already used with a different request (keys are "
                f"kept for {self.ttl_s:g} s, setting idempotency_ttl_s); use a new key"
            )
        return receipt.ids


__all__ = ["MAX_KEY_CHARS", "Keys", "request_hash"]
