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

    Ready: pending and due, or running with an expired lease (its worker died). Rows
    another transaction is claiming are skipped (``FOR UPDATE SKIP LOCKED``).
    """
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
    r = c.execute(
        "UPDATE jobs SET status='running', attempts=attempts+1, updated_at=%s,"
        f" lease_owner=%s, lease_until=%s WHERE rowid = (SELECT rowid FROM jobs"
        f" WHERE {ready} ORDER BY run_after, rowid LIMIT 1 FOR UPDATE SKIP LOCKED)"
        f" RETURNING {JOB_COLS}",
        args,
    ).fetchone()
    return None if r is None else rows.job(r)
