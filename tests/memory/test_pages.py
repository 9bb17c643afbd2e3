"""``Memory``'s paged listings (``mnemo.Page``) and the rules the surfaces share, on both
stores: totals that match the filters, pages that cover every row once, the live-memory check,
"nothing to change" and the profile's stage-1 floor."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo import Memory, NotFoundError, Page, ValidationError
from mnemo.storage.base import NewJob


def walk(fetch: Any, limit: int) -> tuple[list[Any], list[Page[Any]]]:
    """Every row of a listing, read a page at a time from offset 0 by ``next_offset``."""
    rows: list[Any] = []
    pages: list[Page[Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = fetch(limit=limit, offset=offset)
        pages.append(page)
        rows += page.items
        offset = page.next_offset
    return rows, pages


def test_memory_pages_count_what_the_filters_select(mem: Memory) -> None:
    for i in range(12):
        mem.add(
            f"note {i}",
            "ann",
            kind="note" if i % 3 else "fact",
            tags=["even"] if i % 2 == 0 else None,
            session_id="s1" if i < 5 else "s2",
            created_at=f"2024-01-{i + 1:02d}T10:00:00Z",
        )
    mem.add("Bob's only memory", "bob")
    gone = mem.add("soon deleted", "ann")
    mem.delete(gone.id)

    filters: list[dict[str, Any]] = [
        {},
        {"user_id": "ann"},
        {"user_id": "ann", "kind": "note"},
        {"tag": "even"},
        {"session_id": "s2"},
        {"since": "2024-01-03T00:00:00Z", "until": "2024-01-08T00:00:00Z"},
        {"user_id": "ann", "include_deleted": True},
    ]
    for flt in filters:
        every = mem.list(limit=1000, **flt)
        rows, pages = walk(lambda **w: mem.list_page(**flt, **w), limit=5)  # noqa: B023
        assert [m.id for m in rows] == [m.id for m in every], flt
        assert {p.total for p in pages} == {len(every)}, flt
        assert pages[-1].next_offset is None and not pages[-1].has_more
        assert all(p.has_more for p in pages[:-1])

    first = mem.list_page("ann", limit=5)
    assert (first.total, first.offset, first.next_offset, first.prev_offset) == (12, 0, 5, None)
    assert first.shown() == "5 of 12"
    last = mem.list_page("ann", limit=5, offset=10)
    assert last.shown() == "11-12 of 12" and last.prev_offset == 5
    assert mem.list_page("nobody").shown() == "0 of 0"
    assert mem.list_page("ann", offset=50).items == []  # past the end: empty, total kept
    assert mem.list_page("ann", offset=50).total == 12
    assert mem.list(limit=3) == mem.list_page(limit=3).items  # list() is unchanged


def test_turn_user_session_and_job_pages(mem: Memory) -> None:
    for n, session in enumerate(("a", "b", "c")):
        turns = [{"role": "user", "content": f"turn {n}.{i}"} for i in range(4 + n)]
        mem.add_messages(turns, user_id="ann", session_id=session)
    mem.add_messages([{"role": "user", "content": "hi"}], user_id="bob", session_id="x")
    mem.add("Cy has a memory only", "cy")

    rows, pages = walk(lambda **w: mem.messages_page("ann", **w), limit=4)
    assert [m.content for m in rows] == [m.content for m in mem.messages("ann", limit=1000)]
    assert {p.total for p in pages} == {15} and len(pages) == 4
    in_b = mem.messages_page("ann", session_id="b", limit=2, offset=4)
    assert (in_b.total, len(in_b.items), in_b.next_offset) == (5, 1, None)

    users, pages = walk(lambda **w: mem.users_page(**w), limit=2)
    assert [u.user_id for u in users] == ["ann", "bob", "cy"] and pages[0].total == 3

    sessions = mem.sessions_page("ann", limit=2)
    assert sessions.total == 3 and sessions.next_offset == 2
    assert [s.session_id for s in sessions.items] == [s.session_id for s in mem.sessions("ann")][:2]

    mem.store.jobs.enqueue(
        [NewJob(kind="nobody.handles", payload={}, tenant=mem.tenant, user_id="u")] * 3
    )
    every = mem.jobs(limit=1000)
    jobs, pages = walk(lambda **w: mem.jobs_page(**w), limit=4)
    assert [j.id for j in jobs] == [j.id for j in every]
    assert {p.total for p in pages} == {len(every)}
    pending = mem.jobs_page("pending", limit=1)
    assert pending.total == len(mem.jobs("pending", limit=1000)) and pending.has_more


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.list_page(limit=0),
        lambda m: m.list_page(limit=10_001),
        lambda m: m.messages_page(offset=-1),
        lambda m: m.users_page(limit=True),
        lambda m: m.sessions_page("ann", offset="3"),
        lambda m: m.jobs_page(limit=5000, offset=5001),
        lambda m: m.jobs_page("zombie"),
    ],
)
def test_a_bad_window_is_a_validation_error(mem: Memory, call: Any) -> None:
    with pytest.raises(ValidationError):
        call(mem)


def test_the_shared_rules(mem: Memory) -> None:
    item = mem.add("Ann likes tea", "ann")
    [turn] = mem.add_messages([{"role": "user", "content": "hello"}], user_id="ann")
    assert mem.get_memory(item.id) == item
    for wrong in (turn, "pf_x", "mem_nope", "anything"):
        with pytest.raises(NotFoundError, match="no memory"):
            mem.get_memory(wrong)
    with pytest.raises(ValidationError, match="nothing to change"):
        mem.update(item.id)
    mem.delete(item.id)
    with pytest.raises(NotFoundError, match="was deleted"):
        mem.get_memory(item.id)

    floor = mem.settings.profile_context_min_importance
    from mnemo.storage.base import NewProfileFact

    for key, importance in (("name", floor + 0.2), ("snack", floor - 0.2)):
        fact = NewProfileFact(
            id=f"pf_{key}",
            tenant=mem.tenant,
            user_id="ann",
            category="identity",
            key=key,
            value="x",
            confidence=0.9,
            importance=importance,
            source_message_ids=[turn],
        )
        mem.store.conversation.put_profile_fact(fact, "test", lambda current, seq: "ADD")
    assert [f.key for f in mem.profile_view("ann")] == ["name"]
    assert {f.key for f in mem.profile_view("ann", min_importance=0.0)} == {"name", "snack"}
