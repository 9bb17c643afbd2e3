"""The fact tier through the real LLM client against the scripted OpenAI-compatible server.

Covers: atomic and single extraction, reconciliation with short ids (unknown ids rejected),
safeguards, usage on the job row, fallback to rules on 500 / connection refused / garbage /
wrong-shaped JSON, a non-transient error failing the job, and kill-safety of a running job.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clock_support import FakeClock
from scripted_server import ScriptedServer

from mnemo import Memory
from mnemo.storage.sqlite.store import SQLiteStore
from mnemo.tiers.facts.llm import parse_single
from mnemo.tiers.facts.tier import JOB_KIND

WAIT_S = 30

FACTS_ONLY: dict = {"profile_enabled": False, "episodes_enabled": False}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def llm_memory(db_path: str, url: str, **overrides: Any) -> Memory:
    settings = {**FACTS_ONLY, **overrides}
    return Memory(db_path, embedder="hashing", llm_base_url=url, llm_max_retries=0, **settings)


@pytest.fixture
def mem(db_path: str, server: ScriptedServer) -> Iterator[Memory]:
    m = llm_memory(db_path, server.url)
    yield m
    m.close()


def reply_json(server: ScriptedServer, data: Any) -> None:
    server.enqueue_chat(json.dumps(data))


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def facts(mem: Memory, user: str = "u1") -> list[str]:
    return sorted(m.content for m in mem.list(user, kind="fact"))


def run_notes(mem: Memory) -> list[tuple[str, str | None]]:
    con = sqlite3.connect(mem.store.location)
    try:
        return list(con.execute("SELECT actor, note FROM fact_runs ORDER BY rowid"))
    finally:
        con.close()


def say(mem: Memory, text: str, **extra: Any) -> list[str]:
    ids = mem.add_messages([{"role": "user", "content": text, **extra}], "u1", "s1")
    mem.drain()
    return ids


# ---- extraction -------------------------------------------------------------------------------
def test_atomic_extraction_adds_facts_and_records_usage(
    mem: Memory, server: ScriptedServer
) -> None:
    reply_json(server, {"facts": ["User is a nurse.", "User has two cats.", "x", 5]})
    ids = say(mem, "I work nights as a nurse; my two cats hate it.")
    assert facts(mem) == ["User has two cats.", "User is a nurse."]  # "x" and 5 filtered out
    [req] = chat_requests(server)  # nothing to reconcile against: no second call
    assert req["messages"][1]["content"].startswith("I work nights")
    assert "between 0 and 3 atomic facts" in req["messages"][0]["content"]
    item = mem.list("u1")[0]
    assert item.metadata == {"extracted_by": "llm", "mode": "atomic"}
    assert [(h.actor, h.source_message_ids) for h in mem.history(item.id)] == [("llm", ids)]
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "done" and job.usage["total_tokens"] > 0


def test_single_extraction_sees_memories_context_and_the_reply(
    db_path: str, server: ScriptedServer
) -> None:
    with llm_memory(db_path, server.url, fact_extraction="single") as mem:
        mem.add("User has a dog named Rex", "u1")
        mem.attach_document("Shift plan: nights in March", "u1", session_id="s1")
        server.enqueue_chat("User works as a nurse.")
        ids = mem.add_messages(
            [
                {"role": "user", "content": "I am a nurse, is my dog OK alone?"},
                {"role": "assistant", "content": "Dogs cope fine for a few hours."},
            ],
            "u1",
            "s1",
        )
        mem.drain()
        assert facts(mem) == ["User has a dog named Rex", "User works as a nurse."]
        new = next(m for m in mem.list("u1") if "nurse" in m.content)
        assert new.source_message_ids == ids and new.metadata["mode"] == "single"
        system = chat_requests(server)[0]["messages"][0]["content"]
        assert "- User has a dog named Rex" in system
        assert "Shift plan: nights in March" in system
        assert "Assistant: Dogs cope fine for a few hours." in system


def test_single_extraction_nothing_stores_nothing(db_path: str, server: ScriptedServer) -> None:
    with llm_memory(db_path, server.url, fact_extraction="single") as mem:
        server.enqueue_chat("NOTHING")
        say(mem, "What's the weather like?")
        assert facts(mem) == [] and run_notes(mem) == [("llm", None)]
        assert mem.store.jobs.list_jobs()[0].status == "done"


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("User is a nurse.", "User is a nurse."),
        ("- User is a nurse.\nBecause they said so.", "User is a nurse."),
        ('"User likes green tea"', "User likes green tea"),
        ("Nothing worth storing.", None),
        ("NOTHING", None),
        ("Yes", None),
        ("Does the user like tea?", None),
        ("short", None),
        ("", None),
    ],
)
def test_single_answer_filters(answer: str, fact: str | None) -> None:
    assert parse_single(answer, 10, 500) == fact


# ---- reconciliation ---------------------------------------------------------------------------
def seed_facts(mem: Memory) -> tuple[str, str]:
    paris = mem.add("User lives in Paris", "u1").id
    rex = mem.add("User has a dog named Rex", "u1").id
    return paris, rex


def test_reconciliation_maps_short_ids_and_rejects_unknown_ones(
    mem: Memory, server: ScriptedServer
) -> None:
    paris, rex = seed_facts(mem)
    reply_json(server, {"facts": ["User lives in Berlin."]})
    reply_json(
        server,
        {
            "decisions": [
                {"event": "UPDATE", "id": 0, "text": "User lives in Berlin."},
                {"event": "DELETE", "id": 7},
                {"event": "UPDATE", "id": "mem_x", "text": "User hacks ids"},
                {"event": "NONE", "id": "1"},
            ]
        },
    )
    ids = say(mem, "I moved to Berlin last month.")
    prompt = chat_requests(server)[1]["messages"][-1]["content"]
    assert "0: User lives in Paris" in prompt and "1: User has a dog named Rex" in prompt
    assert "mem_" not in prompt  # the LLM never sees real ids
    assert facts(mem) == ["User has a dog named Rex", "User lives in Berlin."]
    last = mem.history(paris)[-1]
    assert (last.event, last.actor, last.source_message_ids) == ("UPDATE", "llm", ids)
    assert len(mem.history(rex)) == 1  # NONE changes nothing
    [(actor, note)] = run_notes(mem)
    assert actor == "llm" and "unknown id 7" in note and "unknown id 'mem_x'" in note


def test_a_none_only_answer_adds_the_originals_in_agent_cli_only(
    db_path: str, server: ScriptedServer
) -> None:
    """Seed 002: 'if reconciliation yields no additions but we had new facts, fall back to
    adding the original new facts' -- NONE decisions are not additions."""
    for preset, expected in (
        ("agent-cli", ["User has a dog named Rex", "User lives in Paris", "User lives in Rome."]),
        ("default", ["User has a dog named Rex", "User lives in Paris"]),
    ):
        with llm_memory(f"{db_path}.{preset}", server.url, preset=preset) as m:
            seed_facts(m)
            reply_json(server, {"facts": ["User lives in Rome."]})
            reply_json(server, {"decisions": [{"event": "NONE", "id": 0}]})
            say(m, "I live in Rome.")
            assert facts(m) == expected, preset


def test_deleting_everything_shown_is_refused(mem: Memory, server: ScriptedServer) -> None:
    seed_facts(mem)
    reply_json(server, {"facts": ["User lives in Rome."]})
    reply_json(server, {"decisions": [{"event": "DELETE", "id": 0}, {"event": "DELETE", "id": 1}]})
    say(mem, "I live in Rome.")
    # both old facts survive; the new fact is added as extracted (`agent-cli` safeguard)
    assert facts(mem) == ["User has a dog named Rex", "User lives in Paris", "User lives in Rome."]
    [(_, note)] = run_notes(mem)
    assert "refused to delete all 2" in note and "added them as extracted" in note


def test_delete_and_invented_adds(mem: Memory, server: ScriptedServer) -> None:
    paris, _ = seed_facts(mem)
    reply_json(server, {"facts": ["User no longer lives in Paris."]})
    reply_json(
        server,
        {
            "decisions": [
                {"event": "DELETE", "id": 0},
                {"event": "ADD", "text": "User no longer lives in Paris."},
                {"event": "ADD", "text": "User is secretly a spy."},
            ]
        },
    )
    ids = say(mem, "I don't live in Paris any more.")
    assert facts(mem) == ["User has a dog named Rex", "User no longer lives in Paris."]
    last = mem.history(paris)[-1]
    assert (last.event, last.actor, last.source_message_ids) == ("DELETE", "llm", ids)


def test_add_rewording_an_existing_fact_is_dropped(mem: Memory, server: ScriptedServer) -> None:
    seed_facts(mem)
    reply_json(server, {"facts": ["User owns a dog called Rex."]})
    reply_json(server, {"decisions": [{"event": "ADD", "text": "User has a dog named Rex."}]})
    say(mem, "Rex is my dog.")
    assert facts(mem) == ["User has a dog named Rex", "User lives in Paris"]


# ---- fallbacks --------------------------------------------------------------------------------
def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def assert_rules_fallback(mem: Memory, reason: str) -> None:
    assert facts(mem) == ["User lives in Lyon"]
    item = mem.list("u1")[0]
    assert item.metadata["extracted_by"] == "rules" and reason in item.metadata["fallback"]
    assert mem.history(item.id)[0].actor == "rules"
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "done" and job.last_error is None


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ([{"status": 500}], "LLMTransientError"),
        ([{"raw": "no json here"}, {"raw": "still none"}], "LLMOutputError"),
        ([{"status": 503}], "LLMTransientError"),
    ],
)
def test_llm_failure_falls_back_to_rules_and_the_job_completes(
    mem: Memory, server: ScriptedServer, script: list[dict[str, Any]], reason: str
) -> None:
    for item in script:
        if "raw" in item:
            server.enqueue_chat(item["raw"])
        else:
            server.enqueue(status=item["status"])
    say(mem, "I live in Lyon.")
    assert_rules_fallback(mem, reason)


def test_wrong_shaped_json_falls_back(mem: Memory, server: ScriptedServer) -> None:
    reply_json(server, {"facts": "User lives in Lyon"})
    say(mem, "I live in Lyon.")
    assert_rules_fallback(mem, "expected a list of facts")


def test_llm_down_falls_back(db_path: str) -> None:
    with llm_memory(db_path, closed_port_url()) as mem:
        say(mem, "I live in Lyon.")
        assert_rules_fallback(mem, "LLMTransientError")


def test_reconciliation_failure_falls_back_to_rules(mem: Memory, server: ScriptedServer) -> None:
    paris, _ = seed_facts(mem)
    reply_json(server, {"facts": ["User lives in Berlin"]})
    server.enqueue(status=502)
    ids = say(mem, "I moved to Berlin.")
    assert facts(mem) == ["User has a dog named Rex", "User lives in Berlin"]
    last = mem.history(paris)[-1]  # rules: same subject, new value
    assert (last.event, last.actor, last.source_message_ids) == ("UPDATE", "rules", ids)
    [(actor, note)] = run_notes(mem)
    assert actor == "rules" and note.startswith("reconciliation: LLM failed")


def test_non_transient_llm_error_fails_the_job(mem: Memory, server: ScriptedServer) -> None:
    server.enqueue(status=401)
    say(mem, "I live in Lyon.")
    [job] = mem.store.jobs.list_jobs()
    assert job.status == "pending" and job.attempts == 1 and "401" in job.last_error
    assert facts(mem) == [] and run_notes(mem) == []


# ---- kill-safety ------------------------------------------------------------------------------
CHILD = """
import sys
from mnemo import Memory
mem = Memory(sys.argv[1], embedder="hashing", llm_base_url=sys.argv[2], llm_max_retries=0,
             profile_enabled=False, episodes_enabled=False,
             job_lease_s=1.0)
mem.add_messages([{"role": "user", "content": "I live in Lyon."}], "u1", "s1")
print("added", flush=True)
mem.drain()
"""


def test_a_killed_job_stays_queued_and_completes_later(
    db_path: str, server: ScriptedServer, tmp_path: Path
) -> None:
    server.enqueue_chat(json.dumps({"facts": ["User lives in Lyon."]}), delay=WAIT_S)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, db_path, server.url],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while not chat_requests(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert chat_requests(server), "the child never called the LLM"
    finally:
        proc.kill()
        proc.wait(WAIT_S)
        assert proc.stdout is not None
        proc.stdout.close()
    clock = FakeClock()
    store = SQLiteStore(db_path, clock=clock)
    with llm_memory(db_path, server.url, job_lease_s=1.0, store=store) as mem:
        [job] = mem.store.jobs.list_jobs()
        assert job.status == "running" and facts(mem) == [] and run_notes(mem) == []
        clock.advance(1.1)  # the dead worker's lease runs out
        reply_json(server, {"facts": ["User lives in Lyon."]})
        assert mem.drain() == 1
        [job] = mem.store.jobs.list_jobs()
        assert job.status == "done" and job.attempts == 2
        assert facts(mem) == ["User lives in Lyon."]
        assert mem.handlers[JOB_KIND](job.payload)["total_tokens"] == 0  # idempotent
        assert facts(mem) == ["User lives in Lyon."]
