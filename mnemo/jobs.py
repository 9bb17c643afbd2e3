"""Durable follow-up work: rows in the ``jobs`` table, run with retries, backoff and a lease.

A job is written in the same transaction as the turns that caused it, so a crash never loses
one. :func:`run_ready` claims ready jobs one at a time; a handler that raises is retried after
``min(base * 2**(attempts-1), cap)`` seconds, and after ``max_attempts`` the job is ``dead``
and stays visible with its last error. Handlers must be idempotent.

A claimed job is held under a lease of ``lease_s`` seconds that a heartbeat thread renews
while the handler runs. If the worker dies (``kill -9``, power loss) the lease expires and the
job is claimed again; a job whose worker died more than ``max_attempts`` times is dead. A
worker that lost its lease cannot mark the job done or failed any more.

A handler may return its token usage (a :class:`~mnemo.llm.Usage` or a dict of ints); it is
stored on the job row. :class:`Worker` runs jobs of a ``Memory`` in a background thread, or in
the foreground until SIGINT/SIGTERM (``mnemo worker``).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any

from mnemo.llm.base import Usage
from mnemo.schemas import Job
from mnemo.storage.base import Store

if TYPE_CHECKING:
    from mnemo.service import Memory

log = logging.getLogger("mnemo.jobs")

#: A job handler: takes the job's payload; may return its token usage.
Handler = Callable[[dict[str, Any]], Any]

MAX_ATTEMPTS = 5
BACKOFF_BASE_S = 2.0
BACKOFF_CAP_S = 300.0
LEASE_S = 300.0


def backoff(attempts: int, base: float = BACKOFF_BASE_S, cap: float = BACKOFF_CAP_S) -> float:
    """Delay before the next try: min(base * 2**(attempts - 1), cap) seconds."""
    return min(base * 2 ** max(attempts - 1, 0), cap)


def worker_id() -> str:
    """A lease owner name unique to this runner: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def usage_of(result: Any) -> dict[str, int] | None:
    """The token usage a handler returned: a Usage or a dict of ints; else None."""
    if isinstance(result, Usage):
        return result.as_dict()
    if isinstance(result, dict) and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in result.items()
    ):
        return dict(result)
    return None


@contextmanager
def held(store: Store, job: Job, owner: str, lease_s: float) -> Iterator[None]:
    """Renew ``job``'s lease every ``lease_s / 3`` seconds while the body runs."""
    done = threading.Event()

    def renew() -> None:
        while not done.wait(lease_s / 3):
            try:
                if not store.extend_lease(job.id, owner, lease_s):
                    log.warning("job %s: lease lost to another worker", job.id)
                    return
            except Exception:  # the runner logs every failure; the next renewal may work
                log.exception("job %s: renewing its lease failed", job.id)

    thread = threading.Thread(target=renew, name=f"mnemo-lease-{job.id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@dataclass
class RunOptions:
    """How :func:`run_ready` runs jobs; the defaults match the Settings defaults."""

    max_attempts: int = MAX_ATTEMPTS
    lease_s: float = LEASE_S
    owner: str = ""
    stop: threading.Event | None = None


def run_ready(
    store: Store,
    handlers: dict[str, Handler],
    max_jobs: int | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    options: RunOptions | None = None,
) -> int:
    """Run ready jobs until none is left, ``max_jobs`` ran or ``options.stop`` is set.

    Returns how many jobs were claimed.
    """
    opts = options or RunOptions(max_attempts=max_attempts)
    owner = opts.owner or worker_id()
    ran = 0
    while max_jobs is None or ran < max_jobs:
        if opts.stop is not None and opts.stop.is_set():
            break
        job = store.claim_job(lease_s=opts.lease_s, owner=owner)
        if job is None:
            break
        ran += 1
        run_one(store, handlers, job, owner, opts)
    return ran


def run_one(
    store: Store, handlers: dict[str, Handler], job: Job, owner: str, opts: RunOptions
) -> None:
    """Run one claimed job and record the outcome (done with usage, retry, or dead)."""
    handler = handlers.get(job.kind)
    if handler is None:
        store.fail_job(job.id, f"no handler for job kind {job.kind!r}", None, owner)
        return
    if job.attempts > opts.max_attempts:
        error = f"abandoned: its worker stopped {job.attempts - 1} times (lease expired)"
        store.fail_job(job.id, error, None, owner)
        return
    try:
        with held(store, job, owner, opts.lease_s):
            result = handler(job.payload)
    except Exception as exc:  # the runner records every failure; see module docstring
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        retry = None if job.attempts >= opts.max_attempts else backoff(job.attempts)
        log.warning("job %s (%s) failed, attempt %d: %s", job.id, job.kind, job.attempts, error)
        store.fail_job(job.id, error, retry, owner)
    else:
        if not store.finish_job(job.id, usage_of(result), owner):
            log.warning("job %s finished after its lease passed to another worker", job.id)


class Worker:
    """Runs a Memory's ready jobs until stopped, polling every ``poll_s`` seconds when idle.

    ``start()`` runs it in a background thread (inside a server); ``run()`` in the calling
    thread; ``run_until_signalled()`` in the foreground until SIGINT/SIGTERM (``mnemo
    worker``). ``stop()`` lets the current job finish, then the loop ends.
    """

    def __init__(self, memory: Memory, poll_s: float | None = None) -> None:
        self.memory = memory
        self.poll_s = memory.settings.worker_poll_s if poll_s is None else poll_s
        self.jobs_run = 0
        self.errors = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True while the background thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def run_once(self) -> int:
        """Run every ready job now (unless stopped); returns how many ran."""
        ran = self.memory.drain(stop=self._stop)
        self.jobs_run += ran
        return ran

    def run(self) -> None:
        """Poll and run jobs in this thread until :meth:`stop` is called."""
        while not self._stop.is_set():
            try:
                ran = self.run_once()
            except Exception:  # a store failure must not end the worker; it is logged
                self.errors += 1
                log.exception("worker: running jobs failed; retrying in %.1fs", self.poll_s)
                ran = 0
            if ran == 0:
                self._stop.wait(self.poll_s)

    def start(self) -> Worker:
        """Run :meth:`run` in a daemon thread; returns self."""
        if self.running:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="mnemo-worker", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the loop to end after the current job; wait up to ``timeout`` for the thread.

        Returns True when no background thread is left running.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def run_until_signalled(self) -> None:
        """Run in the foreground (main thread) until SIGINT or SIGTERM, then stop gracefully.

        The first signal lets the current job finish; a second one interrupts at once.
        """
        previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

        def on_signal(signum: int, frame: FrameType | None) -> None:
            name = signal.Signals(signum).name
            log.info("worker: %s received, stopping after the current job", name)
            self._stop.set()
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

        for signum in previous:
            signal.signal(signum, on_signal)
        try:
            self.run()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
