"""The web UI's pagers page by cursor: in a real headless Chromium, memories written after
page 1 was shown neither repeat nor push rows off page 2 (an offset link would show a row of
page 1 again), and a garbled or foreign cursor in a URL is an HTML 422, not a 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ui_support import UiServer, ui_server

pytestmark = pytest.mark.timeout(180)
ROWS = "table.memories tbody tr td:nth-child(2) a"


@pytest.fixture
def server(tmp_path: Any) -> Iterator[UiServer]:
    with ui_server(str(tmp_path / "cursors.db")) as srv:
        mem = srv.memory()
        for i in range(70):
            when = f"2024-01-01T{i // 60:02d}:{i % 60:02d}:00Z"
            mem.add(f"Dana fact {i:02d}", "dana", created_at=when)
        yield srv


def test_page_two_after_concurrent_writes_shows_the_rest_once(server: UiServer, page: Any) -> None:
    mem = server.memory()
    expected = [m.content for m in mem.list("dana", limit=1000)]
    page.goto(f"{server.ui}/memories?user_id=dana")
    first = page.locator(ROWS).all_inner_texts()
    assert first == expected[:50]
    for i in range(5):  # written while the person reads page 1
        mem.add(f"Dana news {i}", "dana", created_at=f"2025-01-01T00:00:0{i}Z")
    mem.delete(mem.list("dana", limit=1)[0].id)  # and the newest of those deleted
    page.get_by_role("link", name="Older →").click()
    page.wait_for_load_state()
    assert "cursor=" in page.url
    assert page.locator(ROWS).all_inner_texts() == expected[50:]
    count = page.get_by_test_id("page-count").first.inner_text().strip()
    # positions count the rows this walk showed; the total counts what is there now
    assert count == "51-70 of 74"


def test_a_bad_cursor_in_the_url_is_an_html_422(server: UiServer) -> None:
    mem = server.memory()
    token = mem.list_page("dana", limit=50).next_cursor
    with httpx.Client(base_url=server.ui) as client:
        ok = client.get("/memories", params={"user_id": "dana", "cursor": token})
        assert ok.status_code == 200 and "Dana fact 19" in ok.text
        for params in (
            {"user_id": "other", "cursor": token},
            {"user_id": "dana", "cursor": "garbled"},
            {"cursor": token},
        ):
            r = client.get("/memories", params=params)
            assert r.status_code == 422 and "cursor" in r.text, params
            assert 'data-testid="error"' in r.text
        for path in ("/users", "/jobs"):
            assert client.get(path, params={"cursor": token}).status_code == 422
        r = client.get("/session", params={"user_id": "dana", "session_id": "s", "cursor": token})
        assert r.status_code == 422
