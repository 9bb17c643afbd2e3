"""One read scope (:class:`mnemo.storage.scope.ReadScope`), one rule: the SQL it compiles to
(``storage/sql/scoping.py``, both dialects) and its in-process predicate (``admits``) select
the same rows, and every read that takes it stays inside it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from mnemo import Memory
from mnemo.filters import parse_where
from mnemo.index.vectors import VectorIndex
from mnemo.schemas import format_time, utcnow
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import MEMORY, MESSAGE, ListFilter, Ref
from mnemo.storage.scope import ReadScope

LATER = format_time(utcnow() + timedelta(minutes=5))


def _stored(value: Any) -> Any:
    return format_time(value) if isinstance(value, datetime) else value


def _rows(mem: Memory) -> dict[str, dict[str, Any]]:
    """Every turn and memory of the tenant (removed ones too), as fields by content."""
    scope = ReadScope("default", deleted=True, live_at="0001-01-01T00:00:00.000000Z")
    out: dict[str, dict[str, Any]] = {}
    for m in mem.store.rows.list_messages(ListFilter(scope, limit=1000)):
        out[m.content] = {k: _stored(v) for k, v in m.model_dump().items()} | {"kind": "message"}
    for item in mem.store.rows.list_memories(ListFilter(scope, limit=1000)):
        out[item.content] = {k: _stored(v) for k, v in item.model_dump().items()}
    return out


def _write(mem: Memory) -> None:
    """Turns and memories across the dimensions of a scope."""
    turn = [{"role": "user", "content": "rome shared turn"}]
    mem.add_messages(turn, "u", "s1")
    mem.add_messages([{"role": "user", "content": "rome turn of agent a"}], "u", "s1", agent_id="a")
    mem.add_messages([{"role": "user", "content": "rome turn of agent b"}], "u", "s2", agent_id="b")
    mem.add_messages([{"role": "user", "content": "rome turn of another user"}], "v", "s1")
    mem.add("rome at work", user_id="u", metadata={"topic": "work"}, session_id="s1")
    mem.add("rome at home", user_id="u", metadata={"topic": "home"}, kind="note")
    mem.add("rome private to a", user_id="u", agent_id="a", metadata={"topic": "work"})
    mem.delete(mem.add("rome deleted", user_id="u", metadata={"topic": "work"}).id)
    mem.add("rome soon expired", user_id="u", ttl_seconds=60, metadata={"topic": "work"})


SCOPES = [
    ReadScope("default", "u"),
    ReadScope("default", "u", "s1"),
    ReadScope("default", "u", agents=AgentView("a")),
    ReadScope("default", "u", agents=AgentView("b", shared=False)),
    ReadScope("default", "u", agents=AgentView(None)),
    ReadScope("default", "u", kinds=("message",)),
    ReadScope("default", "u", kinds=("note", "fact")),
    ReadScope("default", "u", where=parse_where({"topic": "work"})),
    ReadScope("default", "u", live_at=LATER),
    ReadScope("default", "u", deleted=True),
    ReadScope("default", None, agents=AgentView("a"), where=parse_where({"topic": "work"})),
]


@pytest.mark.parametrize("scope", SCOPES, ids=range(len(SCOPES)))
def test_the_sql_and_the_predicate_select_the_same_rows(mem: Memory, scope: ReadScope) -> None:
    _write(mem)
    rows = _rows(mem)
    wanted = {text for text, row in rows.items() if scope.admits(row)}
    among = mem.store.search.matching_among(scope, _all_refs(mem))
    assert {row["content"] for row in mem.store.search.fetch(sorted(among)).values()} == wanted
    if scope.user_id is not None:
        rowids = mem.store.search.matching_rowids(scope)
        assert {(table, int(r)) for table, ids in rowids.items() for r in ids} == among
    listed = {m.content for m in mem.store.rows.list_memories(ListFilter(scope, limit=1000))}
    assert listed == {t for t in wanted if rows[t]["kind"] != "message"}
    assert mem.store.rows.count_memories(ListFilter(scope)) == len(listed)


def _all_refs(mem: Memory) -> list[Ref]:
    """Every row of the store, by ref."""
    with mem.store.tx.read() as c:  # type: ignore[attr-defined]
        return [
            (table, int(r[0]))
            for table, name in ((MESSAGE, "messages"), (MEMORY, "memories"))
            for r in c.execute(f"SELECT rowid FROM {name}").fetchall()
        ]


@pytest.mark.parametrize("scope", SCOPES[:9], ids=range(9))
def test_full_text_and_the_vector_index_stay_in_the_scope(mem: Memory, scope: ReadScope) -> None:
    _write(mem)
    rows = _rows(mem)
    live = ReadScope(scope.tenant, scope.user_id).at_clock(mem.store.clock)
    wanted = {t for t, row in rows.items() if scope.admits(row) and live.admits(row)}
    match = ["rome"]
    lexical = mem.store.search.lexical(scope, match, 100)
    assert {
        r["content"] for r in mem.store.search.fetch([ref for ref, _ in lexical]).values()
    } == wanted
    index = VectorIndex().refresh(mem.store.search, "default", "u", mem.embedder.id)
    mask = index.mask(scope.at_clock(mem.store.clock))
    held = np.arange(index.n) if mask is None else np.flatnonzero(mask)
    if scope.filter is not None:
        allowed = index.matching(mem.store.search.matching_rowids(scope))
        held = [p for p in held if allowed[p]]
    found = mem.store.search.fetch([index.ref(int(p)) for p in held])
    assert {r["content"] for r in found.values()} == wanted
