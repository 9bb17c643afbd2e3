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
