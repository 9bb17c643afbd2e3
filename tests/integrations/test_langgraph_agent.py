"""A LangGraph agent that remembers across threads through MnemoStore, on SQLite and
PostgreSQL: a real ``StateGraph`` with a checkpointer, a scripted chat model (LangChain's fake
models: no network), nodes reaching the store through LangGraph's ``Runtime``. What the user
says in one thread is written to the store; in another thread the memory is found by semantic
search and reaches the model's prompt. The same graph runs with ``ainvoke`` on an
AsyncMnemoStore."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from mnemo import AsyncMemory, Memory
from mnemo.integrations.langgraph import AsyncMnemoStore, MnemoStore


class RecordingModel(FakeMessagesListChatModel):
    """A scripted chat model that also keeps every prompt it was given."""

    prompts: list[list[BaseMessage]] = []  # noqa: RUF012 - a pydantic field: copied per instance

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def build_graph(model: RecordingModel, user: str) -> Any:
    """remember -> respond: the first node stores what the user says when it starts with
    "remember", the second recalls memories for the last message and answers."""

    def remember(state: MessagesState, runtime: Runtime) -> dict[str, Any]:
        store = runtime.store
        assert store is not None
        text = str(state["messages"][-1].content)
        if text.lower().startswith("remember"):
            n = len(store.search(("memories", user), limit=100))
            store.put(("memories", user), f"m{n}", {"text": text.split(":", 1)[1].strip()})
        return {}

    def respond(state: MessagesState, runtime: Runtime) -> dict[str, Any]:
        store = runtime.store
        assert store is not None
        found = store.search(("memories", user), query=str(state["messages"][-1].content))
        known = "\n".join(f"- {item.value['text']}" for item in found[:3])
        prompt = [SystemMessage(f"What you know about the user:\n{known}"), *state["messages"]]
        return {"messages": [model.invoke(prompt)]}

    graph = StateGraph(MessagesState)
    graph.add_node("remember", remember)
    graph.add_node("respond", respond)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "respond")
    return graph


def script() -> RecordingModel:
    return RecordingModel(
        responses=[AIMessage("Noted: a beagle called Biscuit."), AIMessage("Biscuit!")],
        prompts=[],
    )


def converse(graph: Any, store: BaseStore, model: RecordingModel) -> None:
    app = graph.compile(store=store, checkpointer=InMemorySaver())
    first = {"configurable": {"thread_id": "thread-1"}}
    app.invoke({"messages": [HumanMessage("Remember: I adopted a beagle called Biscuit")]}, first)
    app.invoke({"messages": [HumanMessage("Remember: I work as a nurse in Porto")]}, first)
    second = {"configurable": {"thread_id": "thread-2"}}
    out = app.invoke({"messages": [HumanMessage("What is my dog called?")]}, second)
    assert out["messages"][-1].content in {"Noted: a beagle called Biscuit.", "Biscuit!"}
    assert len(out["messages"]) == 2  # a new thread: nothing of thread 1 in its state


def test_an_agent_remembers_across_threads(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    store = MnemoStore(mem, index={"fields": ["text"]})
    model = script()
    converse(build_graph(model, "ann"), store, model)
    last = model.prompts[-1]
    assert isinstance(last[0], SystemMessage)
    memories = str(last[0].content).splitlines()[1:]
    assert memories[0] == "- I adopted a beagle called Biscuit"  # found first, in thread 2
    assert [m.content for m in last[1:]] == ["What is my dog called?"]
    stored = sorted(i.key for i in store.search(("memories", "ann")))
    assert stored == ["m0", "m1"]
    assert mem.count("langgraph") == 2  # mnemo memories, visible to mnemo's API and UI


def test_the_same_agent_async_on_an_async_store(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    model = script()
    graph = build_graph(model, "bo")

    async def body() -> None:
        store = AsyncMnemoStore(AsyncMemory.wrap(mem), index={"fields": ["text"]})
        app = graph.compile(store=store, checkpointer=InMemorySaver())
        one = {"configurable": {"thread_id": "a"}}
        await app.ainvoke({"messages": [HumanMessage("Remember: I am allergic to peanuts")]}, one)
        two = {"configurable": {"thread_id": "b"}}
        await app.ainvoke({"messages": [HumanMessage("Any food allergies?")]}, two)

    asyncio.run(body())
    assert "- I am allergic to peanuts" in str(model.prompts[-1][0].content)
