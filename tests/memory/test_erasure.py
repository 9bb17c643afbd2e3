"""Erasure wins over in-flight work: a job that was waiting on the LLM when ``delete_user`` ran
writes nothing afterwards, on both stores.

The fact job is run in a thread against the scripted LLM server, whose reply is held back
until the user has been erased; then the reply is released and the job finishes. Nothing of
the user may come back: no users row, memory, history, fact run, message or search hit.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from scripted_server import ScriptedServer

from mnemo import Memory

WAIT_S = 30


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def chat_calls(server: ScriptedServer) -> int:
    return sum(r.path.endswith("/chat/completions") for r in server.requests)


def test_job_waiting_on_the_llm_writes_nothing_after_erasure(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        llm_base_url=server.url,
        llm_max_retries=0,
        profile_enabled=False,
        episodes_enabled=False,
    )
    gate = threading.Event()
    server.enqueue_chat(json.dumps({"facts": ["User adopted a cat named Miso."]}), gate=gate)
    ids = mem.add_messages([{"role": "user", "content": "I adopted a cat named Miso"}], "u1")
    ran: list[int] = []
    errors: list[BaseException] = []

    def drain() -> None:
        try:
            ran.append(mem.drain())
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    worker = threading.Thread(target=drain)
    worker.start()
    wait_for(lambda: chat_calls(server) == 1, "the fact job to call the LLM")
    erased = mem.delete_user("u1")
    assert erased["messages"] == 1
    gate.set()
    worker.join(WAIT_S)
    assert not worker.is_alive() and not errors, errors
    assert ran == [1]

    assert mem.stats().users == 0
    assert mem.list("u1") == []
    assert mem.messages("u1") == []
    assert mem.search("cat Miso", "u1") == []
    assert mem.store.rows.facts_processed(mem.tenant, ids) == set()
    assert mem.list(include_deleted=True) == []
    assert mem.store.jobs.list_jobs() == []


def test_a_user_written_again_after_erasure_is_processed(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        llm_base_url=server.url,
        llm_max_retries=0,
        profile_enabled=False,
        episodes_enabled=False,
    )
    mem.add_messages([{"role": "user", "content": "I live in Lyon"}], "u1")
    mem.delete_user("u1")
    server.enqueue_chat(json.dumps({"facts": ["User moved to Oslo."]}))
    mem.add_messages([{"role": "user", "content": "I moved to Oslo"}], "u1")
    assert mem.drain() == 1
    assert [m.content for m in mem.list("u1", kind="fact")] == ["User moved to Oslo."]


def test_profile_job_waiting_on_the_llm_writes_nothing_after_erasure(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        llm_base_url=server.url,
        llm_max_retries=0,
        fact_extraction="off",
        profile_enabled=True,
        episodes_enabled=False,
    )
    gate = threading.Event()
    fact = {"category": "identity", "key": "city", "value": "Lyon", "importance": 0.9}
    server.enqueue_chat(json.dumps({"facts": [fact]}), gate=gate)
    mem.add_messages([{"role": "user", "content": "I live in Lyon"}], "u1")
    worker = threading.Thread(target=mem.drain)
    worker.start()
    wait_for(lambda: chat_calls(server) == 1, "the profile job to call the LLM")
    mem.delete_user("u1")
    gate.set()
    worker.join(WAIT_S)
    assert not worker.is_alive()
    assert mem.profile("u1", min_importance=0.0) == []
    assert mem.stats().users == 0
    assert mem.store.jobs.list_jobs() == []


def file_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def test_erased_words_leave_the_sqlite_file(tmp_path: Path) -> None:
    """No byte of an erased user's text stays in the database file or its WAL: not in the
    tables, the freed pages, nor the full-text index segments."""
    db = tmp_path / "m.db"
    mine, theirs = "zorblaxquintet", "fnordwimbleton"
    with Memory(str(db), embedder="hashing", fact_extraction="off") as mem:
        for i in range(30):
            mem.add_messages([{"role": "user", "content": f"{mine} number {i}"}], "u1")
            mem.add_messages([{"role": "user", "content": f"{theirs} number {i}"}], "u2")
        mem.add(f"{mine} is a fact", "u1", tags=[mine], metadata={"k": mine})
        assert mine.encode() in file_bytes(db)
        mem.delete_user("u1")
        assert mem.search(theirs, "u2")
    data = file_bytes(db)
    assert theirs.encode() in data
    assert mine.encode() not in data
