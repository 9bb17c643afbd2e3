"""mnemo.integrations.langgraph.MnemoStore with the real langgraph package, on SQLite and
PostgreSQL: items by namespace and key, LangGraph's validation, updates and deletes, batches,
search with filters, limit and offset, and list_namespaces; each checked against what
LangGraph's own ``InMemoryStore`` answers where the two must agree."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from mnemo import Memory
from mnemo.errors import ValidationError
from mnemo.integrations.langgraph import MnemoStore

Stores = tuple[MnemoStore, InMemoryStore]


@pytest.fixture
def store(open_mem: Callable[..., Memory]) -> MnemoStore:
    """A MnemoStore without an index on a fresh store of each backend."""
    return MnemoStore(open_mem())


@pytest.fixture
def both(store: MnemoStore) -> Stores:
    """The MnemoStore and an InMemoryStore, to be given the same calls."""
    return store, InMemoryStore()


def _same(both: Stores, call: Callable[[Any], Any]) -> Any:
    """``call`` on both stores; asserts they answer alike (items compared without their
    timestamps) and returns the answer."""
    ours, theirs = (call(s) for s in both)
    assert _plain(ours) == _plain(theirs)
    return ours


def _plain(x: Any) -> Any:
    if isinstance(x, list):
        return [_plain(i) for i in x]
    if hasattr(x, "namespace") and hasattr(x, "value"):
        return (tuple(x.namespace), x.key, x.value, getattr(x, "score", None))
    return x


def test_import_mnemo_does_not_import_langgraph() -> None:
    code = "import sys, mnemo; print(sorted(m for m in sys.modules if 'langgraph' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_put_get_update_and_delete(store: MnemoStore) -> None:
    ns = ("users", "ann", "prefs")
    assert store.get(ns, "theme") is None
    store.put(ns, "theme", {"mode": "dark", "size": 12})
    first = store.get(ns, "theme")
    assert first is not None
    assert (first.namespace, first.key, first.value) == (ns, "theme", {"mode": "dark", "size": 12})
    assert first.created_at.tzinfo is not None and first.created_at == first.updated_at
    store.put(ns, "theme", {"mode": "light"})
    second = store.get(ns, "theme")
    assert second is not None and second.value == {"mode": "light"}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert store.search(ns) == [store.search(ns)[0]] and len(store.search(ns)) == 1
    store.delete(ns, "theme")
    assert store.get(ns, "theme") is None
    store.put(ns, "theme", {"mode": "dark"})
    store.put(ns, "theme", None)  # a value of None deletes, as in LangGraph
    assert store.get(ns, "theme") is None and store.search(ns) == []
    store.delete(ns, "never-there")  # deleting a missing key is no error


def test_items_keep_their_history_and_show_as_mnemo_notes(store: MnemoStore) -> None:
    store.put(("docs",), "d1", {"text": "v1"})
    store.put(("docs",), "d1", {"text": "v2"})
    notes = store.memory.list("langgraph", kind="note")
    assert len(notes) == 1
    events = [h.event for h in store.memory.history(notes[0].id)]
    assert events == ["ADD", "UPDATE"]
    assert {h.actor for h in store.memory.history(notes[0].id)} == {"langgraph"}


def test_json_values_unicode_keys_and_labels(both: Stores) -> None:
    value = {
        "text": "Zoë mag 寿司 🍣",
        "nested": {"list": [1, 2.5, None, True, {"x": "y"}], "empty": {}},
        "quote": 'it\'s "quoted"',
    }
    ns = ("ユーザー", "zoë", "día-1")
    for s in both:
        s.put(ns, "ключ/1 with space", value)
    _same(both, lambda s: s.get(ns, "ключ/1 with space"))
    _same(both, lambda s: s.search(("ユーザー",)))
    _same(both, lambda s: s.list_namespaces())


@pytest.mark.parametrize(
    "namespace",
    [(), ("",), ("a.b",), ("users", "a.b"), ("langgraph", "x"), ("ok", 3)],
    ids=["empty", "empty-label", "dot", "dot-deeper", "reserved-root", "not-a-string"],
)
def test_bad_namespaces_are_refused_as_in_langgraph(store: MnemoStore, namespace: Any) -> None:
    with pytest.raises(InvalidNamespaceError):
        InMemoryStore().put(namespace, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "k", {"v": 1})
    assert store.search(()) == []


def test_dotted_labels_are_refused_on_reads_too(store: MnemoStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.get(("a.b",), "k")
    with pytest.raises(InvalidNamespaceError):
        store.search(("a.b",))


def test_bad_values_and_ttls_are_clear_errors_that_write_nothing(store: MnemoStore) -> None:
    with pytest.raises(ValidationError, match="metadata"):
        store.put(("docs",), "big", {"text": "x" * 70_000})
    with pytest.raises(ValidationError, match="JSON"):
        store.put(("docs",), "odd", {"when": datetime(2024, 1, 1)})
    assert store.search(("docs",)) == []


def test_search_filters_with_every_operator(both: Stores) -> None:
    rows = [
        ("a", {"color": "red", "n": 1, "tags": ["x", "y"], "meta": {"lang": "en", "v": 2}}),
        ("b", {"color": "blue", "n": 5, "tags": ["x"], "meta": {"lang": "pt", "v": 3}}),
        ("c", {"color": "red", "n": 9, "tags": [], "meta": {"lang": "en", "v": 4}}),
        ("d", {"color": "green", "n": 5.0, "flag": True}),
    ]
    for s in both:
        for key, value in rows:
            s.put(("items",), key, value)
    filters: list[dict[str, Any]] = [
        {"color": "red"},
        {"color": {"$eq": "red"}},
        {"color": {"$ne": "red"}},
        {"n": 5},
        {"n": {"$gt": 1}},
        {"n": {"$gte": 5}},
        {"n": {"$lt": 5}},
        {"n": {"$lte": 5, "$gt": 1}},
        {"color": "red", "n": {"$gt": 1}},
        {"tags": ["x", "y"]},
        {"tags": ["x"]},
        {"meta": {"lang": "en"}},
        {"meta": {"v": {"$gte": 3}}},
        {"flag": True},
        {"missing": None},
        {"color": "purple"},
    ]
    for flt in filters:
        _same(both, lambda s, flt=flt: s.search(("items",), filter=flt))  # type: ignore[misc]
    with pytest.raises(ValueError, match="Unsupported operator"):
        both[0].search(("items",), filter={"n": {"$regex": "x"}})


def test_search_limit_offset_and_listing_order(both: Stores) -> None:
    for s in both:
        for ns in (("b", "one"), ("a",), ("b", "two")):
            for i in range(7):
                s.put(ns, f"k{i}", {"i": i, "ns": list(ns)})
        s.put(("a",), "k3", {"i": 33})  # an update keeps its place
        s.delete(("b", "one"), "k0")
        s.put(("b", "one"), "k0", {"i": 100})  # put again after a delete: last
    for prefix in ((), ("b",), ("a",), ("b", "two"), ("c",)):
        for limit, offset in ((10, 0), (3, 0), (3, 2), (5, 19), (1, 100), (25, 0)):
            _same(
                both,
                lambda s, p=prefix, lim=limit, off=offset: s.search(p, limit=lim, offset=off),  # type: ignore[misc]
            )


def test_list_namespaces_prefix_suffix_wildcards_depth_limit_offset(both: Stores) -> None:
    spaces = [
        ("users", "ann", "prefs"),
        ("users", "ann", "notes"),
        ("users", "bo", "prefs"),
        ("users", "bo"),
        ("docs", "v1"),
        ("docs", "v2", "drafts"),
        ("other",),
    ]
    for s in both:
        for ns in spaces:
            s.put(ns, "k", {"v": 1})
    calls: list[dict[str, Any]] = [
        {},
        {"prefix": ("users",)},
        {"prefix": ("users", "*", "prefs")},
        {"suffix": ("prefs",)},
        {"suffix": ("*", "prefs")},
        {"prefix": ("users",), "suffix": ("notes",)},
        {"max_depth": 1},
        {"max_depth": 2},
        {"prefix": ("users",), "max_depth": 2},
        {"limit": 2},
        {"limit": 2, "offset": 3},
        {"offset": 50},
        {"prefix": ("nope",)},
        {"prefix": ("users", "ann", "prefs", "deeper")},
    ]
    for kwargs in calls:
        _same(both, lambda s, kw=kwargs: s.list_namespaces(**kw))  # type: ignore[misc]


def test_batch_runs_every_op_type_reads_first_then_puts(both: Stores) -> None:
    for s in both:
        s.put(("ns",), "old", {"v": 0})
    ops = [
        PutOp(("ns",), "k", {"v": 1}),
        GetOp(("ns",), "k"),
        GetOp(("ns",), "old"),
        SearchOp(("ns",), None, 10, 0),
        PutOp(("ns",), "k", {"v": 2}),  # the last put of a key wins
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("ns",)),), limit=10),
        PutOp(("ns",), "old", None),
    ]
    results = _same(both, lambda s: s.batch(ops))
    assert results[1] is None and results[2].value == {"v": 0}
    _same(both, lambda s: s.search(("ns",)))
    assert both[0].get(("ns",), "k").value == {"v": 2}  # type: ignore[union-attr]
    assert both[0].get(("ns",), "old") is None


def test_abatch_and_the_async_methods(store: MnemoStore) -> None:
    import asyncio

    async def body() -> None:
        await store.aput(("a",), "k", {"v": 1})
        item = await store.aget(("a",), "k")
        assert item is not None and item.value == {"v": 1}
        assert [i.key for i in await store.asearch(("a",))] == ["k"]
        assert await store.alist_namespaces() == [("a",)]
        await store.adelete(("a",), "k")
        assert await store.aget(("a",), "k") is None

    asyncio.run(body())


def test_scopes_keep_graphs_apart_and_agents_private(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem()
    one, two = MnemoStore(mem), MnemoStore(mem, user_id="graph-2")
    coach = MnemoStore(mem, agent_id="coach")
    one.put(("n",), "k", {"who": "one"})
    two.put(("n",), "k", {"who": "two"})
    coach.put(("n",), "own", {"who": "coach"})
    assert one.get(("n",), "k").value == {"who": "one"}  # type: ignore[union-attr]
    assert two.get(("n",), "k").value == {"who": "two"}  # type: ignore[union-attr]
    assert [i.key for i in two.search(())] == ["k"]
    chef = MnemoStore(mem, agent_id="chef")
    assert chef.get(("n",), "own") is None  # private to the coach
    assert {i.key for i in coach.search(())} == {"k", "own"}  # the agent sees shared items too
    assert {i.key for i in one.search(())} == {"k", "own"}  # the user's scope holds it all
    mem.delete_agent("coach")
    assert coach.get(("n",), "own") is None


def test_dotted_filter_keys_reach_nested_values_and_odd_values_match_nothing(
    store: MnemoStore,
) -> None:
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "in"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    store.put(("docs",), "dotted", {"user.access-level": "literal"})
    assert [i.key for i in store.search(("docs",), filter={"access-level": "public"})] == ["hyphen"]
    assert [i.key for i in store.search(("docs",), filter={"user.access-level": "in"})] == [
        "hyphen"
    ]
    assert [i.key for i in store.search(("docs",), filter={"user.123abc": "ok2"})] == ["digit"]
    literal = store.search(("docs",), filter={"user.access-level": "literal"})
    assert [i.key for i in literal] == ["dotted"]  # a key held as such is read as such
    for odd in ("public\x00' OR '1'='1", "public' OR '1'='1", "''''", "x\ny"):
        assert store.search(("docs",), filter={"access-level": odd}) == []
