"""The SQLite store's durable job queue: enqueue, claim under a lease, renew, finish, fail."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from mnemo.schemas import Job, format_time, utcnow
from mnemo.storage.base import NewJob
from mnemo.storage.sql import rows
from mnemo.storage.sqlite.conn import Connections


class SQLiteJobs:
    """Job methods of :class:`~mnemo.storage.sqlite.store.SQLiteStore` (a mixin)."""

    db: Connections

    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        now = format_time(utcnow())
        with self.db.write() as c:
            self._enqueue(c, jobs, now)

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
        now = utcnow()
        at = format_time(now)
        with self.db.write() as c:
            sql = (
                "SELECT rowid FROM jobs WHERE ((status='pending' AND run_after<=?)"
                " OR (status='running' AND lease_until<=?))"
            )
            args: list[Any] = [at, at]
            if kinds:
                sql += f" AND kind IN ({','.join('?' * len(kinds))})"
                args += list(kinds)
            if tenant is not None:
                sql += " AND tenant=?"
                args.append(tenant)
            r = c.execute(sql + " ORDER BY run_after, rowid LIMIT 1", args).fetchone()
            if r is None:
                return None
            c.execute(
                "UPDATE jobs SET status='running', attempts=attempts+1, lease_owner=?,"
                " lease_until=?, updated_at=? WHERE rowid=?",
                (owner, format_time(rows.later(now, lease_s)), at, r["rowid"]),
            )
            job = c.execute("SELECT * FROM jobs WHERE rowid=?", (r["rowid"],)).fetchone()
        return rows.job(job)

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        now = utcnow()
        with self.db.write() as c:
            cur = c.execute(
                "UPDATE jobs SET lease_until=? WHERE rowid=? AND status='running'"
                " AND lease_owner=?",
                (format_time(rows.later(now, lease_s)), job_id, owner),
            )
        return cur.rowcount > 0

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        sql = "UPDATE jobs SET status='done', usage=?, lease_until=NULL, updated_at=? WHERE rowid=?"
        args: list[Any] = [None if usage is None else json.dumps(usage)]
        args += [format_time(utcnow()), job_id]
        with self.db.write() as c:
            cur = c.execute(*_owned(sql, args, owner))
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
        sql = (
            "UPDATE jobs SET status=?, last_error=?, run_after=?, lease_until=NULL, updated_at=?"
            " WHERE rowid=?"
        )
        args: list[Any] = [status, error[:2000], run_after, format_time(now), job_id]
        with self.db.write() as c:
            cur = c.execute(*_owned(sql, args, owner))
        return cur.rowcount > 0

    def list_jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        """Jobs, newest first."""
        sql, args = "SELECT * FROM jobs", []
        if status:
            sql += " WHERE status=?"
            args.append(status)
        cur = self.db.get().execute(sql + " ORDER BY rowid DESC LIMIT ?", [*args, limit])
        return [rows.job(r) for r in cur]

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
        attempts reset; returns how many."""
        now = format_time(utcnow())
        sql = (
            "UPDATE jobs SET status='pending', attempts=0, run_after=?, lease_until=NULL,"
            " updated_at=? WHERE status='dead'"
        )
        args: list[Any] = [now, now]
        if tenant is not None:
            sql += " AND tenant=?"
            args.append(tenant)
        with self.db.write() as c:
            cur = c.execute(sql, args)
        return cur.rowcount

    def _enqueue(self, c: sqlite3.Connection, jobs: list[NewJob], now: str) -> None:
        c.executemany(
            "INSERT INTO jobs (tenant, user_id, kind, payload, run_after, created_at, updated_at)"
            " VALUES (?,?,?,?,?,?,?)",
            [(j.tenant, j.user_id, j.kind, json.dumps(j.payload), now, now, now) for j in jobs],
        )


def _owned(sql: str, args: list[Any], owner: str | None) -> tuple[str, list[Any]]:
    """``sql``/``args`` restricted to a running job held by ``owner`` (when given)."""
    if owner is None:
        return sql, args
    return sql + " AND status='running' AND lease_owner=?", [*args, owner]
