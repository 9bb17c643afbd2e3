"""The entity pages of the web UI: over real HTTP (the list, one entity, a 404 page) and in a
real headless Chromium (from a user's page to an entity and to the turn that mentions it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ui_support import UiServer, ui_server

pytestmark = pytest.mark.timeout(120)
SAID = ["My husband Raj is a pilot, he flies for KLM.", "Raj taught our parrot called Kiwi."]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server whose user dana has said two turns, their fact job run."""
    with ui_server(str(tmp_path_factory.mktemp("entities") / "open.db")) as srv:
        mem = srv.memory()
        mem.add_messages([{"role": "user", "content": t} for t in SAID], "dana", "home")
        mem.drain()
        yield srv


def test_entity_pages_over_http(server: UiServer) -> None:
    with httpx.Client(base_url=server.ui, timeout=30) as client:
        listed = client.get("/entities", params={"user_id": "dana"})
        assert listed.status_code == 200
        for text in ("Raj", "person", "my husband", "KLM", "org", "Kiwi", "pet"):
            assert text in listed.text
        one = client.get("/entity", params={"user_id": "dana", "name": "my husband"})
        assert one.status_code == 200 and "<h1>Raj</h1>" in one.text
        assert all(t in one.text for t in SAID)
        missing = client.get("/entity", params={"user_id": "dana", "name": "Bob"})
        assert missing.status_code == 404 and "no entity" in missing.text
        empty = client.get("/entities", params={"user_id": "nobody"})
        assert empty.status_code == 200 and "No entities yet" in empty.text


def test_from_a_user_to_an_entity_and_its_turn(server: UiServer, page: Any) -> None:
    page.goto(f"{server.ui}/user?user_id=dana")
    page.get_by_role("link", name="Entities", exact=True).click()
    table = page.get_by_test_id("entities")
    assert "my husband, husband" in table.inner_text()
    table.get_by_role("link", name="Kiwi", exact=True).click()
    assert page.get_by_role("heading", name="Kiwi").is_visible()
    assert page.get_by_test_id("kind").inner_text() == "pet"
    assert page.get_by_test_id("aliases").inner_text() == "parrot"
    assert SAID[1] in page.get_by_test_id("turns").inner_text()
    page.get_by_role("link", name="open in conversation").click()
    target = page.locator(":target")  # the session page, scrolled to the turn
    target.wait_for()
    assert "session_id=home" in page.url and "parrot called Kiwi" in target.inner_text()
