"""MnemoStore's semantic search (issue 25), on SQLite and PostgreSQL: LangGraph's IndexConfig
(``dims``, ``embed`` as mnemo's embedder, a LangChain ``Embeddings`` or a function, ``fields``
with JSON paths), per-put ``index`` fields and ``index=False``, updating an item's index,
ranking by mnemo's hybrid search with filters, limit and offset, and the bundled local
embedder finding a paraphrase."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.store.memory import InMemoryStore

from mnemo import Memory
from mnemo.config.settings import Settings
from mnemo.embedders import create_embedder
from mnemo.errors import SchemaError, ValidationError
from mnemo.integrations.langgraph import MnemoStore

DOCS = {
    "py": {"text": "Python tutorial for beginners", "kind": "guide", "year": 2021},
    "ts": {"text": "TypeScript handbook", "kind": "guide", "year": 2023},
    "cello": {"text": "Ann plays the cello every evening", "kind": "note", "year": 2024},
    "tea": {"text": "Bo drinks green tea", "kind": "note", "year": 2022},
}


@pytest.fixture
def store(open_mem: Callable[..., Memory]) -> MnemoStore:
    """A MnemoStore indexing the ``text`` field with the Memory's own (hashing) embedder."""
    s = MnemoStore(open_mem(), index={"dims": 384, "embed": "mnemo", "fields": ["text"]})
    for key, value in DOCS.items():
        s.put(("docs",), key, value)
    return s


def keys(found: list[Any]) -> list[str]:
    return [i.key for i in found]


def test_a_query_ranks_by_mnemos_search_scored_by_cosine(store: MnemoStore) -> None:
    found = store.search(("docs",), query="cello")
    assert found[0].key == "cello"
    assert set(keys(found)) == set(DOCS)  # a limit above the count gets every indexed item
    hits = store.memory.search("cello", "langgraph", kinds=["note"])
    assert keys(found)[: len(hits)] == [h.metadata["langgraph"]["key"] for h in hits]
    by_key = {h.metadata["langgraph"]["key"]: h.scores.get("dense", 0.0) for h in hits}
    assert all(i.score == pytest.approx(by_key[i.key]) for i in found if i.key in by_key)
    rest = [i.score for i in found if i.key not in by_key]  # not reached: their own cosines
    assert rest == sorted(rest, reverse=True)  # type: ignore[type-var]
    assert all(i.score is not None and -1.0 <= i.score <= 1.0 for i in found)
    again = store.search(("docs",), query="cello")  # a cosine: the same in every search
    assert [i.score for i in again] == [i.score for i in found]


def test_query_with_filter_limit_and_offset(store: MnemoStore) -> None:
    notes = store.search(("docs",), query="cello", filter={"kind": "note"})
    assert keys(notes)[0] == "cello" and set(keys(notes)) == {"cello", "tea"}
    recent = store.search(("docs",), query="guide", filter={"year": {"$gte": 2022}}, limit=10)
    assert set(keys(recent)) == {"ts", "cello", "tea"}
    full = keys(store.search(("docs",), query="tutorial"))
    assert keys(store.search(("docs",), query="tutorial", limit=2)) == full[:2]
    assert keys(store.search(("docs",), query="tutorial", limit=2, offset=1)) == full[1:3]
    assert store.search(("docs",), query="tutorial", offset=10) == []
    assert store.search(("elsewhere",), query="tutorial") == []


def test_index_false_and_missing_fields_come_last_without_a_score(store: MnemoStore) -> None:
    store.put(("docs",), "raw", {"text": "cello strings catalogue"}, index=False)
    store.put(("docs",), "untexted", {"title": "no text field"})
    found = store.search(("docs",), query="cello", limit=10)
    assert keys(found)[:1] == ["cello"] and "raw" in keys(found)
    tail = [(i.key, i.score) for i in found if i.score is None]
    assert tail == [("raw", None), ("untexted", None)]
    assert [i.key for i in found[-2:]] == ["raw", "untexted"]
    plain = InMemoryStore()  # without a query both list in insertion order
    for key, value in [*DOCS.items(), ("raw", {"text": "x"}), ("untexted", {"t": 1})]:
        plain.put(("docs",), key, value)
    assert keys(store.search(("docs",))) == keys(plain.search(("docs",)))


def test_per_put_fields_and_updating_an_items_index(store: MnemoStore) -> None:
    store.put(("cards",), "c1", {"front": "capital of Peru", "back": "Lima"}, index=["back"])
    assert store.search(("cards",), query="Lima")[0].key == "c1"
    store.put(("cards",), "c1", {"front": "capital of Peru", "back": "Lima"}, index=["front"])
    only_c1 = {"metadata.langgraph.key": "c1"}
    hit = store.memory.search("Peru", "langgraph", kinds=["note"], filters=only_c1)
    assert hit and hit[0].content == "capital of Peru"
    store.put(("cards",), "c1", {"front": "x", "back": "y"}, index=False)
    only = store.search(("cards",), query="Peru")
    assert [(i.key, i.score) for i in only] == [("c1", None)]
    store.put(("cards",), "c1", {"text": "capital of Chile: Santiago"})  # the store's fields
    assert store.search(("cards",), query="Santiago")[0].score is not None  # indexed again


def test_json_path_fields(open_mem: Callable[..., Memory]) -> None:
    s = MnemoStore(open_mem(), index={"fields": ["messages[*].content", "meta.title"]})
    s.put(
        ("chats",),
        "c",
        {
            "messages": [{"content": "hello there"}, {"content": "the violin"}],
            "meta": {"title": "T"},
        },
    )
    rows = s.memory.list("langgraph", kind="note")  # the item and a part per further text
    assert sorted(r.content for r in rows) == ["T", "hello there", "the violin"]
    assert s.search(("chats",), query="violin")[0].key == "c"
    assert [i.key for i in s.search(("chats",), query="violin")] == ["c"]  # once, best text
    assert [i.key for i in s.search(("chats",))] == ["c"]
    s.put(("chats",), "c", {"messages": [{"content": "just one"}], "meta": {}})
    assert sorted(r.content for r in s.memory.list("langgraph", kind="note")) == ["just one"]
    s.delete(("chats",), "c")
    assert s.memory.list("langgraph", kind="note") == []


def test_embed_as_langchain_embeddings(open_mem: Callable[..., Memory]) -> None:
    fake = DeterministicFakeEmbedding(size=32)
    s = MnemoStore(open_mem(), index={"dims": 32, "embed": fake})
    s.put(("d",), "a", {"text": "alpha"})
    s.put(("d",), "b", {"text": "beta"})
    assert s.search(("d",), query="alpha")[0].key == "a"  # the exact text: the same vector
    assert s._mem.embedder.id == "langchain:DeterministicFakeEmbedding:32"


def test_embed_as_a_plain_function(open_mem: Callable[..., Memory]) -> None:
    hashing = create_embedder(Settings(embedder="hashing"))

    def embed(texts: list[str]) -> list[list[float]]:
        return hashing.embed(texts).tolist()

    f = MnemoStore(open_mem(), index={"dims": hashing.dim, "embed": embed})
    f.put(("d",), "a", {"text": "green tea"})
    assert f.search(("d",), query="tea")[0].key == "a"


def test_bad_index_configs_are_clear_errors(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    with pytest.raises(ValidationError, match="dims is 1536"):
        MnemoStore(mem, index={"dims": 1536})
    with pytest.raises(ValidationError, match="not a mnemo embedder"):
        MnemoStore(mem, index={"dims": 1536, "embed": "openai:text-embedding-3-small"})
    with pytest.raises(ValidationError, match="dims is required"):
        MnemoStore(mem, index={"embed": DeterministicFakeEmbedding(size=8)})
    with pytest.raises(ValidationError, match="fields"):
        MnemoStore(mem, index={"fields": "text"})  # type: ignore[typeddict-item]
    mem.add("a memory embedded by the hashing embedder", "u1")
    with pytest.raises(SchemaError, match="reembed"):
        MnemoStore(mem, index={"dims": 8, "embed": DeterministicFakeEmbedding(size=8)})


@pytest.mark.slow
def test_the_bundled_embedder_finds_a_paraphrase(tmp_path: object) -> None:
    with Memory(f"{tmp_path}/lg.db") as mem:
        s = MnemoStore(mem, index={"dims": 384, "fields": ["text"]})
        s.put(("memories", "ann"), "1", {"text": "I adopted a beagle puppy last spring"})
        s.put(("memories", "ann"), "2", {"text": "My office moved to the fourth floor"})
        s.put(("memories", "ann"), "3", {"text": "I prefer oat milk in my coffee"})
        assert s.search(("memories", "ann"), query="Do I have any pets?")[0].key == "1"


def test_an_item_scores_as_its_best_text(open_mem: Callable[..., Memory]) -> None:
    fake = DeterministicFakeEmbedding(size=16)  # the same text, the same vector
    s = MnemoStore(open_mem(), index={"dims": 16, "embed": fake, "fields": ["a", "b", "c"]})
    s.put(("t",), "first", {"a": "plum", "b": "kiwi", "c": "fig"})
    s.put(("t",), "last", {"a": "pear", "b": "lime", "c": "kiwi"})
    s.put(("t",), "none", {"a": "date", "b": "yuzu", "c": "sloe"})
    found = s.search(("t",), query="kiwi")
    assert {i.key for i in found[:2]} == {"first", "last"}
    assert found[0].score == pytest.approx(1.0, abs=1e-5)
    assert found[1].score == pytest.approx(1.0, abs=1e-5)
    assert found[2].key == "none" and found[2].score < 0.9  # type: ignore[operator]
    s.put(("t",), "last", {"a": "pear"}, index=["a"])  # its index changes: kiwi is gone
    assert s.search(("t",), query="kiwi")[0].key == "first"
    pear = s.search(("t",), query="kiwi", filter={"a": "pear"})
    assert pear[0].score is not None and pear[0].score < 0.9


@pytest.mark.parametrize(
    ("limit", "offset", "expected"),
    [
        (0, 0, []),
        (4, 0, ["cello", "tea", "py", "ts"]),
        (2, 3, ["ts", "raw"]),
        (3, 5, ["raw"]),  # past the ranking: the unindexed fill, as in InMemoryStore
        (10, 1, ["tea", "py", "ts", "raw"]),
    ],
)
def test_limit_and_offset_with_a_query_keep_what_inmemorystore_keeps(
    store: MnemoStore, limit: int, offset: int, expected: list[str]
) -> None:
    theirs = InMemoryStore(index={"dims": 384, "embed": store.embeddings, "fields": ["text"]})  # type: ignore[typeddict-item]
    for key, value in DOCS.items():  # the fixture put these in ``store``
        theirs.put(("docs",), key, value)
    for s in (store, theirs):
        s.put(("docs",), "raw", {"text": "cello"}, index=False)
    # on these items mnemo's ranking and InMemoryStore's cosine agree, so the windows compare
    everything = keys(store.search(("docs",), query="cello", limit=10))
    assert everything == keys(theirs.search(("docs",), query="cello", limit=10))
    ours = store.search(("docs",), query="cello", limit=limit, offset=offset)
    assert keys(ours) == expected
    assert keys(theirs.search(("docs",), query="cello", limit=limit, offset=offset)) == expected


def test_a_filter_nested_deeper_than_the_recursion_limit_is_answered(store: MnemoStore) -> None:
    deep: Any = "x"
    for _ in range(2000):
        deep = {"a": deep}
    store.put(("docs",), "nested", {"a": {"a": {"b": 1}}, "text": "nested cello"})
    for query in (None, "cello"):
        assert store.search(("docs",), query=query, filter={"a": deep}) == []
        assert InMemoryStore().search(("docs",), query=query, filter={"a": deep}) == []
    bad = {"$bogus": 1}
    for _ in range(2000):
        bad = {"a": bad}
    with pytest.raises(ValueError, match=r"Unsupported operator: \$bogus"):
        store.search(("docs",), filter={"a": bad})
