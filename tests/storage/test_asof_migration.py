"""Migration 0013 (issue 24, "Time"): a store whose profile facts were replaced before
``superseded_at`` existed gets it backfilled (the next fact's observed time, else the time the
fact was marked inactive), so "as of" reads work on old stores; on both backends."""

from __future__ import annotations

import sqlite3

from mnemo import Memory
from mnemo.storage.base import NewProfileFact


def _fact(mem: Memory, key: str, value: str, observed: str | None, n: int) -> None:
    row = NewProfileFact(
        id=f"pf_{key}_{n}", tenant=mem.tenant, user_id="tia", category="identity", key=key,
        value=value, confidence=0.9, importance=0.9, source_message_ids=[],
        observed_at=observed, observed_seq=n,
    )  # fmt: skip
    mem.store.conversation.put_profile_fact(
        row, "test", lambda cur, seq: "ADD" if cur is None else "UPDATE"
    )


#: The inverse of migrations 0015 (entities), 0014 (turn rules) and 0013, on both backends.
UNDO = (
    "DROP TABLE entity_mentions",
    "DROP TABLE entities",
    "DROP INDEX messages_turn_rules",
    "ALTER TABLE messages DROP COLUMN turn_rules",
    "ALTER TABLE messages DROP COLUMN turn_kind",
    "ALTER TABLE messages DROP COLUMN name_cues",
    "ALTER TABLE profile_facts DROP COLUMN superseded_at",
)


def _back_to_0012(target: dict[str, str]) -> None:
    """Undo migrations 0015, 0014 and 0013 by hand: the store as an older mnemo left it."""
    if "path" in target:
        with sqlite3.connect(target["path"]) as conn:
            for statement in UNDO:
                conn.execute(statement)
            conn.execute("PRAGMA user_version = 12")
        return
    import psycopg

    with psycopg.connect(target["url"], autocommit=True) as conn:
        for statement in UNDO:
            conn.execute(statement)
        conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")


def test_old_stores_get_superseded_at_backfilled(target: dict[str, str]) -> None:
    with Memory(**target, embedder="hashing", preset="tiered") as mem:
        _fact(mem, "location", "Boston", "2021-02-01T09:00:00.000000Z", 1)
        _fact(mem, "location", "Lisbon", "2023-06-01T09:00:00.000000Z", 2)
        _fact(mem, "job", "nurse", None, 3)
        _fact(mem, "job", "pilot", None, 4)
    _back_to_0012(target)
    with Memory(**target, embedder="hashing", preset="tiered") as mem:
        facts = {f.value: f for f in mem.profile("tia", include_inactive=True)}
        boston, nurse = facts["Boston"], facts["nurse"]
        assert boston.superseded_at is not None and boston.superseded_at.year == 2023
        assert facts["Lisbon"].superseded_at is None
        # no observed time: the replacing fact's write time, which is when nurse was retired
        assert nurse.superseded_at == facts["pilot"].created_at
        then = mem.context("where do I live", user_id="tia", as_of="2022-01-01").render()
        assert "location: Boston" in then and "Lisbon" not in then
