"""The job queue of the PostgreSQL store: claims with ``FOR UPDATE SKIP LOCKED`` and a lease.

A claim picks the oldest ready job that no other transaction has locked, marks it ``running``
and sets ``lease_owner`` and ``lease_until = now + lease_s`` (the worker renews it with
``extend_lease`` while the handler runs). Two workers therefore never claim the same job,
and a ``running`` job whose lease has passed (its worker was killed) is ready again: the next
claim takes it over, counting another attempt. Handlers are idempotent, so a slow worker whose
lease ran out cannot finish or fail the job any more when it passes its ``owner``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mnemo.schemas import Job, format_time, utcnow
from mnemo.storage.base import NewJob
from mnemo.storage.sql import rows

if TYPE_CHECKING:
    from mnemo.storage.postgres.conn import Conn, PgConnections

_JOB_COLS = "rowid, kind, payload, status, attempts, run_after, last_error, usage, lease_until"


class PgJobs:
    """Durable jobs in the ``jobs`` table of the PostgreSQL store."""

    db: PgConnections

    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        with self.db.write() as c:
            self._enqueue(c, jobs, format_time(utcnow()))

    def _enqueue(self, c: Conn, jobs: list[NewJob], now: str) -> None:
        if not jobs:
            return
        c.cursor().executemany(
            "INSERT INTO jobs (tenant, user_id, kind, payload, run_after, created_at, updated_at)"
            " VALUES (%s,%s,%s,%s,%s,%s,%s)",
            [(j.tenant, j.user_id, j.kind, json.dumps(j.payload), now, now, now) for j in jobs],
        )

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

        Ready: pending and due, or running with an expired lease (its worker died). Rows
        another transaction is claiming are skipped (``FOR UPDATE SKIP LOCKED``).
        """
        now = utcnow()
        stamp = format_time(now)
        lease = format_time(rows.later(now, lease_s))
        ready = "((status='pending' AND run_after<=%s) OR (status='running' AND lease_until<=%s))"
        args: list[Any] = [stamp, owner, lease, stamp, stamp]
        if kinds:
            ready += " AND kind = ANY(%s)"
            args.append(list(kinds))
        if tenant is not None:
            ready += " AND tenant = %s"
            args.append(tenant)
        with self.db.write() as c:
            r = c.execute(
                "UPDATE jobs SET status='running', attempts=attempts+1, updated_at=%s,"
                f" lease_owner=%s, lease_until=%s WHERE rowid = (SELECT rowid FROM jobs"
                f" WHERE {ready} ORDER BY run_after, rowid LIMIT 1 FOR UPDATE SKIP LOCKED)"
                f" RETURNING {_JOB_COLS}",
                args,
            ).fetchone()
        return None if r is None else rows.job(r)

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        until = format_time(rows.later(utcnow(), lease_s))
        with self.db.write() as c:
            cur = c.execute(
                "UPDATE jobs SET lease_until=%s WHERE rowid=%s AND status='running'"
                " AND lease_owner=%s",
                (until, job_id, owner),
            )
        return cur.rowcount > 0

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        query = (
            "UPDATE jobs SET status='done', usage=%s, lease_until=NULL, updated_at=%s"
            " WHERE rowid=%s"
        )
        args: list[Any] = [None if usage is None else json.dumps(usage)]
        args += [format_time(utcnow()), job_id]
        with self.db.write() as c:
            cur = c.execute(*_owned(query, args, owner))
        return cur.rowcount > 0

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None.

        With ``owner``, only if that worker still holds the job.
        """
        now = utcnow()
        status = "dead" if retry_in_s is None else "pending"
        run_after = format_time(now if retry_in_s is None else rows.later(now, retry_in_s))
        query = (
            "UPDATE jobs SET status=%s, last_error=%s, run_after=%s, lease_until=NULL,"
            " updated_at=%s WHERE rowid=%s"
        )
        args: list[Any] = [status, error[:2000], run_after, format_time(now), job_id]
        with self.db.write() as c:
            cur = c.execute(*_owned(query, args, owner))
        return cur.rowcount > 0

    def list_jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        """Jobs, newest first."""
        query, args = f"SELECT {_JOB_COLS} FROM jobs", []
        if status:
            query += " WHERE status=%s"
            args.append(status)
        with self.db.connection() as c:
            found = c.execute(query + " ORDER BY rowid DESC LIMIT %s", [*args, limit]).fetchall()
        return [rows.job(r) for r in found]


def _owned(query: str, args: list[Any], owner: str | None) -> tuple[str, list[Any]]:
    """``query``/``args`` restricted to a running job held by ``owner`` (when given)."""
    if owner is None:
        return query, args
    return query + " AND status='running' AND lease_owner=%s", [*args, owner]
