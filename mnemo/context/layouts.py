"""The layouts of context assembly: per preset, how sections are gathered from a
:class:`~mnemo.context.source.ContextSource`, rendered, and trimmed (see
:mod:`mnemo.context.assemble` for what each preset holds)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from mnemo.context import llmplatform, render
from mnemo.context import topics as topic_ctx
from mnemo.context.items import (
    ContextRequest,
    clip,
    hit_item,
    memory_items,
    profile_items,
    search,
    section,
    turn_item,
    turn_items,
)
from mnemo.context.source import ContextSource
from mnemo.context.topics import gather_topics, render_topics
from mnemo.errors import EmbeddingError, StorageError
from mnemo.retrieval.duplicates import text_key
from mnemo.retrieval.lexical import query_terms
from mnemo.schemas import MEMORY_KINDS, ContextItem, ContextSection, Hit

log = logging.getLogger(__name__)

#: Budget tokens per hit fetched by the default layout (a dated hit averages ~30-45 tokens).
TOKENS_PER_HIT = 30
#: Characters of a hit the default layout shows: longer ones are cut to the sentences the
#: query is about (see text.extractive.excerpt); the first :data:`FULL_HITS` hits get
#: :data:`FULL_CHARS`, the rest :data:`EXCERPT_CHARS`.
#: Turn kinds the default layout never shows: they tell nothing (see text.turn_kinds).
SILENT_KINDS = frozenset({"non_answer", "greeting"})
FULL_HITS = 5
FULL_CHARS = 400
EXCERPT_CHARS = 160
#: Text appended to short first-person queries before retrieval (`llm-managed`).
EXPANSION = " height weight physical attributes user facts"
_FIRST_PERSON = (" i ", " my ", " me ", "am i", "do i", "what's my", "what is my")

Gather = Callable[[ContextSource, ContextRequest], list[ContextSection]]
Render = Callable[[list[ContextSection], ContextRequest], str]


@dataclass(frozen=True)
class Layout:
    """How one preset gathers, renders and trims its context."""

    gather: Gather
    render: Render
    drop_order: tuple[str, ...]
    placement: str = "system"


def expand_query(query: str) -> str:
    """`llm-managed`'s expansion: a first-person query of <= 100 chars gets :data:`EXPANSION`."""
    padded = f" {query.lower().strip()} "
    if 0 < len(query.strip()) <= 100 and any(p in padded for p in _FIRST_PERSON):
        return query + EXPANSION
    return query


def _query(req: ContextRequest) -> ContextSection:
    return section("query", "Current message", [ContextItem(kind="query", content=req.query)])


def gather_default(source: ContextSource, req: ContextRequest) -> list[ContextSection]:
    """Profile, the default search's hits (summaries apart) and the two newest summaries.

    Enough hits are fetched to fill the budget (one per :data:`TOKENS_PER_HIT` tokens, at least
    ``search_limit``); the budget then trims the least relevant. Non-answers and courtesies
    are left out; the first :data:`FULL_HITS` hits are shown up to :data:`FULL_CHARS`
    characters, the others cut to the sentences the query is about
    (:data:`EXCERPT_CHARS`), so more of them fit. On LoCoMo dev at 1500 tokens with the
    bundled embedder this carries 0.877 of the evidence turns (0.863 with every hit cut at 400
    characters; 0.64 with the 10 best hits; bench/context_recall.py, docs/server.md).
    """
    limit = req.options.top_k or max(
        source.settings.search_limit, min(req.options.budget_tokens // TOKENS_PER_HIT, 200)
    )
    kinds = [k for k in ("message", *MEMORY_KINDS) if k != "summary"]
    hits = search(source, req, limit, kinds) if req.query.strip() else []
    hits = [h for h in hits if h.turn_kind not in SILENT_KINDS]
    terms = query_terms(req.query)
    memories = distinct_items(
        [
            hit_item(h, FULL_CHARS if i < FULL_HITS else EXCERPT_CHARS, terms)
            for i, h in enumerate(hits)
        ],
        hits,
    )
    return [
        section("profile", "User Profile", profile_items(source, 20)),
        section("memories", "Relevant Memories", memories),
        section("summaries", "Summaries", memory_items(source, "summary", 2, 400)),
    ]


def distinct_items(items: list[ContextItem], hits: list[Hit]) -> list[ContextItem]:
    """``items`` (one per hit) with no two equal texts: an excerpt that repeats an earlier
    item's text is shown from the start of its hit instead, and left out if that repeats too
    (two long turns can share their most relevant sentence)."""
    seen: set[str] = set()
    out = []
    for item, hit in zip(items, hits, strict=True):
        key = text_key(item.content)
        if key in seen:
            item = item.model_copy(update={"content": clip(hit.content, EXCERPT_CHARS)})
            key = text_key(item.content)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def gather_llm_managed(source: ContextSource, req: ContextRequest) -> list[ContextSection]:
    """`llm-managed`: all memories when <= 5, else expanded-query retrieval, else the 10 newest.

    "If the RAG call throws or returns no hits", the 10 newest are the section: an embedding or
    storage failure of the search is logged and the fallback used.
    """
    recent = memory_items(source, None, 10)
    chosen = recent
    if len(recent) > 5 and req.query.strip():
        limit = req.options.top_k or source.settings.search_limit
        try:
            hits = search(source, req, limit, list(MEMORY_KINDS), expand_query(req.query))
        except (EmbeddingError, StorageError) as exc:
            log.warning("llm-managed retrieval failed, using the 10 newest memories: %r", exc)
            hits = []
        chosen = [hit_item(h) for h in hits] or recent
    return [section("memory", "Relevant memory", chosen)]


def gather_agent_cli(source: ContextSource, req: ContextRequest) -> list[ContextSection]:
    """`agent-cli`: the conversation's summary, the best hits, the current message."""
    summary = [
        ContextItem(id=m.id, kind="summary", content=m.content, created_at=m.created_at)
        for m in source.memories(session_id=req.session_id, kind="summary", limit=1)
    ]
    top_k = source.settings.search_limit if req.options.top_k is None else req.options.top_k
    kinds = [k for k in ("message", *MEMORY_KINDS) if k != "summary"]
    hits = search(source, req, top_k, kinds) if top_k > 0 and req.query.strip() else []
    return [
        section("summary", "Conversation summary", summary),
        section("memory", "Long-term memory (most relevant first)", [hit_item(h) for h in hits]),
        _query(req),
    ]


def gather_tiered(source: ContextSource, req: ContextRequest) -> list[ContextSection]:
    """`tiered`: profile (stage 1), relevant episodes (stage 2), the short-term window.

    "Recent Conversation" is the session's short-term window: its turns after the last
    episode (at most ``window_max_turns``, the newest); without a session, the user's last
    ``window_keep_turns`` turns.
    """
    limit = req.options.top_k or source.settings.search_limit
    hits = search(source, req, limit, ["episode"]) if req.query.strip() else []
    window: list[ContextItem] = []
    if req.options.include_history and req.session_id is not None:
        turns = source.window(req.session_id)[-source.settings.window_max_turns :]
        window = [turn_item(t) for t in turns]
    elif req.options.include_history:
        window = turn_items(source, None, source.settings.window_keep_turns)
    return [
        section("profile", "User Profile", profile_items(source)),
        section("episodes", "Recent Context", [hit_item(h, 150) for h in hits]),
        section("conversation", "Recent Conversation", window),
    ]


LAYOUTS: dict[str, Layout] = {
    "default": Layout(gather_default, render.render_default, ("memories", "summaries", "profile")),
    "topics": Layout(gather_topics, render_topics, (topic_ctx.MESSAGES, topic_ctx.SUMMARY)),
    "llmplatform": Layout(
        llmplatform.gather,
        render.render_llmplatform,
        ("recent", "similar", "history", "summaries", "facts", "location"),
    ),
    "llm-managed": Layout(gather_llm_managed, render.render_llm_managed, ("memory",)),
    "agent-cli": Layout(
        gather_agent_cli, render.render_agent_cli, ("memory", "summary"), placement="user"
    ),
    "tiered": Layout(gather_tiered, render.render_tiered, ("conversation", "episodes", "profile")),
}
