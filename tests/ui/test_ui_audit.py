"""The audit page of the web UI over real HTTP and in a real headless Chromium: findings with
links to their memories, the safe fixes in one click, one finding's fix by its button."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from audit_support import AFTER_FIX, seed
from ui_support import UiServer, post_form, token, ui_server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """An open server (no API keys)."""
    with ui_server(str(tmp_path_factory.mktemp("audit") / "open.db")) as srv:
        yield srv


def test_audit_page_and_its_forms_over_http(server: UiServer) -> None:
    ids = seed(server.memory(), "hana")
    with httpx.Client(base_url=server.ui, timeout=30) as client:
        shown = client.get("/user/audit", params={"user_id": "hana"})
        assert shown.status_code == 200, shown.text
        assert "origin: Leeds -&gt; York" in shown.text and "stale: 1" in shown.text
        assert f'href="/ui/memories/{ids["User lives in Berlin"]}"' in shown.text
        assert "Apply the 3 safe fixes" in shown.text
        assert client.get("/user/audit", params={"user_id": "nobody"}).status_code == 404
        fields = {"csrf": token(shown.text), "user_id": "hana"}
        done = post_form(client, "/user/audit/fix", fields)
        assert done.status_code == 303 and done.headers["location"].endswith("applied=3")
        left = {m.content for m in server.memory().list(user_id="hana", limit=100)}
        assert left == AFTER_FIX
        assert post_form(client, "/user/audit/fix", {"user_id": "hana"}).status_code == 403


def test_audit_page_in_a_browser(server: UiServer, page: Any) -> None:
    ids = seed(server.memory(), "ivo")
    page.goto(f"{server.ui}/user?user_id=ivo")
    page.get_by_role("link", name="Audit this user's facts").click()
    assert page.get_by_role("heading", name="Audit of ivo").is_visible()
    findings = page.get_by_test_id("findings")
    assert "Leeds -> York" in findings.inner_text()
    contradiction = findings.locator("tr.finding-contradiction")
    contradiction.get_by_role("button", name=re.compile("^Apply the fix of aud_")).click()
    assert page.get_by_test_id("applied").inner_text() == "Applied 1 fix."
    left = {m.content for m in server.memory().list(user_id="ivo", limit=100)}
    assert "User is from Leeds" not in left and "User is from York" in left
    page.get_by_role("button", name=re.compile(r"^Apply the 3 safe fixes$")).click()
    assert page.get_by_test_id("applied").inner_text() == "Applied 3 fixes."
    page.get_by_role("link", name="Does the user like tea?").click()
    assert page.get_by_test_id("content").inner_text() == "Does the user like tea?"
    assert ids["Does the user like tea?"] in page.url
