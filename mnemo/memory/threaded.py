"""ThreadedFacade: the machinery of an awaitable facade over a sync one.

An awaitable facade (``mnemo.AsyncMemory`` over ``mnemo.Memory``, ``mnemo.compat.mem0``'s
``AsyncMemory`` over its ``Memory``) is this class plus one generated class of methods
(``scripts/gen_async.py`` writes it from the sync class: an ``__init__`` made by
:func:`constructor` and an ``open`` made by :class:`opener`, both taking the sync class's
constructor arguments, and one :func:`twin` per public method, ``search = twin(Memory.search)``,
an ``async`` method with the sync method's name, docstring and parameter types; all three carry
the sync parameters' types, so mypy checks every call without a parameter written twice).

Why a thread, and which one. Every ``Memory`` method may block: it reads and writes the
database, embeds text (a model on the CPU or an HTTP call) and may call the chat model. None
of that may run on the event loop. The calls run on a bounded thread pool that belongs to the
facade (``max_workers`` threads, default: the store's ``database_pool_size``), not on the
loop's default executor, so

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
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, Self, TypeVar

from mnemo.config.settings import Settings
from mnemo.errors import StorageError, ValidationError
from mnemo.memory.closing import AsyncClosing

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
Obj = TypeVar("Obj")


class SyncFacade(Protocol):
    """What a threaded facade needs of the sync object it serves."""

    @property
    def settings(self) -> Settings:
        """The settings in force (``database_pool_size`` sizes the pool)."""
        ...

    def close(self) -> None:
        """Close the store (and what else the object owns)."""
        ...


S = TypeVar("S", bound=SyncFacade)
F = TypeVar("F", bound="ThreadedFacade[Any]")


def public_methods(cls: type) -> list[str]:
    """The names of ``cls``'s public methods (callable class attributes not starting with
    ``_``), sorted."""
    return sorted(
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_") and callable(value) and not inspect.isclass(value)
    )


class ThreadedFacade(AsyncClosing, Generic[S]):
    """An awaitable facade over the sync object ``sync``: a bounded thread pool every call
    runs on (:meth:`_run`), :meth:`wrap`, :meth:`close` and ``async with``. The methods (and
    ``__init__`` / ``open``, which take the sync class's arguments) come from a generated
    subclass; see the module docstring."""

    #: The sync object every call runs on (for what has no twin: attributes).
    sync: S

    def _attach(self, sync: S, max_workers: int | None) -> None:
        """Serve ``sync`` with a pool of ``max_workers`` threads (None: database_pool_size)."""
        self.sync = sync
        workers = sync.settings.database_pool_size if max_workers is None else max_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValidationError(f"max_workers must be a positive integer, got {workers!r}")
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mnemo-async")
        self._closed = False

    @classmethod
    def wrap(cls, sync: S, *, max_workers: int | None = None) -> Self:
        """An instance serving the open ``sync`` object with a pool of ``max_workers`` threads
        (default: ``database_pool_size``); ``close()`` closes ``sync`` too."""
        self = cls.__new__(cls)
        self._attach(sync, max_workers)
        return self

    @property
    def settings(self) -> Settings:
        """The settings of the underlying sync object."""
        return self.sync.settings

    async def _run(self, method: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``method(*args, **kwargs)`` (a method of ``self.sync``) on this object's pool, in
        the caller's context."""
        if self._closed:
            raise StorageError(f"the {type(self).__name__} is closed")
        context = contextvars.copy_context()
        call = functools.partial(context.run, method, *args, **kwargs)
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


def twin(
    method: Callable[Concatenate[Any, P], R],
) -> Callable[Concatenate[ThreadedFacade[Any], P], Coroutine[Any, Any, R]]:
    """The awaitable twin of ``method``, a method of the sync class: it runs the method of the
    facade's ``sync`` object on the facade's pool and returns its result (raising what it
    raised). It keeps the method's name, docstring and signature (``inspect.signature``,
    ``help()``), and its type carries the method's parameters, so mypy checks each call::

        class AsyncMemoryMethods(ThreadedFacade[Memory]):
            search = twin(Memory.search)
    """
    name = method.__name__

    async def call(self: ThreadedFacade[Any], /, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = await self._run(getattr(self.sync, name), *args, **kwargs)
        return result

    functools.update_wrapper(call, method)
    return call


def constructor(
    factory: Callable[P, T],
) -> Callable[[Callable[[Obj, T], None]], Callable[Concatenate[Obj, P], None]]:
    """Decorates ``__init__(self, built)`` into an ``__init__`` taking ``factory``'s arguments
    (a class's: the sync facade's, or the store an async store serves): it builds the object
    from them, then runs the decorated body with it. The result keeps the body's docstring and
    the factory's signature, and its type carries the factory's parameters, so mypy checks
    ``AsyncMemory(...)`` as ``Memory(...)``::

        @constructor(Memory)
        def __init__(self, sync: Memory) -> None:
            self._attach(sync, None)
    """

    def decorate(init: Callable[[Obj, T], None]) -> Callable[Concatenate[Obj, P], None]:
        def __init__(self: Obj, /, *args: P.args, **kwargs: P.kwargs) -> None:
            init(self, factory(*args, **kwargs))

        functools.update_wrapper(__init__, init)
        __init__.__wrapped__ = factory.__init__  # type: ignore[attr-defined]
        return __init__

    return decorate


class opener(Generic[P, S]):
    """``open = opener(Memory)``: a classmethod ``await AsyncMemory.open(...)`` taking
    ``factory``'s arguments (the sync class's), which builds the sync object on a thread (so
    opening the store and loading the embedder do not block the event loop) and serves it
    (:meth:`ThreadedFacade.wrap`). Its type carries the sync parameters, so mypy checks the
    call, and ``inspect.signature`` shows them."""

    def __init__(self, factory: Callable[P, S]) -> None:
        self.factory = factory
        name = getattr(factory, "__name__", "the sync class")
        self.doc = (
            f"``{name}(...)`` opened on a thread, so opening the store (and loading the\n"
            "embedder) does not block the event loop."
        )

    def __get__(self, obj: object, owner: type[F]) -> Callable[P, Coroutine[Any, Any, F]]:
        factory = self.factory

        async def open(*args: P.args, **kwargs: P.kwargs) -> F:
            sync = await asyncio.to_thread(factory, *args, **kwargs)
            return owner.wrap(sync)

        open.__doc__ = self.doc
        open.__qualname__ = f"{owner.__qualname__}.open"
        open.__wrapped__ = factory  # type: ignore[attr-defined]
        return open


__all__ = ["SyncFacade", "ThreadedFacade", "constructor", "opener", "public_methods", "twin"]
