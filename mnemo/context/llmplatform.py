"""`llmplatform`'s context: the MemoryAgent's bundle and the WriterAgent's prompt cut from it.

The seed's MemoryAgent gathers, for ``use_memory=true``:

* ``context``: the top-8 messages by cosine over >= 0.45 (:data:`SIMILAR`), each with its
  ``similarity`` (the cosine itself, 0.45-1.0), whole;
* ``recent_messages``: the last 6 Q&A pairs of the session (:data:`RECENT_PAIRS`), whole;
* ``summaries``: the 3 newest session summaries (:data:`SUMMARIES`), whole;
* ``memories``: 8 user key/value facts (:data:`MEMORIES`) with ``updated_at`` and
  ``tokenCount``;
* ``query_embedding_dim``: the size of the query's embedding.

That JSON is the request's ``data`` (``ContextBundle.data``, ``memory_context`` of ``POST
/query``); it is not cut to the token budget. The WriterAgent's prompt takes from it, in this
order: history 10 x 200 chars, summaries 3 x 240, facts 5 in full, similar messages 4 x 200
with their score, recent turns 6 x 180, location, the query.
"""

from __future__ import annotations

from typing import Any

from mnemo.context.items import (
    ContextRequest,
    clip,
    hit_item,
    memory_items,
    profile_items,
    search,
    section,
    turn_items,
)
from mnemo.context.source import ContextSource
from mnemo.context.tokens import TokenCounter
from mnemo.schemas import ContextItem, ContextSection, Hit

#: MemoryAgent: similar messages, recent Q&A pairs, summaries and user memories it gathers.
SIMILAR, RECENT_PAIRS, SUMMARIES, MEMORIES = 8, 6, 3, 8
#: WriterAgent: (items, characters per item) of each prompt section; None keeps items whole.
HISTORY, PROMPT_SUMMARIES, PROMPT_FACTS = (10, 200), (3, 240), (5, None)
PROMPT_SIMILAR, PROMPT_RECENT = (4, 200), (6, 180)


def _when(item: ContextItem) -> str | None:
    return item.created_at.isoformat() if item.created_at else None


def user_memories(source: ContextSource, req: ContextRequest, limit: int) -> list[ContextItem]:
    """The user's key/value facts: stage-1 profile facts, then the newest fact memories."""
    facts = profile_items(source, limit)
    if len(facts) < limit:
        facts += memory_items(source, "fact", limit - len(facts))
    return facts


def memory_json(item: ContextItem, count: TokenCounter) -> dict[str, Any]:
    """One entry of ``memories``: ``key``, ``value``, ``updated_at`` and ``tokenCount`` (the
    value's tokens), plus the row's ``id``. A fact memory has no key: its text is the value."""
    key = item.metadata.get("key") if item.kind == "profile" else None
    value = str(item.metadata.get("value", item.content)) if key else item.content
    when = item.updated_at or item.created_at
    return {"key": key, "value": value, "updated_at": when.isoformat() if when else None,
            "tokenCount": count(value), "id": item.id}  # fmt: skip


def context_json(hit: Hit) -> dict[str, Any]:
    """One entry of ``context``: role, content, similarity (the cosine), timestamp, session."""
    return {
        "id": hit.id,
        "kind": hit.kind,
        "role": hit.role,
        "content": hit.content,
        "similarity": round(hit.score, 4),
        "timestamp": hit.created_at.isoformat(),
        "session_id": hit.session_id,
    }


def summary_json(item: ContextItem) -> dict[str, Any]:
    """One entry of ``summaries``: session, whole summary, message count, model, timestamp."""
    return {
        "session_id": item.session_id,
        "summary": item.content,
        "message_count": item.metadata.get("message_count"),
        "model": item.metadata.get("model"),
        "timestamp": _when(item),
    }


def agent_bundle(
    source: ContextSource,
    hits: list[Hit],
    recent: list[ContextItem],
    summaries: list[ContextItem],
    memories: list[ContextItem],
) -> dict[str, Any]:
    """The seed's ``memory_context`` JSON from what the MemoryAgent gathered, all whole."""
    count = source.token_counter()
    return {
        "context": [context_json(h) for h in hits],
        "recent_messages": [
            {"role": i.role, "content": i.content, "timestamp": _when(i)} for i in recent
        ],
        "summaries": [summary_json(i) for i in summaries],
        "memories": [memory_json(i, count) for i in memories],
        "query_embedding_dim": source.embedding_dim,
    }


def _cut(items: list[ContextItem], limit: tuple[int, int | None]) -> list[ContextItem]:
    """The first ``limit[0]`` items, each cut to ``limit[1]`` characters."""
    n, chars = limit
    return [i.model_copy(update={"content": clip(i.content, chars)}) for i in items[:n]]


def gather(source: ContextSource, req: ContextRequest) -> list[ContextSection]:
    """The MemoryAgent's bundle (into ``req.data``) and the WriterAgent's prompt sections."""
    history: list[ContextItem] = []
    if req.options.include_history:
        history = turn_items(source, req.session_id, HISTORY[0], HISTORY[1])
    top_k = req.options.top_k or source.settings.search_limit
    hits = search(source, req, top_k, ["message"]) if req.query.strip() else []
    recent = turn_items(source, req.session_id, 2 * RECENT_PAIRS)
    summaries = memory_items(source, "summary", SUMMARIES)
    memories = user_memories(source, req, MEMORIES)
    req.data = agent_bundle(source, hits, recent, summaries, memories)
    similar = [hit_item(h, PROMPT_SIMILAR[1]) for h in hits[: PROMPT_SIMILAR[0]]]
    location = (
        [ContextItem(kind="location", content=req.options.location)] if req.options.location else []
    )
    return [
        section("history", "Recent conversation history", history),
        section("summaries", "Session summaries", _cut(summaries, PROMPT_SUMMARIES)),
        section("facts", "Stored user facts", _cut(memories, PROMPT_FACTS)),
        section("similar", "Semantically similar messages", similar),
        section("recent", "Recent turns", _cut(recent[-PROMPT_RECENT[0] :], PROMPT_RECENT)),
        section("location", "User location", location),
        section("query", "Current message", [ContextItem(kind="query", content=req.query)]),
    ]


__all__ = [
    "MEMORIES",
    "RECENT_PAIRS",
    "SIMILAR",
    "SUMMARIES",
    "agent_bundle",
    "context_json",
    "gather",
    "memory_json",
    "summary_json",
    "user_memories",
]
