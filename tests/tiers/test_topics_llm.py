"""LLM topic summaries against the scripted OpenAI-compatible server: the rewrite job, its
usage, staleness, idempotence, and the rules fallback on transient failures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from scripted_server import ScriptedServer
from topic_helpers import TOPICS_ONLY, Clock, about

from mnemo import Memory
from mnemo.tiers.topics.memory import SUMMARY_JOB


@pytest.fixture
def mem(open_mem: Callable[..., Memory]) -> Memory:
    """A Memory with only the topic tier on, on each store (conftest's ``backend``)."""
    return open_mem(**TOPICS_ONLY)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def _mem(tmp_path: Path, server: ScriptedServer) -> Memory:
    mem = Memory(
        str(tmp_path / "m.db"),
        embedder="hashing",
        **TOPICS_ONLY,
        llm_base_url=server.url,
        llm_max_retries=0,
        llm_timeout_s=5,
    )
    mem.topic_memory.clock = Clock()
    return mem


def _fill(mem: Memory, n_pairs: int) -> None:
    for k in range(n_pairs):
        mem.add_user_message("u1", about(0, k), "s1")
        mem.topic_memory.clock.advance(1)  # type: ignore[attr-defined]
        mem.add_assistant_message("u1", f"reply number {k}.", "s1")
        mem.topic_memory.clock.advance(1)  # type: ignore[attr-defined]


def test_compaction_enqueues_an_llm_rewrite_of_the_rules_summary(
    tmp_path: Path, server: ScriptedServer
) -> None:
    mem = _mem(tmp_path, server)
    _fill(mem, 7)  # 14 messages: one compaction of 9
    [topic] = mem.topics("u1")
    assert topic.summary_actor == "rules" and topic.summary
    assert server.requests == []  # the write path never waited for the LLM
    [job] = [j for j in mem.store.jobs.list_jobs() if j.kind == SUMMARY_JOB]
    server.enqueue_chat("The user asked about subject zero; the assistant replied in turn.")
    assert mem.drain() == 1
    [topic] = mem.topics("u1")
    assert topic.summary == "The user asked about subject zero; the assistant replied in turn."
    assert topic.summary_actor == "llm"
    assert mem.topic_context("u1", "s1")[0]["content"].startswith("Topic summary: The user")
    [req] = server.requests
    prompt = req.json["messages"][0]["content"]
    assert about(0, 0) in prompt and "reply number 3." in prompt and about(0, 6) not in prompt
    [job] = [j for j in mem.store.jobs.list_jobs() if j.kind == SUMMARY_JOB]
    assert job.status == "done" and job.usage and job.usage["total_tokens"] > 0
    mem.topic_memory.handle_summary_job(job.payload)  # again: stale now, nothing asked
    assert len(server.requests) == 1 and mem.topics("u1")[0].summary_actor == "llm"
    mem.close()


def test_the_next_incremental_summary_builds_on_the_llm_one(
    tmp_path: Path, server: ScriptedServer
) -> None:
    mem = _mem(tmp_path, server)
    _fill(mem, 7)
    server.enqueue_chat("First summary.")
    mem.drain()
    _fill(mem, 5)  # another compaction
    [topic] = mem.topics("u1")
    assert topic.summary is not None and topic.summary.startswith("First summary.")
    server.enqueue_chat("Second summary.")
    mem.drain()
    assert "First summary." in server.requests[-1].json["messages"][0]["content"]
    assert mem.topics("u1")[0].summary == "Second summary."
    mem.close()


def test_a_stale_job_asks_nothing(tmp_path: Path, server: ScriptedServer) -> None:
    mem = _mem(tmp_path, server)
    _fill(mem, 7)
    _fill(mem, 5)  # a second compaction before the first job ran
    server.enqueue_chat("Only the latest.")
    assert mem.drain() == 2
    assert len(server.requests) == 1 and mem.topics("u1")[0].summary == "Only the latest."
    mem.close()


def test_transient_llm_failure_keeps_the_rules_summary_and_records_it(
    tmp_path: Path, server: ScriptedServer
) -> None:
    mem = _mem(tmp_path, server)
    _fill(mem, 7)
    rules = mem.topics("u1")[0].summary
    server.enqueue(status=503)
    assert mem.drain() == 1
    [topic] = mem.topics("u1")
    assert topic.summary == rules and topic.summary_actor == "rules"
    assert topic.metadata["summary_fallback"] == "rules: LLMTransientError"
    [job] = [j for j in mem.store.jobs.list_jobs() if j.kind == SUMMARY_JOB]
    assert job.status == "done"  # fell back, recorded: nothing left to retry
    mem.close()


def test_without_an_llm_compaction_is_rules_only(mem: Memory) -> None:
    for k in range(7):
        mem.add_user_message("u1", about(0, k), "s1")
        mem.add_assistant_message("u1", f"reply {k}", "s1")
    [topic] = mem.topics("u1")
    assert topic.summary_actor == "rules" and mem.store.jobs.list_jobs() == []
