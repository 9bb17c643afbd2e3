"""LangGraph's ``BaseStore`` for asyncio code: :class:`AsyncMnemoStore`, a
:class:`~mnemo.integrations.langgraph.store.MnemoStore` whose operations are awaited on worker
threads and whose TTL sweeper is an asyncio task (the API of LangGraph's async stores)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from langgraph.store.base import BaseStore, Op, Result

from mnemo.integrations.langgraph.store import MnemoStore
from mnemo.integrations.langgraph.sweeping import TaskSweeper, interval
from mnemo.memory.closing import AsyncClosing
from mnemo.memory.threaded import constructor


class AsyncMnemoStore(BaseStore, AsyncClosing):
    """:class:`MnemoStore` for asyncio code: the same store (its ``store`` attribute), built on
    an :class:`~mnemo.AsyncMemory` (or a ``Memory``), its operations awaited on worker
    threads, its TTL sweeper an asyncio task. Same arguments as :class:`MnemoStore`
    (:func:`~mnemo.memory.threaded.constructor`); ``memory`` is the store's ``Memory``."""

    supports_ttl = True

    @constructor(MnemoStore)
    def __init__(self, store: MnemoStore) -> None:
        """Serve ``MnemoStore(...)`` (these are its arguments) with awaited operations."""
        self.store = store
        self.memory = store.memory
        self.index_config = store.index_config
        self.ttl_config = store.ttl_config
        self._sweeper = TaskSweeper()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`MnemoStore.batch`, on the calling thread; refused (``InvalidStateError``, as
        LangGraph's async stores do) on a thread running an event loop, which it would block."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self.store.batch(ops)
        raise asyncio.InvalidStateError(
            "Synchronous calls to AsyncMnemoStore detected in the event loop's thread, which "
            "they would block: await the async methods instead (store.aget(...), "
            "store.asearch(...), ...), or use MnemoStore"
        )

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`MnemoStore.batch` on a worker thread."""
        return await self.store.abatch(ops)

    async def sweep_ttl(self) -> int:
        """:meth:`MnemoStore.sweep_ttl` on a worker thread."""
        return await asyncio.to_thread(self.store.sweep_ttl)

    async def start_ttl_sweeper(
        self, sweep_interval_minutes: int | None = None
    ) -> asyncio.Task[None]:
        """Sweep every ``sweep_interval_minutes`` (default: the TTL config's, else 5) in an
        asyncio task until :meth:`stop_ttl_sweeper` (or the task is cancelled); without a
        TTL config the task ends at once."""
        minutes = interval(self.ttl_config, sweep_interval_minutes)
        return self._sweeper.start(minutes, self.sweep_ttl, enabled=bool(self.ttl_config))

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Cancel the sweeper task; False if it had not stopped after ``timeout`` s."""
        return await self._sweeper.stop(timeout)

    async def close(self) -> None:
        """Stop the sweeper task (the Memory stays open: it is the caller's)."""
        await self.stop_ttl_sweeper()


__all__ = ["AsyncMnemoStore"]
