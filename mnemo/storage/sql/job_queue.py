"""The job-queue role of a SQL store: enqueue, claim under a lease, renew, finish, fail.

Claiming is the one step the backends do differently (select-then-update under SQLite's single
writer; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL): the store passes its backend's
:data:`Claim` in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo.schemas import Job, format_time
from mnemo.storage.base import NewJob
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.tx import Tx

#: A backend's job claim: (write tx, the ready condition and its parameters (``jobs.ready``),
#: owner, lease end, now, both as stored text) -> the claimed job or None.
Claim = Callable[[Tx, str, list[Any], str, str, str], Job | None]


class SQLJobQueue(SQLRole):
    """:class:`~mnemo.storage.ports.jobs.JobQueue` over the store's transactions."""

    claim: Claim

    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        with self.tx.write() as c:
            job_sql.enqueue(c, jobs, format_time(self.clock()))

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

        Ready: pending and due, or running with an expired lease (its worker died).
        """
        with self.tx.write() as c:
            now = self.clock()
            at = format_time(now)
            cond, args = job_sql.ready(c, kinds, tenant, at)
            return self.claim(c, cond, args, owner, format_time(rows.later(now, lease_s)), at)

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        with self.tx.write() as c:
            return job_sql.extend_lease(c, job_id, owner, rows.later(self.clock(), lease_s))

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        with self.tx.write() as c:
            return job_sql.finish(c, job_id, usage, owner, self.clock())

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None; with
        ``owner``, only if that worker still holds the job."""
        with self.tx.write() as c:
            return job_sql.fail(c, job_id, error, retry_in_s, owner, self.clock())

    def list_jobs(
        self,
        status: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
        *,
        before: int | None = None,
    ) -> list[Job]:
        """Jobs (of ``tenant``, or every tenant), newest first; with ``before``, only jobs
        with a smaller id."""
        with self.tx.auto() as c:
            return job_sql.listed(c, status, limit, tenant, before)

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
        attempts reset; returns how many."""
        with self.tx.write() as c:
            return job_sql.requeue_dead(c, tenant, self.clock())


__all__ = ["Claim", "SQLJobQueue"]
