"""The ``number`` filter type: a numeric column compared as a number, the same in SQL (both
backends) and in Python, so a new float field of the table needs no filter code. No field of
today's table is a number filter field; the test declares ``importance`` one, as a new
field's ``filter="number"`` would, and reads its real column."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from mnemo import Memory, ValidationError
from mnemo.filters import Columns, matches, parse_filter, to_sql
from mnemo.filters.nodes import FIELD_TYPES
from mnemo.storage.sql.dialect import POSTGRES, SQLITE, Dialect

FILTERS: list[dict[str, Any]] = [
    {"importance": 0.5},
    {"importance": 1},
    {"importance": {"gte": 0.5}},
    {"importance": {"gt": 0.5, "lte": 1}},
    {"importance": {"lt": 1}},
    {"importance": {"in": [0.1, 1]}},
    {"importance": {"nin": [0.5]}},
    {"importance": {"ne": 0.9}},
    {"importance": {"exists": True}},
    {"NOT": {"importance": {"gte": 0.9}}},
]


def connect(target: dict[str, str]) -> tuple[Any, Dialect]:
    """A raw connection to the test's store and its dialect."""
    if "path" in target:
        return sqlite3.connect(target["path"]), SQLITE
    import psycopg

    return psycopg.connect(target["url"], autocommit=True), POSTGRES


def test_a_number_column_filters_alike_in_sql_and_python(
    mem: Memory, target: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(FIELD_TYPES, "importance", "number")
    values = (0.1, 0.5, 0.9, 1.0)
    stored = {mem.add(f"memory {v}", user_id="u1", importance=v).id: v for v in values}
    columns = Columns(importance="importance")
    conn, dialect = connect(target)
    try:
        for raw in FILTERS:
            tree = parse_filter(raw)
            frag = to_sql(tree, dialect, columns)
            mark = dialect.mark
            sql = f"SELECT id FROM memories WHERE user_id = {mark} AND {frag.sql}"
            got = {r[0] for r in conn.execute(sql, ("u1", *frag.params)).fetchall()}
            expected = {i for i, v in stored.items() if matches(tree, {"importance": v})}
            assert got == expected, raw
            assert expected, raw  # each filter selects something
    finally:
        conn.close()


def test_a_number_field_takes_numbers_and_the_ordered_operators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(FIELD_TYPES, "importance", "number")
    assert parse_filter({"importance": 1}) == parse_filter({"importance": 1.0})
    for bad, message in (
        ({"importance": "high"}, "importance is a number; got str"),
        ({"importance": True}, "importance is a number; got bool"),
        ({"importance": {"contains": "1"}}, "importance takes only eq, ne, gt"),
        ({"importance": 2**60}, r"within \+-2\*\*53"),
    ):
        with pytest.raises(ValidationError, match=message):
            parse_filter(bad)
