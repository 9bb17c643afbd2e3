"""What only the PostgreSQL store has: URL handling, the HNSW index and store-side vector
queries, concurrent first opens, and a closed pool.

Behaviour shared with SQLite is tested on both stores in test_store.py, test_search.py,
test_memory_api.py and test_jobs.py.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from mnemo import Memory, StorageError
from mnemo.filters import parse_where
from mnemo.schemas import format_time, utcnow
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import MEMORY, MESSAGE
from mnemo.storage.ports.search import VectorLoad
from mnemo.storage.postgres.bm25 import bm25
from mnemo.storage.postgres.conn import migration_files, redact
from mnemo.storage.postgres.hnsw import index_name
from mnemo.storage.postgres.search import unpack_vectors
from mnemo.storage.postgres.store import PostgresStore
from mnemo.storage.scope import ReadScope
from mnemo.storage.sqlite.conn import migration_files as sqlite_migrations


def test_bm25_is_fts5s_formula() -> None:
    tf = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    df, n, dl, avg = np.array([2, 2]), 10, np.array([4.0, 8.0, 6.0]), 6.0
    got = bm25(tf, df, n, dl, avg)
    idf = np.log((10 - 2 + 0.5) / (2 + 0.5))
    for d in range(3):
        norm = 1.2 * (1 - 0.75 + 0.75 * dl[d] / avg)
        want = sum(idf * t * 2.2 / (t + norm) for t in tf[d])
        assert got[d] == pytest.approx(want)
    common = bm25(np.array([[1.0]]), np.array([9]), 10, np.array([5.0]), 5.0)
    assert common[0] == pytest.approx(1e-6)  # a word in most rows still counts a little
    assert bm25(np.zeros((0, 2)), df, n, np.zeros(0), avg).shape == (0,)


def test_unpack_vectors_reads_pgvector_binary() -> None:
    vecs = np.array([[1.5, -2.0, 0.25], [0.0, 3.0, -1.0]], dtype=np.float32)
    blobs = [
        np.int16(3).astype(">i2").tobytes() + b"\0\0" + v.astype(">f4").tobytes() for v in vecs
    ]
    assert np.array_equal(unpack_vectors(blobs), vecs)
    assert unpack_vectors([]).shape == (0, 0)


def test_redact_hides_the_password() -> None:
    assert redact("postgresql://bob:s3cret@db:5432/x") == "postgresql://bob:***@db:5432/x"
    assert redact("postgresql://bob@db/x") == "postgresql://bob@db/x"


def test_migration_numbers_match_sqlite() -> None:
    pg = [n for n, _ in migration_files()]
    lite = [n for n, _ in sqlite_migrations()]
    assert pg == sorted(set(pg)) and pg[0] == 1
    assert pg == lite, "each SQLite migration needs its PostgreSQL twin in migrations/postgres/"


def test_unreachable_server_is_a_storage_error() -> None:
    with pytest.raises(StorageError, match="cannot connect") as info:
        PostgresStore("postgresql://nobody:pw@127.0.0.1:1/none", connect_timeout_s=2)
    assert "pw" not in str(info.value)


def test_closed_store_says_so(pg_url: str) -> None:
    mem = Memory(url=pg_url, embedder="hashing")
    mem.close()
    with pytest.raises(StorageError, match="closed"):
        mem.messages("u")


def test_memory_url_and_env_select_postgres(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(url=pg_url, embedder="hashing") as mem:
        assert isinstance(mem.store, PostgresStore)
        mem.add_messages([{"role": "user", "content": "via url"}], "u")
    monkeypatch.setenv("MNEMO_DATABASE_URL", pg_url)
    with Memory(embedder="hashing") as mem:
        assert isinstance(mem.store, PostgresStore)
        assert [m.content for m in mem.messages("u")] == ["via url"]


def test_concurrent_first_opens_migrate_once(pg_url: str) -> None:
    stores: list[PostgresStore] = []
    errors: list[str] = []

    def open_one() -> None:
        try:
            stores.append(PostgresStore(pg_url, pool_size=1))
        except Exception as exc:  # reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 4
    with stores[0].db.connection() as c:
        version = c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    assert version is not None and int(version["value"]) == migration_files()[-1][0]
    for s in stores:
        s.close()


def test_hnsw_index_is_built_per_embedder_and_used(pg_url: str) -> None:
    mem = Memory(url=pg_url, embedder="hashing")
    mem.add_messages(
        [{"role": "user", "content": f"note {i} about apples"} for i in range(30)], "u"
    )
    store = mem.store
    assert isinstance(store, PostgresStore)
    with store.db.connection() as c:
        names = {r["indexname"] for r in c.execute("SELECT indexname FROM pg_indexes")}
        assert index_name("messages", "hashing:384") in names
        assert index_name("memories", "hashing:384") in names
        c.execute("SET enable_seqscan = off")
        plan = c.execute(
            "EXPLAIN SELECT rowid FROM messages WHERE embedder = 'hashing:384'"
            " ORDER BY embedding::vector(384) <=> %s LIMIT 5",
            (np.ones(384, dtype=np.float32),),
        ).fetchall()
    assert "hnsw" in " ".join(str(r) for r in plan).lower()
    mem.close()


def test_vector_search_agrees_with_the_exact_search(pg_url: str) -> None:
    mem = Memory(url=pg_url, embedder="hashing")
    texts = [f"trip {i} to {city}" for i, city in enumerate(["paris", "rome", "oslo"] * 10)]
    mem.add_messages([{"role": "user", "content": t} for t in texts], "u", "s1")
    mem.add_messages([{"role": "user", "content": "rome again"}], "u", "s2")
    mem.add_messages([{"role": "user", "content": "rome for someone else"}], "other")
    note = mem.add("rome is lovely", user_id="u", kind="note")
    store = mem.store
    assert isinstance(store, PostgresStore)
    q = mem.embedder.embed(["rome again"])[0]
    hits = store.search.vector_search(ReadScope("default", "u"), mem.embedder.id, q, 5)
    assert len(hits) == 5 and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    exact = sorted(
        ((ref, float(v @ q)) for ref, v in _all_vectors(mem).items()), key=lambda x: -x[1]
    )[:5]
    assert [s for _, s in hits] == pytest.approx([s for _, s in exact], abs=1e-5)  # ties
    in_s1 = store.search.vector_search(ReadScope("default", "u", "s1"), mem.embedder.id, q, 50)
    assert len(in_s1) == 30 and all(t == MESSAGE for (t, _), _ in in_s1)
    notes = store.search.vector_search(
        ReadScope("default", "u", kinds=("note",)), mem.embedder.id, q, 5
    )
    assert [r for r, _ in notes] == [(MEMORY, _rowid(mem, note.id))]
    mem.delete(note.id)
    assert (
        store.search.vector_search(
            ReadScope("default", "u", kinds=("note",)), mem.embedder.id, q, 5
        )
        == []
    )
    mem.close()


def _all_vectors(mem: Memory) -> dict[tuple[int, int], np.ndarray]:
    state = mem.store.search.vector_state("default", "u")
    rows = mem.store.search.load_vectors(VectorLoad("default", "u", mem.embedder.id, None, state))
    return {
        (int(t), int(r)): v for t, r, v in zip(rows.tables, rows.rowids, rows.vectors, strict=True)
    }


def _rowid(mem: Memory, memory_id: str) -> int:
    with mem.store.db.connection() as c:  # type: ignore[attr-defined]
        r = c.execute("SELECT rowid FROM memories WHERE id=%s", (memory_id,)).fetchone()
    return int(r["rowid"])


def test_connections_killed_by_the_server_are_replaced(pg_url: str, pg_server_url: str) -> None:
    import psycopg

    name = f"mnemo-test-{uuid.uuid4().hex[:8]}"
    mem = Memory(url=f"{pg_url}&application_name={name}", embedder="hashing")
    mem.add_messages([{"role": "user", "content": "before the restart"}], "u")
    with psycopg.connect(pg_server_url, autocommit=True) as admin:
        killed = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = %s",
            (name,),
        ).fetchone()
    assert killed is not None and killed[0] >= 1
    assert [m.content for m in mem.messages("u")] == ["before the restart"]
    mem.add_messages([{"role": "user", "content": "after the restart"}], "u")
    assert len(mem.search("restart", user_id="u")) == 2
    mem.close()


def test_vector_search_never_leaves_its_scope(pg_url: str) -> None:
    """Another agent's private rows, rows failing the filter, deleted, evicted and expired
    rows never come back from the store-side vector search."""
    mem = Memory(url=pg_url, embedder="hashing")
    store = mem.store
    assert isinstance(store, PostgresStore)
    mem.add_messages([{"role": "user", "content": "rome shared"}], "u", "s1")
    mem.add_messages([{"role": "user", "content": "rome of agent a"}], "u", "s1", agent_id="a")
    mem.add_messages([{"role": "user", "content": "rome of agent b"}], "u", "s1", agent_id="b")
    mem.add_messages([{"role": "user", "content": "rome evicted"}], "u", "s1")
    mem.add("rome at work", user_id="u", metadata={"topic": "work"})
    mem.add("rome at home", user_id="u", metadata={"topic": "home"})
    mem.delete(mem.add("rome deleted", user_id="u", metadata={"topic": "work"}).id)
    mem.add("rome soon expired", user_id="u", ttl_seconds=60, metadata={"topic": "work"})
    with store.db.write() as c:
        c.execute("UPDATE messages SET evicted_at = created_at WHERE content = 'rome evicted'")
    q = mem.embedder.embed(["rome"])[0]

    def found(scope: ReadScope) -> set[str]:
        hits = store.search.vector_search(scope, mem.embedder.id, q, 50)
        return {row["content"] for row in store.search.fetch([ref for ref, _ in hits]).values()}

    live = {"rome shared", "rome of agent a", "rome of agent b", "rome at work", "rome at home"}
    assert found(ReadScope("default", "u")) == live | {"rome soon expired"}
    as_a = found(ReadScope("default", "u", agents=AgentView("a")))
    assert as_a == live - {"rome of agent b"} | {"rome soon expired"}
    work = ReadScope("default", "u", where=parse_where({"topic": "work"}))
    assert found(work) == {"rome at work", "rome soon expired"}
    later = format_time(utcnow() + timedelta(minutes=5))
    assert found(replace(work, live_at=later)) == {"rome at work"}
    assert found(ReadScope("default", "u", agents=AgentView("b", shared=False))) == {
        "rome of agent b"
    }
    mem.close()
