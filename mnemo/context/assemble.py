"""Context assembly: the memory a prompt gets for one query, within a token budget.

A *layout* per preset gathers sections, renders them and says which items go first when the
rendering exceeds the budget (items are dropped from the end of the sections in
``drop_order``, about as many as the excess needs, and the text measured again until it fits):

* ``topics`` (seed 004): the current topic's ``Topic summary:`` and recent messages
  (:mod:`mnemo.context.topics`).
* ``default``: ``# Long-term Memory`` with the user profile (stage 1), the
  relevant memories of the default search (the best measured pipeline; dated, most relevant
  first, as many as fill the budget) and the newest summaries, as a system message.
* ``llmplatform`` (seed 000): history 10 x 200 chars, summaries 3 x 240, facts 5 in full,
  similar messages 4 x 200 with their score, recent turns 6 x 180, location, then the query.
* ``llm-managed`` (seed 001): ``## Relevant memory`` in the system message; with <= 5 memories
  all of them and no retrieval; short first-person queries expanded; the 10 most recent
  memories when retrieval finds nothing.
* ``agent-cli`` (seed 002): the conversation summary, "Long-term memory (most relevant
  first)", then "Current message:", replacing the last user message.
* ``tiered`` (seed 003): ``# Long-term Memory``, ``## User Profile``, ``## Recent Context``
  (episodes with their turn range), ``# Recent Conversation``.

Profile facts come from ``Memory.profile`` and summaries/episodes from ``Memory.list``; a
section is simply empty when its data does not exist.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemo import validation as check
from mnemo.context import render
from mnemo.context import topics as topic_ctx
from mnemo.context.tokens import TokenCounter, token_counter
from mnemo.context.topics import gather_topics, render_topics
from mnemo.errors import ValidationError
from mnemo.schemas import MEMORY_KINDS, ContextBundle, ContextItem, ContextSection, Hit

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory

#: Budget tokens per hit fetched by the default layout (a dated hit averages ~30-45 tokens).
TOKENS_PER_HIT = 30
#: Text appended to short first-person queries before retrieval (seed 001).
EXPANSION = " height weight physical attributes user facts"
_FIRST_PERSON = (" i ", " my ", " me ", "am i", "do i", "what's my", "what is my")


@dataclass
class ContextRequest:
    """A validated context query and its retrieval options."""

    query: str
    user_id: str
    session_id: str | None
    budget_tokens: int
    location: str | None = None
    include_history: bool = True
    top_k: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)


Gather = Callable[["Memory", ContextRequest], list[ContextSection]]
Render = Callable[[list[ContextSection], ContextRequest], str]


@dataclass(frozen=True)
class Layout:
    """How one preset gathers, renders and trims its context."""

    gather: Gather
    render: Render
    drop_order: tuple[str, ...]
    placement: str = "system"


def clip(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis; unchanged when it fits or None."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def expand_query(query: str) -> str:
    """Seed 001's expansion: a first-person query of <= 100 chars gets :data:`EXPANSION`."""
    padded = f" {query.lower().strip()} "
    if 0 < len(query.strip()) <= 100 and any(p in padded for p in _FIRST_PERSON):
        return query + EXPANSION
    return query


def build_context(
    mem: Memory,
    query: str,
    user_id: str,
    session_id: str | None = None,
    budget_tokens: int = 1500,
    *,
    location: str | None = None,
    include_history: bool = True,
    top_k: int | None = None,
    recency_weight: float | None = None,
    score_threshold: float | None = None,
    counter: TokenCounter | None = None,
) -> ContextBundle:
    """Assemble the context of ``query`` for ``mem.settings.preset`` within ``budget_tokens``."""
    req = _request(query, user_id, session_id, budget_tokens, location, include_history, top_k)
    req.overrides = {
        k: v
        for k, v in (("recency_weight", recency_weight), ("score_threshold", score_threshold))
        if v is not None
    }
    layout = LAYOUTS.get(mem.settings.preset, LAYOUTS["default"])
    sections = layout.gather(mem, req)
    count = counter or token_counter(mem.embedder)
    text, tokens, dropped = fit(sections, layout, req, count)
    return ContextBundle(
        preset=mem.settings.preset,
        query=req.query,
        user_id=req.user_id,
        session_id=req.session_id,
        placement="user" if layout.placement == "user" else "system",
        sections=sections,
        text=text,
        token_count=tokens,
        budget_tokens=req.budget_tokens,
        dropped=dropped,
    )


def _request(
    query: Any,
    user_id: Any,
    session_id: Any,
    budget: Any,
    location: Any,
    include_history: bool,
    top_k: Any,
) -> ContextRequest:
    if not isinstance(query, str):
        raise ValidationError(f"query must be a string, got {type(query).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, int) or not 50 <= budget <= 1_000_000:
        raise ValidationError("budget_tokens must be an integer in [50, 1000000]")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)):
        raise ValidationError("top_k must be an integer")
    if location is not None and not isinstance(location, str):
        raise ValidationError("location must be a string")
    return ContextRequest(
        query=query,
        user_id=check.identifier(user_id, "user_id"),
        session_id=None if session_id is None else check.identifier(session_id, "session_id"),
        budget_tokens=budget,
        location=location,
        include_history=include_history,
        top_k=top_k,
    )


def fit(
    sections: list[ContextSection], layout: Layout, req: ContextRequest, count: TokenCounter
) -> tuple[str, int, int]:
    """Render, dropping items in ``layout.drop_order`` until the text fits the budget."""
    dropped = 0
    while True:
        text = layout.render(sections, req)
        tokens = count(text)
        excess = tokens - req.budget_tokens
        if excess <= 0:
            return text, tokens, dropped
        victims = [s for name in layout.drop_order for s in sections if s.name == name and s.items]
        if not victims:
            return text, tokens, dropped
        # Drop about as many items as the excess needs (at least one), then measure again.
        for victim in victims:
            while victim.items and excess > 0:
                excess -= count(victim.items.pop().content) + 4
                dropped += 1
            if excess <= 0:
                break


# ---- gathering ---------------------------------------------------------------------------
def search(
    mem: Memory, req: ContextRequest, limit: int, kinds: Sequence[str] | None, query: str = ""
) -> list[Hit]:
    """``mem.search`` with the request's per-call overrides (recency weight, threshold)."""
    if not req.overrides:
        return mem.search(query or req.query, req.user_id, req.session_id, limit, kinds)
    view = copy.copy(mem)
    view.settings = mem.settings.replace(**req.overrides)
    view.pipeline = copy.copy(mem.pipeline)  # shares the index and query caches
    view.pipeline.settings = view.settings
    return view.search(query or req.query, req.user_id, req.session_id, limit, kinds)


def hit_item(hit: Hit, chars: int | None = None) -> ContextItem:
    """A search hit as a context item, its content clipped to ``chars``."""
    return ContextItem(
        id=hit.id,
        kind=hit.kind,
        content=clip(hit.content, chars),
        role=hit.role,
        name=hit.name,
        score=round(hit.score, 4),
        created_at=hit.created_at,
        session_id=hit.session_id,
        metadata=hit.metadata,
    )


def profile_items(mem: Memory, user_id: str, limit: int | None = None) -> list[ContextItem]:
    """Stage 1: the user's active profile facts with importance >= 0.5, most important first."""
    profile = getattr(mem, "profile", None)
    if profile is None:
        return []
    facts = sorted(profile(user_id, min_importance=0.5), key=lambda f: -f.importance)
    return [
        ContextItem(
            id=getattr(f, "id", None),
            kind="profile",
            content=f"{f.key}: {f.value}",
            score=f.importance,
            metadata={"category": f.category, "key": f.key, "value": f.value,
                      "confidence": f.confidence, "importance": f.importance},
        )
        for f in facts[:limit]
    ]  # fmt: skip


def memory_items(
    mem: Memory, req: ContextRequest, kind: str | None, limit: int, chars: int | None = None
) -> list[ContextItem]:
    """The newest ``limit`` live memories of a kind (any kind when None)."""
    return [
        ContextItem(
            id=m.id,
            kind=m.kind,
            content=clip(m.content, chars),
            created_at=m.created_at,
            session_id=m.session_id,
            metadata=m.metadata,
        )
        for m in mem.list(req.user_id, kind=kind, limit=limit)
    ]


def turn_items(
    mem: Memory, user_id: str, session_id: str | None, limit: int, chars: int | None = None
) -> list[ContextItem]:
    """The last ``limit`` turns (of a session, or of the user), in conversation order."""
    flt = mem._filter(user_id, session_id, None, None, limit, 0)
    turns = reversed(mem.store.recent_messages(flt))
    return [
        ContextItem(
            id=t.id,
            kind="message",
            content=clip(t.content, chars),
            role=t.role,
            name=t.name,
            created_at=t.created_at,
            session_id=t.session_id,
            metadata=t.metadata,
        )
        for t in turns
    ]


def _section(name: str, title: str, items: list[ContextItem]) -> ContextSection:
    return ContextSection(name=name, title=title, items=items)


def _query(req: ContextRequest) -> ContextSection:
    return _section("query", "Current message", [ContextItem(kind="query", content=req.query)])


def gather_default(mem: Memory, req: ContextRequest) -> list[ContextSection]:
    """Profile, the default search's hits (summaries apart) and the two newest summaries.

    Enough hits are fetched to fill the budget (one per :data:`TOKENS_PER_HIT` tokens, at least
    ``search_limit``); the budget then trims the least relevant. On LoCoMo dev at 1500 tokens
    this carries 0.76 of the evidence turns, against 0.64 with the 10 best hits
    (bench/context_recall.py, docs/server.md).
    """
    limit = req.top_k or max(
        mem.settings.search_limit, min(req.budget_tokens // TOKENS_PER_HIT, 200)
    )
    kinds = [k for k in ("message", *MEMORY_KINDS) if k != "summary"]
    hits = search(mem, req, limit, kinds) if req.query.strip() else []
    return [
        _section("profile", "User Profile", profile_items(mem, req.user_id, 20)),
        _section("memories", "Relevant Memories", [hit_item(h, 400) for h in hits]),
        _section("summaries", "Summaries", memory_items(mem, req, "summary", 2, 400)),
    ]


def gather_llmplatform(mem: Memory, req: ContextRequest) -> list[ContextSection]:
    """Seed 000's bundle: history, summaries, facts, similar, recent, location, query."""
    history = turn_items(mem, req.user_id, req.session_id, 10, 200) if req.include_history else []
    seen = {i.id for i in history}
    facts = profile_items(mem, req.user_id, 5)
    if len(facts) < 5:
        facts += memory_items(mem, req, "fact", 5 - len(facts))
    hits = search(mem, req, req.top_k or mem.settings.search_limit, ["message"])
    similar = [hit_item(h, 200) for h in hits if h.id not in seen][:4]
    seen |= {i.id for i in similar}
    recent = [i for i in turn_items(mem, req.user_id, None, 6 + len(seen), 180) if i.id not in seen]
    location = [ContextItem(kind="location", content=req.location)] if req.location else []
    return [
        _section("history", "Recent conversation history", history),
        _section("summaries", "Session summaries", memory_items(mem, req, "summary", 3, 240)),
        _section("facts", "Stored user facts", facts),
        _section("similar", "Semantically similar messages", similar),
        _section("recent", "Recent turns", recent[-6:]),
        _section("location", "User location", location),
        _query(req),
    ]


def gather_llm_managed(mem: Memory, req: ContextRequest) -> list[ContextSection]:
    """Seed 001: all memories when <= 5, else expanded-query retrieval, else the 10 newest."""
    recent = memory_items(mem, req, None, 10)
    chosen = recent
    if len(recent) > 5 and req.query.strip():
        limit = req.top_k or mem.settings.search_limit
        hits = search(mem, req, limit, list(MEMORY_KINDS), expand_query(req.query))
        chosen = [hit_item(h) for h in hits] or recent
    return [_section("memory", "Relevant memory", chosen)]


def gather_agent_cli(mem: Memory, req: ContextRequest) -> list[ContextSection]:
    """Seed 002: the conversation's summary, the best hits, the current message."""
    flt = mem._filter(req.user_id, req.session_id, None, None, 1, 0)
    flt.kind = "summary"
    summary = [
        ContextItem(id=m.id, kind="summary", content=m.content, created_at=m.created_at)
        for m in mem.store.list_memories(flt)
    ]
    top_k = mem.settings.search_limit if req.top_k is None else req.top_k
    kinds = [k for k in ("message", *MEMORY_KINDS) if k != "summary"]
    hits = search(mem, req, top_k, kinds) if top_k > 0 and req.query.strip() else []
    return [
        _section("summary", "Conversation summary", summary),
        _section("memory", "Long-term memory (most relevant first)", [hit_item(h) for h in hits]),
        _query(req),
    ]


def gather_tiered(mem: Memory, req: ContextRequest) -> list[ContextSection]:
    """Seed 003: profile (stage 1), relevant episodes (stage 2), the short-term window."""
    limit = req.top_k or mem.settings.search_limit
    hits = search(mem, req, limit, ["episode"]) if req.query.strip() else []
    window = turn_items(mem, req.user_id, req.session_id, 10) if req.include_history else []
    return [
        _section("profile", "User Profile", profile_items(mem, req.user_id)),
        _section("episodes", "Recent Context", [hit_item(h, 150) for h in hits]),
        _section("conversation", "Recent Conversation", window),
    ]


# ---- layouts and injection ---------------------------------------------------------------
LAYOUTS: dict[str, Layout] = {
    "default": Layout(gather_default, render.render_default, ("memories", "summaries", "profile")),
    "topics": Layout(gather_topics, render_topics, (topic_ctx.MESSAGES, topic_ctx.SUMMARY)),
    "llmplatform": Layout(
        gather_llmplatform,
        render.render_llmplatform,
        ("recent", "similar", "history", "summaries", "facts", "location"),
    ),
    "llm-managed": Layout(gather_llm_managed, render.render_llm_managed, ("memory",)),
    "agent-cli": Layout(
        gather_agent_cli, render.render_agent_cli, ("memory", "summary"), placement="user"
    ),
    "tiered": Layout(gather_tiered, render.render_tiered, ("conversation", "episodes", "profile")),
}


__all__ = [
    "LAYOUTS",
    "ContextRequest",
    "Layout",
    "build_context",
    "clip",
    "expand_query",
]
