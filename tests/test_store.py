"""The SQLite store: migrations, pragmas, FTS kept in step, embeddings tagged and reused."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from mnemo import Memory, SchemaError, StorageError
from mnemo.embedders.hashing import HashingEmbedder
from mnemo.storage.sqlite import SQLiteStore, owner_token
from mnemo.storage.sqlite_conn import migration_files, split_statements


def fts_rows(path: str, table: str) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as c:
        return sorted(c.execute(f"SELECT rowid, text FROM {table}").fetchall())


def test_migrations_set_version_and_pragmas(db_path: str) -> None:
    store = SQLiteStore(db_path)
    conn = store.db.get()
    latest = migration_files()[-1][0]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == latest
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()
    SQLiteStore(db_path).close()  # reopening applies nothing twice


def test_newer_schema_is_refused(db_path: str) -> None:
    SQLiteStore(db_path).close()
    with sqlite3.connect(db_path) as c:
        c.execute("PRAGMA user_version = 999")
    with pytest.raises(SchemaError, match="999"):
        SQLiteStore(db_path)


def test_not_a_database_is_a_storage_error(tmp_path) -> None:
    bad = tmp_path / "junk.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError):
        SQLiteStore(str(bad))


def test_split_statements_keeps_triggers_whole() -> None:
    script = (
        "CREATE TABLE a (x);\n-- note\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
        "  SELECT 1; SELECT 2;\nEND;\n"
    )
    parts = split_statements(script)
    assert len(parts) == 2 and parts[1].endswith("END;")


def test_fts_in_step_with_insert_update_delete(mem: Memory, db_path: str) -> None:
    ids = mem.add_messages([{"role": "user", "content": "I love kayaking", "name": "Ann"}], "u1")
    assert [t for _, t in fts_rows(db_path, "messages_fts")] == ["Ann: I love kayaking"]
    item = mem.add("Ann owns a red kayak", user_id="u1")
    assert [t for _, t in fts_rows(db_path, "memories_fts")] == ["Ann owns a red kayak"]
    mem.update(item.id, content="Ann owns a blue canoe")
    assert [t for _, t in fts_rows(db_path, "memories_fts")] == ["Ann owns a blue canoe"]
    mem.delete(item.id)
    assert fts_rows(db_path, "memories_fts") == []
    mem.delete_user("u1")
    assert fts_rows(db_path, "messages_fts") == []
    assert ids  # the ids were real


def test_owner_token_matches_trigger(mem: Memory, db_path: str) -> None:
    mem.add_messages([{"role": "user", "content": "hello"}], user_id="ü/ser 1")
    with sqlite3.connect(db_path) as c:
        owner = c.execute("SELECT owner FROM messages_fts").fetchone()[0]
    assert owner == owner_token("default", "ü/ser 1")


def test_embeddings_are_float32_tagged_and_never_computed_twice(db_path: str) -> None:
    class Counting(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            self.calls.extend(texts)
            return super().embed_batch(texts)

    emb = Counting()
    mem = Memory(db_path, embedder=emb)
    turn = {"role": "user", "content": "same words"}
    mem.add_messages([turn, turn], user_id="u1")
    mem.add_messages([turn], user_id="u2")
    mem.add("same words", user_id="u3")
    assert emb.calls == ["same words"]
    with sqlite3.connect(db_path) as c:
        blob, tag = c.execute("SELECT embedding, embedder FROM messages LIMIT 1").fetchone()
    assert tag == emb.id
    vec = np.frombuffer(blob, dtype=np.float32)
    assert vec.shape == (emb.dim,) and np.isclose(np.linalg.norm(vec), 1.0, atol=1e-5)
    mem.close()


def test_changed_embedder_is_detected(db_path: str) -> None:
    Memory(db_path, embedder="hashing").add_messages([{"role": "user", "content": "x"}], "u")
    with pytest.raises(SchemaError, match="hashing:384"):
        Memory(db_path, embedder="hashing", embedder_dim=64)


def test_delete_user_erases_every_row(mem: Memory, db_path: str) -> None:
    mem.add_messages([{"role": "user", "content": "keep me"}], user_id="other")
    mem.add_messages([{"role": "user", "content": "erase me"}], user_id="gone")
    item = mem.add("a fact to erase", user_id="gone")
    mem.update(item.id, content="an updated fact to erase")
    counts = mem.delete_user("gone")
    assert counts["messages"] == 1 and counts["memories"] == 1 and counts["history"] == 2
    with sqlite3.connect(db_path) as c:
        for table in ("messages", "memories", "history", "jobs", "profile_facts", "topics"):
            n = c.execute(f"SELECT count(*) FROM {table} WHERE user_id='gone'").fetchone()[0]
            assert n == 0, table
        assert c.execute("SELECT count(*) FROM messages_fts").fetchone()[0] == 1
        assert c.execute("SELECT count(*) FROM memories_fts").fetchone()[0] == 0
        assert c.execute("SELECT count(*) FROM users WHERE user_id='gone'").fetchone()[0] == 0
    assert mem.search("erase", user_id="gone") == []
    assert [h.content for h in mem.search("keep", user_id="other")] == ["keep me"]


def test_in_memory_store_is_shared_between_threads() -> None:
    import threading

    mem = Memory(":memory:", embedder="hashing")
    t = threading.Thread(
        target=lambda: mem.add_messages([{"role": "user", "content": "from a thread"}], "u")
    )
    t.start()
    t.join()
    assert [m.content for m in mem.messages("u")] == ["from a thread"]
    mem.close()
