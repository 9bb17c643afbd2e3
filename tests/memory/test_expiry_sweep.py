"""``Memory.sweep``: expired turns and memories removed for good, with erasure's guarantees
(full-text rows, vectors and key vectors, history, mirrored files), checked in the tables
themselves; on both stores. Time moves by a :class:`FakeClock`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clock_support import FakeClock

from mnemo import Memory
from mnemo.jobs.runner import Worker
from mnemo.storage.ports.store import Store
from mnemo.storage.sqlite.store import SQLiteStore

JOBS_ONLY: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}
#: A long user turn, so it gets extra index keys (key vectors) too.
LONG = (
    "The storage unit is number 4411 at the north gate. The code for the padlock is zebra "
    "nine. The unit holds the winter tyres and the camping gear. Ask the caretaker for the "
    "trolley if the boxes are heavy."
)


@pytest.fixture
def clocked(
    backend: str, target: dict[str, str], tmp_path: Path
) -> Iterator[tuple[Memory, FakeClock]]:
    """A Memory (each store) on a clock the test moves, mirroring its rows to files."""
    clock = FakeClock()
    if backend == "sqlite":
        store: Store = SQLiteStore(target["path"], clock=clock)
    else:
        from mnemo.storage.postgres.store import PostgresStore

        store = PostgresStore(target["url"], clock=clock)
    files = str(tmp_path / "files")
    m = Memory(**target, embedder="hashing", store=store, files_dir=files, **JOBS_ONLY)
    yield m, clock
    m.close()


def scalar(mem: Memory, sql: str, *args: Any) -> Any:
    """One value read straight from the store's tables (either backend's placeholder)."""
    with mem.store.tx.auto() as c:  # type: ignore[attr-defined]
        return c.execute(sql.replace("?", c.dialect.mark), args).fetchone()[0]


def test_sweep_erases_expired_rows_and_everything_hanging_off_them(
    clocked: tuple[Memory, FakeClock], backend: str, tmp_path: Path
) -> None:
    mem, clock = clocked
    keep = mem.add("the bike lock code is 1234", user_id="u")
    gone = mem.add("the storage unit padlock code is zebra nine", user_id="u", ttl_seconds=60)
    mem.update(gone.id, tags=["codes"])  # an UPDATE in its history, a tag row
    [turn] = mem.add_messages([{"role": "user", "content": LONG}], user_id="u", ttl_seconds=60)
    [kept_turn] = mem.add_messages([{"role": "user", "content": "hello there"}], user_id="u")
    assert mem.search("padlock zebra", user_id="u")  # the vector index is loaded
    files = tmp_path / "files"
    assert any("zebra" in p.read_text() for p in files.rglob("*.md"))

    assert mem.sweep() == {
        "messages": 0,
        "memories": 0,
        "history": 0,
        "topic_messages": 0,
        "fact_runs": 0,
        "entity_mentions": 0,
        "entities": 0,
    }  # nothing expired yet
    clock.advance(61)
    counts = mem.sweep()
    assert counts["messages"] == 1 and counts["memories"] == 1 and counts["history"] == 2

    for table, id in (("messages", turn), ("memories", gone.id)):
        assert scalar(mem, f"SELECT count(*) FROM {table} WHERE id=?", id) == 0
    assert scalar(mem, "SELECT count(*) FROM history WHERE memory_id=?", gone.id) == 0
    assert scalar(mem, "SELECT count(*) FROM memory_tags WHERE tag=?", "codes") == 0
    assert scalar(mem, "SELECT count(*) FROM messages") == 1
    assert scalar(mem, "SELECT count(*) FROM memories") == 1
    if backend == "sqlite":
        for fts in ("messages_fts", "memories_fts"):
            hits = scalar(mem, f"SELECT count(*) FROM {fts} WHERE {fts} MATCH 'zebra'")
            assert hits == 0
        raw = Path(mem.store.location).read_bytes()
        assert b"zebra nine" not in raw  # secure_delete + merged FTS + checkpointed WAL
    else:
        n = scalar(mem, "SELECT count(*) FROM memories WHERE fts @@ to_tsquery('zebra')")
        assert n == 0
    # the vectors: the index reloads (generation bumped) and holds only the live rows
    assert {h.id for h in mem.search("padlock zebra storage unit", user_id="u", limit=20)} <= {
        keep.id,
        kept_turn,
    }
    index = mem.pipeline.indexes.get(mem.store.search, "default", "u", mem.embedder.id)
    assert index.n == 2 and index.k == 0
    assert not any("zebra" in p.read_text() for p in files.rglob("*.md"))
    assert mem.get(keep.id).id == keep.id


def test_sweep_is_per_tenant(clocked: tuple[Memory, FakeClock], target: dict[str, str]) -> None:
    mem, clock = clocked
    mem.add("tenant default note", user_id="u", ttl_seconds=10)
    other = Memory(**target, embedder="hashing", store=mem.store, tenant="other", **JOBS_ONLY)
    other.add("tenant other note", user_id="u", ttl_seconds=10)
    clock.advance(11)
    assert mem.sweep()["memories"] == 1
    assert scalar(mem, "SELECT count(*) FROM memories WHERE tenant=?", "other") == 1
    assert other.sweep()["memories"] == 1


def test_migration_adds_the_columns_to_an_old_store(db_path: str) -> None:
    """An existing store migrates forward: its rows keep their meaning (never expire)."""
    with Memory(db_path, embedder="hashing") as mem:
        item = mem.add("an old memory", user_id="u")
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT expires_at, ttl_seconds FROM memories").fetchall() == [(None, None)]
    plan = conn.execute(
        "EXPLAIN QUERY PLAN SELECT rowid FROM messages WHERE tenant='t' AND user_id='u'"
        " AND expires_at <= '2030'"
    ).fetchall()
    conn.close()
    assert "messages_user_expiry" in str(plan)
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.get(item.id).expires_at is None


def test_the_worker_queues_a_durable_sweep_job(clocked: tuple[Memory, FakeClock]) -> None:
    """The worker queues a sweep job every ``sweep_interval_s`` (never two waiting); the job
    sits in the durable queue, so a worker that dies before running it loses nothing: the
    next drain (any worker) runs it."""
    mem, clock = clocked
    mem.add("a short lived note", user_id="u", ttl_seconds=10)
    worker = Worker(mem.store.jobs, mem.handlers, mem.settings, tenant="default", clock=clock)
    assert worker.sweeps.tick(worker.handlers) is False  # nothing expired yet: no job
    assert mem.jobs() == []
    clock.advance(11)
    assert worker.sweeps.tick(worker.handlers) is False  # not due again yet
    worker.sweeps.next = None
    assert worker.sweeps.tick(worker.handlers) is True
    [job] = mem.jobs("pending")
    assert job.kind == "expiry.sweep"
    # "crash": this worker never runs it; the job stays queued, and no second one is added
    worker.sweeps.next = None
    assert worker.sweeps.tick(worker.handlers) is False
    assert mem.drain() == 1
    assert scalar(mem, "SELECT count(*) FROM memories") == 0
    assert [j.status for j in mem.jobs()] == ["done"]
