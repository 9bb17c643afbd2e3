"""Opaque page cursors: :func:`mark` makes one, :func:`resume` reads one back.

A cursor is where the next page of a listing starts, as a keyset position: the sort key of the
last row a page returned (``(created_at, id)`` for memories, ``(created_at, session_id, seq)``
for turns, ``user_id`` for users...). The next page reads the rows *after* that key in the
listing's order, so rows written or deleted between two page requests neither repeat nor skip
a row that was there all along (an offset would shift by as many rows as were written before
it).

The token is urlsafe base64 of a small JSON object: the listing's name (``l``), the key
(``k``), how many rows came before the next page (``o``, what that page reports as its
offset) and a seal (``s``): an HMAC-SHA256 over the listing, the tenant, every parameter of
the query (user, session, kind, tag, times and whatever else the listing's filter holds) and
the position. A cursor handed to another listing, another query, another user or tenant, or
one altered or garbled on the way, fails the seal: :class:`~mnemo.errors.ValidationError`.
The seal is an integrity check, not the access check: the tenant (and user) conditions of a
page always come from the caller, never from the cursor, so no cursor can reveal another
tenant's rows.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from mnemo.errors import ValidationError
from mnemo.list_query import FOREIGN, cursor_token
from mnemo.list_query import MAX_CURSOR_CHARS as MAX_CHARS
from mnemo.storage.base import Keyset, ListFilter

#: The key of the seal (it binds a cursor to its query; it guards no secret).
SEAL_KEY = b"mnemo page cursor v1"
#: The types of each listing's sort key: memories ``(created_at, rowid)``, turns
#: ``(created_at, session_id, seq)``, users ``(user_id,)``, sessions ``(last_at, session_id)``,
#: jobs ``(id,)``.
SHAPES: dict[str, tuple[type, ...]] = {
    "memories": (str, int),
    "messages": (str, str, int),
    "users": (str,),
    "sessions": (str, str),
    "jobs": (int,),
}
#: The fields of a listing filter that are the page window, not the query.
WINDOW = ("limit", "offset", "after")
Key = Sequence[str | int]


def query_params(flt: ListFilter) -> dict[str, Any]:
    """What a cursor of ``flt``'s listing binds: its scope but the tenant (bound on its own)
    and the listing's fields but the page window (limit, offset, position), under the names
    cursors have always been sealed with (a cursor made by an earlier version resumes)."""
    scope = asdict(flt.scope)
    listing = {k: v for k, v in asdict(flt).items() if k not in (*WINDOW, "scope")}
    kinds = flt.scope.kinds
    return {
        **listing,
        "user_id": scope["user_id"],
        "session_id": scope["session_id"],
        "kind": None if kinds is None else ",".join(kinds),
        "include_deleted": scope["deleted"],
        "live_at": scope["live_at"],
        "agents": scope["agents"],
        "where": scope["where"],
        "extra": {},
    }


def mark(listing: str, tenant: str, params: Mapping[str, Any], key: Key, position: int) -> str:
    """The cursor of the page after the row whose sort key is ``key``, ``position`` rows in."""
    body = {"l": listing, "k": list(key), "o": position}
    body["s"] = _seal(listing, tenant, params, key, position)
    text = json.dumps(body, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def resume(
    cursor: object, listing: str, tenant: str, params: Mapping[str, Any], offset: object = 0
) -> Keyset | None:
    """Where ``cursor`` resumes ``listing`` for this tenant and query (None without a cursor);
    ValidationError for a cursor of another listing, query or tenant, a garbled one, or a
    cursor given together with an offset."""
    cursor = cursor_token(cursor)
    if cursor is None:
        return None
    if offset:
        raise ValidationError("give a cursor or an offset, not both")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        body = json.loads(raw)
        key, position, seal = body["k"], body["o"], body["s"]
    except (binascii.Error, ValueError, TypeError, KeyError):
        raise ValidationError(f"cursor is not readable: {FOREIGN}") from None
    if not _is_key(key, SHAPES[listing]) or not isinstance(position, int):
        raise ValidationError(f"cursor is not readable: {FOREIGN}")
    if not isinstance(seal, str):
        raise ValidationError(f"cursor is not readable: {FOREIGN}")
    expected = _seal(listing, tenant, params, key, position)
    if body.get("l") != listing or not hmac.compare_digest(seal, expected):
        raise ValidationError(FOREIGN)
    return Keyset(key=tuple(key), position=max(0, position))


def _is_key(key: object, shape: tuple[type, ...]) -> bool:
    """Whether ``key`` is a list of values of the types ``shape`` names, in order."""
    return (
        isinstance(key, list)
        and len(key) == len(shape)
        and all(type(v) is t for v, t in zip(key, shape, strict=True))
    )


def _seal(listing: str, tenant: str, params: Mapping[str, Any], key: Key, position: int) -> str:
    text = json.dumps([listing, tenant, params, list(key), position], sort_keys=True, default=str)
    digest = hmac.new(SEAL_KEY, text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


__all__ = ["FOREIGN", "MAX_CHARS", "SHAPES", "mark", "query_params", "resume"]
