"""The web UI in a real headless Chromium: a person finds, understands, corrects and erases
memories, re-queues a dead job and logs in with a key -- all with no request leaving
127.0.0.1 (every page asserts that), and /docs renders offline."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from ui_support import UiServer, dead_job, seed, ui_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server (no API keys) with a few people's memories."""
    with ui_server(str(tmp_path_factory.mktemp("browser") / "open.db")) as srv:
        mem = srv.memory()
        seed(mem, "maya", "Maya has a beagle called Biscuit", session="walks")
        seed(mem, "maya", "Maya trains for the Lisbon half marathon", session="running")
        seed(mem, "omar", "Omar is allergic to peanuts")
        seed(mem, "zoe", "Zoe plays the cello in an orchestra")
        yield srv


def memory_id_of(page: Any, text: str) -> str:
    """The id of the memory whose link in the current list shows ``text``."""
    href = page.get_by_role("link", name=text).first.get_attribute("href")
    found = re.search(r"/memories/(mem_\w+)", href or "")
    assert found, href
    return found.group(1)


def search(page: Any, ui: str, user: str, query: str) -> Any:
    """Run a search through the form; returns the hits table (or None when nothing matched)."""
    page.goto(f"{ui}/search")
    page.get_by_label("User").fill(user)
    page.get_by_label("Query").fill(query)
    page.get_by_role("button", name="Search").click()
    page.wait_for_load_state()
    table = page.get_by_test_id("hits")
    return table if table.count() else None


def test_browse_users_sessions_turns_and_a_memorys_provenance(server: UiServer, page: Any) -> None:
    page.goto(f"{server.ui}/")
    assert page.get_by_role("heading", name="Users").is_visible()
    page.get_by_role("link", name="maya", exact=True).click()
    assert page.get_by_role("heading", name="Sessions").is_visible()
    page.get_by_role("link", name="walks", exact=True).click()
    assert page.get_by_text("Maya has a beagle called Biscuit").is_visible()
    assert page.get_by_text("Noted.").is_visible()  # the assistant's turn
    page.get_by_role("link", name="Memories", exact=True).click()
    page.get_by_role("link", name="Maya has a beagle called Biscuit").click()
    assert page.get_by_test_id("content").inner_text() == "Maya has a beagle called Biscuit"
    provenance = page.locator("section", has=page.get_by_role("heading", name="Where it came from"))
    assert "Maya has a beagle called Biscuit" in provenance.inner_text()
    history = page.locator("table.history")
    assert "ADD" in history.inner_text()
    provenance.get_by_role("link", name="open in conversation").click()
    target = page.locator(":target")  # the session page, scrolled to the source turn
    target.wait_for()
    assert "session_id=walks" in page.url and "beagle called Biscuit" in target.inner_text()


def test_search_shows_every_stages_score(server: UiServer, page: Any) -> None:
    hits = search(page, server.ui, "maya", "beagle Biscuit")
    assert hits is not None
    headers = [h.strip() for h in hits.locator("thead th").all_inner_texts()]
    for stage in ("relevance", "lexical", "dense", "fused", "final"):
        assert stage in [h.lower() for h in headers], headers
    first = hits.locator("tbody tr").first
    assert "beagle called Biscuit" in first.inner_text()
    [best] = server.memory().search("beagle Biscuit", "maya", limit=1, explain=True)
    for stage in ("final", "fused", "dense"):  # what the library says, shown as is
        cell = first.locator(f'td[data-stage="{stage}"]').inner_text()
        assert f"{best.scores[stage]:.3f}" in cell, (stage, cell, best.scores)
    cell = first.locator('td[data-stage="relevance"]').inner_text()
    assert best.relevance is not None and f"{best.relevance:.3f}" in cell
    lexical = first.locator('td[data-stage="lexical"]').inner_text()
    assert f"#{int(best.scores['lexical_rank'])}" in lexical
    page.get_by_text("How the score is made").click()
    assert page.get_by_text("final = (1 -").is_visible()


def test_edit_a_memory_and_search_reflects_it(server: UiServer, page: Any) -> None:
    page.goto(f"{server.ui}/memories?user_id=omar")
    mid = memory_id_of(page, "Omar is allergic to peanuts")
    page.get_by_role("link", name="Omar is allergic to peanuts").click()
    page.get_by_role("link", name="Edit…").click()
    page.get_by_label("Content").fill("Omar is allergic to sesame")
    page.get_by_role("button", name="Review change").click()
    assert page.get_by_role("heading", name="Save this change?").is_visible()
    assert server.memory().get(mid).content == "Omar is allergic to peanuts"  # not yet
    page.get_by_role("button", name="Save change").click()
    assert page.get_by_role("status").inner_text() == "The memory was updated."
    assert page.get_by_test_id("content").inner_text() == "Omar is allergic to sesame"
    assert "UPDATE" in page.locator("table.history").inner_text()
    hits = search(page, server.ui, "omar", "sesame")
    assert hits is not None
    assert hits.locator(f'a[href$="/memories/{mid}"]').inner_text() == "Omar is allergic to sesame"


def test_delete_a_memory_and_search_no_longer_returns_it(server: UiServer, page: Any) -> None:
    hits = search(page, server.ui, "zoe", "cello orchestra")
    assert hits is not None
    page.goto(f"{server.ui}/memories?user_id=zoe")
    mid = memory_id_of(page, "Zoe plays the cello in an orchestra")
    page.goto(f"{server.ui}/search?user_id=zoe&q=cello+orchestra")
    assert page.locator(f'a[href$="/memories/{mid}"]').count() == 1
    page.goto(f"{server.ui}/memories/{mid}")
    page.get_by_role("link", name="Delete…").click()
    assert page.get_by_role("heading", name="Delete this memory?").is_visible()
    page.get_by_role("button", name="Delete memory").click()
    assert "deleted" in page.get_by_role("status").inner_text()
    search(page, server.ui, "zoe", "cello orchestra")
    assert page.locator(f'a[href$="/memories/{mid}"]').count() == 0
    page.goto(f"{server.ui}/memories/{mid}")
    assert page.get_by_test_id("deleted").is_visible()  # its history stays


def test_erase_a_user_with_confirmation(server: UiServer, page: Any) -> None:
    mem = server.memory()
    seed(mem, "kim", "Kim grows tomatoes")
    page.goto(f"{server.ui}/user?user_id=kim")
    page.get_by_role("link", name="Erase this user…").click()
    page.wait_for_load_state()  # ui.js has run
    button = page.get_by_role("button", name="Erase kim")
    assert button.is_disabled()  # until the id is typed
    page.get_by_label("Type the user id").fill("ki")
    assert button.is_disabled()
    page.get_by_label("Type the user id").fill("kim")
    assert button.is_enabled()
    button.click()
    assert page.get_by_role("heading", name="Erased user kim").is_visible()
    page.get_by_role("link", name="Back to the users").click()
    assert page.get_by_role("link", name="kim", exact=True).count() == 0
    assert mem.sessions("kim") == [] and mem.list("kim") == []


def test_requeue_a_dead_job(server: UiServer, page: Any) -> None:
    dead_job(server.memory(), "maya")
    page.goto(f"{server.ui}/jobs")
    page.get_by_role("link", name=re.compile(r"^dead: 1$")).click()
    assert "no handler" in page.locator("pre.job-error").first.inner_text()
    page.get_by_role("button", name="Re-queue 1 dead job").click()
    assert page.get_by_test_id("requeued").inner_text() == "Put 1 dead job back in the queue."
    assert server.memory().jobs("dead") == []
    assert page.get_by_role("link", name="dead: 0").is_visible()


def test_docs_render_offline(server: UiServer, page: Any) -> None:
    page.goto(f"{server.url}/docs")
    title = page.locator(".swagger-ui .info .title")
    title.wait_for()
    assert title.inner_text().startswith("mnemo")
    assert page.locator(".opblock-summary-path", has_text="/v1/jobs/requeue-dead").count() == 1


def test_login_with_a_key_and_a_cross_tenant_view_is_refused(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with ui_server(str(tmp_path_factory.mktemp("keys") / "keys.db"), ("acme", "globex")) as srv:
        theirs = seed(srv.memory("globex"), "bob", "Bob's vault code is 9876")
        seed(srv.memory("acme"), "ann", "Ann's vault code is 1234")
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(10_000)
        try:
            page.goto(f"{srv.ui}/memories")
            assert "/ui/login" in page.url
            page.get_by_label("API key").fill("mnemo_wrong_key")
            page.get_by_role("button", name="Log in").click()
            assert "invalid" in page.get_by_test_id("error").inner_text()
            page.get_by_label("API key").fill(srv.keys["acme"])
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(re.compile(r"/ui/memories$"))
            assert page.get_by_test_id("tenant").inner_text() == "acme"
            assert "code is 1234" in page.content() and "code is 9876" not in page.content()
            assert page.evaluate("document.cookie") == ""  # HttpOnly: no script sees the key
            response = page.goto(f"{srv.ui}/memories/{theirs.id}")
            assert response is not None and response.status == 404
            assert "code is 9876" not in page.content()
            page.get_by_role("button", name="Log out").click()
            page.goto(f"{srv.ui}/users")
            assert "/ui/login" in page.url
        finally:
            context.close()
