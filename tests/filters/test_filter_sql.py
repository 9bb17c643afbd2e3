"""The compiled SQL against real tables on both backends: for every filter, the ids that
``SELECT id FROM <table> WHERE <scope> AND <fragment>`` returns are exactly the rows the
Python evaluator accepts, on memories and on turns. Injection attempts are inert.

The store is created and filled through the public ``Memory`` API (real migrations, real
JSON as mnemo writes it); the fragments are run over a raw connection of each backend.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo import Memory, ValidationError
from mnemo.filters import MEMORIES, MESSAGES, Columns, matches, parse_filter, to_sql
from mnemo.storage.sql.dialect import POSTGRES, SQLITE, Dialect

INJECTION = "x'); DROP TABLE memories; --"

MEMORY_ROWS: list[dict[str, Any]] = [
    {
        "content": "weekly sync",
        "kind": "fact",
        "session_id": "s1",
        "tags": ["work", "Urgent"],
        "metadata": {
            "category": "work",
            "priority": 7,
            "score": 0.85,
            "archived": False,
            "title": "Weekly Meeting notes",
            "created_date": "2024-02-01",
        },
    },
    {
        "content": "diary",
        "kind": "note",
        "tags": [],
        "metadata": {
            "category": "personal",
            "priority": 3,
            "status": "archived",
            "labels": ["a", "b", 3],
        },
    },
    {
        "content": "trip to Porto",
        "kind": "episode",
        "session_id": "s2",
        "tags": ["travel"],
        "metadata": {"priority": "high", "n": None, "nested": {"x": 1, "y": "deep"}},
    },
    {
        "content": "coffee order",
        "kind": "summary",
        "session_id": "s1",
        "tags": ["\u00fcn\u00efcode", "caf\u00e9"],
        "metadata": {
            "title": "CAF\u00c9 au lait",
            "priority": 9.5,
            "flag": True,
            "created_date": "2023-12-31",
        },
    },
    {
        "content": "report done",
        "kind": "fact",
        "tags": ["work"],
        "metadata": {
            "category": "work",
            "status": "completed",
            "priority": 5,
            INJECTION: 1,
            "labels": "a",
        },
    },
    {"content": "bare", "kind": "fact", "metadata": {}},
]
TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": "hello", "metadata": {"source": "chat", "n": 2}},
    {"role": "assistant", "content": "hi", "metadata": {"source": "api", "n": 2.5}},
    {"role": "user", "content": "bye", "metadata": {}},
]


def connect(target: dict[str, str]) -> tuple[Any, Dialect]:
    """A raw connection to the test's store and its dialect."""
    if "path" in target:
        return sqlite3.connect(target["path"]), SQLITE
    import psycopg

    return psycopg.connect(target["url"], autocommit=True), POSTGRES


class Store:
    """The filled store: the rows as the API returns them, and a raw connection."""

    def __init__(self, mem: Memory, conn: Any, dialect: Dialect) -> None:
        self.conn, self.dialect = conn, dialect
        items = mem.list("u1", limit=100)
        self.memories = {
            m.id: {
                "kind": m.kind,
                "tags": m.tags,
                "metadata": m.metadata,
                "created_at": m.created_at,
                "updated_at": m.updated_at,
                "session_id": m.session_id,
            }
            for m in items
        }
        self.turns = {
            t.id: {
                "kind": "message",
                "metadata": t.metadata,
                "created_at": t.created_at,
                "session_id": t.session_id,
            }
            for t in mem.messages("u1", limit=100)
        }

    def ids(self, raw: Any, table: str = "memories") -> set[str]:
        """The ids the compiled filter selects from ``table`` in user u1's scope."""
        columns: Columns = MEMORIES if table == "memories" else MESSAGES
        frag = to_sql(parse_filter(raw), self.dialect, columns)
        mark = self.dialect.mark
        live = " AND deleted_at IS NULL" if table == "memories" else ""
        sql = (
            f"SELECT id FROM {table} WHERE tenant = {mark} AND user_id = {mark}{live} "
            f"AND {frag.sql}"
        )
        rows = self.conn.execute(sql, ("default", "u1", *frag.params)).fetchall()
        return {r[0] for r in rows}

    def expected(self, raw: Any, table: str = "memories") -> set[str]:
        """The ids the Python evaluator accepts."""
        f = parse_filter(raw)
        rows = self.memories if table == "memories" else self.turns
        return {i for i, row in rows.items() if matches(f, row)}

    def check(self, raw: Any) -> None:
        for table in ("memories", "messages"):
            assert self.ids(raw, table) == self.expected(raw, table), (table, raw)


@pytest.fixture
def store(target: dict[str, str]) -> Iterator[Store]:
    with Memory(**target, embedder="hashing") as mem:
        for i, row in enumerate(MEMORY_ROWS):
            mem.add(user_id="u1", created_at=f"2024-01-0{i + 1}T12:00:00", **row)
        gone = mem.add("deleted one", user_id="u1", metadata={"category": "work"})
        mem.delete(gone.id)
        mem.add("other user", user_id="u2", metadata={"category": "work"}, tags=["work"])
        mem.add_messages(TURNS, "u1", "s9")
        mem.add_messages([{"role": "user", "content": "x", "metadata": {"n": 2}}], "u2")
        conn, dialect = connect(target)
        try:
            yield Store(mem, conn, dialect)
        finally:
            conn.close()


HANDWRITTEN: list[Any] = [
    {},
    {"category": "work"},
    {"metadata.category": "work"},
    {"category": {"ne": "work"}},
    {"category": {"in": ["work", "personal"]}},
    {"category": {"nin": ["work"]}},
    {"category": "*"},
    {"n": "*"},
    {"n": {"exists": False}},
    {"priority": {"gte": 5}},
    {"priority": {"gt": 5, "lte": 9.5}},
    {"priority": {"lt": "i"}},
    {"priority": 7.0},
    {"score": {"gt": 0.8}},
    {"archived": False},
    {"archived": {"ne": True}},
    {"flag": True},
    {"labels": "a"},
    {"labels": 3},
    {"labels": {"contains": "b"}},
    {"title": {"contains": "Meeting"}},
    {"title": {"contains": "meeting"}},
    {"title": {"icontains": "meeting"}},
    {"title": {"icontains": "caf\u00c9"}},
    {"title": {"icontains": "caf\u00e9"}},  # ASCII folding only: no match
    {"created_date": {"gte": "2024-01-01"}},
    {"nested.x": 1},
    {"nested.y": {"icontains": "DEE"}},
    {"nested": {"exists": True}},
    {"nested": 1},  # an object is not a list: its members are not its elements
    {"nested": {"contains": "dee"}},
    {"labels": {"gt": 2}},  # a list's elements are compared one by one
    {"kind": "fact"},
    {"kind": {"in": ["note", "message"]}},
    {"kind": {"ne": "message"}},
    {"tags": "work"},
    {"tags": {"contains": "urg"}},
    {"tags": {"icontains": "urg"}},
    {"tags": {"nin": ["work", "travel"]}},
    {"tags": "*"},
    {"tags": {"exists": False}},
    {"tags": "caf\u00e9"},
    {"session_id": "s1"},
    {"session_id": {"ne": "s1"}},
    {"session_id": {"exists": False}},
    {"session_id": {"icontains": "S"}},
    {"created_at": {"gt": "2024-01-03T00:00:00Z"}},
    {"created_at": {"lte": "2024-01-02T12:00:00"}},
    {"updated_at": {"gte": "2024-01-01"}},
    {"agent_id": "a1"},
    {"agent_id": {"ne": "a1"}},
    {"source": {"in": ["chat", "api"]}},
    {"n": {"gte": 2}},
    {"AND": [{"category": "work"}, {"priority": {"gte": 6}}]},
    {"OR": [{"category": "personal"}, {"priority": {"gte": 9}}, {"tags": "travel"}]},
    {"NOT": [{"category": "work"}, {"kind": "episode"}]},
    {"NOT": {"OR": [{"tags": "work"}, {"n": {"gte": 2}}]}},
    {
        "AND": [
            {"OR": [{"category": "work"}, {"category": "personal"}]},
            {"priority": {"gte": 5}},
            {"NOT": [{"status": "archived"}]},
        ]
    },
    {INJECTION: 1},
    {"category": INJECTION},
    {"category": {"in": [INJECTION, "x' OR '1'='1"]}},
    {"title": {"contains": "%"}},
    {"title": {"contains": "_"}},
]


def test_sql_selects_what_the_evaluator_accepts(store: Store) -> None:
    for raw in HANDWRITTEN:
        store.check(raw)


def test_the_handwritten_filters_select_the_rows_they_mean(store: Store) -> None:
    """A few answers stated outright, so the evaluator itself is pinned, not only the SQL."""
    content = {i: r["metadata"].get("title") for i, r in store.memories.items()}
    by_kind = {i: r["kind"] for i, r in store.memories.items()}
    assert len(store.ids({"category": "work"})) == 2  # the deleted one and u2's are out
    assert len(store.ids({"priority": {"gte": 5}})) == 3  # 7, 9.5, 5; "high" is text
    assert {content[i] for i in store.ids({"title": {"icontains": "meeting"}})} == {
        "Weekly Meeting notes"
    }
    assert len(store.ids({"tags": {"exists": False}})) == 2
    assert {by_kind[i] for i in store.ids({"kind": "fact"})} == {"fact"}
    assert store.ids({"kind": "fact"}, "messages") == set()
    assert len(store.ids({"kind": "message"}, "messages")) == 3
    assert len(store.ids({"n": {"gte": 2}}, "messages")) == 2  # u2's turn is out
    assert len(store.ids({INJECTION: 1})) == 1  # a strange key is just a key


# ---- property test: random filters over the same rows ----------------------------------------

TEXT = st.sampled_from(
    [
        "work",
        "personal",
        "archived",
        "completed",
        "high",
        "a",
        "b",
        "Meeting",
        "meeting",
        "caf\u00e9",
        "CAF",
        "deep",
        "chat",
        "2024-02-01",
        "2023",
        INJECTION,
        "",
    ]
)
NUMBER = st.one_of(st.integers(-2, 10), st.sampled_from([0.85, 2.5, 9.5, 7.0]))
SCALAR = st.one_of(TEXT, NUMBER, st.booleans())
META_KEYS = st.sampled_from(
    [
        "category",
        "priority",
        "score",
        "archived",
        "title",
        "status",
        "labels",
        "n",
        "nested.x",
        "nested.y",
        "nested",
        "flag",
        "source",
        "created_date",
        "missing",
        INJECTION,
    ]
)
TIMES = st.sampled_from(["2024-01-02T12:00:00Z", "2024-01-04", "2023-01-01", "2030-01-01"])


def op_on(values: st.SearchStrategy[Any], ops: list[str]) -> st.SearchStrategy[Any]:
    """A condition's value: a bare value, or one operator with a value (a list for in/nin)."""
    one = st.tuples(st.sampled_from(ops), values).map(lambda t: {t[0]: t[1]})
    many = st.tuples(st.sampled_from(["in", "nin"]), st.lists(values, max_size=3)).map(
        lambda t: {t[0]: t[1]}
    )
    exists = st.booleans().map(lambda b: {"exists": b})
    return st.one_of(values, st.just("*"), one, many, exists)


TEXT_OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "contains", "icontains"]
LEAF = st.one_of(
    st.tuples(META_KEYS, op_on(SCALAR, ["eq", "ne", "gt", "gte", "lt", "lte"])),
    st.tuples(META_KEYS, op_on(TEXT, TEXT_OPS)),
    st.tuples(st.just("kind"), op_on(st.sampled_from(["fact", "note", "message"]), ["eq", "ne"])),
    st.tuples(
        st.just("tags"),
        op_on(
            st.sampled_from(["work", "urg", "Urgent", "caf\u00e9"]),
            ["eq", "ne", "contains", "icontains"],
        ),
    ),
    st.tuples(st.just("session_id"), op_on(st.sampled_from(["s1", "s2", "s9", "S"]), TEXT_OPS)),
    st.tuples(
        st.sampled_from(["created_at", "updated_at"]),
        op_on(TIMES, ["eq", "ne", "gt", "gte", "lt", "lte"]),
    ),
).map(lambda kv: {kv[0]: kv[1]})
FILTERS = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"AND": xs}),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"OR": xs}),
        inner.map(lambda x: {"NOT": x}),
        st.lists(inner, min_size=1, max_size=2).map(lambda xs: {"NOT": xs}),
    ),
    max_leaves=6,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=FILTERS)
def test_random_filters_select_on_both_backends_what_the_evaluator_accepts(
    store: Store, raw: Any
) -> None:
    try:
        parse_filter(raw)
    except ValidationError:
        return  # e.g. an empty string key path; parse errors are tested on their own
    store.check(raw)


# ---- injection -------------------------------------------------------------------------------


def test_injection_attempts_are_inert(store: Store, target: dict[str, str]) -> None:
    before = store.ids({})
    attempts: list[Any] = [
        {INJECTION: INJECTION},
        {"category": INJECTION},
        {"category": {"contains": "'; DELETE FROM memories; --"}},
        {"tags": {"in": [INJECTION, "a' OR 1=1 --"]}},
        {"session_id": "s1' OR '1'='1"},
        {"created_at": {"gt": "2024-01-01'); DROP TABLE memories; --"}},  # not a time
        {'a"]': 1},
        {"$.a": 1},
        {"a.$.b": 1},
        {"a') OR 1=1 --": {"gt": 0}},
        {"category": {"$where": "1"}},
    ]
    for raw in attempts:
        try:
            got = store.ids(raw)
        except ValidationError:
            continue
        assert got == store.expected(raw)
        assert got <= {i for i, r in store.memories.items() if INJECTION in r["metadata"]}
    assert store.ids({}) == before  # table there, rows unchanged
    with Memory(**target, embedder="hashing") as mem:
        assert len(mem.list("u1", limit=100)) == len(MEMORY_ROWS)
        assert len(mem.list("u2", limit=100)) == 1


def test_columns_are_checked_identifiers() -> None:
    for bad in ("metadata; DROP TABLE x", "m.metadata.x", "1col", "a b"):
        with pytest.raises(ValueError, match="not a column name"):
            Columns(metadata=bad)
    assert MEMORIES.aliased("m").column("tags") == "m.tags"
    assert MESSAGES.aliased("m").column("tags") is None


def test_the_storage_dialects_fit_the_compiler() -> None:
    for d in (SQLITE, POSTGRES):
        frag = to_sql(parse_filter({"a": 1, "tags": "x", "kind": "fact"}), d, MEMORIES)
        assert frag.sql.count(d.mark) == len(frag.params)
