"""The TTL sweepers of the LangGraph stores: a daemon thread (:class:`ThreadSweeper`, as
LangGraph's sync stores have) and an asyncio task (:class:`TaskSweeper`, as its async stores
have), each calling a sweep every few minutes until stopped. A failed round (a
:class:`~mnemo.errors.MnemoError`, e.g. the database briefly unreachable) is logged and tried
again at the next interval."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable

from langgraph.store.base import TTLConfig

from mnemo.errors import MnemoError

log = logging.getLogger("mnemo")

#: Minutes between sweeps when neither the call nor the TTL config says.
DEFAULT_MINUTES = 5.0


def interval(config: TTLConfig | None, minutes: float | None) -> float:
    """Minutes between sweeps: ``minutes``, else the config's ``sweep_interval_minutes``,
    else 5."""
    return float(minutes or (config or {}).get("sweep_interval_minutes") or DEFAULT_MINUTES)


def _report(swept: int) -> None:
    if swept:
        log.info("store TTL sweep erased %d items", swept)


class ThreadSweeper:
    """Runs a sweep every few minutes on a daemon thread."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(
        self, minutes: float, sweep: Callable[[], int], *, enabled: bool = True
    ) -> concurrent.futures.Future[None]:
        """Start sweeping (unless ``enabled`` is false or it already runs); the future
        completes when the thread stops, and cancelling it stops the thread."""
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if not enabled:
            future.set_result(None)
            return future
        future.add_done_callback(lambda f: self._stop.set() if f.cancelled() else None)
        if self._thread is not None and self._thread.is_alive():
            return future
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(minutes * 60):
                try:
                    _report(sweep())
                except MnemoError as exc:
                    log.warning("store TTL sweep failed: %s", exc)
            if not future.done():
                future.set_result(None)

        self._thread = threading.Thread(target=loop, daemon=True, name="mnemo-ttl-sweeper")
        self._thread.start()
        return future

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the thread; False if it still ran after ``timeout`` seconds."""
        if self._thread is None or not self._thread.is_alive():
            return True
        self._stop.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        self._thread = None
        return True


class TaskSweeper:
    """Runs a sweep every few minutes in an asyncio task."""

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    def start(
        self, minutes: float, sweep: Callable[[], Awaitable[int]], *, enabled: bool = True
    ) -> asyncio.Task[None]:
        """The sweeping task (the running one if there is one; one that ends at once unless
        ``enabled``)."""
        if self._task is not None and not self._task.done():
            return self._task

        async def loop() -> None:
            while enabled:
                await asyncio.sleep(minutes * 60)
                try:
                    _report(await sweep())
                except MnemoError as exc:
                    log.warning("store TTL sweep failed: %s", exc)

        self._task = asyncio.create_task(loop())
        return self._task

    async def stop(self, timeout: float | None = None) -> bool:
        """Cancel the task; False if it had not ended after ``timeout`` seconds."""
        if self._task is None or self._task.done():
            return True
        self._task.cancel()
        done, _ = await asyncio.wait({self._task}, timeout=timeout)
        if not done:
            return False
        self._task = None
        return True


__all__ = ["DEFAULT_MINUTES", "TaskSweeper", "ThreadSweeper", "interval"]
