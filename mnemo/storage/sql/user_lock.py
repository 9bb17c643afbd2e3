"""The user's write lock every write of a user's rows takes first, and the erasure check.

:func:`lock_user` takes the (tenant, user) lock (:meth:`~mnemo.storage.sql.tx.Tx.lock_user`),
then, when the write is made on behalf of a job (:mod:`mnemo.storage.job_scope`), checks in the
same transaction that the job's row still exists. ``delete_user`` takes the same lock and
deletes the user's jobs, so either the erasure commits first and the job's write raises
:class:`~mnemo.storage.job_scope.UserErased` (rolling back), or the job's write commits first
and the erasure removes it. Erasure wins over in-flight work on both stores.
"""

from __future__ import annotations

from mnemo.storage.job_scope import UserErased, current_job
from mnemo.storage.sql.tx import Tx


def lock_user(c: Tx, tenant: str, user_id: str) -> None:
    """Take the user's write lock; UserErased when the running job's row is gone."""
    c.lock_user(tenant, user_id)
    job_id = current_job()
    if job_id is None:
        return
    q = c.dialect.mark
    if c.execute(f"SELECT 1 FROM jobs WHERE rowid={q}", (job_id,)).fetchone() is None:
        raise UserErased(
            f"job {job_id} was removed while it ran (its user was erased); nothing was written"
        )


__all__ = ["lock_user"]
