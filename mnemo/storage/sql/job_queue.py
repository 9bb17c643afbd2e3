"""The job-queue role of a SQL store (``store.jobs``): enqueue, claim under a lease, renew,
finish, fail; the port (:class:`~mnemo.storage.ports.jobs.JobQueue`) documents every method.

Claiming is the one step the backends do differently (select-then-update under SQLite's single
writer; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL): the store passes its backend's
:data:`Claim` in. A job's times are read from the clock inside its write transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from mnemo.schemas import Job, format_time, parse_time
from mnemo.storage.base import NewJob
from mnemo.storage.ports.jobs import JobQueue
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql import sweep as sweep_sql
from mnemo.storage.sql.role import SQLRole, StoreCore
from mnemo.storage.sql.transactional import auto, writes
from mnemo.storage.sql.tx import Tx

#: A backend's job claim: (write tx, the ready condition and its parameters (``jobs.ready``),
#: owner, lease end, now, both as stored text) -> the claimed job or None.
Claim = Callable[[Tx, str, list[Any], str, str, str], Job | None]


class SQLJobQueue(SQLRole, JobQueue):
    """:class:`~mnemo.storage.ports.jobs.JobQueue` over the store's core and its backend's
    claim."""

    def __init__(self, core: StoreCore, claim: Claim) -> None:
        super().__init__(core)
        self.claim = claim

    @writes
    def enqueue(self, c: Tx, jobs: list[NewJob]) -> None:
        job_sql.enqueue(c, jobs, self.core.now())

    @auto
    def next_expiry(self, c: Tx, tenant: str | None) -> datetime | None:
        first = sweep_sql.first_expiry(c, tenant)
        return None if first is None else parse_time(first)

    @writes
    def claim_job(
        self,
        c: Tx,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        now = self.core.clock()
        at = format_time(now)
        cond, args = job_sql.ready(c, kinds, tenant, at)
        return self.claim(c, cond, args, owner, format_time(rows.later(now, lease_s)), at)

    @auto
    def upcoming_jobs(
        self, c: Tx, kinds: tuple[str, ...], *, tenant: str | None = None, limit: int = 32
    ) -> list[Job]:
        return job_sql.upcoming(c, kinds, tenant, format_time(self.core.clock()), limit)

    @writes
    def extend_lease(self, c: Tx, job_id: int, owner: str, lease_s: float) -> bool:
        return job_sql.extend_lease(c, job_id, owner, rows.later(self.core.clock(), lease_s))

    @writes
    def finish_job(
        self, c: Tx, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        return job_sql.finish(c, job_id, usage, owner, self.core.clock())

    @writes
    def fail_job(
        self, c: Tx, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        return job_sql.fail(c, job_id, error, retry_in_s, owner, self.core.clock())

    @auto
    def list_jobs(
        self,
        c: Tx,
        status: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
        *,
        before: int | None = None,
    ) -> list[Job]:
        return job_sql.listed(c, status, limit, tenant, before)

    @writes
    def requeue_dead_jobs(self, c: Tx, tenant: str | None = None) -> int:
        return job_sql.requeue_dead(c, tenant, self.core.clock())


__all__ = ["Claim", "SQLJobQueue"]
