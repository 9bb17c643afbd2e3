"""``mnemo reembed``: every vector rebuilt by the new embedder, resumable after a kill."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory, SchemaError
from mnemo.cli.main import app
from mnemo.embedders import create_embedder
from mnemo.ops.reembed import reembed, stale_count
from mnemo.storage import open_store

QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
OLD, NEW = {"embedder": "hashing", "embedder_dim": 64}, {"embedder": "hashing", "embedder_dim": 96}
WORDS = ["cat", "dog", "river", "mountain", "pizza", "guitar", "piano", "summer", "lake", "trip"]


def seed(path: str, turns: int = 20) -> None:
    """Turns, a memory, a document and a topic, embedded by the OLD embedder."""
    with Memory(path, **OLD, **QUIET) as mem:
        msgs = [
            {"role": "user", "content": f"{WORDS[i % 10]} {WORDS[(i * 3) % 10]} note {i}"}
            for i in range(turns)
        ]
        for start in range(0, turns, 500):
            mem.add_messages(msgs[start : start + 500], user_id="u0", session_id="s0")
        mem.add("Ann loves pizza", user_id="u0")
        mem.attach_document("Ann's allergies: peanuts. Her cat is Miso.", "u0", title="notes")
        mem.add_user_message("u0", "planning a hiking trip to the Alps in June", "s0")


def embedders_left(path: str) -> set[str]:
    c = sqlite3.connect(path)
    try:
        return {
            r[0]
            for t in ("messages", "memories", "document_chunks", "topics")
            for r in c.execute(f"SELECT DISTINCT embedder FROM {t} WHERE embedder IS NOT NULL")
        }
    finally:
        c.close()


def test_changed_embedder_is_refused_with_a_reembed_hint(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    with pytest.raises(SchemaError, match="mnemo reembed"):
        Memory(path, **NEW, **QUIET)


def test_reembed_rebuilds_every_vector_and_search_works(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    store, emb = open_store_and_embedder(path)
    try:
        dry = reembed(store, emb, dry_run=True)
        assert dry.dry_run and dry.rows["messages"] == 21 and dry.rows["memories"] == 1
        assert embedders_left(path) == {"hashing:64"}  # a dry run changes nothing
        done = reembed(store, emb, batch_size=7)
        assert done.rows["messages"] == 21 and done.rows["document_chunks"] >= 1
        assert done.rows["topics"] >= 1
        assert stale_count(store, emb.id) == dict.fromkeys(stale_count(store, emb.id), 0)
    finally:
        store.close()
    assert embedders_left(path) == {"hashing:96"}
    with Memory(path, **NEW, **QUIET, lexical_weight=0.0) as mem:  # dense only
        hits = mem.search("pizza", user_id="u0", limit=3)
        assert hits and "pizza" in hits[0].content
        assert mem.documents("u0")[0].title == "notes"


def open_store_and_embedder(path: str):  # type: ignore[no-untyped-def]
    from mnemo.config.settings import Settings

    settings = Settings(path=path, **NEW)
    return open_store(settings), create_embedder(settings)


def test_cli_dry_run_and_reembed(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    env = {"MNEMO_EMBEDDER_DIM": "96"}
    r = CliRunner().invoke(
        app, ["reembed", "--db", path, "--embedder", "hashing", "--dry-run"], env=env
    )
    assert r.exit_code == 0, r.output
    assert "would re-embed" in r.output and embedders_left(path) == {"hashing:64"}
    r = CliRunner().invoke(app, ["reembed", "--db", path, "--embedder", "hashing"], env=env)
    assert r.exit_code == 0, r.output
    assert embedders_left(path) == {"hashing:96"}


def test_a_killed_reembed_resumes(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path, turns=3000)
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "MNEMO_EMBEDDER_DIM": "96"}
    cmd = [
        sys.executable,
        "-c",
        "from mnemo.cli.main import app; app()",
        "reembed",
        "--db",
        path,
        "--embedder",
        "hashing",
    ]
    proc = subprocess.Popen([*cmd, "--batch-size", "5"], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not partly_done(path):
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert embedders_left(path) == {"hashing:64", "hashing:96"}  # killed half-way
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert embedders_left(path) == {"hashing:96"}
    with Memory(path, **NEW, **QUIET) as mem:
        assert mem.search("pizza", user_id="u0", limit=3)


def partly_done(path: str) -> bool:
    """True once some, not all, turns carry the new embedder's vectors."""
    c = sqlite3.connect(path, timeout=5)
    try:
        n = c.execute("SELECT count(*) FROM messages WHERE embedder='hashing:96'").fetchone()[0]
    finally:
        c.close()
    return bool(n >= 100)


def test_reembed_on_postgres(pg_url: str) -> None:
    from mnemo.config.settings import Settings

    with Memory(url=pg_url, **OLD, **QUIET) as mem:
        mem.add_messages(
            [{"role": "user", "content": f"{w} and {w}s"} for w in WORDS], user_id="u0"
        )
        mem.add("Ann loves pizza", user_id="u0")
        mem.attach_document("Ann's allergies: peanuts.", "u0", title="notes")
        mem.add_user_message("u0", "planning a hiking trip to the Alps in June", "s0")
    settings = Settings(database_url=pg_url, **NEW)
    store, emb = open_store(settings), create_embedder(settings)
    try:
        done = reembed(store, emb, batch_size=4)
        assert done.rows["messages"] == 11 and done.rows["memories"] == 1
        assert set(stale_count(store, emb.id).values()) == {0}
        assert store.search.embedders_in_use() == [emb.id]
    finally:
        store.close()
    with Memory(url=pg_url, **NEW, **QUIET, lexical_weight=0.0) as mem:
        hits = mem.search("pizza", user_id="u0", limit=3)
        assert hits and "pizza" in hits[0].content


def test_reembed_on_open_rebuilds_instead_of_refusing(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    seed(path)
    with Memory(path, **NEW, **QUIET, reembed_on_open=True, lexical_weight=0.0) as mem:
        assert mem.store.search.embedders_in_use() == ["hashing:96"]
        assert mem.search("pizza", user_id="u0")[0].content == "Ann loves pizza"
    assert embedders_left(path) == {"hashing:96"}
