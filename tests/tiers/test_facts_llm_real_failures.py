"""The fact tier against what a real small model answered (Qwen2.5-Coder-0.5B-Instruct behind
llama.cpp's server, bench/llm_facts.py), replayed by the scripted server on both backends.

Seen there, each reproduced here: an answer that ran on until the request timed out (now a
JSON Schema and a token budget go with every JSON call), an answer cut at ``max_tokens`` twice
(rules take over, logged), the prompt's own examples copied as facts, facts invented from small
talk, the reconciliation example copied verbatim ("User ..."), which used to swallow the new
facts, and an UPDATE that rewrote an unrelated fact.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from scripted_server import ScriptedServer, chat_body

from mnemo import Memory
from mnemo.tiers.conversation.profile import PROFILE_TOKENS
from mnemo.tiers.facts.llm import FACT_TOKENS, SLACK

FACTS_ONLY: dict[str, Any] = {"profile_enabled": False, "episodes_enabled": False}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def llm_mem(open_mem: Callable[..., Memory], server: ScriptedServer) -> Memory:
    return open_mem(llm_base_url=server.url, llm_max_retries=0, **FACTS_ONLY)


def answer(server: ScriptedServer, data: Any) -> None:
    server.enqueue_chat(json.dumps(data))


def chats(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def say(mem: Memory, text: str) -> list[str]:
    ids = mem.add_messages([{"role": "user", "content": text}], "u1", "s1")
    mem.drain()
    return ids


def facts(mem: Memory) -> list[str]:
    return sorted(m.content for m in mem.list("u1", kind="fact"))


def test_extraction_sends_its_json_schema_and_a_token_budget(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    answer(server, {"facts": ["User teaches math in Leeds."]})
    say(llm_mem, "I teach math in Leeds.")
    [req] = chats(server)
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "facts"
    assert fmt["json_schema"]["schema"]["properties"]["facts"]["maxItems"] == 3
    assert req["max_tokens"] == SLACK + 3 * FACT_TOKENS  # a run-on answer is cut here
    assert facts(llm_mem) == ["User teaches math in Leeds."]


def test_reconciliation_sends_its_json_schema_and_a_token_budget(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    llm_mem.add("User lives in Paris", "u1")
    answer(server, {"facts": ["User lives in Berlin."]})
    answer(server, {"decisions": [{"event": "UPDATE", "id": 0, "text": "User lives in Berlin."}]})
    say(llm_mem, "I live in Berlin now.")
    _, req = chats(server)
    schema = req["response_format"]["json_schema"]["schema"]
    event = schema["properties"]["decisions"]["items"]["properties"]["event"]
    assert event["enum"] == ["ADD", "UPDATE", "DELETE", "NONE"]
    assert req["max_tokens"] == SLACK + 2 * FACT_TOKENS  # one new fact, one shown
    assert facts(llm_mem) == ["User lives in Berlin."]


def test_an_answer_cut_at_max_tokens_twice_falls_back_to_rules_logged(
    llm_mem: Memory, server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    cut = '{"facts": ["User teaches math in Leeds", "User is training for a tri'
    server.when(lambda r: True, json=chat_body(cut, finish_reason="length"))
    with caplog.at_level(logging.INFO):
        say(llm_mem, "I teach math in Leeds and I am training for a triathlon.")
    assert len(chats(server)) == 2  # the answer, then one repair request, both cut
    stored = llm_mem.list("u1", kind="fact")
    assert stored and all(m.metadata["extracted_by"] == "rules" for m in stored)
    text = caplog.text
    assert "stopped at max_tokens" in text and "fact extraction fell back to rules" in text


def test_the_prompts_examples_copied_as_facts_are_dropped(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    answer(
        server,
        {"facts": ["User lives in Lyon.", "User's daughter is called Mia.",
                   "User has their own dance studio."]},
    )  # fmt: skip
    say(llm_mem, "Dancing is second nature to me. I'm living my dream with my own dance studio.")
    assert facts(llm_mem) == ["User has their own dance studio."]


def test_the_prompts_example_is_dropped_even_when_the_message_shares_a_word(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    answer(server, {"facts": ["User lives in Lyon."]})  # "live" is in the message
    say(llm_mem, "It's so freeing to just be yourself and live honestly.")
    assert not [f for f in facts(llm_mem) if "Lyon" in f]  # the rules may read the turn


def test_facts_invented_from_small_talk_are_dropped(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    answer(
        server,
        {"facts": ["User is currently working on a project.",
                   "User is having a meeting with their family."]},
    )  # fmt: skip
    say(llm_mem, "Hi! How are you today?")
    assert facts(llm_mem) == []


def test_the_reconciliation_example_copied_verbatim_keeps_the_new_facts(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    llm_mem.add("User teaches math in Leeds", "u1")
    answer(server, {"facts": ["User's husband Raj is a pilot."]})
    copied = [
        {"event": "ADD", "text": "User ..."},
        {"event": "UPDATE", "id": 0, "text": "User ..."},
        {"event": "DELETE", "id": 1},
        {"event": "NONE", "id": 2},
    ]
    answer(server, {"decisions": copied})
    say(llm_mem, "My husband Raj is a pilot.")
    assert facts(llm_mem) == ["User teaches math in Leeds", "User's husband Raj is a pilot."]


def test_an_update_of_an_unrelated_fact_is_added_instead(
    llm_mem: Memory, server: ScriptedServer
) -> None:
    math = llm_mem.add("User teaches math in Leeds", "u1").id
    answer(server, {"facts": ["User's husband Raj is a pilot."]})
    answer(
        server,
        {"decisions": [{"event": "UPDATE", "id": 0, "text": "User's husband Raj is a pilot."}]},
    )
    say(llm_mem, "My husband Raj is a pilot.")
    assert facts(llm_mem) == ["User teaches math in Leeds", "User's husband Raj is a pilot."]
    assert [h.event for h in llm_mem.history(math)] == ["ADD"]  # never rewritten


def test_profile_extraction_sends_its_schema_and_drops_invented_values(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(llm_base_url=server.url, llm_max_retries=0, fact_extraction="off",
                   episodes_enabled=False)  # fmt: skip
    invented = {"category": "identity", "key": "occupation", "value": "software engineer",
                "confidence": 0.9, "importance": 0.8}  # fmt: skip
    stated = {"category": "identity", "key": "location", "value": "Leeds",
              "confidence": 1.0, "importance": 0.8}  # fmt: skip
    answer(server, {"facts": [invented, stated]})
    say(mem, "Hi! I live in Leeds, how are you today?")
    [req] = chats(server)
    schema = req["response_format"]["json_schema"]
    assert schema["name"] == "profile" and schema["schema"]["properties"]["facts"]["maxItems"] == 8
    assert req["max_tokens"] == PROFILE_TOKENS
    assert [(f.key, f.value) for f in mem.profile("u1")] == [("location", "Leeds")]


def test_an_empty_answer_falls_back_to_rules_logged(
    llm_mem: Memory, server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    answer(server, {"facts": []})  # what small models often answer
    with caplog.at_level(logging.INFO):
        say(llm_mem, "I live in Leeds.")
    stored = llm_mem.list("u1", kind="fact")
    assert [m.content for m in stored] == ["User lives in Leeds"]
    assert stored[0].metadata["extracted_by"] == "rules"
    assert "the LLM found no fact" in caplog.text


def test_an_empty_single_answer_stays_empty(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(llm_base_url=server.url, llm_max_retries=0, fact_extraction="single",
                   fact_rule_fallback=True, **FACTS_ONLY)  # fmt: skip
    server.enqueue_chat("NOTHING")
    say(mem, "I live in Leeds.")
    assert facts(mem) == []  # NOTHING is the single mode's answer, not a failure
