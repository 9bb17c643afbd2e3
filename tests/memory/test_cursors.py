"""Page cursors of ``Memory``'s listings (``Page.next_cursor``, ``cursor=``), on both stores:
a walk by cursor yields every row that existed exactly once while another connection writes
and deletes rows between the pages; a cursor of another listing, query, user or tenant, or an
altered one, is a ValidationError; ``total`` is on every page."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from mnemo import AsyncMemory, Memory, MemoryQuery, Page, ValidationError
from mnemo.memory import cursors
from mnemo.storage.base import NewJob

OpenMem = Callable[..., Memory]
QUIET: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}


def walk(fetch: Any, limit: int, between: Callable[[int], None]) -> list[Page[Any]]:
    """Every page of a listing read by ``next_cursor``, calling ``between(page_number)``
    after each page (the concurrent writer)."""
    pages = [fetch(limit=limit)]
    while pages[-1].next_cursor is not None:
        between(len(pages))
        pages.append(fetch(limit=limit, cursor=pages[-1].next_cursor))
    return pages


def test_memory_cursor_walk_survives_concurrent_inserts_and_deletes(open_mem: OpenMem) -> None:
    mem, writer = open_mem(**QUIET), open_mem(**QUIET)  # two connections to one store
    # 40 memories over 8 distinct times: ties of created_at are broken by the store's rowid
    start = [
        mem.add(f"note {i}", "ann", created_at=f"2024-03-{i % 8 + 1:02d}T10:00:00Z")
        for i in range(40)
    ]
    order = [m.id for m in mem.list("ann", limit=1000)]
    seen_ids: list[str] = []
    deleted: set[str] = set()

    def write(n: int) -> None:
        # newer, older and tied rows land before and after the cursor; a seen row and an
        # unseen one are deleted
        for day in ("2024-03-20", "2024-02-01", f"2024-03-{n % 8 + 1:02d}"):
            writer.add(f"late {n} {day}", "ann", created_at=f"{day}T10:00:00Z")
        seen = [i for i in seen_ids if i not in deleted]
        unseen = [i for i in order if i not in seen_ids and i not in deleted]
        for victim in (seen[0], unseen[-1]):
            writer.delete(victim)
            deleted.add(victim)

    pages: list[Page[Any]] = []

    def fetch(**w: Any) -> Page[Any]:
        page = mem.list_page("ann", **w)
        seen_ids.extend(m.id for m in page.items)
        pages.append(page)
        return page

    walk(fetch, 7, write)
    original = [i for i in seen_ids if i in set(order)]
    assert len(seen_ids) == len(set(seen_ids)), "a row came twice"
    # every row there at the start shows once, in the listing's order, unless it was
    # deleted before its page was read
    assert original == [i for i in order if i in set(original)]
    missing = set(order) - set(seen_ids)
    assert missing <= deleted and missing, "only deleted rows may be missing"
    # each page's total is the count at the time of that page
    assert pages[0].total == 40 and pages[-1].total == len(mem.list("ann", limit=1000))
    assert [p.offset for p in pages] == [7 * i for i in range(len(pages))]
    assert pages[1].shown() == f"8-14 of {pages[1].total}"
    assert {m.id for m in start} == set(order)


def test_offsets_skip_rows_that_cursors_keep(open_mem: OpenMem) -> None:
    mem, writer = open_mem(**QUIET), open_mem(**QUIET)
    for user in ("ann", "bob"):
        for i in range(20):
            mem.add(f"row {i}", user, created_at=f"2024-01-{i + 1:02d}T00:00:00Z")

    def read(user: str, by_cursor: bool) -> list[str]:
        """Every row of ``user`` page by page, deleting the first row seen after each page."""
        every = [m.id for m in mem.list(user, limit=100)]
        page, got = mem.list_page(user, limit=5), []
        while True:
            got += [m.id for m in page.items]
            if page.next_offset is None:
                return [i for i in every if i not in got]  # the rows never shown
            writer.delete(got[len(got) // 5 - 1])  # one shown row per page read
            if by_cursor:
                page = mem.list_page(user, limit=5, cursor=page.next_cursor)
            else:
                page = mem.list_page(user, limit=5, offset=page.next_offset)

    assert read("ann", by_cursor=False)  # deleting shown rows shifts offsets: rows skipped
    assert read("bob", by_cursor=True) == []  # by cursor: none skipped


def test_turn_cursor_walk_with_concurrent_turns(open_mem: OpenMem) -> None:
    mem, writer = open_mem(**QUIET), open_mem(**QUIET)
    for s in ("a", "b", "c"):
        turns = [
            {"role": "user", "content": f"{s} {i}", "created_at": f"2024-05-0{i + 1}T09:00:00Z"}
            for i in range(6)
        ]
        mem.add_messages(turns, user_id="ann", session_id=s)
    order = [m.id for m in mem.messages("ann", limit=1000)]

    def write(n: int) -> None:
        for when in ("2024-04-01T00:00:00Z", "2024-05-03T09:00:00Z", "2024-06-01T00:00:00Z"):
            turn = {"role": "user", "content": f"new {n} {when}", "created_at": when}
            writer.add_messages([turn], user_id="ann", session_id=f"z{n}")

    pages = walk(lambda **w: mem.messages_page("ann", **w), 4, write)
    got = [m.id for p in pages for m in p.items]
    assert len(got) == len(set(got))
    assert [i for i in got if i in set(order)] == order  # every original turn, once, in order
    assert all(p.total >= 18 for p in pages)


def test_user_session_and_job_cursors(open_mem: OpenMem) -> None:
    mem, writer = open_mem(**QUIET), open_mem(**QUIET)
    for u in ("u01", "u03", "u05", "u07", "u09"):
        mem.add("x", u)
    for s in range(5):
        mem.add_messages(
            [{"role": "user", "content": "hi", "created_at": f"2024-01-0{s + 1}T00:00:00Z"}],
            user_id="ann",
            session_id=f"s{s}",
        )
    users = walk(lambda **w: mem.users_page(**w), 2, lambda n: writer.add("y", f"u0{2 * n % 10}"))
    names = [u.user_id for p in users for u in p.items]
    assert len(names) == len(set(names))
    assert {"ann", "u01", "u03", "u05", "u07", "u09"} <= set(names)
    assert names == sorted(names)

    sessions = walk(lambda **w: mem.sessions_page("ann", **w), 2, lambda n: None)
    assert [s.session_id for p in sessions for s in p.items] == ["s4", "s3", "s2", "s1", "s0"]
    assert {p.total for p in sessions} == {5}

    job = NewJob(kind="nobody.handles", payload={}, tenant=mem.tenant, user_id="u")
    mem.store.jobs.enqueue([job] * 5)
    before = [j.id for j in mem.jobs(limit=1000)]
    jobs = walk(lambda **w: mem.jobs_page(**w), 3, lambda n: writer.store.jobs.enqueue([job]))
    got = [j.id for p in jobs for j in p.items]
    assert got == before  # new jobs are newer than the cursor: not in this walk, none repeated


def test_foreign_altered_and_garbled_cursors_are_validation_errors(open_mem: OpenMem) -> None:
    mem = open_mem(**QUIET)
    other_tenant = open_mem(tenant="other", **QUIET)
    for i in range(3):
        mem.add(f"ann {i}", "ann", kind="note")
        mem.add(f"bob {i}", "bob")
        other_tenant.add(f"other {i}", "ann", kind="note")
        mem.add_messages([{"role": "user", "content": f"t{i}"}], user_id="ann")
    token = mem.list_page("ann", limit=1).next_cursor
    assert token is not None
    assert len(mem.list_page("ann", limit=1, cursor=token).items) == 1  # its own query: fine
    body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    body["o"] = 0  # altered position
    altered = base64.urlsafe_b64encode(json.dumps(body).encode()).decode()
    foreign: list[Callable[[], Any]] = [
        lambda: mem.list_page("bob", limit=1, cursor=token),  # another user
        lambda: mem.list_page("ann", kind="note", limit=1, cursor=token),  # another query
        lambda: mem.list_page(limit=1, cursor=token),  # every user's listing
        lambda: mem.messages_page("ann", limit=1, cursor=token),  # another listing
        lambda: mem.users_page(cursor=token),
        lambda: mem.sessions_page("ann", cursor=token),
        lambda: mem.jobs_page(cursor=token),
        lambda: other_tenant.list_page("ann", limit=1, cursor=token),  # another tenant
        lambda: mem.list_page("ann", cursor=altered),
        lambda: mem.list_page("ann", cursor=token[:-3] + "AAA"),
        lambda: mem.list_page("ann", cursor="not a cursor"),
        lambda: mem.list_page("ann", cursor="e30"),  # {} in base64
        lambda: mem.list_page("ann", cursor=""),
        lambda: mem.list_page("ann", cursor="x" * 5000),
        lambda: mem.list_page("ann", cursor=123),
        lambda: mem.list("ann", cursor=token[::-1]),
    ]
    for call in foreign:
        with pytest.raises(ValidationError, match="cursor"):
            call()
    with pytest.raises(ValidationError, match="cursor or an offset"):
        mem.list_page("ann", limit=1, offset=1, cursor=token)
    turns = mem.messages_page("ann", limit=1).next_cursor
    with pytest.raises(ValidationError, match="another listing"):
        mem.list_page("ann", cursor=turns)


def test_a_cursor_never_reveals_another_tenants_rows(open_mem: OpenMem) -> None:
    mem = open_mem(**QUIET)
    other = open_mem(tenant="other", **QUIET)
    mine = {mem.add(f"mine {i}", "ann").id for i in range(3)}
    theirs = [other.add(f"theirs {i}", "ann") for i in range(3)]
    # a forger who knows the scheme seals a cursor for their own tenant and query, at the
    # position of another tenant's row: the page still holds only the caller's rows
    params = cursors.query_params(mem._records.memory_filter(MemoryQuery(user_id="ann")))
    stamp = theirs[-1].created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    place = other.store.rows.memory_rowid(other.tenant, theirs[-1].id)
    assert place is not None
    forged = cursors.mark("memories", mem.tenant, params, ("9999-01-01T00:00:00.000000Z", 1), 0)
    near = cursors.mark("memories", mem.tenant, params, (stamp, place), 0)
    for token in (forged, near):
        page = mem.list_page("ann", cursor=token)
        assert {m.id for m in page.items} <= mine and page.total == 3
    # a sealed cursor whose key has the wrong types is refused before any SQL runs
    odd = cursors.mark("memories", mem.tenant, params, (stamp, "1; DROP TABLE memories"), 0)
    with pytest.raises(ValidationError, match="cursor"):
        mem.list_page("ann", cursor=odd)


def test_list_takes_a_cursor_too(mem: Memory) -> None:
    for i in range(5):
        mem.add(f"n {i}", "ann", created_at=f"2024-01-0{i + 1}T00:00:00Z")
    first = mem.list_page("ann", limit=2)
    rest = mem.list("ann", cursor=first.next_cursor)
    assert [m.content for m in rest] == ["n 2", "n 1", "n 0"]
    assert first.next_cursor and mem.list_page("ann", limit=2).next_cursor == first.next_cursor
    last = mem.list_page("ann", limit=2, cursor=first.next_cursor)
    last = mem.list_page("ann", limit=2, cursor=last.next_cursor)
    assert last.next_cursor is None and last.shown() == "5-5 of 5"


def test_the_position_holds_when_the_last_row_shown_is_erased(mem: Memory) -> None:
    # ann's and bob's memories share their times; page 1 of everyone's memories ends on bob's
    for i in range(6):
        for user in ("ann", "bob"):
            mem.add(f"{user} {i}", user, created_at=f"2024-06-0{i // 2 + 1}T00:00:00Z")
    every = [m.content for m in mem.list(limit=100)]
    first = mem.list_page(limit=5)
    assert first.items[-1].user_id == "bob" and first.next_cursor
    mem.delete_user("bob")  # erased for good, the cursor's own row with it
    rest = mem.list_page(limit=100, cursor=first.next_cursor)
    shown = [m.content for m in first.items + rest.items]
    assert [c for c in shown if c.startswith("ann")] == [c for c in every if c.startswith("ann")]


def test_async_twins_take_cursors(target: dict[str, str]) -> None:
    async def body() -> None:
        async with AsyncMemory(**target, embedder="hashing", fact_extraction="off") as mem:
            for i in range(3):
                await mem.add(f"a {i}", "ann", created_at=f"2024-01-0{i + 1}T00:00:00Z")
            first = await mem.list_page("ann", limit=2)
            rest = await mem.list_page("ann", limit=2, cursor=first.next_cursor)
            assert [m.content for m in first.items + rest.items] == ["a 2", "a 1", "a 0"]
            with pytest.raises(ValidationError, match="cursor"):
                await mem.list_page("bob", cursor=first.next_cursor)

    asyncio.run(asyncio.wait_for(body(), 60))
