"""The write-observer port: what a store tells its observers after a write commits.

A store calls every observer it was given (``store.observe(observer)``) once a write has
committed, never inside the transaction: the database is the write of record, and an observer
(the Markdown mirror of :mod:`mnemo.files.mirror`) only follows it. An observer handles its
own failures; it must not raise.
"""

from __future__ import annotations

from typing import Protocol

from mnemo.schemas import MemoryItem, Message


class WriteObserver(Protocol):
    """Told about each committed write of turns and memories, eviction and erasure."""

    def messages_written(self, messages: list[Message]) -> None:
        """Turns were stored."""
        ...

    def memories_written(self, items: list[MemoryItem]) -> None:
        """Memories were added, changed or soft-deleted (each as it now is)."""
        ...

    def evicted(self, tenant: str, user_id: str, session_id: str) -> None:
        """Turns and memories of a conversation left the working set."""
        ...

    def user_erased(self, tenant: str, user_id: str) -> None:
        """Every row of a user was erased."""
        ...

    def expired(self, messages: list[Message], memories: list[MemoryItem]) -> None:
        """Expired turns and memories were swept (erased for good)."""
        ...


class Observable(Protocol):
    """A store that tells observers about its committed writes."""

    def observe(self, observer: WriteObserver) -> None:
        """Call ``observer`` after every committed write from now on."""
        ...


__all__ = ["Observable", "WriteObserver"]
