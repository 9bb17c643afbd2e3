"""``mnemo repair``: full-text rows, vectors and user rows re-synced with the stored rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.config.settings import Settings
from mnemo.embedders import create_embedder
from mnemo.ops.repair import repair
from mnemo.storage import open_store

QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def seed(path: str) -> None:
    with Memory(path, embedder="hashing", **QUIET) as mem:
        mem.add_messages(
            [{"role": "user", "content": f"turn about the {w}"} for w in ("cat", "dog", "lake")],
            user_id="u0",
        )
        mem.add("Ann loves pizza", user_id="u0")
        gone = mem.add("Ann hates olives", user_id="u0")
        mem.delete(gone.id)


def damage(path: str) -> None:
    """Drift the indexes the way a crash of the old sync-less design would."""
    c = sqlite3.connect(path)
    with c:
        c.execute("DELETE FROM messages_fts WHERE rowid = (SELECT min(rowid) FROM messages)")
        c.execute(
            "INSERT INTO memories_fts (rowid, text, owner) SELECT rowid, content, 'x'"
            " FROM memories WHERE deleted_at IS NOT NULL"
        )  # a deleted memory findable
        c.execute(
            "UPDATE messages_fts SET text = 'garbage' WHERE rowid ="
            " (SELECT max(rowid) FROM messages)"
        )
        c.execute(
            "UPDATE memories SET embedding = NULL, embedder = NULL WHERE content LIKE '%pizza%'"
        )
        c.execute("DELETE FROM users")
    c.close()


def run(path: str, dry_run: bool) -> dict[str, int]:
    settings = Settings(path=path, embedder="hashing")
    store, emb = open_store(settings), create_embedder(settings)
    try:
        return repair(store, emb, dry_run=dry_run).fixes
    finally:
        store.close()


def search(path: str, query: str, **settings: float) -> list[str]:
    with Memory(path, embedder="hashing", **QUIET, **settings) as mem:
        return [h.content for h in mem.search(query, user_id="u0", limit=5)]


def test_repair_finds_and_fixes_every_drift(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    assert run(path, dry_run=False) == dict.fromkeys(run(path, dry_run=True), 0)  # clean
    damage(path)
    assert "turn about the cat" not in search(path, "cat", dense_weight=0.0)
    found = run(path, dry_run=True)
    assert found["messages_fts missing"] == 1 and found["memories_fts extra"] == 1
    assert found["messages_fts stale"] == 1 and found["memories vectors missing"] == 1
    assert found["users missing"] == 1
    assert run(path, dry_run=True) == found  # a dry run changes nothing
    assert run(path, dry_run=False) == found
    assert set(run(path, dry_run=True).values()) == {0}
    assert "turn about the cat" in search(path, "cat", dense_weight=0.0)
    assert "Ann hates olives" not in search(path, "olives")
    assert "turn about the lake" in search(path, "lake", dense_weight=0.0)
    assert search(path, "Ann loves pizza", lexical_weight=0.0)[0] == "Ann loves pizza"


def test_cli_repair(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    damage(path)
    r = CliRunner().invoke(app, ["repair", "--db", path, "--embedder", "hashing", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "found 5 drifted" in r.output
    r = CliRunner().invoke(app, ["repair", "--db", path, "--embedder", "hashing"])
    assert r.exit_code == 0 and "fixed 5 drifted" in r.output, r.output
    r = CliRunner().invoke(app, ["repair", "--db", path, "--embedder", "hashing"])
    assert "fixed 0 drifted" in r.output


def test_repair_on_postgres_embeds_missing_vectors(pg_url: str) -> None:
    with Memory(url=pg_url, embedder="hashing", **QUIET) as mem:
        item = mem.add("Ann loves pizza", user_id="u0")
    settings = Settings(database_url=pg_url, embedder="hashing")
    store, emb = open_store(settings), create_embedder(settings)
    try:
        with store.db.write() as c:  # type: ignore[attr-defined]
            c.execute("UPDATE memories SET embedding = NULL, embedder = NULL")
        assert repair(store, emb, dry_run=True).fixes["memories vectors missing"] == 1
        assert repair(store, emb).fixes["memories vectors missing"] == 1
        assert set(repair(store, emb, dry_run=True).fixes.values()) == {0}
    finally:
        store.close()
    with Memory(url=pg_url, embedder="hashing", **QUIET, lexical_weight=0.0) as mem:
        assert mem.search("Ann loves pizza", user_id="u0")[0].id == item.id


def test_repair_on_open_fixes_the_drift_before_the_first_search(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    damage(path)
    assert "turn about the cat" not in search(path, "cat", dense_weight=0.0)
    assert "turn about the cat" in search(path, "cat", dense_weight=0.0, repair_on_open=True)
    assert sum(run(path, dry_run=True).values()) == 0  # nothing left to fix
