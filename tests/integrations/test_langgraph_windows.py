"""MnemoStore's ``limit`` and ``offset`` (issue 43, item 8), on SQLite and PostgreSQL: a
negative or non-integer window is refused with a ValidationError naming the call, the field
and the value, with and without a query, with and without an index, for ``list_namespaces``
too, sync and async (``asearch``, ``alist_namespaces``, ``abatch``, AsyncMnemoStore), and a
batch holding one writes nothing. LangGraph's own stores disagree on negative values
(InMemoryStore slices, SqliteStore drops the limit, PostgresStore's database refuses them),
so MnemoStore refuses them as PostgresStore does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langgraph.store.base import ListNamespacesOp, PutOp, SearchOp

from mnemo import AsyncMemory, Memory
from mnemo.errors import ValidationError
from mnemo.integrations.langgraph import AsyncMnemoStore, MnemoStore

#: windows refused: the keyword arguments, the field named in the error, its value's repr
BAD = [
    ({"limit": -1}, "limit", "-1"),
    ({"offset": -1}, "offset", "-1"),
    ({"limit": -2, "offset": 1}, "limit", "-2"),
    ({"limit": 3, "offset": -2}, "offset", "-2"),
    ({"limit": 1.5}, "limit", "1.5"),
    ({"offset": True}, "offset", "True"),
]
INDEXES: list[Any] = [None, {"dims": 384, "embed": "mnemo", "fields": ["text"]}]


@pytest.fixture(params=INDEXES, ids=["plain", "indexed"])
def store(open_mem: Callable[..., Memory], request: pytest.FixtureRequest) -> MnemoStore:
    """A MnemoStore (without an index, then with one) holding three items."""
    s = MnemoStore(open_mem(), index=request.param)
    for key in ("a", "b", "c"):
        s.put(("docs",), key, {"text": f"cello note {key}"})
    return s


def _error(call: str, field: str, value: str) -> str:
    return rf"^{call}: {field} is a number of \w+, an integer of 0 or more, got {value}$"


@pytest.mark.parametrize(("window", "field", "value"), BAD)
@pytest.mark.parametrize("query", [None, "cello"])
def test_a_bad_search_window_is_refused(
    store: MnemoStore, query: str | None, window: dict[str, Any], field: str, value: str
) -> None:
    with pytest.raises(ValidationError, match=_error("search", field, value)):
        store.search(("docs",), query=query, **window)


@pytest.mark.parametrize(("window", "field", "value"), BAD)
def test_a_bad_list_namespaces_window_is_refused(
    store: MnemoStore, window: dict[str, Any], field: str, value: str
) -> None:
    with pytest.raises(ValidationError, match=_error("list_namespaces", field, value)):
        store.list_namespaces(**window)


def test_a_batch_with_a_bad_window_writes_nothing(store: MnemoStore) -> None:
    ops = [PutOp(("docs",), "d", {"text": "new"}), SearchOp(("docs",), None, -1, 0)]
    with pytest.raises(ValidationError, match=_error("search", "limit", "-1")):
        store.batch(ops)
    late = [PutOp(("docs",), "e", {"text": "new"}), ListNamespacesOp(None, None, 10, -1)]
    with pytest.raises(ValidationError, match=_error("list_namespaces", "offset", "-1")):
        store.batch(late)
    assert store.get(("docs",), "d") is None and store.get(("docs",), "e") is None
    assert store.memory.count("langgraph") == 3


def test_the_async_methods_refuse_a_bad_window(store: MnemoStore) -> None:
    twin = AsyncMnemoStore(AsyncMemory.wrap(store.memory), index=store.index_config)
    search, listing = _error("search", "limit", "-1"), _error("list_namespaces", "offset", "-1")

    async def body() -> None:
        for s in (store, twin):
            with pytest.raises(ValidationError, match=search):
                await s.asearch(("docs",), query="cello", limit=-1)
            with pytest.raises(ValidationError, match=search):
                await s.asearch(("docs",), limit=-1)
            with pytest.raises(ValidationError, match=listing):
                await s.alist_namespaces(offset=-1)
            with pytest.raises(ValidationError, match=search):
                await s.abatch([PutOp(("docs",), "f", {"text": "x"}), SearchOp((), "x", -1)])
            assert await s.aget(("docs",), "f") is None

    asyncio.run(body())
