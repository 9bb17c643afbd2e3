"""The memories list's filter box in a real headless Chromium: a JSON filter narrows the
list and says how many match, the next page keeps it, and a bad filter is shown as a clear
error above an empty list (status 422) while nothing changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ui_support import UiServer, ui_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server with 60 memories of maya: 55 about work (priority 0..54), 5 at home."""
    with ui_server(str(tmp_path_factory.mktemp("filters") / "open.db")) as srv:
        mem = srv.memory()
        for i in range(55):
            mem.add(f"work item {i}", "maya", tags=["work"], metadata={"priority": i})
        for i in range(5):
            mem.add(f"home chore {i}", "maya", tags=["home"], metadata={"priority": i})
        yield srv


def filter_list(page: Any, ui: str, text: str) -> Any:
    page.goto(f"{ui}/memories")
    page.get_by_label("Filter (JSON)").fill(text)
    page.get_by_role("button", name="Filter").click()
    page.wait_for_load_state()
    return page


def test_the_filter_box_narrows_the_list_and_counts(server: UiServer, page: Any) -> None:
    filter_list(page, server.ui, '{"AND": [{"tags": "work"}, {"priority": {"gte": 3}}]}')
    assert page.get_by_test_id("match-count").inner_text() == "52 memories match the filter"
    rows = page.locator("table.memories tbody tr")
    assert rows.count() == 50
    assert all("work item" in t for t in rows.all_inner_texts())
    assert "home chore" not in page.content()
    page.get_by_role("link", name="Older →").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("match-count").inner_text() == "52 memories match the filter"
    assert page.locator("table.memories tbody tr").count() == 2  # work items 0 and 1 excluded
    assert page.get_by_label("Filter (JSON)").input_value().startswith('{"AND"')


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"priority": {"between": [1, 2]}}', "priority.between: unknown operator"),
        ("{not json", "filter: not JSON"),
        ('{"OR": [{"tags": "home"}, {"created_at": {"gt": "soon"}}]}', "OR[1].created_at"),
    ],
)
def test_a_bad_filter_is_a_clear_error(server: UiServer, page: Any, text: str, says: str) -> None:
    response = page.goto(f"{server.ui}/memories")
    page.get_by_label("Filter (JSON)").fill(text)
    with page.expect_navigation() as nav:
        page.get_by_role("button", name="Filter").click()
    assert nav.value.status == 422
    alert = page.get_by_role("alert")
    assert says in alert.inner_text(), alert.inner_text()
    assert page.locator("table.memories").count() == 0
    assert page.get_by_label("Filter (JSON)").input_value() == text  # kept, to correct
    assert response is not None and server.memory().count("maya") == 60
