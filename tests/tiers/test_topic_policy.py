"""TopicPolicy.from_settings: the field maps name every policy number and a real setting, and
each number is read from its own setting."""

from __future__ import annotations

from dataclasses import fields

from mnemo.config import Settings
from mnemo.tiers.topics.apply import DECAY_SETTINGS, POLICY_SETTINGS, TopicPolicy
from mnemo.tiers.topics.decay import DecayPolicy

#: A value for each topic setting, unlike its default and unlike every other one.
CHANGED = {
    "topic_similarity_threshold": 0.31,
    "topic_title_chars": 17,
    "topic_default_importance": 0.42,
    "topic_max_messages_per_topic": 13,
    "topic_recent_message_keep": 3,
    "topic_max_topics": 21,
    "topic_merge_threshold": 0.93,
    "topic_incremental_summary": False,
    "topic_summary_max_chars": 777,
    "topic_feedback_rate": 0.66,
    "topic_base_half_life_seconds": 1234.0,
    "topic_max_half_life_seconds": 98765.0,
    "topic_access_threshold_for_lt": 7,
    "topic_min_priority": 0.11,
}


def test_the_maps_cover_every_policy_field_with_a_real_setting() -> None:
    policy_fields = {f.name for f in fields(TopicPolicy)} - {"decay"}
    assert set(POLICY_SETTINGS) == policy_fields
    assert set(DECAY_SETTINGS) == {f.name for f in fields(DecayPolicy)}
    settings = Settings()
    for setting in (*POLICY_SETTINGS.values(), *DECAY_SETTINGS.values()):
        assert hasattr(settings, setting), setting
    # every topic_* setting feeds the policy (topics_enabled switches the tier, not a number)
    topic = {name for name in Settings.model_fields if name.startswith("topic_")}
    assert (
        topic
        == set(CHANGED)
        == set(POLICY_SETTINGS.values()) - {"llm_enabled"} | set(DECAY_SETTINGS.values())
    )


def test_each_number_is_read_from_its_own_setting() -> None:
    s = Settings(**CHANGED, llm_base_url="http://127.0.0.1:9/v1")
    policy = TopicPolicy.from_settings(s)
    assert policy == TopicPolicy(
        similarity_threshold=0.31,
        title_chars=17,
        default_importance=0.42,
        max_messages=13,
        keep=3,
        max_topics=21,
        merge_threshold=0.93,
        incremental=False,
        summary_max_chars=777,
        feedback_rate=0.66,
        llm_summaries=True,
        decay=DecayPolicy(
            base_half_life_s=1234.0,
            max_half_life_s=98765.0,
            accesses_per_doubling=7,
            min_priority=0.11,
        ),
    )


def test_the_default_settings_give_the_default_policy() -> None:
    assert TopicPolicy.from_settings(Settings()) == TopicPolicy()
    assert TopicPolicy.from_settings(Settings(topic_merge_threshold=None)).merge_threshold is None
