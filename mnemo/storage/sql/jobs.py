"""The durable job queue's statements shared by both stores: enqueue, renew, finish, fail, list.

Which jobs are ready is shared (:func:`ready`); picking and marking one is each backend's own
(``sqlite.jobs``, ``postgres.jobs``): SQLite's single writer makes a select-then-update safe,
PostgreSQL needs ``FOR UPDATE SKIP LOCKED``. A claim marks the
oldest ready job ``running`` under a lease (``lease_owner``, ``lease_until``) that the worker
renews while the handler runs; a job whose lease has passed is ready again.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from mnemo.schemas import Job, format_time
from mnemo.storage.base import NewJob
from mnemo.storage.sql import rows
from mnemo.storage.sql.tx import Tx

JOB_COLS = (
    "rowid, kind, payload, status, attempts, run_after, last_error, usage, lease_until, user_id"
)
INSERT_COLUMNS = ("tenant", "user_id", "kind", "payload", "run_after", "created_at", "updated_at")


def ready(
    c: Tx, kinds: tuple[str, ...] | None, tenant: str | None, at: str
) -> tuple[str, list[Any]]:
    """The condition a claimable job meets at ``at``, with its parameters: pending and due, or
    running with an expired lease (its worker died); of ``kinds`` and ``tenant`` when given."""
    q = c.dialect.mark
    cond = f"((status='pending' AND run_after<={q}) OR (status='running' AND lease_until<={q}))"
    args: list[Any] = [at, at]
    if kinds:
        cond += f" AND kind IN ({','.join([q] * len(kinds))})"
        args += list(kinds)
    if tenant is not None:
        cond += f" AND tenant={q}"
        args.append(tenant)
    return cond, args


def upcoming(c: Tx, kinds: tuple[str, ...], tenant: str | None, at: str, limit: int) -> list[Job]:
    """The ready jobs of ``kinds`` in claim order (``run_after``, then ``rowid``), unclaimed."""
    cond, args = ready(c, kinds, tenant, at)
    sql = (
        f"SELECT {JOB_COLS} FROM jobs WHERE {cond} ORDER BY run_after, rowid LIMIT {c.dialect.mark}"
    )
    return [rows.job(r) for r in c.execute(sql, [*args, limit])]


def enqueue(c: Tx, jobs: list[NewJob], now: str) -> None:
    """Insert jobs, due now."""
    if jobs:
        c.executemany(
            c.dialect.insert("jobs", INSERT_COLUMNS),
            [(j.tenant, j.user_id, j.kind, json.dumps(j.payload), now, now, now) for j in jobs],
        )


def extend_lease(c: Tx, job_id: int, owner: str, until: datetime) -> bool:
    """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
    q = c.dialect.mark
    cur = c.execute(
        f"UPDATE jobs SET lease_until={q} WHERE rowid={q} AND status='running' AND lease_owner={q}",
        (format_time(until), job_id, owner),
    )
    return cur.rowcount > 0


def finish(
    c: Tx, job_id: int, usage: dict[str, int] | None, owner: str | None, now: datetime
) -> bool:
    """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
    q = c.dialect.mark
    sql = f"UPDATE jobs SET status='done', usage={q}, lease_until=NULL, updated_at={q}"
    args: list[Any] = [None if usage is None else json.dumps(usage), format_time(now)]
    return _owned(c, sql, args, job_id, owner)


def fail(
    c: Tx,
    job_id: int,
    error: str,
    retry_in_s: float | None,
    owner: str | None,
    now: datetime,
) -> bool:
    """Record a failure: back to pending after ``retry_in_s``, or dead when None."""
    q = c.dialect.mark
    status = "dead" if retry_in_s is None else "pending"
    run_after = format_time(now if retry_in_s is None else rows.later(now, retry_in_s))
    sql = (
        f"UPDATE jobs SET status={q}, last_error={q}, run_after={q}, lease_until=NULL,"
        f" updated_at={q}"
    )
    return _owned(c, sql, [status, error[:2000], run_after, format_time(now)], job_id, owner)


def listed(
    c: Tx, status: str | None, limit: int, tenant: str | None = None, before: int | None = None
) -> list[Job]:
    """Jobs (of ``tenant``, or every tenant), newest first; with ``before``, only jobs with a
    smaller id (a page cursor's position)."""
    q = c.dialect.mark
    where: list[str] = []
    args: list[Any] = []
    for col, value in (("status", status), ("tenant", tenant)):
        if value:
            where.append(f"{col}={q}")
            args.append(value)
    if before is not None:
        where.append(f"rowid<{q}")
        args.append(before)
    sql = f"SELECT {JOB_COLS} FROM jobs" + (" WHERE " + " AND ".join(where) if where else "")
    return [rows.job(r) for r in c.execute(sql + f" ORDER BY rowid DESC LIMIT {q}", [*args, limit])]


def requeue_dead(c: Tx, tenant: str | None, now: datetime) -> int:
    """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
    attempts reset and their last error kept; returns how many."""
    q = c.dialect.mark
    stamp = format_time(now)
    sql = (
        f"UPDATE jobs SET status='pending', attempts=0, run_after={q}, lease_until=NULL,"
        f" updated_at={q} WHERE status='dead'"
    )
    args: list[Any] = [stamp, stamp]
    if tenant is not None:
        sql += f" AND tenant={q}"
        args.append(tenant)
    return c.execute(sql, args).rowcount


def _owned(c: Tx, sql: str, args: list[Any], job_id: int, owner: str | None) -> bool:
    """Run an update of one job, restricted to a running job held by ``owner`` (when given)."""
    q = c.dialect.mark
    sql += f" WHERE rowid={q}"
    args = [*args, job_id]
    if owner is not None:
        sql += f" AND status='running' AND lease_owner={q}"
        args.append(owner)
    return c.execute(sql, args).rowcount > 0
