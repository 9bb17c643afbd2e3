"""Seed 001 (`llm-managed`) as its document states it: one fact stored as it is (no
reconciliation call), nothing extracted without an extractor model, the extractor shown the RAG
top-8 above 0.5, the 10 newest memories when retrieval throws, sync (re-embed and repair) on
startup, and the assistant reply in the extractor's prompt. LLM behaviour comes from the
scripted OpenAI-compatible server."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import served
from scripted_server import ScriptedServer

from mnemo import Memory

PRESET: dict[str, Any] = {"embedder": "hashing", "preset": "llm-managed"}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def exchange(mem: Memory, user: str, reply: str) -> list[str]:
    ids = mem.add_messages(
        [{"role": "user", "content": user}, {"role": "assistant", "content": reply}], "u1", "s1"
    )
    mem.drain()
    return ids


def facts(mem: Memory) -> list[str]:
    return sorted(m.content for m in mem.list("u1", kind="fact"))


def test_the_single_fact_is_stored_as_is_with_one_llm_call(
    db_path: str, server: ScriptedServer
) -> None:
    with Memory(db_path, **PRESET, llm_base_url=server.url, llm_max_retries=0) as mem:
        paris = mem.add("User lives in Paris", "u1")
        server.enqueue_chat("User lives in Berlin now.")
        ids = exchange(mem, "I moved to Berlin last month.", "Welcome to Berlin!")
        assert len(chat_requests(server)) == 1  # the extraction; no reconciliation call
        assert facts(mem) == ["User lives in Berlin now.", "User lives in Paris"]
        kept = mem.get(paris.id)
        assert kept.content == "User lives in Paris" and kept.deleted_at is None
        new = next(m for m in mem.list("u1") if "Berlin" in m.content)
        assert new.source_message_ids == ids
        assert [h.event for h in mem.history(paris.id)] == ["ADD"]


def test_no_extractor_model_extracts_nothing_unless_rules_are_asked_for(db_path: str) -> None:
    texts = ("I live in Paris. I have two cats.", "Nice!")
    with Memory(db_path, **PRESET) as mem:
        assert not mem.settings.llm_enabled and not mem.settings.fact_rule_fallback
        exchange(mem, *texts)
        assert facts(mem) == []  # "If no model is available, extraction exits"
    with Memory(str(Path(db_path).with_name("rules.db")), **PRESET, fact_rule_fallback=True) as m:
        exchange(m, *texts)
        assert facts(m) == ["User lives in Paris"]  # opted in: one fact by rules


def test_the_extractor_sees_the_rag_top_8_above_0_5(db_path: str, server: ScriptedServer) -> None:
    with Memory(db_path, **PRESET, llm_base_url=server.url, llm_max_retries=0) as mem:
        close = ["User enjoys hiking trips in the mountains", "User hiking trips mountains"]
        far = [f"User owns a blue bicycle number {i}" for i in range(6)]
        for text in close + far:
            mem.add(text, "u1")
        server.enqueue_chat("NOTHING")
        exchange(mem, "I love hiking trips in the mountains", "Sounds great!")
        system = chat_requests(server)[-1]["messages"][0]["content"]
        assert all(f"- {t}" in system for t in close)
        assert not any(t in system for t in far)  # below 0.5: not shown although among 8 nearest
        for i in range(10):
            mem.add(f"User enjoys hiking trips in the mountains, trip {i}", "u1")
        server.enqueue_chat("NOTHING")
        exchange(mem, "I love hiking trips in the mountains", "Sounds great!")
        system = chat_requests(server)[-1]["messages"][0]["content"]
        shown = [line for line in system.splitlines() if line.startswith("- User")]
        assert len(shown) == 8 and all("hiking" in line for line in shown)


def test_the_10_newest_are_used_when_retrieval_raises(db_path: str, server: ScriptedServer) -> None:
    with Memory(
        db_path,
        preset="llm-managed",
        embedder="openai",
        embedder_base_url=server.url,
        embed_max_retries=0,
    ) as mem:
        added = [mem.add(f"memory {i} about topic {i}", "u1").content for i in range(12)]
        server.when(lambda r: r.path.endswith("/embeddings"), status=503)
        bundle = mem.context("what about topic 3?", "u1")  # the query cannot be embedded
        assert [i.content for i in bundle.hits()] == added[::-1][:10]
        assert bundle.render().startswith("## Relevant memory\n- memory 11 about topic 11")


def test_startup_sync_reembeds_and_repairs(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    with Memory(path, **PRESET) as mem:
        assert mem.settings.reembed_on_open and mem.settings.repair_on_open
        pizza = mem.add("Ann loves pizza", "u1")
        olives = mem.add("Ann hates olives", "u1")
    con = sqlite3.connect(path)
    with con:  # a vector lost (the seed: a Chroma write that failed)
        con.execute("UPDATE memories SET embedding = NULL, embedder = NULL WHERE id = ?",
                    (olives.id,))  # fmt: skip
    con.close()
    with Memory(path, **PRESET) as mem:  # repaired on open
        assert mem.search("Ann hates olives", "u1")[0].id == olives.id
    # another embedding model: re-embedded on open instead of a SchemaError
    with Memory(path, **PRESET, embedder_dim=256) as mem:
        assert mem.search("Ann loves pizza", "u1")[0].id == pizza.id
        assert mem.store.search.embedders_in_use() == ["hashing:256"]


def test_the_extractor_sees_the_assistant_reply_through_the_proxy(
    db_path: str, server: ScriptedServer
) -> None:
    up = {"upstream_base_url": server.url, "llm_base_url": server.url, "llm_max_retries": 0}
    with served(db_path, preset="llm-managed", **up) as (_, client):
        server.enqueue_chat("Dogs cope fine for a few hours.")  # the upstream's answer
        server.enqueue_chat("User works as a nurse.")  # the extractor's answer
        question = {"role": "user", "content": "I am a nurse, is my dog OK alone?"}
        body = {"model": "m", "user": "u1", "memory_id": "s1", "messages": [question]}
        r = client.post("/v1/chat/completions", json=body)
        assert r.status_code == 200
        assert r.json()["choices"][0]["message"]["content"].startswith("Dogs cope")
        deadline = time.monotonic() + 15
        while len(chat_requests(server)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the server's worker runs the facts job
        system = chat_requests(server)[1]["messages"][0]["content"]
        assert "User: I am a nurse, is my dog OK alone?" in system
        assert "Assistant: Dogs cope fine for a few hours." in system
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            found = client.get("/v1/memories", params={"user_id": "u1"}).json()["data"]
            if found:
                break
            time.sleep(0.05)
        assert [m["content"] for m in found] == ["User works as a nurse."]


def test_an_extraction_failure_is_caught_and_stores_nothing(
    db_path: str, server: ScriptedServer
) -> None:
    with Memory(db_path, **PRESET, llm_base_url=server.url, llm_max_retries=0) as mem:
        server.enqueue(status=500)
        exchange(mem, "I live in Paris. I have two cats.", "Nice!")
        assert facts(mem) == []  # no rule fallback in this preset
        [job] = mem.store.jobs.list_jobs()
        assert job.status == "done" and job.last_error is None  # best-effort: no crash
        con = sqlite3.connect(mem.store.location)
        try:
            notes = [n for (n,) in con.execute("SELECT note FROM fact_runs")]
        finally:
            con.close()
        assert any("LLM failed" in (n or "") and "nothing" in (n or "") for n in notes)
