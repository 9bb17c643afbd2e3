"""A clock tests move by hand (:class:`mnemo.storage.clock.Clock`): leases expire and lease
keepers renew when the test advances it, not after real sleeps."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta

from mnemo.schemas import utcnow
from mnemo.storage.clock import Clock
from mnemo.storage.ports.store import Store

#: The longest anything blocks on a :class:`FakeClock` (a safety net: a test that forgets to
#: advance it fails instead of hanging).
WAIT_CAP_S = 10.0


class FakeClock(Clock):
    """Starts at the real time; moves only by :meth:`advance` (or :meth:`step`)."""

    def __init__(self) -> None:
        self.now = utcnow()
        #: How many times a thread has blocked in :meth:`wait_until`.
        self.waits = 0
        self._seen = 0
        self._lock = threading.Lock()
        self._conds: set[threading.Condition] = set()

    def __call__(self) -> datetime:
        return self.now

    def wait_until(self, cond: threading.Condition, until: datetime) -> None:
        with self._lock:
            self._conds.add(cond)
            if self.now >= until:
                return
            self.waits += 1
        cond.wait(WAIT_CAP_S)

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every waiter, so it sees the new time."""
        with self._lock:
            self.now += timedelta(seconds=seconds)
            conds = list(self._conds)
        for cond in conds:
            with cond:
                cond.notify_all()

    def settle(self) -> None:
        """Wait (in real time, bounded) until a thread blocks on the clock again since the last
        :meth:`step`: whatever the last step woke has run."""
        deadline = time.monotonic() + WAIT_CAP_S
        while self.waits <= self._seen:
            assert time.monotonic() < deadline, "nothing came back to wait on the clock"
            time.sleep(0.001)
        self._seen = self.waits

    def step(self, seconds: float) -> None:
        """:meth:`settle`, then :meth:`advance`."""
        self.settle()
        self.advance(seconds)


def clocked_store(backend: str, target: dict[str, str], clock: Clock) -> Store:
    """The test's store (``backend``: ``sqlite`` or ``postgres``, at ``target``) telling time
    by ``clock``."""
    if backend == "sqlite":
        from mnemo.storage.sqlite.store import SQLiteStore

        return SQLiteStore(target["path"], clock=clock)
    from mnemo.storage.postgres.store import PostgresStore

    return PostgresStore(target["url"], clock=clock)
