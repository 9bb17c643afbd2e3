"""The SQLite store's job claim: select the oldest ready job, then mark it running.

SQLite has one writer at a time (``BEGIN IMMEDIATE``), so selecting and then updating inside one
write transaction cannot hand a job to two workers. The rest of the queue is shared
(:mod:`mnemo.storage.sql.jobs`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mnemo.schemas import Job, format_time
from mnemo.storage.sql import rows
from mnemo.storage.sql.jobs import JOB_COLS
from mnemo.storage.sql.tx import Tx


def claim(
    c: Tx,
    kinds: tuple[str, ...] | None,
    lease_s: float,
    owner: str,
    tenant: str | None,
    now: datetime,
) -> Job | None:
    """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

    Ready: pending and due, or running with an expired lease (its worker died).
    """
    at = format_time(now)
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
    job = c.execute(f"SELECT {JOB_COLS} FROM jobs WHERE rowid=?", (r["rowid"],)).fetchone()
    return rows.job(job)
