"""The PostgreSQL store's job claim: one ``UPDATE`` of a row picked ``FOR UPDATE SKIP LOCKED``.

A claim picks the oldest ready job that no other transaction has locked, marks it ``running``
and sets ``lease_owner`` and ``lease_until = now + lease_s`` (the worker renews it with
``extend_lease`` while the handler runs). Two workers therefore never claim the same job,
and a ``running`` job whose lease has passed (its worker was killed) is ready again: the next
claim takes it over, counting another attempt. Handlers are idempotent, so a slow worker whose
lease ran out cannot finish or fail the job any more when it passes its ``owner``. The rest of
the queue is shared (:mod:`mnemo.storage.sql.jobs`).
"""

from __future__ import annotations

from typing import Any

from mnemo.schemas import Job
from mnemo.storage.sql import rows
from mnemo.storage.sql.jobs import JOB_COLS
from mnemo.storage.sql.tx import Tx


def claim(c: Tx, ready: str, args: list[Any], owner: str, lease: str, at: str) -> Job | None:
    """Mark the oldest job meeting ``ready`` (its parameters ``args``) running under ``owner``'s
    lease until ``lease`` and return it. Rows another transaction is claiming are skipped
    (``FOR UPDATE SKIP LOCKED``)."""
    r = c.execute(
        "UPDATE jobs SET status='running', attempts=attempts+1, updated_at=%s,"
        " lease_owner=%s, lease_until=%s WHERE rowid = (SELECT rowid FROM jobs"
        f" WHERE {ready} ORDER BY run_after, rowid LIMIT 1 FOR UPDATE SKIP LOCKED)"
        f" RETURNING {JOB_COLS}",
        [at, owner, lease, *args],
    ).fetchone()
    return None if r is None else rows.job(r)
