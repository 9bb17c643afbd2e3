"""A turn's kind and name cues are stored with it when it is written (mnemo.text.turn_rules);
a turn whose stored values are missing or of other rules is computed again when the store
opens, and a search reads the same kinds and aliases either way; on both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemo import Memory
from mnemo.text.turn_rules import TURN_RULES_VERSION, derive

TURNS = [
    {"role": "user", "name": "jdoe84", "content": "Hey Sam! I adopted a puppy named Rex."},
    {"role": "assistant", "name": "mkt_sam", "content": "Thanks Jess! What breed is Rex?"},
    {"role": "user", "name": "jdoe84", "content": "A beagle. My sister Anna loves him."},
    {"role": "assistant", "name": "mkt_sam", "content": "I'm not sure, could you remind me?"},
    {"role": "user", "name": "jdoe84", "content": "Thanks, talk soon!"},
]


def stored(mem: Memory) -> list[tuple[Any, ...]]:
    """Every turn's (role, content, turn_rules, turn_kind, name_cues), in rowid order."""
    with mem.store.tx.read() as c:  # type: ignore[attr-defined]
        sql = "SELECT role, content, turn_rules, turn_kind, name_cues FROM messages ORDER BY rowid"
        return [tuple(r) for r in c.execute(sql).fetchall()]


def age(mem: Memory, version: int | None) -> None:
    """Make every stored value look as if other rules (or none: NULL) made it."""
    with mem.store.tx.write() as c:  # type: ignore[attr-defined]
        q = c.dialect.mark
        sets = f"turn_rules={q}, turn_kind='statement', name_cues='{{}}'"  # wrong if read
        c.execute(f"UPDATE messages SET {sets}", (version,))


def answers(mem: Memory) -> list[tuple[str, str | None, float]]:
    """A search that reads turn kinds and a learned alias ("Jess" is jdoe84): the speaker
    prior and the hits' kinds would change if the stale values were read."""
    hits = mem.search("What did Jess say about her puppy?", user_id="u", limit=5)
    return [(h.id, h.turn_kind, round(h.score, 9)) for h in hits]


def test_turns_are_stored_with_what_the_rules_say(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    mem.add_messages(TURNS, user_id="u", session_id="s")
    for role, content, version, kind, cues in stored(mem):
        rules = derive(role, content)
        assert (version, kind, cues) == (TURN_RULES_VERSION, rules.kind, rules.cues_text)
    assert [k for *_, k, _ in stored(mem)] == [
        "statement",
        "question",
        "statement",
        "non_answer",
        "greeting",
    ]


def test_stale_values_are_recomputed_and_searches_agree(
    open_mem: Callable[..., Memory],
) -> None:
    mem = open_mem(speaker_weight=0.5)
    mem.add_messages(TURNS, user_id="u", session_id="s")
    fresh, expected = stored(mem), answers(mem)
    for version in (TURN_RULES_VERSION - 1, None):
        age(mem, version)
        again = open_mem(speaker_weight=0.5)  # another process: no cached index
        assert stored(again) == fresh  # recomputed when the store opened
        age(again, version)  # stale again, after the open
        # values of other rules are not read: the search computes them as before
        assert answers(again) == expected
