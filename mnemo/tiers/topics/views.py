"""What topic memory shows: `topics`'s context, history and stats, built from stored topics."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mnemo.schemas import Topic, TopicStats
from mnemo.storage.topic_records import TopicRow
from mnemo.tiers.topics import compaction
from mnemo.tiers.topics.decay import DAY, DecayPolicy, half_life_seconds, memory_type


def _dt(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def topic_model(t: TopicRow) -> Topic:
    """The public record of a topic: the fields it shares with the row by name, then its times
    as datetimes and its active and compressed message counts."""
    shared = {name: getattr(t, name) for name in Topic.model_fields if hasattr(t, name)}
    return Topic.model_validate(
        shared
        | {
            "active_messages": t.message_count - t.compressed_count,
            "compressed_messages": t.compressed_count,
            "created_at": _dt(t.created_at),
            "last_active_at": _dt(t.last_active_at),
            "evicted_at": None if t.evicted_at is None else _dt(t.evicted_at),
        }
    )


def topic_stats(t: TopicRow, now: float, decay: DecayPolicy) -> TopicStats:
    """`topics`'s ``get_topic_stats`` for one topic at time ``now`` (epoch seconds)."""
    hl = half_life_seconds(t.access_count, decay)
    kind = memory_type(t.access_count, decay)
    return TopicStats(
        topic_id=t.id,
        topic_title=t.title,
        active_messages=t.message_count - t.compressed_count,
        compressed_messages=t.compressed_count,
        total_messages=t.message_count,
        has_summary=bool(t.summary),
        importance_score=t.importance,
        access_count=t.access_count,
        memory_type=kind,
        half_life_days=hl / DAY,
        age_seconds=now - t.created_at,
        inactive_seconds=now - t.last_active_at,
    )


def topic_context(t: TopicRow) -> list[dict[str, str]]:
    """`topics`'s ``get_topic_context``: a ``Topic summary: ...`` system message when the topic
    has a summary, then its active messages as ``{"role", "content"}``."""
    out = []
    if t.summary:
        out.append({"role": "system", "content": f"Topic summary: {t.summary}"})
    out += [{"role": e.role, "content": e.content} for e in t.messages]
    return out


def topic_history(t: TopicRow, include_compressed: bool) -> list[dict[str, Any]]:
    """`topics`'s ``get_full_topic_history``: ``{"role", "content", "timestamp"}`` in time
    order, with the decompressed history first when ``include_compressed``."""
    entries = list(t.messages)
    if include_compressed and t.compressed:
        entries = compaction.decompress(t.compressed) + entries
    return [e.as_dict() for e in compaction.time_order(entries)]


__all__ = ["topic_context", "topic_history", "topic_model", "topic_stats"]
