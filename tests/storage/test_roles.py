"""A store holds each role as an attribute, an object of a class that subclasses the role's
port (so its docstrings are the port's, written once), and a role's write tells the observers
only once another connection can read what it wrote; on both stores."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mnemo import Memory
from mnemo.schemas import MemoryItem, Message
from mnemo.storage.ports import (
    ApiKeys,
    ConversationStore,
    DocumentStore,
    IdempotencyKeys,
    JobQueue,
    Maintenance,
    MemoryRows,
    SearchSource,
    TopicStore,
)

PORTS: dict[str, Any] = {
    "rows": MemoryRows,
    "documents": DocumentStore,
    "search": SearchSource,
    "jobs": JobQueue,
    "conversation": ConversationStore,
    "topics": TopicStore,
    "api_keys": ApiKeys,
    "idempotency": IdempotencyKeys,
    "maintenance": Maintenance,
}


def test_each_role_is_an_attribute_whose_class_subclasses_its_port(mem: Memory) -> None:
    for name, port in PORTS.items():
        role = type(getattr(mem.store, name))
        assert port in role.__mro__, name
        for method, _ in inspect.getmembers(port, inspect.isfunction):
            if method.startswith("_"):
                continue
            # the port's docstring, not a second copy (none is written in the role class)
            assert inspect.getdoc(getattr(role, method)) is not None, (name, method)
    assert inspect.getdoc(type(mem.store.rows).add_messages) == inspect.getdoc(
        MemoryRows.add_messages
    )


class ReadsBack:
    """An observer that reads each written row through another store on the same data."""

    def __init__(self, other: Memory) -> None:
        self.other = other
        self.seen: list[bool] = []

    def messages_written(self, messages: list[Message]) -> None:
        rows = self.other.store.rows
        self.seen += [rows.get_message("default", m.id) is not None for m in messages]

    def memories_written(self, items: list[MemoryItem]) -> None:
        rows = self.other.store.rows
        self.seen += [rows.get_memory("default", i.id) == i for i in items]

    def evicted(self, tenant: str, user_id: str, session_id: str) -> None:
        """Not used here."""

    def user_erased(self, tenant: str, user_id: str) -> None:
        self.seen.append(self.other.store.rows.list_sessions(tenant, user_id) == [])

    def expired(self, messages: list[Message], memories: list[MemoryItem]) -> None:
        """Not used here."""


def test_observers_are_told_after_the_commit(open_mem: Callable[..., Memory]) -> None:
    mem, other = open_mem(), open_mem()
    heard = ReadsBack(other)
    mem.store.observe(heard)
    mem.add_messages([{"role": "user", "content": "I live in Lisbon"}], "u", session_id="s")
    item = mem.add("likes tea", user_id="u")
    mem.update(item.id, content="likes green tea")
    mem.store.rows.delete_user("default", "u")
    assert heard.seen == [True, True, True, True]
