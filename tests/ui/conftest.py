"""The browser of the UI tests: Debian's Chromium (``/usr/bin/chromium``) driven by Playwright,
one per test module, launched with nothing that reaches the network by itself. Playwright never
downloads a browser here.

Without Chromium or Playwright the browser tests are skipped with the reason -- except under
``CI=true``, where they fail, so CI never passes with the browser half skipped (``make test``
installs Chromium when it runs as root).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = os.environ.get("MNEMO_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def no_browser(reason: str) -> None:
    """Skip the current test for ``reason``; under ``CI=true`` fail it instead."""
    if IN_CI:
        pytest.fail(f"CI=true, so the browser tests must run, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for the module's tests."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        no_browser('the browser tests need Playwright: pip install -e ".[dev]"')
    if not os.path.exists(CHROMIUM):
        no_browser(
            f"the browser tests need Chromium at {CHROMIUM}: apt-get install -y chromium "
            "(make test does it when run as root)"
        )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser page (own cookies); fails the test if any request left 127.0.0.1 or
    the console reported an error (a script error, a resource the CSP blocked)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    outside: list[str] = []
    console: list[str] = []

    def guard(route: Any) -> None:
        host = urlsplit(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    p = context.new_page()
    p.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: console.append(str(e)))
    p.set_default_timeout(10_000)
    try:
        yield p
    finally:
        context.close()
    assert outside == [], f"requests left the machine: {outside}"
    expected = ("status of 404", "status of 422")  # the error pages tests open on purpose
    assert [m for m in console if not any(e in m for e in expected)] == []
