"""The job-queue port: durable follow-up work, claimed under a lease."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from mnemo.schemas import Job
from mnemo.storage.base import NewJob


class JobQueue(Protocol):
    """Enqueue, claim, renew, finish and fail jobs; what a worker needs."""

    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        ...

    def next_expiry(self, tenant: str | None) -> datetime | None:
        """When the first turn or memory of ``tenant`` (None: of any tenant) expires (or
        expired): what the periodic sweep job waits for; None when none expires."""
        ...

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

        Ready: pending and due, or running with an expired lease (its worker died). With
        ``tenant``, only that tenant's jobs.
        """
        ...

    def upcoming_jobs(
        self, kinds: tuple[str, ...], *, tenant: str | None = None, limit: int = 32
    ) -> list[Job]:
        """Up to ``limit`` jobs of ``kinds`` that :meth:`claim_job` would hand out next, in its
        order, without claiming them: a handler reads ahead to batch work that is cheaper done
        together (the fact job parses the next jobs' turns in one batch). Another worker may
        claim any of them first; what a handler computes ahead must stay correct if so."""
        ...

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        ...

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        ...

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None.

        With ``owner``, only if that worker still holds the job.
        """
        ...

    def list_jobs(
        self,
        status: str | None = None,
        limit: int = 100,
        tenant: str | None = None,
        *,
        before: int | None = None,
    ) -> list[Job]:
        """Jobs (of ``tenant``, or every tenant), newest first; with ``before`` (a page
        cursor's position), only jobs with a smaller id."""
        ...

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
        attempts reset and their last error kept; returns how many."""
        ...


__all__ = ["JobQueue"]
