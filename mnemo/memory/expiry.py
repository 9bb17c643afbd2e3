"""Expiry of turns and memories on the way in: ``expires_at=`` or ``ttl_seconds=`` checked
and turned into what the store keeps, against the store clock.

Rules (the same for ``add``, ``add_messages`` and each turn of it, and ``update``):

* ``expires_at`` is any time the API accepts (ISO-8601 text, a datetime, epoch seconds);
  ``ttl_seconds`` a positive whole number of seconds from now. Giving both is a
  ValidationError, and so is a time in the past (or now): an item that would be born expired
  is refused rather than silently dropped.
* ``ttl_seconds`` is kept with the row, so ``refresh_on_read`` can push ``expires_at`` to
  now + ttl again; an ``expires_at`` is a fixed time and is never refreshed.
* Neither given: the ``default_ttl_seconds`` setting, when set, applies as a ttl.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.schemas import format_time, parse_time


@dataclass(frozen=True)
class Expiry:
    """What the store keeps of an expiry: the time text and the ttl (None: not given)."""

    expires_at: str | None = None
    ttl_seconds: int | None = None


#: No expiry.
NEVER = Expiry()


def resolve(
    expires_at: Any,
    ttl_seconds: Any,
    now: datetime,
    default_ttl: int | None = None,
    where: str = "",
) -> Expiry:
    """The expiry of one write at ``now`` (see the module docstring); ``where`` prefixes the
    field names in errors (``messages[2].``)."""
    if expires_at is not None and ttl_seconds is not None:
        raise ValidationError(f"give {where}expires_at or {where}ttl_seconds, not both")
    if ttl_seconds is not None:
        seconds = check.ttl_seconds(ttl_seconds, f"{where}ttl_seconds")
        return Expiry(format_time(now + timedelta(seconds=seconds)), seconds)
    if expires_at is not None:
        at = parse_time(expires_at, f"{where}expires_at")
        if at <= now:
            raise ValidationError(
                f"{where}expires_at {format_time(at)} is not in the future (now is "
                f"{format_time(now)})"
            )
        return Expiry(format_time(at), None)
    if default_ttl is not None:
        return Expiry(format_time(now + timedelta(seconds=default_ttl)), default_ttl)
    return NEVER


def expired(expires_at: datetime | None, now: datetime) -> bool:
    """True when an item with this ``expires_at`` is expired at ``now``."""
    return expires_at is not None and expires_at <= now


__all__ = ["NEVER", "Expiry", "expired", "resolve"]
