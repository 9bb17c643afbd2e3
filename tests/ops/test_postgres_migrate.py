"""``mnemo migrate``: SQLite -> PostgreSQL -> SQLite loses nothing, on real stores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory, StorageError, ValidationError
from mnemo.cli.main import app
from mnemo.embedders import content_hash
from mnemo.ops.migrate import compare_searches, migrate, sample_queries
from mnemo.storage.base import NewJob
from mnemo.storage.postgres.hnsw import index_name
from mnemo.storage.postgres.store import PostgresStore

#: No write-path tiers: the rows of a test are the ones it writes.
LONG = " ".join(
    f"Sentence {i} says {WORD} and more words follow here."
    for i, WORD in enumerate(
        ("cat", "dog", "river", "lake", "trip", "piano", "book", "movie", "pizza", "summer")
    )
)
QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
WORDS = [
    *("cat", "dog", "river", "mountain", "pizza", "guitar", "piano"),
    *("summer", "winter", "book", "movie", "lake", "trip"),
]


def seed(path: str) -> Memory:
    """A SQLite store with every kind of row: turns, memories (updated, deleted), tags,
    history and jobs."""
    mem = Memory(path, embedder="hashing", **QUIET)
    for u in range(3):
        for s in range(2):
            turns = [
                {
                    "role": ("user", "assistant")[i % 2],
                    "content": " ".join(WORDS[(u + s + i + k) % len(WORDS)] for k in range(6)),
                    "name": "Ann" if i % 2 == 0 else None,
                    "created_at": f"2024-0{s + 1}-1{i % 9}T10:00:00",
                    "metadata": {"dia_id": f"D{s}:{i}", "ü": [1, 2.5]},
                }
                for i in range(12)
            ]
            mem.add_messages(turns, user_id=f"u{u}", session_id=f"s{s}")
        item = mem.add(f"likes {WORDS[u]}", user_id=f"u{u}", tags=["pref", "x"], importance=0.7)
        mem.update(item.id, content=f"loves {WORDS[u]}", tags=["pref"])
        if u == 1:
            mem.delete(item.id)
    mem.add_messages([{"role": "user", "content": LONG}], user_id="u2", session_id="s9")  # keys
    mem.store.jobs.enqueue([NewJob(kind="turns.facts", payload={"n": 1}, user_id="u0")])
    mem.attach_document("Ann's allergies: peanuts. Her cat is called Miso.", "u0", title="notes")
    mem.add_user_message("u1", "planning a hiking trip to the Alps in June", "s0")  # a topic
    mem.store.api_keys.add("key_1", "default", "ci", "f" * 64)  # type: ignore[attr-defined]
    return mem


def test_sqlite_to_postgres_and_back_loses_nothing(tmp_path: Path, pg_url: str) -> None:
    src, back = str(tmp_path / "src.db"), str(tmp_path / "back.db")
    seed(src).close()
    there = migrate(src, pg_url, searches=10, embedder="hashing")
    assert there.lossless and there.copied["messages"] == 74 and there.copied["history"] == 7
    assert there.copied["document_chunks"] >= 1 and there.copied["api_keys"] == 1
    assert there.copied["topics"] >= 1 and there.copied["topic_messages"] >= 1
    assert there.searches["dense"] == (10, 10, 1.0)  # same vectors, same exact search
    assert there.searches["default"][2] > 0.5  # the lexical scorers differ
    again = migrate(pg_url, back, searches=10, embedder="hashing")
    assert again.lossless and again.copied == there.copied
    assert again.searches["dense"] == (10, 10, 1.0)
    with (
        Memory(src, embedder="hashing", **QUIET) as a,
        Memory(back, embedder="hashing", **QUIET) as b,
    ):
        queries = sample_queries(a.store.table_rows, 15)
        assert compare_searches(a, b, queries) == (15, 15, 1.0)  # full default searches too
        for m_a, m_b in zip(a.messages("u0", limit=100), b.messages("u0", limit=100), strict=True):
            assert m_a == m_b
        assert [h.model_dump() for h in a.history(a.list("u1", include_deleted=True)[0].id)] == [
            h.model_dump() for h in b.history(b.list("u1", include_deleted=True)[0].id)
        ]
        assert a.stats().model_dump(exclude={"path"}) == b.stats().model_dump(exclude={"path"})
        assert a.documents("u0") == b.documents("u0")
        assert a.topics("u1") == b.topics("u1")
        chunks_a = a.store.documents.document_chunks("default", "u0", "hashing:384")
        chunks_b = b.store.documents.document_chunks("default", "u0", "hashing:384")
        assert chunks_a.texts == chunks_b.texts and (chunks_a.vectors == chunks_b.vectors).all()
        keys_a = a.store.search.key_vectors_for(None, "hashing:384", [content_hash(LONG)])
        keys_b = b.store.search.key_vectors_for(None, "hashing:384", [content_hash(LONG)])
        assert len(keys_a[content_hash(LONG)]) >= 2
        assert (keys_a[content_hash(LONG)] == keys_b[content_hash(LONG)]).all()


def test_migrated_postgres_store_keeps_working(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src).close()
    migrate(src, pg_url, searches=0)
    with Memory(url=pg_url, embedder="hashing", **QUIET) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        with store.db.connection() as c:
            names = {r["indexname"] for r in c.execute("SELECT indexname FROM pg_indexes")}
        assert index_name("messages", "hashing:384") in names
        before = max(m.seq for m in mem.messages("u0", session_id="s0", limit=100))
        [new_id] = mem.add_messages(
            [{"role": "user", "content": "zebra after migration"}], "u0", "s0"
        )
        assert mem.get(new_id).seq == before + 1  # type: ignore[union-attr]
        item = mem.add("a new fact after migration", user_id="u0")
        assert mem.history(item.id)[0].event == "ADD"
        assert mem.search("zebra", user_id="u0")[0].id == new_id
        assert len(mem.store.jobs.list_jobs()) == 1


def test_target_must_be_empty(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src).close()
    with Memory(url=pg_url, embedder="hashing", **QUIET) as mem:
        mem.add_messages([{"role": "user", "content": "already here"}], "x")
    with pytest.raises(ValidationError, match="not empty"):
        migrate(src, pg_url, embedder="hashing")
    with Memory(url=pg_url, embedder="hashing", **QUIET) as mem:
        assert mem.stats().messages == 1
    with pytest.raises(ValidationError, match="same store"):
        migrate(src, src)


def test_a_failed_copy_leaves_the_target_empty(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src).close()
    with sqlite3.connect(src) as c:  # PostgreSQL text cannot hold NUL; SQLite's can
        c.execute("UPDATE history SET actor = 'a' || char(0) || 'b' WHERE rowid = 3")
    with pytest.raises(StorageError):
        migrate(src, pg_url, searches=0)
    with Memory(url=pg_url, embedder="hashing", **QUIET) as mem:
        s = mem.stats()
        assert (s.users, s.messages, s.memories) == (0, 0, {})


def test_cli_migrate_prints_the_checks(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src).close()
    out = CliRunner().invoke(
        app, ["migrate", src, pg_url, "--embedder", "hashing", "--searches", "5"]
    )
    assert out.exit_code == 0, out.output
    assert "messages" in out.output and "74" in out.output and "NO" not in out.output
    assert "dense searches with identical top-10 ids: 5/5" in out.output
    out = CliRunner().invoke(app, ["migrate", src, pg_url, "--searches", "0"])
    assert out.exit_code == 2 and "not empty" in out.output
