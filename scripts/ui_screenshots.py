"""Screenshots of the web UI for the docs: python scripts/ui_screenshots.py [--embedder NAME]

Builds the demo store (the sample conversation of ``mnemo demo``, its write-path jobs run, one
fact corrected through the store so the history has an UPDATE), serves it with ``mnemo
serve``'s app on 127.0.0.1, and saves PNGs of a few pages into docs/screenshots/ with
Debian's headless Chromium driven by Playwright (``apt-get install chromium``; Playwright is in
the dev extra and never downloads a browser here).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from mnemo import Memory, Settings
from mnemo.api.server import BackgroundServer
from mnemo.cli.demo import DEMO_USER, sample_path
from mnemo.cli.mcp import serve_app
from mnemo.ops.importers import jsonl_batches

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
#: Chromium without anything that reaches the network by itself.
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
QUERY = "What is the name of my dog?"


def demo_store(db: str, embedder: str) -> str:
    """Ingest the sample conversation into ``db``, run its jobs, correct one fact; returns
    the corrected memory's id."""
    with Memory(db, embedder=embedder) as mem:
        for batch in jsonl_batches(sample_path(), DEMO_USER, "default"):
            mem.add_messages(batch.turns, user_id=DEMO_USER, session_id=batch.session_id)
        mem.drain()
        fact = next(
            m
            for m in mem.list(DEMO_USER, kind="fact", limit=500)
            if m.source_message_ids and "beagle" in m.content.lower()
        )
        corrected = fact.content.replace("beagle", "three-year-old beagle")
        mem.update(fact.id, content=corrected, actor="ui")
        return fact.id


def shoot(page: Page, url: str, name: str, height: int = 760) -> Path:
    """Open ``url`` and save the top of the page as docs/screenshots/<name>.png."""
    page.set_viewport_size({"width": 1200, "height": height})
    page.goto(url)
    path = OUT / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def main() -> int:
    """Build the store, serve it, take the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="local", help="local (default) or hashing")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "demo.db")
        memory_id = demo_store(db, args.embedder)
        settings = Settings(path=db, embedder=args.embedder, serve_worker=False)
        server = BackgroundServer(serve_app(settings, "127.0.0.1")).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(device_scale_factor=1)
                ui = f"{server.url}/ui"
                saved = [
                    shoot(page, f"{ui}/memories?user_id={DEMO_USER}", "memories"),
                    shoot(page, f"{ui}/search?user_id={DEMO_USER}&q={QUERY}&limit=6", "search"),
                    shoot(page, f"{ui}/memories/{memory_id}", "memory", height=900),
                    shoot(page, f"{ui}/user?user_id={DEMO_USER}", "user"),
                ]
                browser.close()
        finally:
            server.stop()
    for path in saved:
        kb = path.stat().st_size / 1024
        print(f"{path.relative_to(OUT.parents[1])}: {kb:.0f} KB")
        if not re.fullmatch(r"[a-z]+\.png", path.name) or kb > 200:
            print(f"{path.name} is over 200 KB", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
