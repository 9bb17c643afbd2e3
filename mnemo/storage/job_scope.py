"""Writes made on behalf of a job, and what stops them once the job's user was erased.

A job handler may spend minutes on an LLM call between reading a user's turns and writing
what it made of them. If ``delete_user`` runs in between, the write must not bring the user
back. Erasure deletes the user's ``jobs`` rows with everything else, so the job's own row is
the tombstone: while a handler runs inside :func:`on_behalf_of`, every write that takes a
user's lock (:func:`mnemo.storage.sql.user_lock.lock_user`) checks, under that lock and in the
same transaction, that the job's row still exists, and raises :class:`UserErased` if not. The
transaction rolls back, so nothing of it is written; the runner drops the job.

The job id travels in a context variable (set by :mod:`mnemo.jobs.runner`), so the write
path's signatures stay free of it; a write outside any job (an API call) is never checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mnemo.errors import StorageError

_job: ContextVar[int | None] = ContextVar("mnemo_job", default=None)


class UserErased(StorageError):
    """The job being run lost its row (its user was erased); its write was rolled back."""


@contextmanager
def on_behalf_of(job_id: int) -> Iterator[None]:
    """Run the block's writes as job ``job_id``'s (each checks the job still exists)."""
    token = _job.set(job_id)
    try:
        yield
    finally:
        _job.reset(token)


def current_job() -> int | None:
    """The id of the job whose handler is running in this context, or None."""
    return _job.get()


__all__ = ["UserErased", "current_job", "on_behalf_of"]
