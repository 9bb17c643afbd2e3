"""LangChain adapters over a :class:`mnemo.Memory`: a retriever and remember/recall tools.

Needs the ``langchain`` extra (``langchain-core``). :class:`MnemoRetriever` turns
``Memory.search`` hits into LangChain ``Document`` objects, scores and provenance in their
metadata; :func:`memory_tools` gives a tool-calling agent a ``remember`` and a ``recall``
tool. Both take a ``Memory`` or an :class:`~mnemo.memory.async_memory.AsyncMemory`: async
calls (``ainvoke``) await the ``AsyncMemory``, or run the sync call on a thread. See
docs/langchain.md.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from mnemo.memory.async_memory import AsyncMemory
from mnemo.memory.facade import Memory
from mnemo.schemas import Hit, MemoryKind
from mnemo.search_query import SearchQuery

__all__ = ["MnemoRetriever", "hit_document", "memory_tools"]


def _call(memory: Memory | AsyncMemory, method: str, /, **kwargs: Any) -> Any:
    """Call ``Memory.<method>`` synchronously (on the ``Memory`` an ``AsyncMemory`` wraps)."""
    sync = memory.sync if isinstance(memory, AsyncMemory) else memory
    return getattr(sync, method)(**kwargs)


async def _acall(memory: Memory | AsyncMemory, method: str, /, **kwargs: Any) -> Any:
    """Await ``Memory.<method>``: the ``AsyncMemory`` twin, else the sync call on a thread."""
    if isinstance(memory, AsyncMemory):
        return await getattr(memory, method)(**kwargs)
    return await asyncio.to_thread(getattr(memory, method), **kwargs)


def hit_document(hit: Hit) -> Document:
    """A LangChain ``Document`` for one search hit: ``page_content`` is the hit's text; the
    metadata carries ``id``, ``kind``, ``score``, ``relevance``, ``calibrated``, ``scores``
    (each stage's score), ``created_at`` (ISO 8601), ``user_id``, ``session_id``,
    ``agent_id``, ``role``, ``name`` and ``source_message_ids``."""
    return Document(
        page_content=hit.content,
        id=hit.id,
        metadata={
            "id": hit.id,
            "kind": hit.kind,
            "score": hit.score,
            "relevance": hit.relevance,
            "calibrated": hit.calibrated,
            "scores": dict(hit.scores),
            "created_at": hit.created_at.isoformat(),
            "user_id": hit.user_id,
            "session_id": hit.session_id,
            "agent_id": hit.agent_id,
            "role": hit.role,
            "name": hit.name,
            "source_message_ids": list(hit.source_message_ids),
        },
    )


class MnemoRetriever(BaseRetriever):
    """A LangChain retriever over mnemo's hybrid search: ``invoke(query)`` returns the ``k``
    best hits for ``user_id`` (narrowed by ``agent_id``, ``session_id``, ``filters`` in
    mem0's syntax and ``kinds``, as :meth:`mnemo.Memory.search` does) as ``Document`` objects
    (see :func:`hit_document`). ``memory`` may be a ``Memory`` or an ``AsyncMemory``.
    """

    memory: Memory | AsyncMemory
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    k: int = 10
    filters: dict[str, Any] | None = None
    kinds: list[str] | None = None

    def _search_args(self, query: str) -> dict[str, Any]:
        """The keyword arguments of the ``Memory.search`` call for ``query``: its one
        :class:`~mnemo.search_query.SearchQuery`."""
        q = SearchQuery.of(
            query, user_id=self.user_id, session_id=self.session_id, limit=self.k,
            kinds=self.kinds, agent_id=self.agent_id, filters=self.filters,
        )  # fmt: skip
        return {"query": q}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        """The hits for ``query`` as documents, best first."""
        hits: list[Hit] = _call(self.memory, "search", **self._search_args(query))
        return [hit_document(h) for h in hits]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        """The hits for ``query`` as documents, best first, without blocking the loop."""
        hits: list[Hit] = await _acall(self.memory, "search", **self._search_args(query))
        return [hit_document(h) for h in hits]


class RememberArgs(BaseModel):
    """Arguments of the ``remember`` tool."""

    content: str = Field(
        description="The fact to remember, as one self-contained sentence about the user "
        "(e.g. 'The user is allergic to peanuts')."
    )
    kind: MemoryKind = Field(
        default="fact",
        description="'fact' (a lasting fact or preference, the default), 'episode' (something "
        "that happened), 'note' (a remark to keep) or 'summary'.",
    )


class RecallArgs(BaseModel):
    """Arguments of the ``recall`` tool."""

    query: str = Field(description="What to look for in the user's memory, in plain words.")
    k: int = Field(default=5, ge=1, le=50, description="How many memories to return at most.")


def _recall_text(hits: list[Hit]) -> str:
    """The compact list ``recall`` returns: one line per hit, ``- [kind, date] text (id)``."""
    if not hits:
        return "No memories found."
    return "\n".join(
        f"- [{h.kind}, {h.created_at.date().isoformat()}] {h.content} (id {h.id})" for h in hits
    )


def memory_tools(
    memory: Memory | AsyncMemory, user_id: str, agent_id: str | None = None
) -> list[BaseTool]:
    """A ``remember`` and a ``recall`` tool for a tool-calling agent, both bound to
    ``user_id`` (and ``agent_id``: memories it stores are private to that agent, and it
    recalls the user's shared memories plus its own). ``remember`` returns the stored id;
    ``recall`` a compact text list of the best hits."""

    def remember_args(content: str, kind: MemoryKind = "fact") -> dict[str, Any]:
        return {"content": content, "user_id": user_id, "kind": kind, "agent_id": agent_id}

    def recall_args(query: str, k: int = 5) -> dict[str, Any]:
        return {"query": query, "user_id": user_id, "limit": k, "agent_id": agent_id}

    def remember(content: str, kind: MemoryKind = "fact") -> str:
        item = _call(memory, "add", **remember_args(content, kind))
        return f"Remembered (id {item.id})."

    async def aremember(content: str, kind: MemoryKind = "fact") -> str:
        item = await _acall(memory, "add", **remember_args(content, kind))
        return f"Remembered (id {item.id})."

    def recall(query: str, k: int = 5) -> str:
        return _recall_text(_call(memory, "search", **recall_args(query, k)))

    async def arecall(query: str, k: int = 5) -> str:
        return _recall_text(await _acall(memory, "search", **recall_args(query, k)))

    return [
        StructuredTool.from_function(
            func=remember, coroutine=aremember, name="remember", args_schema=RememberArgs,
            description="Store a lasting fact about the user (a preference, a detail of "
            "their life, an instruction) so it can be recalled in later conversations.",
        ),
        StructuredTool.from_function(
            func=recall, coroutine=arecall, name="recall", args_schema=RecallArgs,
            description="Search the user's long-term memory for what is relevant to a "
            "query; returns the best matches, one per line, with kind and date.",
        ),
    ]  # fmt: skip
