"""The web UI's search page takes an "as of" time (issue 24, "Time"): a real server over a
real SQLite file; on main the field is ignored and the 2024 turn shows."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
from asof_support import seed_work
from ui_support import ui_server

from mnemo.schemas import utcnow


def test_search_page_as_of(tmp_path: Path) -> None:
    db = str(tmp_path / "ui.db")
    seed_work({"path": db})
    with ui_server(db) as srv, httpx.Client(base_url=srv.ui, timeout=30) as client:
        ask = {"q": "where do I work", "user_id": "tia"}
        form = client.get("/search").text
        assert 'name="as_of"' in form
        today = client.get("/search", params=ask).text
        assert "pilot" in today and "nurse" in today
        then = client.get("/search", params={**ask, "as_of": "2021-06-01"})
        assert then.status_code == 200
        assert "nurse" in then.text and "pilot" not in then.text and "as of 2021-06-01" in then.text
        future = (utcnow() + timedelta(days=2)).isoformat()
        bad = client.get("/search", params={**ask, "as_of": future})
        assert bad.status_code == 422 and "as_of" in bad.text
