"""AsyncMemory: :class:`~mnemo.memory.facade.Memory` for asyncio code, generated from it.

There is one definition of mnemo's API, ``Memory``. ``scripts/gen_async.py`` writes
:mod:`mnemo.memory.async_memory_methods` from it: every public method of ``Memory`` gets an
``async`` twin with the same name, signature and docstring, fully typed, which runs the sync
method on a worker thread and returns its result, raising the very exception the sync method
raised. ``tests/memory/test_async_generated.py`` fails while the generated module is stale
(a method added to or changed on ``Memory`` without rerunning ``python scripts/gen_async.py``).

The threads, the pool and ``close`` are :class:`~mnemo.memory.threaded.ThreadedFacade`'s (its
module docstring says why a thread, and which one).
"""

from __future__ import annotations

from mnemo.memory.async_memory_methods import AsyncMemoryMethods


class AsyncMemory(AsyncMemoryMethods):
    """:class:`mnemo.Memory` with every method awaitable: the same names, arguments, results
    and exceptions, each call run on a thread of this object's own pool.

    ``AsyncMemory(...)`` takes exactly ``Memory``'s arguments and opens the store there and
    then (as ``Memory(...)`` does); ``await AsyncMemory.open(...)`` opens it on a thread
    instead, and ``AsyncMemory.wrap(mem)`` serves an already open ``Memory``.

    >>> import asyncio
    >>> async def main() -> str:
    ...     async with AsyncMemory(":memory:", embedder="hashing") as mem:
    ...         await mem.add_messages([{"role": "user", "content": "I adopted a cat"}], "u1")
    ...         hits = await mem.search("cat", user_id="u1")
    ...         return hits[0].content
    >>> asyncio.run(main())
    'I adopted a cat'
    """

    @property
    def tenant(self) -> str:
        """The tenant every call reads and writes."""
        return self.sync.tenant


__all__ = ["AsyncMemory"]
