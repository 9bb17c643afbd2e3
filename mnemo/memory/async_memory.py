"""AsyncMemory: :class:`~mnemo.memory.facade.Memory` for asyncio code, derived from it.

There is one definition of mnemo's API, ``Memory``. ``AsyncMemory`` is generated from it when
this module is imported: every public method of ``Memory`` gets an ``async`` twin with the
same name, signature (``inspect.signature`` follows ``__wrapped__``) and docstring, which runs
the sync method on a worker thread and returns its result, raising the very exception the
sync method raised. A method added to ``Memory`` gets its twin without anyone writing it, so
the two cannot drift; ``tests/memory/test_async_memory.py`` fails if one ever does.

Why a thread, and which one. Every ``Memory`` method may block: it reads and writes the
database, embeds text (a model on the CPU or an HTTP call) and may call the chat model. None
of that may run on the event loop. The calls run on a bounded thread pool that belongs to the
``AsyncMemory`` (``max_workers`` threads, default: the store's ``database_pool_size``), not on
the loop's default executor, so

* the store holds at most ``max_workers`` connections for it (the SQLite store opens one
  connection per thread that uses it, the PostgreSQL store borrows from its pool, so more
  threads than pool connections would only queue inside the pool);
* ``close()`` can wait for the calls in flight, then close the store once.

``Memory`` is already safe to call from several threads at once (the REST server does, from
its thread pool): SQLite connections are per thread and writers are serialised by
``BEGIN IMMEDIATE``; PostgreSQL uses a connection pool and row locks.

Cancelling an awaiting task does not stop the call on its thread: a write that started is
completed and committed (no acknowledged write is lost), only its result is dropped.

Context variables of the caller (``contextvars``) are visible inside the call, as with
``asyncio.to_thread``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Self

from mnemo.config.settings import Settings
from mnemo.errors import StorageError, ValidationError
from mnemo.memory.facade import Memory


def public_methods(cls: type) -> list[str]:
    """The names of ``cls``'s public methods (callable class attributes not starting with
    ``_``), sorted."""
    return sorted(
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_") and callable(value) and not inspect.isclass(value)
    )


def _twin(method: Callable[..., Any]) -> Callable[..., Coroutine[Any, Any, Any]]:
    """An ``async`` method that runs ``method`` (a ``Memory`` method) on the instance's
    thread pool; it carries ``method``'s name, docstring and signature."""

    async def call(self: ThreadedFacade, /, *args: Any, **kwargs: Any) -> Any:
        return await self._run(method, *args, **kwargs)

    functools.update_wrapper(call, method)
    return call


class ThreadedFacade:
    """The machinery of an awaitable facade over a sync one (``sync_class``): a bounded
    thread pool every call runs on, ``wrap``/``open``, ``close`` and ``async with``. Its
    subclasses get their methods from :func:`add_twins` (``mnemo.AsyncMemory`` here,
    ``mnemo.compat.mem0.AsyncMemory`` over the mem0-compatible facade)."""

    #: The sync class a subclass serves; ``__init__`` takes its arguments.
    sync_class: ClassVar[type[Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the sync class's own arguments (each subclass shows its signature): no second list
        self._attach(self.sync_class(*args, **kwargs), None)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give each subclass its own ``__init__`` showing ``sync_class``'s signature (set on
        a shared ``__init__``, one subclass's would overwrite another's)."""
        super().__init_subclass__(**kwargs)

        def __init__(self: ThreadedFacade, *args: Any, **kwargs: Any) -> None:
            ThreadedFacade.__init__(self, *args, **kwargs)

        __init__.__signature__ = inspect.signature(cls.sync_class.__init__)  # type: ignore[attr-defined]
        __init__.__doc__ = cls.sync_class.__init__.__doc__
        cls.__init__ = __init__  # type: ignore[method-assign]

    def _attach(self, memory: Any, max_workers: int | None) -> None:
        #: The sync object every call runs on (for what has no twin: attributes).
        self.sync = memory
        workers = memory.settings.database_pool_size if max_workers is None else max_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValidationError(f"max_workers must be a positive integer, got {workers!r}")
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mnemo-async")
        self._closed = False

    @classmethod
    def wrap(cls, memory: Any, *, max_workers: int | None = None) -> Self:
        """An instance serving the open ``memory`` with a pool of ``max_workers`` threads
        (default: ``database_pool_size``); ``close()`` closes ``memory`` too."""
        self = cls.__new__(cls)
        self._attach(memory, max_workers)
        return self

    @classmethod
    async def open(cls, *args: Any, **kwargs: Any) -> Self:
        """``cls(*args, **kwargs)`` opened on a thread, so opening the store (and loading
        the embedder) does not block the event loop."""
        memory = await asyncio.to_thread(cls.sync_class, *args, **kwargs)
        return cls.wrap(memory)

    @property
    def settings(self) -> Settings:
        """The settings of the underlying Memory."""
        settings: Settings = self.sync.settings
        return settings

    async def _run(self, method: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """``method(self.sync, *args, **kwargs)`` on this object's pool, in the caller's
        context."""
        if self._closed:
            raise StorageError(f"the {type(self).__name__} is closed")
        context = contextvars.copy_context()
        call = functools.partial(context.run, method, self.sync, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    async def close(self) -> None:
        """Wait for the calls in flight, then close the Memory (the store, and the embedder
        when the Memory made it); later calls raise StorageError. Closing twice does
        nothing. (Written here, not generated: it also shuts this object's threads down.)"""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._pool.shutdown, wait=True)
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class AsyncMemory(ThreadedFacade):
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

    sync_class = Memory
    sync: Memory

    @property
    def tenant(self) -> str:
        """The tenant every call reads and writes."""
        return self.sync.tenant

    if TYPE_CHECKING:
        # The twins are made below, at import time; to a type checker each is an awaitable.
        def __getattr__(self, name: str) -> Callable[..., Coroutine[Any, Any, Any]]: ...


def add_twins(target: type, source: type) -> None:
    """Give ``target`` an awaitable twin (:func:`_twin`) of each public method of ``source``,
    except those ``target`` writes by hand (``close``)."""
    for name in public_methods(source):
        mine = getattr(target, name, None)
        if mine is None or hasattr(mine, "__twin_of__"):
            twin = _twin(getattr(source, name))
            twin.__twin_of__ = name  # type: ignore[attr-defined]
            setattr(target, name, twin)


add_twins(AsyncMemory, Memory)

__all__ = ["AsyncMemory", "ThreadedFacade", "add_twins", "public_methods"]
