"""The transaction decorators of a role method: each opens the store's transaction of its kind
and passes the connection in, so a role method is its statement call.

* :func:`reads`: several reads from one consistent snapshot (``tx.read()``).
* :func:`auto`: statements each in their own transaction, for single reads (``tx.auto()``).
* :func:`writes`: one write transaction (``tx.write()``).
* :class:`stamped`: a write whose rows carry the store's now: the clock is read first, then
  the vector index is prepared for the vectors the write carries (``index``), then the write
  transaction runs with the connection and that now; once it has committed, the observers are
  told (``observe``).

The decorated method takes the connection (and, under :class:`stamped`, the now) after
``self``; its callers do not pass them. Its docstring is the port's (a role class subclasses
its port), so none is repeated here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Concatenate, ParamSpec, TypeVar

from mnemo.storage.sql.role import Notice, Samples, SQLRole
from mnemo.storage.sql.tx import Transactions, Tx

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound=SQLRole)


class InTransaction:
    """A decorator that runs a role method in the transaction ``kind`` opens on the store's
    transactions, passing the connection in."""

    def __init__(self, kind: Callable[[Transactions], AbstractContextManager[Tx]]) -> None:
        self.kind = kind

    def __call__(self, fn: Callable[Concatenate[S, Tx, P], R]) -> Callable[Concatenate[S, P], R]:
        """``fn`` run in the transaction."""
        kind = self.kind

        @functools.wraps(fn)
        def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            with kind(self.core.tx) as c:
                return fn(self, c, *args, **kwargs)

        return run


#: ``fn`` run on a read snapshot of the store.
reads = InTransaction(lambda tx: tx.read())
#: ``fn`` run in autocommit (each statement its own transaction).
auto = InTransaction(lambda tx: tx.auto())
#: ``fn`` run in one write transaction, committed when it returns.
writes = InTransaction(lambda tx: tx.write())


class stamped:
    """A write stamped with the store's now, that may index vectors first and tell observers.

    ``index(*args, **kwargs)`` gives the vector samples of the call (its arguments are the
    method's); ``observe(result, *args, **kwargs)`` gives what to tell each observer once the
    write has committed, or None for nothing.
    """

    def __init__(
        self,
        *,
        index: Callable[..., Samples] | None = None,
        observe: Callable[..., Notice | None] | None = None,
    ) -> None:
        self.index = index
        self.observe = observe

    def __call__(
        self, fn: Callable[Concatenate[S, Tx, str, P], R]
    ) -> Callable[Concatenate[S, P], R]:
        """``fn`` as the stamped write."""
        index, observe = self.index, self.observe

        @functools.wraps(fn)
        def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            core = self.core
            now = core.now()
            if index is not None:
                core.index_vectors(index(*args, **kwargs))
            with core.tx.write() as c:
                out = fn(self, c, now, *args, **kwargs)
            tell = None if observe is None else observe(out, *args, **kwargs)
            if tell is not None:
                core.committed(tell)
            return out

        return run


__all__ = ["InTransaction", "auto", "reads", "stamped", "writes"]
