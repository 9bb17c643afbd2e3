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

from mnemo.context.filtered import narrowed
from mnemo.context.items import ContextRequest, clip
from mnemo.context.layouts import LAYOUTS, Layout, expand_query
from mnemo.context.options import ContextOptions
from mnemo.context.source import ContextSource
from mnemo.context.tokens import TokenCounter
from mnemo.filters import parse_where
from mnemo.schemas import ContextBundle, ContextSection


def build_context(source: ContextSource, options: ContextOptions) -> ContextBundle:
    """Assemble the context of ``source.query`` for ``source.settings.preset`` within
    ``options.budget_tokens``. Every search the layout runs is a copy of ``source.query``
    (:class:`~mnemo.search_query.SearchQuery`: its scope, ``as_of``, ``now``, the texts of the
    request being answered left out, the recency weight and threshold of this call) with the
    layout's own text, limit and kinds; its ``filters`` (mem0's syntax, :mod:`mnemo.filters`)
    go to every search, and profile facts stay only when it accepts them
    (:mod:`mnemo.context.filtered`). ``options``: see
    :class:`~mnemo.context.options.ContextOptions`."""
    where = parse_where(source.query.filters)
    req = ContextRequest(source.query, options)
    layout = LAYOUTS.get(source.settings.preset, LAYOUTS["default"])
    sections = narrowed(layout.gather(source, req), where)
    count = options.counter or source.token_counter()
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
        budget_tokens=options.budget_tokens,
        dropped=dropped,
        data=req.data,
    )


def fit(
    sections: list[ContextSection], layout: Layout, req: ContextRequest, count: TokenCounter
) -> tuple[str, int, int]:
    """Render, dropping items in ``layout.drop_order`` until the text fits the budget."""
    dropped = 0
    while True:
        text = layout.render(sections, req)
        tokens = count(text)
        excess = tokens - req.options.budget_tokens
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
    "ContextOptions",
    "ContextRequest",
    "Layout",
    "build_context",
    "clip",
    "expand_query",
]
