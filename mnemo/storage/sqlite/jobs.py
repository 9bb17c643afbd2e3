"""The SQLite store's job claim: select the oldest ready job, then mark it running.

SQLite has one writer at a time (``BEGIN IMMEDIATE``), so selecting and then updating inside one
write transaction cannot hand a job to two workers. The rest of the queue is shared
(:mod:`mnemo.storage.sql.jobs`).
"""

from __future__ import annotations

from typing import Any

from mnemo.schemas import Job
from mnemo.storage.sql import rows
from mnemo.storage.sql.jobs import JOB_COLS
from mnemo.storage.sql.tx import Tx


def claim(c: Tx, ready: str, args: list[Any], owner: str, lease: str, at: str) -> Job | None:
    """Mark the oldest job meeting ``ready`` (its parameters ``args``) running under ``owner``'s
    lease until ``lease`` and return it."""
    pick = f"SELECT rowid FROM jobs WHERE {ready} ORDER BY run_after, rowid LIMIT 1"
    row = c.execute(pick, args).fetchone()
    if row is None:
        return None
    c.execute(
        "UPDATE jobs SET status='running', attempts=attempts+1, lease_owner=?,"
        " lease_until=?, updated_at=? WHERE rowid=?",
        (owner, lease, at, row["rowid"]),
    )
    job = c.execute(f"SELECT {JOB_COLS} FROM jobs WHERE rowid=?", (row["rowid"],)).fetchone()
    return rows.job(job)
