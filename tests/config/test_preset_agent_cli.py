"""Seed 002 (`agent-cli`) as its document states it: dense candidates ``top_k x 3`` per scope
and no BM25, scopes = the conversation plus ``global``, relevance = the cosine or
sigmoid(reranker logit) with the .35 threshold on it, ``memory_top_k <= 0`` forwarding the
request unchanged, the "no additions -> add the originals" safeguard, eviction out of the index
and the Markdown files, and the file store on. LLM behaviour comes from the scripted server."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import openai
import pytest
from api_support import served
from rerank_support import WORD, build_tiny_cross_encoder
from scripted_server import ScriptedServer

from mnemo import Memory, Settings

AGENT: dict[str, Any] = {"embedder": "hashing", "preset": "agent-cli"}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def say(mem: Memory, texts: list[str], user: str = "u1", session: str = "c1") -> list[str]:
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t,
         "created_at": f"2024-01-01T00:{i:02d}:00"}
        for i, t in enumerate(texts)
    ]  # fmt: skip
    return mem.add_messages(turns, user_id=user, session_id=session)


def md_files(root: Path, under: str) -> list[Path]:
    return sorted((root / under).rglob("*.md")) if (root / under).exists() else []


def test_dense_pool_of_top_k_x_3_per_scope_without_bm25() -> None:
    s = Settings(preset="agent-cli")
    assert s.lexical_weight == 0.0 and s.fusion == "cosine"  # no BM25 side at all
    for top_k in (1, 5, 10, 40):
        assert max(top_k * s.pool_factor, s.min_pool) == top_k * 3  # n_results = top_k * 3


def test_scopes_are_the_conversation_and_global_only(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "m.db"), **AGENT, fact_extraction="off") as mem:
        say(mem, ["my beagle Biscuit loves the beach"], session="c1")
        say(mem, ["my beagle Biscuit hates the rain"], session="c2")  # same user, other chat
        mem.add("the beagle Biscuit club meets on Sundays", user_id="global")
        hits = mem.search("beagle Biscuit", user_id="u1", session_id="c1")
        found = {h.content for h in hits}
        assert found == {"my beagle Biscuit loves the beach",
                         "the beagle Biscuit club meets on Sundays"}  # fmt: skip
        assert all("lexical" not in h.scores for h in hits)


def test_the_threshold_filters_on_the_cosine_without_a_reranker(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "m.db"), **AGENT, fact_extraction="off") as mem:
        say(mem, ["I adopted a beagle called Biscuit", "Weather is nice today"])
        query = "beagle called Biscuit"
        hits = mem.search(query, user_id="u1", session_id="c1", explain=True)
        assert [h.content for h in hits] == ["I adopted a beagle called Biscuit"]
        va, vb = mem.embedder.embed([query, hits[0].content])
        assert hits[0].scores["fused"] == pytest.approx(float(np.dot(va, vb)), abs=1e-5)
        vq, vw = mem.embedder.embed([query, "Weather is nice today"])
        assert float(np.dot(vq, vw)) < 0.35  # the weather turn fell below .35 on the cosine


@pytest.mark.slow
@pytest.mark.local_extra("sentence_transformers", "transformers", "torch")
def test_relevance_is_the_sigmoid_of_the_reranker_logit(tmp_path: Path) -> None:
    model = tmp_path / "ce"
    build_tiny_cross_encoder(model, bias=-1.0)  # no "pizza": logit ~-1.5, sigmoid ~.18
    turns = ["i love pizza", "pizza with cheese on weekends", "i like my guitar", "i play music"]
    with Memory(
        str(tmp_path / "m.db"),
        **AGENT,
        fact_extraction="off",
        min_similarity=-1.0,
        reranker="cross-encoder",
        reranker_model=str(model),
    ) as mem:
        say(mem, turns)
        hits = mem.search("what do i like", user_id="u1", session_id="c1", explain=True)
        assert {h.content for h in hits} == {t for t in turns if WORD in t}  # .18 < .35: out
        for h in hits:
            assert h.scores["fused"] == pytest.approx(1 / (1 + math.exp(-h.scores["rerank"])))
            assert h.scores["fused"] >= 0.35


def test_memory_top_k_0_sends_the_request_upstream_unchanged(
    db_path: str, server: ScriptedServer
) -> None:
    with served(db_path, upstream_base_url=server.url, preset="agent-cli") as (srv, http):
        cello = [{"role": "user", "content": "I play the cello"}]
        http.post("/v1/messages", json={"user_id": "u1", "session_id": "c1", "messages": cello})
        client = openai.OpenAI(base_url=srv.url + "/v1", api_key="x")
        messages = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "what instrument do I play? cello"},
        ]
        reply = client.chat.completions.with_raw_response.create(
            model="m", messages=messages, user="u1",  # type: ignore[arg-type]
            extra_body={"memory_id": "c1", "memory_top_k": 0},
        )  # fmt: skip
        sent = chat_requests(server)[0]
        assert sent["messages"] == messages  # not "Current message: ..."
        assert not {"memory_id", "memory_top_k"} & set(sent)
        assert json.loads(reply.text)["memory_hits"] == []


def test_a_none_only_answer_adds_the_originals(tmp_path: Path, server: ScriptedServer) -> None:
    with Memory(
        str(tmp_path / "m.db"),
        **AGENT,
        llm_base_url=server.url,
        llm_max_retries=0,
        profile_enabled=False,
        rolling_summary_enabled=False,
    ) as mem:
        rex = mem.add("User has a dog named Rex", "u1", session_id="c1")
        server.enqueue_chat(json.dumps({"facts": ["User's dog Rex is a beagle."]}))
        server.enqueue_chat(json.dumps({"decisions": [{"event": "NONE", "id": 0}]}))
        mem.add_messages([{"role": "user", "content": "My dog Rex is a beagle."}], "u1", "c1")
        mem.drain()
        assert len(chat_requests(server)) == 2  # extraction, then reconciliation
        assert sorted(m.content for m in mem.list("u1", kind="fact")) == [
            "User has a dog named Rex",
            "User's dog Rex is a beagle.",
        ]
        assert [h.event for h in mem.history(rex.id)] == ["ADD"]


def test_eviction_takes_the_oldest_out_of_the_index_and_the_files(tmp_path: Path) -> None:
    files = tmp_path / "files"
    kw = {**AGENT, "fact_extraction": "off", "rolling_summary_enabled": False}
    texts = [f"entry {i} about the lighthouse keeper" for i in range(8)]
    with Memory(str(tmp_path / "m.db"), **kw, max_entries=5, files_dir=str(files)) as mem:
        ids = say(mem, texts)
        assert len(md_files(files, "entries")) == 8
        mem.drain()
        live = {h.id for h in mem.search("lighthouse keeper", "u1", "c1", limit=20)}
        assert live == set(ids[3:])  # the 3 oldest left the index
        on_disk = md_files(files, "entries")
        assert len(on_disk) == 5 and not any(i in p.name for p in on_disk for i in ids[:3])
        assert {p.name.split("__")[1][:-3] for p in md_files(files, "deleted")} == set(ids[:3])
        log = mem.messages("u1", session_id="c1", limit=20)  # the event log keeps every turn
        assert len(log) == 8 and sum(m.evicted_at is not None for m in log) == 3
    with Memory(str(tmp_path / "m.db"), **kw, max_entries=5, files_dir=str(files)) as mem:
        assert len(md_files(files, "entries")) == 5  # the startup reconcile does not restore them


def test_the_file_store_is_on_beside_the_database(tmp_path: Path) -> None:
    db = tmp_path / "mem.db"
    with Memory(str(db), **AGENT, fact_extraction="off") as mem:
        assert mem.settings.files_root == str(tmp_path / "mem-files")
        [tid] = mem.add_messages([{"role": "user", "content": "hello files"}], "u1", "c1")
        [path] = md_files(tmp_path / "mem-files", "entries")
        assert tid in path.name and path.read_text(encoding="utf-8").endswith("hello files\n")
    with Memory(str(tmp_path / "off.db"), **AGENT, files_enabled=False) as mem:
        assert mem.settings.files_root is None
    assert not (tmp_path / "off-files").exists()
    custom = Settings(preset="agent-cli", path=str(db), files_dir=str(tmp_path / "x"))
    assert custom.files_root == str(tmp_path / "x")
    assert Settings(path=str(db)).files_root is None  # the default preset: off
