"""The Memory facade: turns, CRUD, history, listing, pagination and caller timestamps."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from mnemo import Memory, MemoryItem, Message, NotFoundError, ValidationError

OpenMem = Callable[..., Memory]


def test_add_messages_keeps_order_fields_and_caller_time(mem: Memory) -> None:
    ids = mem.add_messages(
        [
            {
                "role": "user",
                "content": "Hi",
                "name": "Caroline",
                "created_at": "2023-05-08T13:56:00",
                "metadata": {"dia_id": "D1:1"},
            },
            {"role": "assistant", "content": "Hello!", "created_at": 1683554200},
        ],
        user_id="u1",
        session_id="s1",
    )
    first, second = (mem.get(i) for i in ids)
    assert isinstance(first, Message) and isinstance(second, Message)
    assert first.created_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert second.created_at == datetime.fromtimestamp(1683554200, tz=UTC)
    assert (first.seq, second.seq) == (1, 2)
    assert first.name == "Caroline" and first.metadata == {"dia_id": "D1:1"}
    more = mem.add_messages([{"role": "user", "content": "Again"}], "u1", "s1")
    assert mem.get(more[0]).seq == 3  # type: ignore[union-attr]
    assert [m.content for m in mem.messages("u1", session_id="s1")] == ["Hi", "Hello!", "Again"]


def test_timezone_offsets_are_normalised_to_utc(mem: Memory) -> None:
    [i] = mem.add_messages(
        [{"role": "user", "content": "x", "created_at": "2024-01-01T10:00:00+02:00"}], "u"
    )
    assert mem.get(i).created_at == datetime(2024, 1, 1, 8, tzinfo=UTC)


def test_memory_crud_and_history(mem: Memory) -> None:
    src = mem.add_messages([{"role": "user", "content": "I went vegan"}], "u1")
    item = mem.add("Ann is vegetarian", user_id="u1", tags=["diet"], source_message_ids=src)
    assert isinstance(item, MemoryItem) and item.kind == "fact" and item.tags == ["diet"]
    updated = mem.update(
        item.id, content="Ann is vegan", tags=["diet", "food"], source_message_ids=src
    )
    assert updated.content == "Ann is vegan" and updated.updated_at >= item.updated_at
    assert mem.get(item.id).content == "Ann is vegan"  # type: ignore[union-attr]
    deleted = mem.delete(item.id)
    assert deleted.deleted_at is not None
    with pytest.raises(NotFoundError, match="deleted"):
        mem.get(item.id)
    events = mem.history(item.id)
    assert [e.event for e in events] == ["ADD", "UPDATE", "DELETE"]
    assert events[0].old is None and events[0].new["content"] == "Ann is vegetarian"
    assert events[1].old["content"] == "Ann is vegetarian"
    assert events[1].new["content"] == "Ann is vegan" and events[1].source_message_ids == src
    assert events[2].new is None and events[2].actor == "api"
    assert events[0].source_message_ids == src
    with pytest.raises(NotFoundError):
        mem.update(item.id, content="again")  # deleted memories stay deleted
    assert mem.list(user_id="u1") == []
    assert [m.id for m in mem.list(user_id="u1", include_deleted=True)] == [item.id]


def test_list_filters_and_pagination(mem: Memory) -> None:
    for i in range(7):
        mem.add(
            f"fact number {i}",
            user_id="u1",
            session_id="s1" if i % 2 else "s2",
            kind="fact" if i < 5 else "note",
            tags=["even"] if i % 2 == 0 else ["odd"],
            created_at=f"2024-01-0{i + 1}T00:00:00",
        )
    mem.add("other user", user_id="u2")
    assert len(mem.list(user_id="u1")) == 7
    assert [m.content for m in mem.list(user_id="u1", limit=2)] == [
        "fact number 6",
        "fact number 5",
    ]
    assert [m.content for m in mem.list(user_id="u1", limit=2, offset=2)] == [
        "fact number 4",
        "fact number 3",
    ]
    assert {m.content for m in mem.list(user_id="u1", kind="note")} == {
        "fact number 5",
        "fact number 6",
    }
    assert len(mem.list(user_id="u1", tag="even")) == 4
    assert len(mem.list(user_id="u1", session_id="s1")) == 3
    window = mem.list(user_id="u1", since="2024-01-02", until="2024-01-04")
    assert {m.content for m in window} == {"fact number 1", "fact number 2"}
    assert len(mem.list()) == 8


def test_unknown_ids_and_wrong_targets(mem: Memory) -> None:
    with pytest.raises(NotFoundError):
        mem.get("mem_doesnotexist")
    with pytest.raises(NotFoundError):
        mem.get("nonsense")
    with pytest.raises(NotFoundError):
        mem.history("mem_nope")
    [mid] = mem.add_messages([{"role": "user", "content": "a turn"}], "u")
    with pytest.raises(ValidationError, match="event log"):
        mem.update(mid, content="rewritten")
    with pytest.raises(ValidationError, match="at least one"):
        mem.update(mem.add("x", user_id="u").id)


def test_search_sees_new_turns_immediately_and_updates(mem: Memory) -> None:
    assert mem.search("zebra", user_id="u1") == []
    mem.add_messages([{"role": "user", "content": "I saw a zebra at the zoo"}], "u1")
    assert mem.search("zebra", user_id="u1")[0].content == "I saw a zebra at the zoo"
    item = mem.add("The giraffe was tall", user_id="u1")
    mem.update(item.id, content="The okapi was shy")
    contents = [h.content for h in mem.search("okapi shy", user_id="u1")]
    assert contents[0] == "The okapi was shy" and "The giraffe was tall" not in contents


def test_context_manager_closes(open_mem: OpenMem) -> None:
    with open_mem() as m:
        m.add_messages([{"role": "user", "content": "x"}], "u")
    with pytest.raises(Exception, match="closed"):
        m.messages("u")


def test_stats(mem: Memory) -> None:
    mem.add_messages(
        [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "u1", "s1"
    )
    mem.add_messages([{"role": "user", "content": "c"}], "u2", "s9")
    mem.add("fact", user_id="u1")
    s = mem.stats()
    assert (s.users, s.sessions, s.messages) == (2, 2, 3)
    assert s.memories == {"fact": 1} and s.embedder == "hashing:384"
