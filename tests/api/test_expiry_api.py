"""Expiry over real HTTP: ``expires_at`` / ``ttl_seconds`` in the add, messages and update
bodies, items showing them, expired rows out of list/get/search, 422 on bad input, and
``POST /v1/sweep``; and ``mnemo sweep`` / ``mnemo add --ttl`` on the command line."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from api_support import served, turn
from clock_support import FakeClock
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.storage.sqlite.store import SQLiteStore


def expired_rows(db: str) -> dict[str, str]:
    """A memory and a turn written an hour ago with a 60 s ttl: expired by the real clock."""
    clock = FakeClock()
    clock.now -= timedelta(hours=1)
    with Memory(db, embedder="hashing", store=SQLiteStore(db, clock=clock)) as mem:
        item = mem.add("the old alarm code is 9931", user_id="u", ttl_seconds=60)
        [msg] = mem.add_messages([turn("the alarm code is 9931")], user_id="u", ttl_seconds=60)
    return {"memory": item.id, "turn": msg}


def test_expiry_over_rest(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    old = expired_rows(db)
    with served(db, serve_worker=False) as (_, client):
        body = {"content": "alarm code 1234", "user_id": "u", "ttl_seconds": 3600}
        made = client.post("/v1/memories", json=body)
        assert made.status_code == 201, made.text
        item = made.json()
        assert item["ttl_seconds"] == 3600 and item["expires_at"] is not None
        turns = [turn("hi"), turn("bye", expires_at="2999-01-01")]
        sent = client.post(
            "/v1/messages", json={"user_id": "u", "ttl_seconds": 600, "messages": turns}
        )
        assert sent.status_code == 201, sent.text
        listed = client.get("/v1/messages", params={"user_id": "u"}).json()["data"]
        assert [m["ttl_seconds"] for m in listed] == [600, None]
        assert listed[1]["expires_at"].startswith("2999-01-01")
        ids = [m["id"] for m in client.get("/v1/memories", params={"user_id": "u"}).json()["data"]]
        assert ids == [item["id"]]  # the expired one is not listed
        assert client.get(f"/v1/memories/{old['memory']}").status_code == 404
        hits = client.post("/v1/search", json={"query": "alarm code", "user_id": "u"}).json()
        assert old["memory"] not in {h["id"] for h in hits["data"]}
        assert old["turn"] not in {h["id"] for h in hits["data"]}
        patched = client.patch(f"/v1/memories/{item['id']}", json={"clear_expiry": True}).json()
        assert patched["expires_at"] is None and patched["ttl_seconds"] is None
        for body in (
            {"content": "x", "user_id": "u", "ttl_seconds": -1},
            {"content": "x", "user_id": "u", "expires_at": "soon"},
            {"content": "x", "user_id": "u", "expires_at": "2001-01-01"},
            {"content": "x", "user_id": "u", "expires_at": "2999-01-01", "ttl_seconds": 5},
        ):
            bad = client.post("/v1/memories", json=body)
            assert bad.status_code == 422 and bad.json()["error"]["message"], body
        swept = client.post("/v1/sweep")
        assert swept.status_code == 200
        assert swept.json()["swept"]["memories"] == 1 and swept.json()["swept"]["messages"] == 1
        assert client.post("/v1/sweep").json()["swept"]["memories"] == 0
    with Memory(db, embedder="hashing") as mem:
        assert len(mem.list(user_id="u")) == 1  # the bad bodies wrote nothing
        with mem.store.tx.auto() as c:  # type: ignore[attr-defined]
            assert c.execute("SELECT count(*) FROM memories").fetchone()[0] == 1


def test_sweep_and_ttl_on_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    expired_rows(db)
    env = {"MNEMO_PATH": db, "MNEMO_EMBEDDER": "hashing"}
    runner = CliRunner()
    out = runner.invoke(app, ["add", "a note", "--user", "u", "--ttl", "60"], env=env)
    assert out.exit_code == 0, out.output
    got = runner.invoke(app, ["get", out.output.strip(), "--json"], env=env)
    assert json.loads(got.output)["ttl_seconds"] == 60
    bad = runner.invoke(app, ["add", "x", "--user", "u", "--ttl", "60", "--expires-at",
                              "2999-01-01"], env=env)  # fmt: skip
    assert bad.exit_code != 0 and "not both" in bad.output
    assert bad.output.strip().startswith("error:")
    swept = runner.invoke(app, ["sweep", "--json"], env=env)
    assert swept.exit_code == 0, swept.output
    counts = json.loads(swept.stdout)["swept"]
    assert counts["memories"] == 1 and counts["messages"] == 1
    again = runner.invoke(app, ["sweep"], env=env)
    assert "swept: nothing expired" in again.stdout
