"""Filters through the library on both backends: applied in the store before ranking takes
its top k (a full page of matching hits where 500 of 3,000 rows match and the others rank
higher), the same WHERE for list, count and delete_all, turns filtered by their own columns,
injection attempts inert, and bad or huge filters refused before anything changes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mnemo import AsyncMemory, Memory, ValidationError
from mnemo.filters import walk
from mnemo.ids import MEMORY_PREFIX, new_id
from mnemo.schemas import format_time, utcnow
from mnemo.storage.base import FactBatch, NewMemory

INJECTION = "x'); DROP TABLE memories; --"
TOTAL, MATCHING = 3000, 500


def bulk_add(mem: Memory, user_id: str, rows: list[dict[str, Any]]) -> list[str]:
    """Write memories in one store transaction (what ``Memory.add`` writes, minus its
    per-row commit), embedded by the Memory's embedder; returns their ids."""
    hashes, vectors = mem.embedding([r["content"] for r in rows])
    now = format_time(utcnow())
    adds = [
        NewMemory(
            id=new_id(MEMORY_PREFIX),
            tenant=mem.tenant,
            user_id=user_id,
            session_id=r.get("session_id"),
            kind=r.get("kind", "fact"),
            content=r["content"],
            tags=r.get("tags", []),
            metadata=r.get("metadata", {}),
            importance=0.5,
            confidence=1.0,
            source_message_ids=[],
            created_at=now,
            content_hash=h,
            embedder=mem.embedder.id,
            embedding=v,
        )
        for r, h, v in zip(rows, hashes, vectors, strict=True)
    ]
    batch = FactBatch(mem.tenant, user_id, "test", [], [], adds=adds)
    assert mem.store.rows.apply_facts(batch) is not None
    return [a.id for a in adds]


@pytest.fixture
def crowded(mem: Memory) -> tuple[Memory, set[str]]:
    """3,000 memories of one user about coffee; the 500 of team blue (tag ``blue``) say it
    less often, so every unfiltered search ranks the others first."""
    rows = []
    for i in range(TOTAL):
        blue = i % (TOTAL // MATCHING) == 0
        rows.append(
            {
                "content": f"coffee note {i}" if blue else f"coffee beans coffee roast {i}",
                "tags": ["blue"] if blue else ["red"],
                "metadata": {"team": "blue" if blue else "red", "n": i},
            }
        )
    ids = bulk_add(mem, "crowd", rows)
    blue_ids = {id_ for id_, r in zip(ids, rows, strict=True) if r["tags"] == ["blue"]}
    assert len(blue_ids) == MATCHING
    return mem, blue_ids


@pytest.mark.parametrize("filters", [{"team": "blue"}, {"tags": "blue"}])
def test_a_filtered_search_returns_a_full_page_of_matching_hits(
    crowded: tuple[Memory, set[str]], filters: dict[str, Any]
) -> None:
    mem, blue = crowded
    unfiltered = mem.search("coffee beans", user_id="crowd", limit=50)
    assert not {h.id for h in unfiltered} & blue  # the filter cannot be applied after the cut
    hits = mem.search("coffee beans", user_id="crowd", limit=20, filters=filters)
    assert len(hits) == 20
    assert {h.id for h in hits} <= blue
    assert all(h.metadata["team"] == "blue" for h in hits)


def test_the_widening_walk_and_the_full_scan_agree(
    crowded: tuple[Memory, set[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each retriever reads its ranking best first and widens (mnemo.filters.walk); past
    SCAN_AT rows it runs the filtered ranking once. Both give the same hits."""
    mem, blue = crowded
    walked = mem.search("coffee beans", user_id="crowd", limit=20, filters={"team": "blue"})
    monkeypatch.setattr(walk, "SCAN_AT", 0)  # straight to the scan
    scanned = mem.search("coffee beans", user_id="crowd", limit=20, filters={"team": "blue"})
    assert [h.id for h in scanned] == [h.id for h in walked]
    assert len(scanned) == 20 and {h.id for h in scanned} <= blue


def test_count_list_and_pages_agree_with_the_filter(crowded: tuple[Memory, set[str]]) -> None:
    mem, blue = crowded
    f = {"AND": [{"team": "blue"}, {"n": {"lt": 1500}}]}
    expected = {i for i in blue if mem.get_memory(i).metadata["n"] < 1500}
    assert mem.count("crowd", filters=f) == len(expected) == 250
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = mem.list_page(user_id="crowd", limit=100, offset=offset, filters=f)
        assert page.total == 250
        seen += [m.id for m in page.items]
        offset = page.next_offset
    assert len(seen) == len(set(seen)) and set(seen) == expected
    assert {m.id for m in mem.list(user_id="crowd", limit=1000, filters=f)} == expected
    assert mem.count("crowd") == TOTAL


def test_delete_all_soft_deletes_what_the_filter_selects(mem: Memory) -> None:
    keep = mem.add("Maya likes tea", user_id="maya", metadata={"topic": "drinks"})
    gone = [
        mem.add(f"Maya visited Porto in {y}", user_id="maya", metadata={"topic": "travel"})
        for y in (2019, 2021)
    ]
    other = mem.add("Leo visited Porto", user_id="leo", metadata={"topic": "travel"})
    assert mem.delete_all("maya", filters={"topic": "travel"}) == 2
    assert [m.id for m in mem.list(user_id="maya")] == [keep.id]
    for item in gone:  # as Memory.delete does each: gone from reads, kept in history
        assert [h.event for h in mem.history(item.id)] == ["ADD", "DELETE"]
        assert mem.list(user_id="maya", include_deleted=True, filters={"topic": "travel"})
    assert mem.search("Porto", user_id="maya", limit=5) == [] or all(
        h.id not in {g.id for g in gone} for h in mem.search("Porto", user_id="maya", limit=5)
    )
    assert mem.count("leo") == 1 and mem.get_memory(other.id)  # another user is untouched
    assert mem.delete_all("maya", filters={"topic": "travel"}) == 0
    assert mem.delete_all("maya") == 1 and mem.count("maya") == 0


def test_turns_are_filtered_by_their_own_columns(mem: Memory) -> None:
    mem.add_messages(
        [
            {"role": "user", "content": "I bought a red bike", "metadata": {"src": "app"}},
            {"role": "user", "content": "my bike has a bell", "metadata": {"src": "mail"}},
        ],
        user_id="u",
        session_id="s1",
    )
    mem.add("the bike is red", user_id="u", tags=["bike"])
    hits = mem.search("bike", user_id="u", limit=10, filters={"src": "mail"})
    assert [h.content for h in hits] == ["my bike has a bell"]
    turns = mem.search("bike", user_id="u", limit=10, filters={"kind": "message"})
    assert {h.kind for h in turns} == {"message"} and len(turns) == 2
    tagged = mem.search("bike", user_id="u", limit=10, filters={"tags": "bike"})
    assert [h.content for h in tagged] == ["the bike is red"]  # a turn has no tags
    page = mem.messages_page(user_id="u", filters={"src": "app"})
    assert page.total == 1 and page.items[0].content == "I bought a red bike"


def test_context_passes_the_filter_to_its_search(mem: Memory) -> None:
    mem.add("Maya's sister lives in Lisbon", user_id="ctx", metadata={"who": "family"})
    mem.add("Maya's manager lives in Lisbon", user_id="ctx", metadata={"who": "work"})
    text = mem.context("who lives in Lisbon?", user_id="ctx", filters={"who": "work"}).render()
    assert "manager" in text and "sister" not in text


@pytest.mark.parametrize(
    "filters",
    [
        {INJECTION: "1"},
        {"team": INJECTION},
        {f"metadata.{INJECTION}": {"exists": True}},
        {"tags": {"contains": "'; DELETE FROM memories; --"}},
        {"session_id": {"in": ["x' OR '1'='1"]}},
    ],
)
def test_injection_attempts_are_inert(mem: Memory, filters: dict[str, Any]) -> None:
    mem.add("a coffee fact", user_id="inj", metadata={"team": "blue"}, tags=["blue"])
    mem.add("another coffee fact", user_id="other", metadata={"team": "blue"})
    assert mem.search("coffee", user_id="inj", limit=5, filters=filters) == []
    assert mem.count("inj", filters=filters) == 0
    assert mem.delete_all("inj", filters=filters) == 0
    assert mem.count("inj") == 1 and mem.count("other") == 1


def test_a_key_holding_sql_is_only_a_key(mem: Memory) -> None:
    item = mem.add("odd keys", user_id="inj", metadata={INJECTION: 1})
    assert [m.id for m in mem.list(user_id="inj", filters={INJECTION: 1})] == [item.id]


def test_bad_and_huge_filters_are_refused_and_change_nothing(mem: Memory) -> None:
    mem.add("a coffee fact", user_id="bad", metadata={"n": 1})
    with pytest.raises(ValidationError, match=r"^AND\[1\]\.kind"):
        mem.search("coffee", user_id="bad", filters={"AND": [{"n": 1}, {"kind": {"gte": "x"}}]})
    with pytest.raises(ValidationError, match="operator"):
        mem.count("bad", filters={"n": {"between": [1, 2]}})
    huge = {"k": "x" * 1_000_000}
    assert len(json.dumps(huge)) > 1_000_000
    for call in (
        lambda: mem.delete_all("bad", filters=huge),
        lambda: mem.search("coffee", user_id="bad", filters=huge),
        lambda: mem.list(user_id="bad", filters=huge),
        lambda: mem.context("coffee", user_id="bad", filters=huge),
    ):
        with pytest.raises(ValidationError, match="characters"):
            call()
    with pytest.raises(ValidationError, match="scope"):
        mem.delete_all("bad", filters={"user_id": "someone-else"})
    assert mem.count("bad") == 1


def test_the_async_twins_take_filters(db_path: str) -> None:
    async def run() -> tuple[int, int]:
        async with await AsyncMemory.open(db_path, embedder="hashing") as amem:
            await amem.add("tea", user_id="a", metadata={"x": 1})
            await amem.add("coffee", user_id="a", metadata={"x": 2})
            n = await amem.count("a", filters={"x": 2})
            return n, await amem.delete_all("a", filters={"x": {"gte": 1}})

    assert asyncio.run(run()) == (1, 2)
