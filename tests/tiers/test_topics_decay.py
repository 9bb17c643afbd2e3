"""`topics`'s decay: the half-life table, both priority lists, and eviction on a test clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from topic_helpers import DAY, T0, TOPICS_ONLY, Clock, about

from mnemo import Memory
from mnemo.tiers.topics.decay import (
    DecayPolicy,
    consolidation_rows,
    consolidation_table,
    decay_lines,
    half_life_seconds,
    memory_type,
    priority,
    survival_seconds,
)

# Copied verbatim from `topics` ("Topic Decay").
SEED_SHORT_TERM = """\
- 0 days: priority = 1.0 (100%)
- 1 day: priority = 0.5 (50%)
- 2 days: priority = 0.25 (25%)
- 3 days: priority = 0.125 (12.5%)
- 4 days: priority = 0.0625 (6.25%)
- 5 days: priority = 0.03125 (3.1% - deleted)"""

SEED_LONG_TERM = """\
- 0 days: priority = 1.0 (100%)
- 16 days: priority = 0.5 (50%)
- 32 days: priority = 0.25 (25%)
- 48 days: priority = 0.125 (12.5%)
- 64 days: priority = 0.0625 (6.25%)
- 80 days: priority = 0.03125 (3.1% - deleted)"""

SEED_TIMELINE = """\
| Accesses | Half-Life | Memory Type | Survival Time (to <5% priority) |
| 0-4 | 1 day | Short-term | ~5 days |
| 5-9 | 2 days | Transitioning | ~10 days |
| 10-14 | 4 days | Long-term | ~20 days |
| 15-19 | 8 days | Long-term | ~40 days |
| 20-24 | 16 days | Long-term | ~80 days |
| 25+ | 30 days (max) | Long-term | ~150 days |"""

POLICY = DecayPolicy()


def test_short_and_long_term_priority_lists_match_the_seed_exactly() -> None:
    assert "\n".join(decay_lines(0, POLICY)) == SEED_SHORT_TERM
    assert "\n".join(decay_lines(4, POLICY)) == SEED_SHORT_TERM  # < 5 accesses
    assert "\n".join(decay_lines(20, POLICY)) == SEED_LONG_TERM  # 20+ accesses, 16 days


def test_consolidation_timeline_matches_the_seed_exactly() -> None:
    table = consolidation_table(POLICY).splitlines()
    separator = table.pop(1)  # the Markdown rule line only fixes column widths
    assert set(separator) == {"|", "-"}
    assert "\n".join(table) == SEED_TIMELINE
    assert len(consolidation_rows(POLICY)) == 6


@pytest.mark.parametrize(
    ("accesses", "days", "kind"),
    [
        (0, 1, "short-term"),
        (4, 1, "short-term"),
        (5, 2, "transitioning"),
        (9, 2, "transitioning"),
        (10, 4, "long-term"),
        (15, 8, "long-term"),
        (20, 16, "long-term"),
        (24, 16, "long-term"),
        (25, 30, "long-term"),
        (10_000, 30, "long-term"),
    ],
)
def test_half_life_doubles_every_five_accesses_up_to_thirty_days(
    accesses: int, days: int, kind: str
) -> None:
    assert half_life_seconds(accesses, POLICY) == days * DAY
    assert memory_type(accesses, POLICY) == kind


def test_priority_formula_and_survival() -> None:
    assert priority(0.5, 0, DAY) == 0.5  # importance scales the curve
    assert priority(1.0, -5.0, DAY) == 1.0  # a clock behind the topic counts as age 0
    assert priority(1.0, 4 * DAY, DAY) >= 0.05 > priority(1.0, 5 * DAY, DAY)
    assert survival_seconds(30 * DAY) == 150 * DAY
    assert survival_seconds(DAY, importance=0.01) == 0.0


def _conversation(tmp_path: Path, clock: Clock) -> Memory:
    path = str(tmp_path / "m.db")
    mem = Memory(path, embedder="hashing", **TOPICS_ONLY, topic_merge_threshold=None)
    mem.topic_memory.clock = clock
    return mem


def test_decay_evicts_stale_topics_only_beyond_max_topics(tmp_path: Path) -> None:
    clock = Clock()
    mem = _conversation(tmp_path, clock)
    old = mem.add_user_message("u1", about(0, 0), "s1", importance=1.0)
    # 4 days later the old topic is at 6.25%: above the 5% floor, so 20 more topics keep it.
    clock.advance(4 * DAY)
    for i in range(1, 20):
        mem.add_user_message("u1", about(i, 0), "s1", importance=1.0)
    assert len(mem.topics("u1", "s1")) == 20
    mem.add_user_message("u1", about(20, 0), "s1", importance=1.0)  # 21 topics > 20
    assert old.id in {t.id for t in mem.topics("u1", "s1")}
    # One more day: 3.125% < 5%, and the conversation holds more than 20 topics: it leaves.
    clock.advance(DAY)
    mem.add_user_message("u1", about(21, 0), "s1", importance=1.0)
    working = {t.id for t in mem.topics("u1", "s1")}
    assert old.id not in working and len(working) == 21
    [gone] = [t for t in mem.topics("u1", "s1", include_inactive=True) if t.id == old.id]
    assert not gone.in_working_set and gone.evicted_at is not None
    assert len(mem.messages("u1", session_id="s1")) == 22  # raw turns are never deleted
    mem.close()


def test_decay_keeps_everything_at_or_under_max_topics(tmp_path: Path) -> None:
    clock = Clock()
    mem = _conversation(tmp_path, clock)
    for i in range(20):
        mem.add_user_message("u1", about(i, 0), "s1")
        clock.advance(30 * DAY)  # every topic far under the floor
    assert len(mem.topics("u1", "s1")) == 20
    mem.close()


def test_the_active_topic_is_never_evicted(tmp_path: Path) -> None:
    clock = Clock()
    mem = _conversation(tmp_path, clock)
    for i in range(21):
        mem.add_user_message("u1", about(i, 0), "s1", importance=1.0)
    clock.advance(100 * DAY)
    # An assistant turn far in the future: decay runs with every topic under the floor, and
    # only the active topic (the last one opened) stays.
    active = mem.add_assistant_message("u1", "ok", "s1")
    assert active is not None
    assert [t.id for t in mem.topics("u1", "s1")] == [active.id]
    mem.close()


def test_accesses_consolidate_a_topic_into_long_term_memory(tmp_path: Path) -> None:
    clock = Clock()
    mem = _conversation(tmp_path, clock)
    for k in range(20):
        mem.add_user_message("u1", about(0, k % 2), "s1", importance=1.0)
        clock.advance(60)
    stats = mem.topic_stats("u1", "s1", now=T0 + 16 * DAY + 20 * 60)
    assert stats is not None
    assert (stats.access_count, stats.memory_type, stats.half_life_days) == (20, "long-term", 16.0)
    assert stats.inactive_seconds == 16 * DAY + 60
    mem.close()
