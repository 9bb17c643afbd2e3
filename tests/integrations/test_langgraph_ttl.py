"""MnemoStore's TTLs (LangGraph's TTLConfig, in minutes) on mnemo's expiry, on SQLite and
PostgreSQL: per-put and default TTLs, an expired item leaving get/search/list_namespaces at
once, refresh on read (per store and per call), clearing a TTL by putting without one, the
sweep and the sweeper thread; and AsyncMnemoStore over an AsyncMemory. Time moves by a
FakeClock, never by sleeping."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("langgraph")

from clock_support import FakeClock, clocked_store

from mnemo import AsyncMemory, Memory
from mnemo.errors import ValidationError
from mnemo.integrations.langgraph import AsyncMnemoStore, MnemoStore

Clocked = Callable[..., tuple[Memory, FakeClock]]


@pytest.fixture
def clocked(backend: str, target: dict[str, str]) -> Iterator[Clocked]:
    """Open a Memory (each store) whose store tells time by a clock the test moves."""
    opened: list[Memory] = []

    def open_(**overrides: Any) -> tuple[Memory, FakeClock]:
        clock = FakeClock()
        store = clocked_store(backend, target, clock)
        m = Memory(**target, embedder="hashing", store=store, **overrides)
        opened.append(m)
        return m, clock

    yield open_
    for m in opened:
        m.close()


def test_a_put_ttl_expires_the_item_from_every_read(clocked: Clocked) -> None:
    mem, clock = clocked()
    store = MnemoStore(mem, index={"fields": ["text"]}, ttl={"refresh_on_read": False})
    store.put(("s",), "short", {"text": "gone soon"}, ttl=1)
    store.put(("s",), "long", {"text": "stays"}, ttl=10)
    store.put(("t",), "forever", {"text": "no ttl"})
    clock.advance(59)
    assert store.get(("s",), "short") is not None
    clock.advance(2)
    assert store.get(("s",), "short") is None
    assert [i.key for i in store.search(("s",))] == ["long"]
    assert [i.key for i in store.search(("s",), query="gone soon")] == ["long"]
    clock.advance(10 * 60)
    assert store.search(("s",)) == [] and store.list_namespaces() == [("t",)]
    assert store.sweep_ttl() == 2
    assert mem.count("langgraph") == 1


def test_default_ttl_and_refresh_on_read(clocked: Clocked) -> None:
    mem, clock = clocked()
    store = MnemoStore(mem, ttl={"default_ttl": 2, "refresh_on_read": True})
    store.put(("s",), "k", {"v": 1})
    store.put(("s",), "quiet", {"v": 2})
    for _ in range(3):  # read every 90 s: the 2-minute TTL starts again each time
        clock.advance(90)
        assert store.get(("s",), "k") is not None
    assert store.get(("s",), "quiet", refresh_ttl=False) is None  # never read: expired
    clock.advance(90)
    assert store.get(("s",), "k", refresh_ttl=False) is not None
    clock.advance(60)
    assert store.get(("s",), "k") is None


def test_search_refreshes_unless_told_not_to(clocked: Clocked) -> None:
    mem, clock = clocked()
    store = MnemoStore(mem, ttl={"default_ttl": 1})  # refresh_on_read defaults to True
    store.put(("s",), "a", {"v": 1})
    store.put(("s",), "b", {"v": 2})
    clock.advance(50)
    assert len(store.search(("s",), filter={"v": 1})) == 1  # refreshes a only
    assert len(store.search(("s",), filter={"v": 2}, refresh_ttl=False)) == 1
    clock.advance(20)
    assert [i.key for i in store.search(("s",), refresh_ttl=False)] == ["a"]


def test_putting_without_a_ttl_clears_it_and_bad_ttls_are_refused(clocked: Clocked) -> None:
    mem, clock = clocked()
    store = MnemoStore(mem)
    store.put(("s",), "k", {"v": 1}, ttl=1)
    store.put(("s",), "k", {"v": 2}, ttl=None)
    clock.advance(3600)
    item = store.get(("s",), "k")
    assert item is not None and item.value == {"v": 2}
    for bad in (0, -1, "5", True):
        with pytest.raises(ValidationError, match="ttl"):
            store.put(("s",), "bad", {"v": 1}, ttl=bad)
    assert store.get(("s",), "bad") is None


def test_the_sweeper_thread_starts_and_stops(clocked: Clocked) -> None:
    mem, _ = clocked()
    none = MnemoStore(mem).start_ttl_sweeper()
    assert none.done()  # no TTL config: nothing to sweep
    store = MnemoStore(mem, ttl={"default_ttl": 1, "sweep_interval_minutes": 60})
    future = store.start_ttl_sweeper()
    assert not future.done()
    assert store.stop_ttl_sweeper(timeout=5)
    assert future.result(timeout=5) is None


def test_async_store_over_an_async_memory(clocked: Clocked) -> None:
    mem, clock = clocked()

    async def body() -> None:
        amem = AsyncMemory.wrap(mem)
        async with AsyncMnemoStore(amem, index={"fields": ["text"]}, ttl={"default_ttl": 1}) as s:
            await s.aput(("a", "b"), "k", {"text": "the blue violin"})
            await s.aput(("a", "c"), "k", {"text": "green tea"}, ttl=None)
            found = await s.asearch(("a",), query="violin")
            assert found[0].key == "k" and found[0].namespace == ("a", "b")
            assert await s.alist_namespaces(prefix=("a",)) == [("a", "b"), ("a", "c")]
            task = await s.start_ttl_sweeper()
            clock.advance(120)
            assert await s.aget(("a", "b"), "k") is None
            assert await s.sweep_ttl() == 1
            with pytest.raises(asyncio.InvalidStateError, match="aget"):
                s.get(("a", "c"), "k")  # a sync call would block the loop, as in LangGraph
            assert await asyncio.to_thread(s.get, ("a", "c"), "k") is not None
            assert await s.stop_ttl_sweeper(timeout=5)
            assert task.done()

    asyncio.run(body())


def test_the_async_store_takes_the_stores_arguments_and_closes_its_sweeper(
    clocked: Clocked,
) -> None:
    """``AsyncMnemoStore(...)`` takes exactly ``MnemoStore(...)``'s arguments (checked by it),
    and leaving ``async with`` stops its sweeper task, as ``close()`` does."""
    mem, _ = clocked()
    assert inspect.signature(AsyncMnemoStore) == inspect.signature(MnemoStore)

    async def body() -> None:
        amem = AsyncMemory.wrap(mem)
        with pytest.raises(ValidationError):
            AsyncMnemoStore(amem, user_id="")
        async with AsyncMnemoStore(amem, ttl={"default_ttl": 1}, user_id="u2") as s:
            assert s.store.user_id == "u2" and s.memory is mem
            assert s.ttl_config == {"default_ttl": 1} and s.index_config is None
            task = await s.start_ttl_sweeper()
            assert not task.done()
        assert task.done()

    asyncio.run(body())
