"""A store's write observers hear of each write once it has committed, and of nothing that
rolled back; on both stores (the Markdown mirror is such an observer)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo import Memory, NotFoundError
from mnemo.schemas import MemoryItem, Message
from mnemo.storage.ports.conversation import Eviction
from mnemo.storage.ports.rows import MemoryChange


class Heard:
    """A :class:`~mnemo.storage.ports.observer.WriteObserver` that records what it is told."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def messages_written(self, messages: list[Message]) -> None:
        self.events.append(("messages", [m.content for m in messages]))

    def memories_written(self, items: list[MemoryItem]) -> None:
        self.events.append(("memories", [(i.content, i.deleted_at is not None) for i in items]))

    def evicted(self, tenant: str, user_id: str, session_id: str) -> None:
        self.events.append(("evicted", tenant, user_id, session_id))

    def user_erased(self, tenant: str, user_id: str) -> None:
        self.events.append(("erased", tenant, user_id))

    def expired(self, messages: list[Message], memories: list[MemoryItem]) -> None:
        self.events.append(("expired", [m.content for m in messages + memories]))


def test_observers_hear_each_committed_write(mem: Memory) -> None:
    heard = Heard()
    mem.store.observe(heard)
    mem.add_messages([{"role": "user", "content": "I live in Lisbon"}], "u", session_id="s")
    item = mem.add("likes tea", user_id="u")
    mem.update(item.id, content="likes green tea")
    mem.delete(item.id)
    evicted = mem.store.conversation.evict_oldest(
        Eviction("default", "u", "s", 0, ("fact",), "test")
    )
    mem.store.rows.delete_user("default", "u")
    assert evicted == 1
    assert heard.events == [
        ("messages", ["I live in Lisbon"]),
        ("memories", [("likes tea", False)]),
        ("memories", [("likes green tea", False)]),
        ("memories", [("likes green tea", True)]),
        ("evicted", "default", "u", "s"),
        ("erased", "default", "u"),
    ]


def test_a_write_that_fails_is_not_observed(mem: Memory) -> None:
    heard = Heard()
    mem.store.observe(heard)
    with pytest.raises(NotFoundError):
        mem.store.rows.update_memory(
            MemoryChange("default", "no-such-id", {"content": "x"}, "test")
        )
    keep_ten = Eviction("default", "u", "s", 10, ("fact",), "test")
    assert mem.store.conversation.evict_oldest(keep_ten) == 0
    assert heard.events == []
