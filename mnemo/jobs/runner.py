"""Durable follow-up work: rows in the ``jobs`` table, run with retries, backoff and a lease.

A job is written in the same transaction as the turns that caused it, so a crash never loses
one. :func:`run_ready` claims ready jobs one at a time; a handler that raises is retried after
``min(base * 2**(attempts-1), cap)`` seconds, and after ``max_attempts`` the job is ``dead``
and stays visible with its last error. Handlers must be idempotent.

A claimed job is held under a lease of ``lease_s`` seconds that a :class:`LeaseKeeper` thread
renews while the handler runs. If the worker dies (``kill -9``, power loss) the lease expires
and the job is claimed again; a job whose worker died more than ``max_attempts`` times is dead. A
worker that lost its lease cannot mark the job done or failed any more.

A handler runs on behalf of its job (:func:`mnemo.storage.job_scope.on_behalf_of`): if its
user is erased while it runs, its next write raises
:class:`~mnemo.storage.job_scope.UserErased` and rolls back, and the job is dropped (its row
went with the user), so erasure wins over in-flight work.

A handler may return its token usage (a :class:`~mnemo.llm.Usage` or a dict of ints); it is
stored on the job row. :class:`Worker` runs a store's jobs with a handler map in a background
thread, or in the foreground until SIGINT/SIGTERM (``mnemo worker``).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from types import FrameType
from typing import Any

from mnemo.config.settings import Settings
from mnemo.jobs.sweep import SweepSchedule
from mnemo.llm.base import Usage
from mnemo.redact import mask_credentials
from mnemo.schemas import Job
from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.job_scope import UserErased, on_behalf_of
from mnemo.storage.ports.jobs import JobQueue

log = logging.getLogger("mnemo.jobs.runner")

#: A job handler: takes the job's payload; may return its token usage.
Handler = Callable[[dict[str, Any]], Any]

MAX_ATTEMPTS = 5
BACKOFF_BASE_S = 2.0
BACKOFF_CAP_S = 300.0
LEASE_S = 300.0


def backoff(attempts: int, base: float = BACKOFF_BASE_S, cap: float = BACKOFF_CAP_S) -> float:
    """Delay before the next try: min(base * 2**(attempts - 1), cap) seconds."""
    return float(min(base * 2 ** max(attempts - 1, 0), cap))


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


class LeaseKeeper:
    """One thread that renews the lease of the job being run, every ``lease_s / 3`` seconds of
    its ``clock`` (the store's, :mod:`mnemo.storage.clock`).

    ``hold(job_id)`` before running a job, ``release()`` after; ``close()`` ends the thread.
    One keeper serves a whole run (or a worker's life), so a long-lived worker uses one extra
    thread, and one database connection, however many jobs it runs.
    """

    def __init__(
        self, store: JobQueue, owner: str, lease_s: float, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.store, self.owner, self.lease_s, self.clock = store, owner, lease_s, clock
        self.renewals = 0
        self._job: int | None = None
        self._gen = 0
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def hold(self, job_id: int) -> None:
        """Start renewing ``job_id``'s lease (the claim just set it)."""
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mnemo-lease", daemon=True)
                self._thread.start()
            self._job, self._gen = job_id, self._gen + 1
            self._cond.notify_all()

    def release(self) -> None:
        """Stop renewing (the job is finished or failed)."""
        with self._cond:
            self._job, self._gen = None, self._gen + 1
            self._cond.notify_all()

    def close(self) -> None:
        """End the renewal thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and self._job is None:
                    self._cond.wait()
                if self._closed:
                    return
                gen = self._gen
                due = self.clock() + timedelta(seconds=self.lease_s / 3)
                while not self._closed and self._gen == gen and self.clock() < due:
                    self.clock.wait_until(self._cond, due)
                if self._closed:
                    return
                if self._gen != gen or self._job is None:
                    continue  # another job (or none) since the wait began: restart the clock
                job_id = self._job
            self._renew(job_id)

    def _renew(self, job_id: int) -> None:
        try:
            if self.store.extend_lease(job_id, self.owner, self.lease_s):
                self.renewals += 1
            else:
                log.warning("job %s: lease lost to another worker", job_id)
        except Exception:  # the runner logs every failure; the next renewal may work
            log.exception("job %s: renewing its lease failed", job_id)


@dataclass
class RunOptions:
    """How :func:`run_ready` runs jobs; the defaults match the Settings defaults.

    ``keeper`` renews leases; without one, each ``run_ready`` call makes its own, timed by
    ``clock``. ``tenant`` confines the run to one tenant's jobs (None: every tenant's).
    """

    max_attempts: int = MAX_ATTEMPTS
    lease_s: float = LEASE_S
    owner: str = ""
    stop: threading.Event | None = None
    keeper: LeaseKeeper | None = None
    tenant: str | None = None
    clock: Clock = SYSTEM_CLOCK

    @classmethod
    def from_settings(cls, settings: Settings, **more: Any) -> RunOptions:
        """Options with ``job_max_attempts`` and ``job_lease_s`` from ``settings``."""
        return cls(max_attempts=settings.job_max_attempts, lease_s=settings.job_lease_s, **more)


def run_ready(
    store: JobQueue,
    handlers: dict[str, Handler],
    max_jobs: int | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    options: RunOptions | None = None,
) -> int:
    """Run ready jobs until none is left, ``max_jobs`` ran or ``options.stop`` is set.

    Returns how many jobs were claimed.
    """
    opts = options or RunOptions(max_attempts=max_attempts)
    owner = opts.owner or (opts.keeper.owner if opts.keeper else worker_id())
    keeper = opts.keeper or LeaseKeeper(store, owner, opts.lease_s, opts.clock)
    ran = 0
    try:
        while max_jobs is None or ran < max_jobs:
            if opts.stop is not None and opts.stop.is_set():
                break
            job = store.claim_job(lease_s=opts.lease_s, owner=owner, tenant=opts.tenant)
            if job is None:
                break
            ran += 1
            run_one(store, handlers, job, keeper, opts)
    finally:
        if opts.keeper is None:
            keeper.close()
    return ran


def run_one(
    store: JobQueue, handlers: dict[str, Handler], job: Job, keeper: LeaseKeeper, opts: RunOptions
) -> None:
    """Run one claimed job and record the outcome (done with usage, retry, or dead)."""
    owner = keeper.owner
    handler = handlers.get(job.kind)
    if handler is None:
        store.fail_job(job.id, f"no handler for job kind {job.kind!r}", None, owner)
        return
    if job.attempts > opts.max_attempts:
        error = f"abandoned: its worker stopped {job.attempts - 1} times (lease expired)"
        store.fail_job(job.id, error, None, owner)
        return
    keeper.hold(job.id)
    try:
        with on_behalf_of(job.id):
            result = handler(job.payload)
    except UserErased as exc:  # erasure won: the job's row is gone, nothing left to record
        keeper.release()
        log.info("job %s (%s) dropped: %s", job.id, job.kind, exc)
    except Exception as exc:  # the runner records every failure; see module docstring
        keeper.release()
        error = mask_credentials("".join(traceback.format_exception_only(type(exc), exc)).strip())
        retry = None if job.attempts >= opts.max_attempts else backoff(job.attempts)
        log.warning("job %s (%s) failed, attempt %d: %s", job.id, job.kind, job.attempts, error)
        store.fail_job(job.id, error, retry, owner)
    else:
        keeper.release()
        if not store.finish_job(job.id, usage_of(result), owner):
            log.warning("job %s finished after its lease passed to another worker", job.id)


class Worker:
    """Runs a store's ready jobs until stopped, polling every ``poll_s`` seconds when idle.

    ``handlers`` maps a job kind to its handler (the map is read at each run, so kinds added
    later are seen); ``clock`` times the leases (the store's; the real one by default);
    ``tenant`` confines the worker to one tenant's jobs, whose handlers write
    that tenant's rows (None: every tenant's, for a dispatcher by tenant like the server's).
    ``start()`` runs it in a background thread (inside a server); ``run()`` in the calling
    thread; ``run_until_signalled()`` in the foreground until SIGINT/SIGTERM (``mnemo
    worker``). ``stop()`` lets the current job finish, then the loop ends.
    """

    def __init__(
        self,
        store: JobQueue,
        handlers: dict[str, Handler],
        settings: Settings,
        *,
        tenant: str | None,
        poll_s: float | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.store = store
        self.clock = clock
        self.handlers = handlers
        self.settings = settings
        self.tenant = tenant
        self.poll_s = settings.worker_poll_s if poll_s is None else poll_s
        self.jobs_run = 0
        self.errors = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sweeps = SweepSchedule(
            store, settings.sweep_interval_s, tenant, settings.tenant, clock
        )

    @property
    def running(self) -> bool:
        """True while the background thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def run_once(self) -> int:
        """Run every ready job now (unless stopped); returns how many ran."""
        keeper = LeaseKeeper(self.store, worker_id(), self.settings.job_lease_s, self.clock)
        try:
            return self._drain(keeper)
        finally:
            keeper.close()

    def _drain(self, keeper: LeaseKeeper) -> int:
        options = RunOptions.from_settings(
            self.settings, stop=self._stop, keeper=keeper, tenant=self.tenant, clock=self.clock
        )
        ran = run_ready(self.store, self.handlers, options=options)
        self.jobs_run += ran
        return ran

    def run(self) -> None:
        """Poll and run jobs in this thread until :meth:`stop` is called."""
        keeper = LeaseKeeper(self.store, worker_id(), self.settings.job_lease_s, self.clock)
        try:
            while not self._stop.is_set():
                try:
                    self.sweeps.tick(self.handlers)
                    ran = self._drain(keeper)
                except Exception:  # a store failure must not end the worker; it is logged
                    self.errors += 1
                    log.exception("worker: running jobs failed; retrying in %.1fs", self.poll_s)
                    ran = 0
                if ran == 0:
                    self._stop.wait(self.poll_s)
        finally:
            keeper.close()

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

    def run_until_signalled(self, on_ready: Callable[[], None] | None = None) -> None:
        """Run in the foreground (main thread) until SIGINT or SIGTERM, then stop gracefully.

        The first signal lets the current job finish; a second one interrupts at once.
        ``on_ready`` is called once the signal handlers are in place (e.g. to announce the
        worker, so whoever waits for that line may signal it safely).
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
            if on_ready is not None:
                on_ready()
            self.run()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
