"""mnemo.integrations.langchain with the real langchain-core, on SQLite and PostgreSQL: the
retriever's documents and their metadata, its scopes and filters, the async path, the
remember/recall tools, and a scripted tool-calling agent that remembers across threads."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
)
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool

from mnemo import AsyncMemory, Memory
from mnemo.integrations.langchain import MnemoRetriever, memory_tools

METADATA_KEYS = {
    "id", "kind", "score", "relevance", "calibrated", "scores", "created_at", "user_id",
    "session_id", "agent_id", "role", "name", "source_message_ids",
}  # fmt: skip


def test_import_mnemo_does_not_import_langchain() -> None:
    code = "import sys, mnemo; print(sorted(m for m in sys.modules if 'langchain' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_retriever_returns_documents_with_scores_and_provenance(mem: Memory) -> None:
    turns = mem.add_messages(
        [{"role": "user", "content": "My sister Ana lives in Lisbon", "name": "bo"}],
        "u1",
        session_id="s1",
    )
    fact = mem.add("The user is allergic to peanuts", "u1", source_message_ids=turns)
    docs = MnemoRetriever(memory=mem, user_id="u1").invoke("peanuts allergy")
    assert all(isinstance(d, Document) for d in docs)
    top = docs[0]
    assert top.page_content == "The user is allergic to peanuts"
    assert set(top.metadata) == METADATA_KEYS
    hit = mem.search("peanuts allergy", "u1")[0]
    assert top.metadata["id"] == fact.id == hit.id
    assert top.metadata["kind"] == "fact"
    assert top.metadata["score"] == pytest.approx(hit.score)
    assert top.metadata["scores"] == pytest.approx(hit.scores)
    assert "final" in top.metadata["scores"]
    assert top.metadata["source_message_ids"] == turns
    assert datetime.fromisoformat(top.metadata["created_at"]) == fact.created_at
    assert top.metadata["user_id"] == "u1" and top.metadata["agent_id"] is None
    turn = next(d for d in docs if d.metadata["kind"] == "message")
    assert turn.metadata["role"] == "user" and turn.metadata["name"] == "bo"
    assert turn.metadata["session_id"] == "s1"


def test_retriever_k_and_kinds(mem: Memory) -> None:
    for i in range(5):
        mem.add(f"The user owns bicycle number {i}", "u1")
    mem.add_messages([{"role": "user", "content": "I ride my bicycle daily"}], "u1")
    assert len(MnemoRetriever(memory=mem, user_id="u1", k=2).invoke("bicycle")) == 2
    facts = MnemoRetriever(memory=mem, user_id="u1", kinds=["fact"]).invoke("bicycle")
    assert facts and {d.metadata["kind"] for d in facts} == {"fact"}


def test_retriever_respects_agent_scope_and_filters(mem: Memory) -> None:
    mem.add("The user prefers window seats", "u1", metadata={"topic": "travel"})
    mem.add("Booking code for the flight is XJ42", "u1", agent_id="travel-bot")
    mem.add("The flight budget is 300 euros", "u1", agent_id="budget-bot")
    travel = MnemoRetriever(memory=mem, user_id="u1", agent_id="travel-bot").invoke("flight")
    texts = {d.page_content for d in travel}
    assert "Booking code for the flight is XJ42" in texts
    assert "The flight budget is 300 euros" not in texts
    assert "The user prefers window seats" in texts
    private = next(d for d in travel if d.page_content.startswith("Booking"))
    assert private.metadata["agent_id"] == "travel-bot"
    filtered = MnemoRetriever(
        memory=mem, user_id="u1", filters={"topic": "travel"}, kinds=["fact"]
    ).invoke("seats flight")
    assert [d.page_content for d in filtered] == ["The user prefers window seats"]


def test_async_retriever_with_memory_and_async_memory(mem: Memory) -> None:
    mem.add("The user's dog is called Rex", "u1")

    async def run() -> tuple[list[Document], list[Document]]:
        on_thread = await MnemoRetriever(memory=mem, user_id="u1").ainvoke("dog name")
        amem = AsyncMemory.wrap(mem)
        try:
            awaited = await MnemoRetriever(memory=amem, user_id="u1").ainvoke("dog name")
        finally:
            await amem.close()  # closes mem too; the fixture closing it again is a no-op
        return on_thread, awaited

    on_thread, awaited = asyncio.run(run())
    assert on_thread[0].page_content == awaited[0].page_content == "The user's dog is called Rex"
    assert on_thread[0].metadata["id"] == awaited[0].metadata["id"]
    assert set(awaited[0].metadata) == METADATA_KEYS


def test_tools_store_and_recall(mem: Memory) -> None:
    remember, recall = memory_tools(mem, "u1")
    assert (remember.name, recall.name) == ("remember", "recall")
    assert set(remember.args) == {"content", "kind"} and set(recall.args) == {"query", "k"}
    assert remember.description and recall.description
    out = remember.invoke({"content": "The user plays the cello", "kind": "note"})
    item = mem.list("u1")[0]
    assert item.content == "The user plays the cello" and item.kind == "note"
    assert item.id in out
    text = recall.invoke({"query": "cello", "k": 3})
    assert "The user plays the cello" in text and item.id in text and "[note," in text
    assert recall.invoke({"query": "cello", "k": 3}).count("\n") <= 2
    assert MnemoRetriever(memory=mem, user_id="u2").invoke("cello") == []
    assert memory_tools(mem, "u2")[1].invoke({"query": "cello"}) == "No memories found."
    with pytest.raises(ValueError, match="kind"):  # the schema refuses it; nothing is stored
        remember.invoke({"content": "x", "kind": "preference"})
    assert mem.count("u1") == 1


def test_tools_with_agent_scope_and_async(mem: Memory) -> None:
    remember, recall = memory_tools(mem, "u1", agent_id="coach")

    async def run() -> str:
        await remember.ainvoke({"content": "Runs 10k every Sunday"})
        return str(await recall.ainvoke({"query": "Sunday run"}))

    assert "Runs 10k every Sunday" in asyncio.run(run())
    (item,) = mem.list("u1")
    assert item.agent_id == "coach"
    other = memory_tools(mem, "u1", agent_id="chef")[1]
    assert other.invoke({"query": "Sunday run"}) == "No memories found."


def tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    """A scripted model turn that calls one tool."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def run_agent(model: Any, tools: list[BaseTool], user_text: str) -> list[BaseMessage]:
    """A minimal tool-calling loop: call the model, run the tools it asks for, feed the
    results back, until it answers without tool calls."""
    by_name = {t.name: t for t in tools}
    messages: list[BaseMessage] = [HumanMessage(user_text)]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        for call in reply.tool_calls:
            result = by_name[call["name"]].invoke(call["args"])
            messages.append(ToolMessage(str(result), tool_call_id=call["id"]))


def test_tool_calling_agent_remembers_across_threads(open_mem: Callable[..., Memory]) -> None:
    model = FakeMessagesListChatModel(
        responses=[
            tool_call("remember", {"content": "The user's favourite color is teal"}, "c1"),
            AIMessage(content="Noted: teal."),
            tool_call("recall", {"query": "favourite color"}, "c2"),
            AIMessage(content="Your favourite color is teal."),
        ]
    )
    # thread 1 and thread 2 each open the store afresh: nothing is shared but the store
    first = run_agent(model, memory_tools(open_mem(), "u1"), "My favourite color is teal")
    assert isinstance(first[2], ToolMessage) and "Remembered" in str(first[2].content)
    second = run_agent(model, memory_tools(open_mem(), "u1"), "What is my favourite color?")
    recalled = second[2]
    assert isinstance(recalled, ToolMessage)
    assert "The user's favourite color is teal" in str(recalled.content)
    assert second[-1].content == "Your favourite color is teal."
