"""The memories list of the web UI over real HTTP: each row shows its agent (or "shared"), an
agent filter lists what that agent sees, an agent's own memories show no user, and "" never
shows as a user."""

from __future__ import annotations

from pathlib import Path

import httpx
from ui_support import ui_server


def test_memories_list_shows_and_filters_agents(tmp_path: Path) -> None:
    with ui_server(str(tmp_path / "ui.db")) as srv:
        mem = srv.memory()
        mem.add("Heron ships in spring", user_id="ann")
        mem.add("alpha code word Falcon", user_id="ann", agent_id="alpha")
        mem.add("beta code word Osprey", user_id="ann", agent_id="beta")
        mem.add("alpha tool note", agent_id="alpha")
        with httpx.Client(base_url=srv.ui, timeout=30) as client:
            every = client.get("/memories").text
            assert "shared" in every and ">alpha<" in every and ">beta<" in every
            assert "agent&#39;s own" in every or "agent's own" in every
            alpha = client.get("/memories", params={"user_id": "ann", "agent_id": "alpha"})
            assert alpha.status_code == 200
            assert "Falcon" in alpha.text and "Heron" in alpha.text
            assert "Osprey" not in alpha.text and "tool note" not in alpha.text
            assert 'name="agent_id" value="alpha"' in alpha.text
            own = client.get("/memories", params={"agent_id": "alpha"}).text
            assert "tool note" in own and "Falcon" not in own
            users = client.get("/users").text
            assert "ann" in users and ">1 of 1<" in users  # the agent's own key is no user
            bad = client.get("/memories", params={"agent_id": " "})
            assert bad.status_code in (400, 422) and "agent_id" in bad.text
