"""The filter language's parser: mem0's syntax into the typed tree, and every bad filter a
ValidationError that names the offending part."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mnemo import ValidationError
from mnemo.filters import EVERYTHING, And, Condition, Field, Not, Or, matches, parse_filter
from mnemo.filters.limits import MAX_CHARS, MAX_DEPTH, MAX_NODES

META = Field("metadata", ("category",))


def test_mem0s_forms_parse_to_the_tree() -> None:
    assert parse_filter(None) == EVERYTHING
    assert parse_filter({}) == EVERYTHING
    assert parse_filter({"category": "work"}) == Condition(META, "eq", "work")
    assert parse_filter({"metadata.category": "work"}) == Condition(META, "eq", "work")
    assert parse_filter({"category": "*"}) == Condition(META, "exists", True)
    assert parse_filter({"priority": {"gte": 5, "lt": 9}}) == And(
        (
            Condition(Field("metadata", ("priority",)), "gte", 5),
            Condition(Field("metadata", ("priority",)), "lt", 9),
        )
    )
    assert parse_filter({"a": 1, "b": True}) == And(
        (
            Condition(Field("metadata", ("a",)), "eq", 1),
            Condition(Field("metadata", ("b",)), "eq", True),
        )
    )
    assert parse_filter({"OR": [{"kind": "fact"}, {"tags": {"contains": "urg"}}]}) == Or(
        (Condition(Field("kind"), "eq", "fact"), Condition(Field("tags"), "contains", "urg"))
    )
    assert parse_filter({"metadata.a.b": {"ne": "x"}}) == Not(
        Condition(Field("metadata", ("a", "b")), "eq", "x")
    )


def test_sugar_reduces_to_primitives() -> None:
    n = Field("metadata", ("n",))
    assert parse_filter({"n": {"nin": [1, 2]}}) == Not(Condition(n, "in", (1, 2)))
    assert parse_filter({"n": {"exists": False}}) == Not(Condition(n, "exists", True))
    # mem0's NOT takes a list: none of them
    assert parse_filter({"NOT": [{"n": 1}, {"n": 2}]}) == Not(
        Or((Condition(n, "eq", 1), Condition(n, "eq", 2)))
    )
    assert parse_filter({"NOT": {"n": 1}}) == Not(Condition(n, "eq", 1))


def test_langgraph_dollar_operators_are_accepted() -> None:
    for op in ("eq", "ne", "gt", "gte", "lt", "lte"):
        assert parse_filter({"score": {f"${op}": 3}}) == parse_filter({"score": {op: 3}})


def test_times_are_read_as_times_and_kept_in_storage_form() -> None:
    f = parse_filter({"created_at": {"gte": "2024-03-02T10:00:00+02:00"}})
    assert f == Condition(Field("created_at"), "gte", "2024-03-02T08:00:00.000000Z")
    g = parse_filter({"updated_at": {"lt": 0}})  # epoch seconds
    assert g == Condition(Field("updated_at"), "lt", "1970-01-01T00:00:00.000000Z")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"created_at": {"gt": "yesterday"}}, r"^created_at\.gt \(created_at is a time\)"),
        ({"n": {"in": 3}}, r"^n\.in must be a list"),
        ({"AND": [{"a": 1}, {"kind": {"gte": "fact"}}]}, r"^AND\[1\]\.kind\.gte: kind takes"),
        ({"OR": [{"a": 1}, {"b": {"between": [1, 2]}}]}, r"^OR\[1\]\.b\.between: unknown operator"),
        ({"x": {"foo": 1}}, r"write metadata\.x\.foo"),
        ({"kind": "factoid"}, r"^kind: kind is one of"),
        ({"kind": {"in": ["fact", 3]}}, r"^kind\.in\[1\]: kind is text"),
        ({"tags": {"gt": "a"}}, r"^tags\.gt: tags takes only"),
        ({"tags": 3}, r"^tags: tags is text"),
        ({"session_id": {"eq": 1}}, r"^session_id\.eq: session_id is text"),
        ({"created_at": {"gt": True}}, r"^created_at\.gt: created_at is a time"),
        ({"n": {"gt": True}}, r"^n\.gt: cannot order booleans"),
        ({"n": {"contains": 3}}, r"^n\.contains: metadata\.n contains takes text"),
        ({"n": None}, r"^n: null is not a filter value"),
        ({"n": [1, 2]}, r"^n: expected a string, number or boolean"),
        ({"n": {"eq": {"a": 1}}}, r"^n\.eq: expected a string, number or boolean"),
        ({"n": float("nan")}, r"^n must be a finite number"),
        ({"n": 2**60}, r"^n: integers in filters"),
        ({"n": {"exists": "yes"}}, r"^n\.exists must be true or false"),
        ({"n": {}}, r"^n: an empty object names no operator"),
        ({"AND": {"a": 1}}, r"^AND must be a non-empty list"),
        ({"OR": []}, r"^OR must be a non-empty list"),
        ({"NOT": []}, r"^NOT must be a non-empty list"),
        ({"AND": [{"a": 1}, "b"]}, r"^AND\[1\] must be an object"),
        ({"user_id": "u1"}, r"^user_id: user_id is a scope"),
        ({"metadata": 1}, r"^metadata: name a metadata key"),
        ({"a..b": 1}, r"^a\.\.b: empty metadata key"),
        ({"$or": [{"a": 1}]}, r"^\$or: '\$or' is not a field"),
        ({'a"]': 1}, r"cannot be filtered on"),
        ({"caf\u00e9": 1}, r"cannot be filtered on"),
        ({"k" * 200: 1}, r"metadata key longer than"),
        ({"n": "a\x00b"}, r"^n must not contain NUL"),
        ([{"a": 1}], r"^filter must be an object"),
        ("kind = fact", r"^filter must be an object"),
    ],
)
def test_a_bad_filter_names_its_offending_part(raw: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_filter(raw)


def nested(depth: int) -> dict[str, Any]:
    f: dict[str, Any] = {"a": 1}
    for _ in range(depth):
        f = {"NOT": f}
    return f


def test_limits_refuse_big_filters_quickly() -> None:
    parse_filter(nested(MAX_DEPTH - 2))  # within the limit
    cases: list[tuple[Any, str]] = [
        ({"a": "x" * 1_000_000}, "characters"),  # a 1 MB filter
        (nested(100_000), "nested deeper"),  # would blow the parser's recursion
        ({"a": {"in": list(range(100_000))}}, "parts"),
        ({f"k{i}": i for i in range(100_000)}, "parts"),
        ({"OR": [{"a": i} for i in range(MAX_NODES)]}, "parts"),
        ({"a": {"in": ["x" * 1000] * (MAX_CHARS // 1000 + 1)}}, "characters"),
    ]
    for raw, message in cases:
        start = time.perf_counter()
        with pytest.raises(ValidationError, match=message):
            parse_filter(raw)
        assert time.perf_counter() - start < 0.5, message


def test_row_semantics_of_missing_values_and_types() -> None:
    """The reference evaluator's rules (the SQL is checked against it on both backends)."""
    rows = {
        "none": {"metadata": {}},
        "num": {"metadata": {"n": 3}},
        "text": {"metadata": {"n": "3"}},
        "null": {"metadata": {"n": None}},
        "list": {"metadata": {"n": [1, 3, "x"]}},
        "obj": {"metadata": {"n": {"m": 3}}},
        "bool": {"metadata": {"n": True}},
    }

    def ids(raw: dict[str, Any]) -> set[str]:
        f = parse_filter(raw)
        return {name for name, row in rows.items() if matches(f, row)}

    assert ids({"n": 3}) == {"num", "list"}  # "3" is not 3; a list matches by element
    assert ids({"n": 1}) == {"list"}  # True is not 1
    assert ids({"n": True}) == {"bool"}
    assert ids({"n": {"gt": 2}}) == {"num", "list"}  # missing, text, null: false
    assert ids({"n": {"ne": 3}}) == {"none", "text", "null", "obj", "bool"}  # NOT eq
    assert ids({"n": "*"}) == {"num", "text", "list", "obj", "bool"}  # null is not there
    assert ids({"n": {"exists": False}}) == {"none", "null"}
    assert ids({"n.m": 3}) == {"obj"}
    assert ids({"n": {"contains": "x"}}) == {"list"}
    assert ids({"n": {"in": []}}) == set()
    assert ids({"n": {"nin": []}}) == set(rows)


def test_a_parsed_filter_passes_through_unchanged() -> None:
    tree = parse_filter({"OR": [{"a": 1}, {"kind": "note"}]})
    assert parse_filter(tree) is tree


def test_row_times_may_be_datetimes_or_iso_text() -> None:
    from datetime import UTC, datetime

    f = parse_filter({"created_at": {"gte": "2024-01-01T10:00:00+02:00"}})
    assert matches(f, {"created_at": datetime(2024, 1, 1, 8, tzinfo=UTC)})
    assert matches(f, {"created_at": "2024-01-01T09:00:00+01:00"})
    assert not matches(f, {"created_at": "2024-01-01T07:59:59Z"})
    assert not matches(f, {})
