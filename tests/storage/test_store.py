"""Both stores behind the Store protocol: migrations, full text in step, embeddings tagged and
reused, erasure, concurrent writers. Every test here runs on SQLite and on PostgreSQL (the
``backend`` fixture); SQLite-only details (pragmas, FTS5 tables) are at the end."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mnemo import Memory, SchemaError, StorageError
from mnemo.embedders.hashing import HashingEmbedder
from mnemo.storage.base import MEMORY, MESSAGE
from mnemo.storage.ports.search import VectorLoad
from mnemo.storage.ports.store import Store
from mnemo.storage.scope import ReadScope
from mnemo.storage.sqlite.conn import migration_files, split_statements
from mnemo.storage.sqlite.store import SQLiteStore, owner_token

OpenMem = Callable[..., Memory]


def raw(store: Store, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of a plain SQL query (``%s`` placeholders) on either store."""
    if isinstance(store, SQLiteStore):
        return [tuple(r) for r in store.db.get().execute(query.replace("%s", "?"), args)]
    with store.db.connection() as c:  # type: ignore[attr-defined]
        return [tuple(r.values()) for r in c.execute(query, args)]


def lexical_texts(mem: Memory, user: str, words: str) -> list[str]:
    """Contents the store's full-text search finds for ``words`` (messages and memories)."""
    terms = words.split()
    refs = [ref for ref, _ in mem.store.search.lexical(ReadScope("default", user), terms, 50)]
    return sorted(row["content"] for row in mem.store.search.fetch(refs).values())


def test_reopening_applies_nothing_twice(open_mem: OpenMem) -> None:
    first = open_mem()
    first.add_messages([{"role": "user", "content": "kept across reopen"}], "u")
    first.close()
    again = open_mem()
    assert [m.content for m in again.messages("u")] == ["kept across reopen"]
    assert again.search("reopen", user_id="u")[0].content == "kept across reopen"


def test_newer_schema_is_refused(open_mem: OpenMem, backend: str) -> None:
    mem = open_mem()
    if backend == "sqlite":
        mem.store.db.get().execute("PRAGMA user_version = 999")  # type: ignore[attr-defined]
    else:
        raw(mem.store, "UPDATE meta SET value = '999' WHERE key = 'schema_version' RETURNING 1")
    mem.close()
    with pytest.raises(SchemaError, match="999"):
        open_mem()


def test_full_text_in_step_with_insert_update_delete(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "I love kayaking", "name": "Ann"}], "u1")
    assert lexical_texts(mem, "u1", "ann") == ["I love kayaking"]  # the name is indexed too
    item = mem.add("Ann owns a red kayak", user_id="u1")
    assert lexical_texts(mem, "u1", "red") == ["Ann owns a red kayak"]
    mem.update(item.id, content="Ann owns a blue canoe")
    assert lexical_texts(mem, "u1", "red") == []
    assert lexical_texts(mem, "u1", "canoe") == ["Ann owns a blue canoe"]
    mem.delete(item.id)
    assert lexical_texts(mem, "u1", "canoe") == []
    mem.delete_user("u1")
    assert lexical_texts(mem, "u1", "kayaking ann") == []


def test_lexical_is_confined_to_user_session_and_kinds(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "penguin colony trip"}], "u1", "s1")
    mem.add_messages([{"role": "user", "content": "penguin documentary"}], "u1", "s2")
    mem.add_messages([{"role": "user", "content": "penguin of another user"}], "u2", "s1")
    mem.add("likes penguins", user_id="u1", session_id="s1", kind="note")
    match = ["penguin"]
    found = mem.store.search.lexical(ReadScope("default", "u1"), match, 10)
    assert len(found) == 3 and [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    in_s1 = mem.store.search.lexical(ReadScope("default", "u1", "s1"), match, 10)
    assert {t for (t, _), _ in in_s1} == {MESSAGE, MEMORY}
    notes = mem.store.search.lexical(ReadScope("default", "u1", kinds=("note",)), match, 10)
    assert [t for (t, _), _ in notes] == [MEMORY]
    only_messages = mem.store.search.lexical(
        ReadScope("default", "u1", kinds=("message",)), match, 10
    )
    assert {t for (t, _), _ in only_messages} == {MESSAGE} and len(only_messages) == 2


def test_lexical_scores_are_bm25_rare_words_weigh_more(mem: Memory) -> None:
    turns = [{"role": "user", "content": f"apple pie number {i}"} for i in range(12)]
    turns.append({"role": "user", "content": "zanzibar trip"})
    turns.append({"role": "user", "content": "apple apple apple"})
    mem.add_messages(turns, "u")
    match = ["apple", "zanzibar"]
    found = mem.store.search.lexical(ReadScope("default", "u"), match, 5)
    rows = mem.store.search.fetch([ref for ref, _ in found])
    contents = [rows[ref]["content"] for ref, _ in found]
    assert contents[:2] == ["zanzibar trip", "apple apple apple"]  # idf first, then tf
    assert found[0][1] > 2 * found[1][1] > 0


def test_embeddings_are_float32_tagged_and_never_computed_twice(open_mem: OpenMem) -> None:
    class Counting(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            self.calls.extend(texts)
            return super().embed_batch(texts)

    emb = Counting()
    mem = open_mem(embedder=emb)
    turn = {"role": "user", "content": "same words"}
    mem.add_messages([turn, turn], user_id="u1")
    mem.add_messages([turn], user_id="u2")
    mem.add("same words", user_id="u3")
    assert emb.calls == ["same words"]
    assert mem.store.search.embedders_in_use() == [emb.id]
    state = mem.store.search.vector_state("default", "u1")
    loaded = mem.store.search.load_vectors(VectorLoad("default", "u1", emb.id, None, state))
    assert loaded.vectors.dtype == np.float32 and loaded.vectors.shape == (2, emb.dim)
    assert np.allclose(np.linalg.norm(loaded.vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(loaded.vectors[0], emb.embed(["same words"])[0])
    assert loaded.kinds == ["message", "message"] and loaded.sessions == ["default"] * 2


def test_changed_embedder_is_detected(open_mem: OpenMem) -> None:
    open_mem().add_messages([{"role": "user", "content": "x"}], "u")
    with pytest.raises(SchemaError, match="hashing:384"):
        open_mem(embedder_dim=64)


def test_delete_user_erases_every_row(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "keep me"}], user_id="other")
    mem.add_messages([{"role": "user", "content": "erase me"}], user_id="gone")
    item = mem.add("a fact to erase", user_id="gone", tags=["t"])
    mem.update(item.id, content="an updated fact to erase")
    counts = mem.delete_user("gone")
    assert counts["messages"] == 1 and counts["memories"] == 1 and counts["history"] == 2
    for table in ("messages", "memories", "history", "jobs", "profile_facts", "topics", "users"):
        assert raw(mem.store, f"SELECT count(*) FROM {table} WHERE user_id='gone'") == [(0,)]
    assert raw(mem.store, "SELECT count(*) FROM memory_tags") == [(0,)]
    assert mem.search("erase", user_id="gone") == []
    assert [h.content for h in mem.search("keep", user_id="other")] == ["keep me"]


def test_vector_state_tracks_inserts_and_other_changes(mem: Memory) -> None:
    before = mem.store.search.vector_state("default", "u")
    assert before.generation == -1  # no such user yet
    mem.add_messages([{"role": "user", "content": "one"}], "u")
    inserted = mem.store.search.vector_state("default", "u")
    assert inserted.max_message_rowid > 0 and inserted.generation == 0
    item = mem.add("fact", user_id="u")
    added = mem.store.search.vector_state("default", "u")
    assert added.max_memory_rowid > 0 and added.generation == 0  # inserts append
    mem.update(item.id, importance=0.9)
    assert mem.store.search.vector_state("default", "u").generation == 1  # anything else reloads


def test_fetch_and_embeddings_for_missing_rows(mem: Memory) -> None:
    assert mem.store.search.fetch([(MESSAGE, 12345), (MEMORY, 999)]) == {}
    assert mem.store.search.embeddings_for(mem.tenant, "hashing:384", ["nohash"]) == {}
    assert mem.store.search.embeddings_for(mem.tenant, "hashing:384", []) == {}


def test_concurrent_writers_get_unique_contiguous_seq(open_mem: OpenMem) -> None:
    writers = [open_mem() for _ in range(3)]
    errors: list[str] = []

    def write(m: Memory, tag: int) -> None:
        try:
            for i in range(15):
                m.add_messages([{"role": "user", "content": f"w{tag} n{i}"}] * 2, "u", "s")
        except Exception as exc:  # reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=write, args=(m, i)) for i, m in enumerate(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    seqs = sorted(m.seq for m in writers[0].messages("u", limit=1000))
    assert seqs == list(range(1, 91))


def test_in_memory_store_is_shared_between_threads() -> None:
    mem = Memory(":memory:", embedder="hashing")
    t = threading.Thread(
        target=lambda: mem.add_messages([{"role": "user", "content": "from a thread"}], "u")
    )
    t.start()
    t.join()
    assert [m.content for m in mem.messages("u")] == ["from a thread"]
    mem.close()


# ---- SQLite only ---------------------------------------------------------------------------
def fts_rows(path: str, table: str) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as c:
        return sorted(c.execute(f"SELECT rowid, text FROM {table}").fetchall())


def test_sqlite_migrations_set_version_and_pragmas(db_path: str) -> None:
    store = SQLiteStore(db_path)
    conn = store.db.get()
    latest = migration_files()[-1][0]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == latest
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()
    SQLiteStore(db_path).close()  # reopening applies nothing twice


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


def test_sqlite_fts_tables_follow_rows(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing")
    mem.add_messages([{"role": "user", "content": "I love kayaking", "name": "Ann"}], "u1")
    assert [t for _, t in fts_rows(db_path, "messages_fts")] == ["Ann: I love kayaking"]
    item = mem.add("Ann owns a red kayak", user_id="u1")
    mem.delete(item.id)
    assert fts_rows(db_path, "memories_fts") == []
    mem.delete_user("u1")
    assert fts_rows(db_path, "messages_fts") == []
    mem.close()


def test_owner_token_matches_trigger(db_path: str) -> None:
    mem = Memory(db_path, embedder="hashing")
    mem.add_messages([{"role": "user", "content": "hello"}], user_id="ü/ser 1")
    with sqlite3.connect(db_path) as c:
        owner = c.execute("SELECT owner FROM messages_fts").fetchone()[0]
    assert owner == owner_token("default", "ü/ser 1")
    mem.close()
