"""The web UI's users page shows a store's hints: turns not in English under the default,
English-only embedder suggest the bundled multilingual model."""

from __future__ import annotations

from pathlib import Path

import httpx
from language_support import SPANISH
from ui_support import ui_server

from mnemo import Memory


def test_users_page_shows_the_language_hint(tmp_path: Path) -> None:
    db, hashed = str(tmp_path / "es.db"), str(tmp_path / "es-hashing.db")
    turns = [{"role": "user", "content": t} for t in SPANISH[:5] * 3]
    for path, embedder in ((db, "local"), (hashed, "hashing")):
        with Memory(path, embedder=embedder) as mem:
            mem.add_messages(turns, user_id="lucia", session_id="s1")
    with ui_server(db, embedder="local") as srv:
        page = httpx.get(f"{srv.ui}/users", timeout=30)
        assert page.status_code == 200 and 'data-testid="hint"' in page.text
        assert "multilingual-e5-small" in page.text
    with ui_server(hashed) as srv:  # the hashing embedder: not known to be English-only
        page = httpx.get(f"{srv.ui}/users", timeout=30)
        assert page.status_code == 200 and 'data-testid="hint"' not in page.text
