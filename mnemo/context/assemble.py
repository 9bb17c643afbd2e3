"""Context assembly: the memory a prompt gets for one query, within a token budget.

A *layout* per preset gathers sections, renders them and says which items go first when the
rendering exceeds the budget (items are dropped from the end of the sections in
``drop_order``, about as many as the excess needs, and the text measured again until it fits):

* ``topics``: the current topic's ``Topic summary:`` and recent messages
  (:mod:`mnemo.context.topics`).
* ``default``: ``# Long-term Memory`` with the user profile (stage 1), the
  relevant memories of the default search (the best measured pipeline; dated, most relevant
  first, as many as fill the budget) and the newest summaries, as a system message.
* ``llmplatform``: history 10 x 200 chars, summaries 3 x 240, facts 5 in full,
  similar messages 4 x 200 with their score (the cosine), recent turns 6 x 180, location, then
  the query; ``bundle.data`` is the MemoryAgent's whole ``memory_context``
  (:mod:`mnemo.context.llmplatform`).
* ``llm-managed``: ``## Relevant memory`` in the system message; with <= 5 memories
  all of them and no retrieval; short first-person queries expanded; the 10 most recent
  memories when retrieval finds nothing.
* ``agent-cli``: the conversation summary, "Long-term memory (most relevant
  first)", then "Current message:", replacing the last user message.
* ``tiered``: ``# Long-term Memory``, ``## User Profile``, ``## Recent Context``
  (episodes with their turn range), ``# Recent Conversation``.

Everything is read from a :class:`~mnemo.context.source.ContextSource` (the Memory hands over
its search, listings, profile and topics); a section is simply empty when its data does not
exist. Stage 1 profile facts are those with importance >= ``profile_context_min_importance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mnemo import validation as check
from mnemo.context.filtered import narrowed
from mnemo.context.items import ContextRequest, clip
from mnemo.context.layouts import LAYOUTS, Layout, expand_query
from mnemo.context.source import ContextSource
from mnemo.context.tokens import TokenCounter
from mnemo.errors import ValidationError
from mnemo.filters import parse_where
from mnemo.schemas import ContextBundle, ContextSection


def build_context(
    source: ContextSource,
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
    exclude: Sequence[str] = (),
    now: datetime | float | str | None = None,
    min_relevance: float | None = None,
    min_top_relevance: float | None = None,
    filters: Any = None,
) -> ContextBundle:
    """Assemble the context of ``query`` for ``source.settings.preset`` within
    ``budget_tokens``; ``recency_weight`` and ``score_threshold`` override the settings for
    this call's searches (they travel on each search request). ``exclude`` holds the texts of
    the request being answered: turns saying exactly these are not recalled (the model reads
    them in the request); ``now`` is the reference time of recency (default: the user's
    newest turn); ``min_relevance`` and ``min_top_relevance`` override the settings of those
    names for this call: no hit whose calibrated relevance (``hit.relevance``) is below the
    first is injected, and none at all when the best hit's is below the second. ``filters``
    (mem0's syntax, :mod:`mnemo.filters`) goes to every search the layout runs; profile facts
    stay only when it accepts them (:mod:`mnemo.context.filtered`)."""
    where = parse_where(filters)
    req = _request(query, user_id, session_id, budget_tokens, location, include_history, top_k)
    req.overrides = {
        k: check.unit_float(v, k)
        for k, v in (("recency_weight", recency_weight), ("score_threshold", score_threshold))
        if v is not None
    }
    if isinstance(exclude, str) or not all(isinstance(t, str) for t in exclude):
        raise ValidationError("exclude must be a list of strings")
    if exclude:
        req.overrides["exclude"] = list(exclude)
    if now is not None:
        req.overrides["now"] = now
    if min_relevance is not None:
        req.min_relevance = check.unit_float(min_relevance, "min_relevance")
    if min_top_relevance is not None:
        req.min_top_relevance = check.unit_float(min_top_relevance, "min_top_relevance")
    if where is not None:
        req.overrides["filters"] = where
    layout = LAYOUTS.get(source.settings.preset, LAYOUTS["default"])
    sections = narrowed(layout.gather(source, req), where)
    count = counter or source.token_counter()
    text, tokens, dropped = fit(sections, layout, req, count)
    return ContextBundle(
        preset=source.settings.preset,
        query=req.query,
        user_id=req.user_id,
        session_id=req.session_id,
        placement="user" if layout.placement == "user" else "system",
        sections=sections,
        text=text,
        token_count=tokens,
        budget_tokens=req.budget_tokens,
        dropped=dropped,
        data=req.data,
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
    check.query(query)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 50 <= budget <= 1_000_000:
        raise ValidationError("budget_tokens must be an integer in [50, 1000000]")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)):
        raise ValidationError("top_k must be an integer")
    if location is not None:
        check.text(location, "location")
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


__all__ = [
    "LAYOUTS",
    "ContextRequest",
    "Layout",
    "build_context",
    "clip",
    "expand_query",
]
