"""The periodic sweep of expired rows, as a durable job.

A worker schedules one sweep job (kind :data:`SWEEP`) every ``sweep_interval_s`` (and when
it starts) when some turn or memory has expired, unless a sweep is already waiting; the job
runs like any other (claimed under a lease, retried, re-run after a crash), so a sweep that a crash
interrupted is not lost, and a worker that restarts schedules the next one. The handler is
the Memory's (``Memory.sweep``); a sweep is idempotent, so two queued at once cost a second,
empty pass.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mnemo.storage.base import NewJob
from mnemo.storage.clock import Clock
from mnemo.storage.ports.jobs import JobQueue

#: The job kind of a sweep.
SWEEP = "expiry.sweep"


class SweepSchedule:
    """When a worker queues the next sweep: every ``interval_s`` (None: never), of
    ``tenant`` (None: of every tenant, queued under ``default_tenant``)."""

    def __init__(
        self,
        store: JobQueue,
        interval_s: float | None,
        tenant: str | None,
        default_tenant: str,
        clock: Clock,
    ) -> None:
        self.store, self.interval_s, self.clock = store, interval_s, clock
        self.tenant, self.default_tenant = tenant, default_tenant
        self.next: datetime | None = None

    def tick(self, handlers: dict[str, Any]) -> bool:
        """Queue a sweep if one is due and none waits (and a handler runs it); True if
        queued."""
        if self.interval_s is None or SWEEP not in handlers:
            return False
        now = self.clock()
        if self.next is not None and now < self.next:
            return False
        self.next = now + timedelta(seconds=self.interval_s)
        first = self.store.next_expiry(self.tenant)
        if first is None or first > now:
            return False  # nothing has expired: no job
        tenant = self.tenant or self.default_tenant
        for status in ("pending", "running"):
            if any(j.kind == SWEEP for j in self.store.list_jobs(status, 1000, tenant=tenant)):
                return False
        payload = {"tenant": tenant, "every_tenant": self.tenant is None}
        self.store.enqueue([NewJob(kind=SWEEP, payload=payload, tenant=tenant)])
        return True


__all__ = ["SWEEP", "SweepSchedule"]
