"""The entity index through the library, on both stores: written by the fact job (never by
``add_messages``), read by ``entities`` and ``entity``, and erased with the user's data."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from clock_support import FakeClock

from mnemo import AsyncMemory, Memory
from mnemo.errors import NotFoundError
from mnemo.storage.ports.entities import EntityLookup, EntityWrite
from mnemo.storage.ports.store import Store
from mnemo.storage.sqlite.store import SQLiteStore
from mnemo.text.entity_rules import Detected

TURNS = [
    "My husband Raj is a pilot, he flies for KLM out of Amsterdam.",
    "We have a parrot called Kiwi and two goldfish.",
    "Raj taught Kiwi to whistle. I ate a kiwi.",
    "Our twins, Noor and Sami, started kindergarten this week!",
]


def told(mem: Memory, user: str = "u1", turns: list[str] = TURNS) -> list[str]:
    ids = mem.add_messages([{"role": "user", "content": t} for t in turns], user)
    mem.drain()
    return ids


def count(mem: Memory, table: str, user: str) -> int:
    with mem.store.core.tx.read() as c:  # type: ignore[attr-defined]
        q = c.dialect.mark
        sql = f"SELECT count(*) FROM {table} WHERE tenant={q} AND user_id={q}"
        return int(c.execute(sql, ("default", user)).fetchone()[0])


def test_the_fact_job_indexes_entities_and_add_messages_does_not(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": TURNS[0]}], "u1")
    assert mem.entities("u1") == []  # written by the job, not by the write call
    mem.drain()
    got = {e.name: e for e in mem.entities("u1")}
    assert set(got) == {"Raj", "KLM", "Amsterdam"}
    assert got["Raj"].kind == "person" and got["Raj"].aliases == ["my husband", "husband"]
    assert got["KLM"].kind == "org" and got["Amsterdam"].kind == "place"
    assert all(e.user_id == "u1" and e.mentions == 1 for e in got.values())


def test_entity_gives_its_facts_and_turns(mem: Memory) -> None:
    ids = told(mem)
    raj = mem.entity("u1", "Raj")
    assert raj.entity.name == "Raj" and raj.entity.mentions == 2
    assert [t.id for t in raj.turns] == [ids[0], ids[2]]  # a later turn names it too
    assert any("Raj" in f.content for f in raj.facts)
    assert all(f.kind == "fact" for f in raj.facts)
    kiwi = mem.entity("u1", "kiwi")
    assert kiwi.entity.kind == "pet" and [t.id for t in kiwi.turns] == [ids[1], ids[2]]
    # by alias, possessive, other case, or id: the same entity
    for name in ("my husband", "Raj's", "RAJ", raj.entity.id):
        assert mem.entity("u1", name).entity.id == raj.entity.id
    twins = {e.name for e in mem.entities("u1") if "twins" in e.aliases}
    assert twins == {"Noor", "Sami"}


def test_an_unknown_entity_is_not_found(mem: Memory) -> None:
    told(mem)
    with pytest.raises(NotFoundError, match="no entity"):
        mem.entity("u1", "Bob")
    with pytest.raises(NotFoundError):
        mem.entity("u2", "Raj")  # another user's entity is not this user's


def test_entities_are_per_user(mem: Memory) -> None:
    told(mem, "u1")
    told(mem, "u2", ["I moved to Lisbon with my sister Ana."])
    assert {e.name for e in mem.entities("u2")} == {"Lisbon", "Ana"}
    assert "Lisbon" not in {e.name for e in mem.entities("u1")}


def test_erasing_a_user_erases_their_entities(mem: Memory) -> None:
    ids = told(mem, "u1")
    told(mem, "u2", ["I moved to Lisbon with my sister Ana."])
    counts = mem.delete_user("u1")
    assert counts["entities"] == 6 and counts["entity_mentions"] > 0
    assert mem.entities("u1") == []
    assert count(mem, "entities", "u1") == count(mem, "entity_mentions", "u1") == 0
    assert len(mem.entities("u2")) == 2
    # erased data stays erased: a late write of the erased turns' entities writes nothing
    write = EntityWrite("default", "u1", {ids[0]: (Detected("Raj", "person"),)})
    assert mem.store.entities.record_entities(write) == 0
    assert count(mem, "entities", "u1") == 0


def test_erasing_an_agent_forgets_the_entities_only_its_turns_named(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "My boss Greta works at Acme."}], "u1")
    mem.add_messages(
        [{"role": "user", "content": "My boss Greta is moving to Oslo."}], "u1", agent_id="a1"
    )
    mem.drain()
    assert {e.name for e in mem.entities("u1")} == {"Greta", "Acme", "Oslo"}
    counts = mem.delete_agent("a1")
    assert counts["entities"] == 1 and counts["entity_mentions"] == 2
    got = {e.name: e.mentions for e in mem.entities("u1")}
    assert got == {"Greta": 1, "Acme": 1}


def test_one_snapshot_gives_the_dictionary_and_the_mentions(mem: Memory) -> None:
    ids = told(mem)
    view = mem.store.entities.entity_view(EntityLookup("default", "u1", tuple(ids)))
    by_name = {e.name: e.id for e in view.entities}
    assert view.mentions[ids[2]] == {by_name["Raj"], by_name["Kiwi"]}
    assert view.mentions[ids[3]] == {by_name["Noor"], by_name["Sami"]}
    assert view.turns == ()  # no entity asked
    uncounted = mem.store.entities.entity_view(EntityLookup("default", "u1", counted=False))
    assert {e.id for e in uncounted.entities} == set(by_name.values())
    assert {e.mentions for e in uncounted.entities} == {0}


def test_a_rerun_job_writes_no_mention_twice(mem: Memory) -> None:
    ids = told(mem)
    before = count(mem, "entity_mentions", "u1")
    write = EntityWrite("default", "u1", {ids[0]: (Detected("Raj", "person", ("hubby",)),)})
    assert mem.store.entities.record_entities(write) == 0
    assert count(mem, "entity_mentions", "u1") == before
    assert mem.entity("u1", "hubby").entity.aliases == ["my husband", "husband", "hubby"]


def test_no_fact_job_no_entity_index(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(fact_extraction="off")
    told(mem)
    assert mem.entities("u1") == []


def test_the_async_twins(target: dict[str, str]) -> None:
    async def run() -> tuple[list[str], str]:
        async with AsyncMemory(**target, embedder="hashing") as amem:
            await amem.add_messages([{"role": "user", "content": TURNS[0]}], "u1")
            await amem.drain()
            names = [e.name for e in await amem.entities("u1")]
            return names, (await amem.entity("u1", "my husband")).entity.name

    names, husband = asyncio.run(run())
    assert sorted(names) == ["Amsterdam", "KLM", "Raj"] and husband == "Raj"


def test_the_sweep_forgets_what_only_expired_turns_named(
    backend: str, target: dict[str, str]
) -> None:
    clock = FakeClock()
    if backend == "sqlite":
        store: Store = SQLiteStore(target["path"], clock=clock)
    else:
        from mnemo.storage.postgres.store import PostgresStore

        store = PostgresStore(target["url"], clock=clock)
    with Memory(**target, embedder="hashing", store=store) as mem:
        mem.add_messages([{"role": "user", "content": "My boss Greta works at Acme."}], "u1")
        mem.add_messages([{"role": "user", "content": "Greta flew to Oslo."}], "u1", ttl_seconds=60)
        mem.drain()
        assert {e.name: e.mentions for e in mem.entities("u1")} == {
            "Greta": 2,
            "Acme": 1,
            "Oslo": 1,
        }
        clock.advance(61)
        counts = mem.sweep()
        assert counts["entity_mentions"] == 2 and counts["entities"] == 1
        assert {e.name: e.mentions for e in mem.entities("u1")} == {"Greta": 1, "Acme": 1}


def test_an_unnamed_assistant_mentions_known_entities_and_adds_none(mem: Memory) -> None:
    ids = mem.add_messages(
        [
            {"role": "user", "content": "My husband Raj is a pilot."},
            {
                "role": "assistant",
                "content": "How does your husband like it? You could fly to Lisbon.",
            },
            {"role": "assistant", "name": "Mel", "content": "My sister Ana lives in Rome."},
        ],
        "u1",
    )
    mem.drain()
    assert {e.name for e in mem.entities("u1")} == {"Raj", "Ana", "Rome"}  # no Lisbon
    assert [t.id for t in mem.entity("u1", "Raj").turns] == ids[:2]
