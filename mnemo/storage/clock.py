"""The clock a store and the job runner tell time by: the real one, or one a test advances.

A :class:`Clock` is a callable returning the current UTC time. Job leases, retry backoff and
every row time a store writes are read from its clock, and the runner's lease keeper waits on
it, so a test can move time forward instead of sleeping through a lease.
"""

from __future__ import annotations

import threading
from datetime import datetime

from mnemo.schemas import utcnow


class Clock:
    """The real clock: ``clock()`` is the current UTC time; :meth:`wait_until` sleeps on a
    condition until a time of this clock (or a notify)."""

    def __call__(self) -> datetime:
        """The current time (UTC, aware)."""
        return utcnow()

    def wait_until(self, cond: threading.Condition, until: datetime) -> None:
        """Wait on ``cond`` (held by the caller) until notified or this clock reaches
        ``until``; may return early, so callers re-check the time."""
        cond.wait(max((until - self()).total_seconds(), 0.0))


#: The real clock, every store's and runner's default.
SYSTEM_CLOCK = Clock()

__all__ = ["SYSTEM_CLOCK", "Clock"]
