"""Durable follow-up work: rows in the ``jobs`` table, run with retries and backoff.

A job is written in the same transaction as the turns that caused it, so a crash never loses
one. :func:`run_ready` claims ready jobs one at a time; a handler that raises is retried after
``min(base * 2**(attempts-1), cap)`` seconds, and after ``max_attempts`` the job is ``dead``
and stays visible with its last error. Handlers must be idempotent.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

from mnemo.storage.base import Store

log = logging.getLogger("mnemo.jobs")

Handler = Callable[[dict[str, Any]], None]

MAX_ATTEMPTS = 5
BACKOFF_BASE_S = 2.0
BACKOFF_CAP_S = 300.0


def backoff(attempts: int, base: float = BACKOFF_BASE_S, cap: float = BACKOFF_CAP_S) -> float:
    """Delay before the next try: min(base * 2**(attempts - 1), cap) seconds."""
    return min(base * 2 ** max(attempts - 1, 0), cap)


def run_ready(
    store: Store,
    handlers: dict[str, Handler],
    max_jobs: int | None = None,
    max_attempts: int = MAX_ATTEMPTS,
) -> int:
    """Run ready jobs until none is left (or ``max_jobs``); returns how many were run."""
    ran = 0
    while max_jobs is None or ran < max_jobs:
        job = store.claim_job()
        if job is None:
            break
        ran += 1
        handler = handlers.get(job.kind)
        if handler is None:
            store.fail_job(job.id, f"no handler for job kind {job.kind!r}", None)
            continue
        try:
            handler(job.payload)
        except Exception as exc:  # the runner records every failure; see module docstring
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            retry = None if job.attempts >= max_attempts else backoff(job.attempts)
            log.warning("job %s (%s) failed, attempt %d: %s", job.id, job.kind, job.attempts, error)
            store.fail_job(job.id, error, retry)
        else:
            store.finish_job(job.id)
    return ran
