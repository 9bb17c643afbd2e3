"""Topic summaries without an LLM: the key points of the messages a compaction archives.

The sentences are chosen by the shared extractive score (:func:`mnemo.text.extractive.key_points`)
and kept in conversation order as ``role: sentence``, joined by `` | ``. An incremental summary
appends them to the previous one and drops its oldest points past the length cap.
"""

from __future__ import annotations

from datetime import UTC, datetime

from mnemo.schemas import Message
from mnemo.storage.topic_records import TopicEntry
from mnemo.text.extractive import key_points

SEPARATOR = " | "


def as_message(e: TopicEntry) -> Message:
    """A topic entry in the shape the extractive helpers read."""
    return Message(
        id=e.message_id,
        user_id="",
        session_id="",
        seq=e.seq,
        role=e.role,
        content=e.content,
        created_at=datetime.fromtimestamp(e.timestamp, UTC),
    )


def rules_summary(previous: str | None, entries: list[TopicEntry], max_chars: int) -> str:
    """Key points of ``entries`` (2-6), appended to ``previous`` when given (no repeats),
    trimmed from the oldest point to at most ``max_chars`` characters."""
    n = max(2, min(6, len(entries) // 2))
    messages = [as_message(e) for e in entries]
    fresh = key_points(messages, n) or [f"{m.role}: {m.content}" for m in messages[:1]]
    parts = [p for p in (previous or "").split(SEPARATOR) if p]
    parts += [_clip(p, max_chars // 3) for p in fresh if p not in parts]
    while len(parts) > 1 and len(SEPARATOR.join(parts)) > max_chars:
        parts.pop(0)
    return _clip(SEPARATOR.join(parts), max_chars)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


__all__ = ["SEPARATOR", "as_message", "rules_summary"]
