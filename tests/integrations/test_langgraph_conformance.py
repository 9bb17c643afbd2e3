"""MnemoStore against LangGraph's own InMemoryStore on random sequences of operations (puts,
updates, deletes by ``None`` and by ``delete``, gets, searches with and without filters,
list_namespaces with prefix, suffix, wildcards and depth), on SQLite and PostgreSQL: every
answer must be the same, timestamps aside.

Two quirks of InMemoryStore are not copied and so are kept out of the comparison: it keeps
listing a namespace whose items were all deleted (or that was only read), and it orders
namespaces by their first touch, reads included; MnemoStore lists namespaces that hold items,
and orders them by their first put. Within a namespace the order is compared exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

from mnemo import Memory
from mnemo.integrations.langgraph import MnemoStore

NAMESPACES = [("a",), ("a", "x"), ("a", "y", "z"), ("ü", "x")]
KEYS = ["k1", "k2", "ключ"]
PATHS = [(), ("a",), ("a", "*"), ("*", "x"), ("b", "x"), ("x",), ("a", "y", "z", "deep")]

values = st.fixed_dictionaries(
    {"n": st.integers(0, 4), "color": st.sampled_from(["red", "blue"])},
    optional={
        "tags": st.lists(st.sampled_from(["t1", "t2"]), max_size=2),
        "meta": st.fixed_dictionaries({"lang": st.sampled_from(["en", "pt"])}),
        # NUL and lone surrogates are refused by mnemo (PostgreSQL's jsonb cannot hold them)
        "text": st.text(
            st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
            max_size=12,
        ),
    },
)
filters = st.sampled_from(
    [
        None,
        {"color": "red"},
        {"color": {"$ne": "red"}},
        {"n": {"$gte": 2}},
        {"n": {"$lt": 3}, "color": "blue"},
        {"n": 3},
        {"tags": ["t1"]},
        {"meta": {"lang": "pt"}},
    ]
)
puts = st.tuples(st.just("put"), st.sampled_from(NAMESPACES), st.sampled_from(KEYS), values)
ops = st.one_of(
    puts,
    st.tuples(st.just("put-none"), st.sampled_from(NAMESPACES), st.sampled_from(KEYS)),
    st.tuples(st.just("delete"), st.sampled_from(NAMESPACES), st.sampled_from(KEYS)),
    st.tuples(st.just("get"), st.sampled_from(NAMESPACES), st.sampled_from(KEYS)),
    st.tuples(st.just("search"), st.sampled_from([(), ("a",), ("a", "x"), ("ü",)]), filters),
    st.tuples(st.just("search"), st.sampled_from([(), ("a",), ("a", "x"), ("ü",)]), filters),
    st.tuples(
        st.just("list"),
        st.sampled_from(PATHS),
        st.sampled_from(PATHS),
        st.sampled_from([None, 1, 2]),
    ),
)
_users = itertools.count()


def _item(x: Any) -> Any:
    return None if x is None else (tuple(x.namespace), x.key, x.value, getattr(x, "score", None))


def _by_namespace(found: list[Any]) -> list[Any]:
    """Items grouped by namespace (stable: each namespace keeps its own order)."""
    return sorted((_item(i) for i in found), key=lambda t: t[0])


def _apply(store: Any, op: tuple[Any, ...]) -> Any:
    kind = op[0]
    if kind == "put":
        return store.put(op[1], op[2], op[3])
    if kind == "put-none":
        return store.put(op[1], op[2], None)
    if kind == "delete":
        return store.delete(op[1], op[2])
    if kind == "get":
        return _item(store.get(op[1], op[2]))
    if kind == "search":
        return _by_namespace(store.search(op[1], filter=op[2], limit=1000))
    prefix, suffix, depth = op[1] or None, op[2] or None, op[3]
    return store.list_namespaces(prefix=prefix, suffix=suffix, max_depth=depth, limit=1000)


@pytest.mark.parametrize("index", [False, True], ids=["plain", "indexed"])
def test_same_answers_as_inmemorystore(open_mem: Callable[..., Memory], index: bool) -> None:
    mem = open_mem()
    config: Any = {"fields": ["text"]} if index else None

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(puts, min_size=3, max_size=12), st.lists(ops, min_size=3, max_size=30))
    def run(first: list[tuple[Any, ...]], then: list[tuple[Any, ...]]) -> None:
        sequence = first + then
        ours = MnemoStore(mem, index=config, user_id=f"conformance-{next(_users)}")
        theirs = InMemoryStore()
        for n, op in enumerate(sequence):
            got, want = _apply(ours, op), _apply(theirs, op)
            if op[0] == "list":  # InMemoryStore also lists namespaces it holds no item of
                held = {tuple(i.namespace) for i in theirs.search((), limit=1000)}
                want = _apply(_rebuilt(theirs), op) if held else []
            assert got == want, f"op {n} {op}: {got!r} != {want!r}"

    run()


def _rebuilt(reference: InMemoryStore) -> InMemoryStore:
    """An InMemoryStore holding ``reference``'s items only (no empty namespaces)."""
    fresh = InMemoryStore()
    for item in reference.search((), limit=10_000):
        fresh.put(tuple(item.namespace), item.key, item.value)
    return fresh
