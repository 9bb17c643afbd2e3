"""Topic settings: `topics`'s topic memory (docs/topics.md).

Names in this group: ``topics_enabled`` and every ``topic_*`` setting
(``topic_similarity_threshold``, ``topic_title_chars``, ``topic_default_importance``,
``topic_max_messages_per_topic``, ``topic_recent_message_keep``, ``topic_max_topics``,
``topic_min_priority``, ``topic_base_half_life_seconds``, ``topic_max_half_life_seconds``,
``topic_access_threshold_for_lt``, ``topic_merge_threshold``, ``topic_incremental_summary``,
``topic_summary_max_chars``, ``topic_feedback_rate``).

Prefix drift, kept for compatibility: the switch is plural ``topics_enabled``, the rest singular
``topic_*`` (the other tiers' switches are ``<tier>_enabled``).
"""

from __future__ import annotations

from pydantic import Field

from mnemo.config.bounds import cosine, count, positive, share, size
from mnemo.config.group import SettingsGroup


class TopicSettings(SettingsGroup):
    """Topic matching, compaction, decay, merging and feedback."""

    topics_enabled: bool = Field(
        False,
        description="Match every turn written by add_messages to a topic (a turns.topics job); "
        "the topic API (add_user_message...) matches inline either way.",
    )
    topic_similarity_threshold: float = cosine(
        0.7, "A user turn joins its best topic when cosine > this."
    )
    topic_title_chars: int = size(80, "A new topic's title: first N chars.")
    topic_default_importance: float = share(0.5, "Importance of a new topic when none is given.")
    topic_max_messages_per_topic: int = size(
        12, "Active messages above which a topic is compacted."
    )
    topic_recent_message_keep: int = count(4, "Most recent messages a compaction keeps active.")
    topic_max_topics: int = size(20, "Working-set topics per conversation above which decay runs.")
    topic_min_priority: float = share(0.05, "Decay removes topics whose priority is below this.")
    topic_base_half_life_seconds: float = positive(
        86_400.0, "Half-life of a short-term topic (1 day)."
    )
    topic_max_half_life_seconds: float = positive(
        2_592_000.0, "Longest half-life of a long-term topic (30 days)."
    )
    topic_access_threshold_for_lt: int = size(5, "The half-life doubles every this many accesses.")
    topic_merge_threshold: float | None = cosine(
        0.85,
        "Two topics of a conversation merge when their embeddings' cosine exceeds "
        "this; 1 or unset disables merging.",
    )
    topic_incremental_summary: bool = Field(
        True,
        description="A compaction extends the previous summary with the newly compacted "
        "messages instead of summarising the whole history again.",
    )
    topic_summary_max_chars: int = Field(
        1200, ge=80, description="Longest rule-based topic summary, in characters."
    )
    topic_feedback_rate: float = Field(
        0.2, gt=0, le=1, description="How far one feedback signal moves a topic's importance."
    )


__all__ = ["TopicSettings"]
