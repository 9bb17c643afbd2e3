"""Every paged view of the web UI in a real headless Chromium: a person walks to page 2 and
back, and each page shows the rows the library lists there, with "51-85 of 85" (issue 27: any
list with a second page was an HTTP 500, ``'href' is undefined`` in the pager)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ui_support import UiServer, ui_server

from mnemo.storage.base import NewJob

pytestmark = pytest.mark.timeout(180)
CAROLINE = 85  # memories: one page of 50, then 35
TURNS = 120  # turns of one session: one page of 100, then 20
USERS = 60  # users besides caroline: one page of 50, then the rest
JOBS = 230  # pending jobs (no worker runs them): one page of 200, then the rest


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server whose every listing has a second page."""
    with ui_server(str(tmp_path_factory.mktemp("paging") / "paged.db")) as srv:
        mem = srv.memory()
        for i in range(CAROLINE):
            mem.add(
                f"Caroline fact {i}",
                "caroline",
                created_at=f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
            )
        turns = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn number {i}"}
            for i in range(TURNS)
        ]
        mem.add_messages(turns, user_id="caroline", session_id="long")
        for i in range(USERS):
            mem.add(f"User {i} likes tea", f"user{i:02d}")
        mem.store.jobs.enqueue(
            [NewJob(kind="nobody.handles", payload={}, tenant=mem.tenant, user_id="caroline")]
            * JOBS
        )
        yield srv


def count(page: Any) -> str:
    """The pager's "21-40 of 85"."""
    return str(page.get_by_test_id("page-count").first.inner_text()).strip()


def walk(
    page: Any,
    url: str,
    rows: str,
    first: list[str],
    second: list[str],
    counts: tuple[str, str],
    labels: tuple[str, str],
) -> None:
    """Open ``url``, check its rows (``rows`` is their CSS selector) are ``first``, follow the
    next link to page 2 (rows ``second``), and the previous link back to page 1."""
    page.goto(url)
    assert page.locator(rows).all_inner_texts() == first
    assert count(page) == counts[0]
    assert page.get_by_role("link", name=labels[0]).count() == 0  # no page before the first
    page.get_by_role("link", name=labels[1]).click()
    page.wait_for_load_state()
    assert "cursor=" in page.url  # the next link pages by cursor (issue 24)
    assert page.locator(rows).all_inner_texts() == second
    assert count(page) == counts[1]
    assert page.get_by_role("link", name=labels[1]).count() == 0  # page 2 is the last
    page.get_by_role("link", name=labels[0]).click()
    page.wait_for_load_state()
    assert page.locator(rows).all_inner_texts() == first
    assert count(page) == counts[0]


def test_a_users_memories_page_two_and_back(server: UiServer, page: Any) -> None:
    mem = server.memory()
    expected = [m.content for m in mem.list("caroline", limit=1000)]
    assert expected[0] == "Caroline fact 84" and len(expected) == CAROLINE
    walk(
        page,
        f"{server.ui}/memories?user_id=caroline",
        "table.memories tbody tr td:nth-child(2) a",
        expected[:50],
        expected[50:],
        ("50 of 85", "51-85 of 85"),
        ("← Newer", "Older →"),
    )
    assert "user_id=caroline" in page.url


def test_every_memory_page_two_and_back(server: UiServer, page: Any) -> None:
    mem = server.memory()
    expected = [m.content for m in mem.list(limit=1000)]
    total = CAROLINE + USERS
    # three pages here: 1 -> 2 -> 3, then back to 1
    rows = "table.memories tbody tr td:nth-child(2) a"
    page.goto(f"{server.ui}/memories")
    for n, shown in ((1, f"51-100 of {total}"), (2, f"101-{total} of {total}")):
        page.get_by_role("link", name="Older →").click()
        page.wait_for_load_state()
        assert page.locator(rows).all_inner_texts() == expected[50 * n : 50 * (n + 1)]
        assert count(page) == shown
    assert page.get_by_role("link", name="Older →").count() == 0
    page.get_by_role("link", name="← Newer").click()
    page.get_by_role("link", name="← Newer").click()
    page.wait_for_load_state()
    assert page.locator(rows).all_inner_texts() == expected[:50]
    assert count(page) == f"50 of {total}"


def test_a_long_sessions_turns_page_two_and_back(server: UiServer, page: Any) -> None:
    expected = [f"turn number {i}" for i in range(TURNS)]
    walk(
        page,
        f"{server.ui}/session?user_id=caroline&session_id=long",
        "ol.turns li p.content",
        expected[:100],
        expected[100:],
        ("100 of 120", "101-120 of 120"),
        ("← Earlier", "Later →"),
    )
    assert page.locator("ol.turns").get_attribute("start") == "1"


def test_the_users_page_two_and_back(server: UiServer, page: Any) -> None:
    expected = [u.user_id for u in server.memory().users(limit=1000)]
    assert len(expected) == USERS + 1
    walk(
        page,
        f"{server.ui}/users",
        "table tbody th a",
        expected[:50],
        expected[50:],
        (f"50 of {USERS + 1}", f"51-{USERS + 1} of {USERS + 1}"),
        ("← Previous", "Next →"),
    )


def test_the_jobs_page_two_and_back(server: UiServer, page: Any) -> None:
    expected = [str(j.id) for j in server.memory().jobs(limit=1000)]
    assert len(expected) >= JOBS
    total = len(expected)
    walk(
        page,
        f"{server.ui}/jobs",
        "table.jobs tbody tr td:first-child",
        expected[:200],
        expected[200:],
        (f"200 of {total}", f"201-{total} of {total}"),
        ("← Newer", "Older →"),
    )
