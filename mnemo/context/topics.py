"""`topics`'s context (preset ``topics``): the topic a message belongs to, as its summary and
recent messages, rendered like the seed's ``get_topic_context``::

    Topic summary: ...
    user: ...
    assistant: ...

The topic is the working-set topic the query would join (cosine above the matching threshold),
else the conversation's active topic. Nothing is written: the seed adds the user message first,
which ``Memory.add_user_message`` does. The messages section holds the newest first, so a tight
budget drops the oldest messages first; the renderer puts them back in conversation order.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol

from mnemo.context.source import ContextSource
from mnemo.schemas import ContextItem, ContextSection

SUMMARY = "topic_summary"
MESSAGES = "topic_messages"


class _Request(Protocol):
    @property
    def query(self) -> str:
        """The text the prompt answers."""
        ...

    @property
    def session_id(self) -> str | None:
        """The conversation it is about, if one."""
        ...


def gather_topics(source: ContextSource, req: Any) -> list[ContextSection]:
    """The matched (or active) topic's summary and its active messages, newest first."""
    row = source.topic(req.query, req.session_id or "default")
    summary: list[ContextItem] = []
    messages: list[ContextItem] = []
    if row is not None:
        if row.summary:
            summary.append(ContextItem(id=row.id, kind="summary", content=row.summary))
        messages = [
            ContextItem(
                id=e.message_id or None,
                kind="message",
                content=e.content,
                role=e.role,
                created_at=datetime.fromtimestamp(e.timestamp, UTC),
                session_id=row.session_id,
            )
            for e in reversed(row.messages)
        ]
    title = row.title if row is not None else "Topic"
    return [
        ContextSection(name=SUMMARY, title="Topic summary", items=summary),
        ContextSection(name=MESSAGES, title=title, items=messages),
    ]


def render_topics(sections: list[ContextSection], req: _Request | Any) -> str:
    """``Topic summary: ...`` then ``role: content`` per message, oldest first."""
    by_name = {s.name: s.items for s in sections}
    lines = [f"Topic summary: {i.content}" for i in by_name.get(SUMMARY, [])]
    lines += [f"{i.role}: {i.content}" for i in reversed(by_name.get(MESSAGES, []))]
    return "\n".join(lines)


__all__ = ["MESSAGES", "SUMMARY", "gather_topics", "render_topics"]
