"""The job queue of the PostgreSQL store: claims with ``FOR UPDATE SKIP LOCKED`` and a lease.

A claim picks the oldest ready job that no other transaction has locked, marks it ``running``
and sets ``lease_until = now + job_lease_s``. Two workers therefore never claim the same job,
and a ``running`` job whose lease has passed (its worker was killed) is ready again: the next
claim takes it over, counting another attempt. Handlers are idempotent, so a slow worker whose
lease ran out and a second worker both finishing a job changes nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mnemo.schemas import Job, format_time, utcnow
from mnemo.storage import sqlite_rows as rows
from mnemo.storage.base import NewJob
from mnemo.storage.postgres_conn import as_row

if TYPE_CHECKING:
    from mnemo.storage.postgres_conn import Conn, PgConnections

_JOB_COLS = "rowid, kind, payload, status, attempts, run_after, last_error"


class PgJobs:
    """Durable jobs in the ``jobs`` table of the PostgreSQL store."""

    db: PgConnections
    job_lease_s: float

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

    def claim_job(self, kinds: tuple[str, ...] | None = None) -> Job | None:
        """Mark the oldest ready job (or one whose lease expired) running, and return it."""
        now = utcnow()
        stamp = format_time(now)
        lease = format_time(rows.later(now, self.job_lease_s))
        ready = "((status='pending' AND run_after<=%s) OR (status='running' AND lease_until<%s))"
        args: list[Any] = [stamp, lease, stamp, stamp]
        if kinds:
            ready += " AND kind = ANY(%s)"
            args.append(list(kinds))
        with self.db.write() as c:
            r = c.execute(
                "UPDATE jobs SET status='running', attempts=attempts+1, updated_at=%s,"
                f" lease_until=%s WHERE rowid = (SELECT rowid FROM jobs WHERE {ready}"
                " ORDER BY run_after, rowid LIMIT 1 FOR UPDATE SKIP LOCKED)"
                f" RETURNING {_JOB_COLS}",
                args,
            ).fetchone()
        return None if r is None else rows.job(as_row(r))

    def finish_job(self, job_id: int) -> None:
        """Mark a job done."""
        with self.db.write() as c:
            c.execute(
                "UPDATE jobs SET status='done', lease_until=NULL, updated_at=%s WHERE rowid=%s",
                (format_time(utcnow()), job_id),
            )

    def fail_job(self, job_id: int, error: str, retry_in_s: float | None) -> None:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None."""
        now = utcnow()
        status = "dead" if retry_in_s is None else "pending"
        run_after = format_time(now if retry_in_s is None else rows.later(now, retry_in_s))
        with self.db.write() as c:
            c.execute(
                "UPDATE jobs SET status=%s, last_error=%s, run_after=%s, lease_until=NULL,"
                " updated_at=%s WHERE rowid=%s",
                (status, error[:2000], run_after, format_time(now), job_id),
            )

    def list_jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        """Jobs, newest first."""
        query, args = f"SELECT {_JOB_COLS} FROM jobs", []
        if status:
            query += " WHERE status=%s"
            args.append(status)
        with self.db.connection() as c:
            found = c.execute(query + " ORDER BY rowid DESC LIMIT %s", [*args, limit]).fetchall()
        return [rows.job(r) for r in found]  # type: ignore[arg-type]
