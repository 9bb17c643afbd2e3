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

from mnemo.config.bounds import Cosine, Count, Positive, Share, Size
from mnemo.config.group import SettingsGroup


class TopicSettings(SettingsGroup):
    """Topic matching, compaction, decay, merging and feedback."""

    topics_enabled: bool = Field(
        False,
        description="Match every turn written by add_messages to a topic (a turns.topics job); "
        "the topic API (add_user_message...) matches inline either way.",
    )
    topic_similarity_threshold: Cosine = Field(
        0.7, description="A user turn joins its best topic when cosine > this."
    )
    topic_title_chars: Size = Field(80, description="A new topic's title: first N chars.")
    topic_default_importance: Share = Field(
        0.5, description="Importance of a new topic when none is given."
    )
    topic_max_messages_per_topic: Size = Field(
        12, description="Active messages above which a topic is compacted."
    )
    topic_recent_message_keep: Count = Field(
        4, description="Most recent messages a compaction keeps active."
    )
    topic_max_topics: Size = Field(
        20, description="Working-set topics per conversation above which decay runs."
    )
    topic_min_priority: Share = Field(
        0.05, description="Decay removes topics whose priority is below this."
    )
    topic_base_half_life_seconds: Positive = Field(
        86_400.0, description="Half-life of a short-term topic (1 day)."
    )
    topic_max_half_life_seconds: Positive = Field(
        2_592_000.0, description="Longest half-life of a long-term topic (30 days)."
    )
    topic_access_threshold_for_lt: Size = Field(
        5, description="The half-life doubles every this many accesses."
    )
    topic_merge_threshold: Cosine | None = Field(
        0.85,
        description="Two topics of a conversation merge when their embeddings' cosine exceeds "
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
