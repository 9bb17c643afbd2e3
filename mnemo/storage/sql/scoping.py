"""A :class:`~mnemo.storage.scope.ReadScope` in SQL, both dialects: the one place its
conditions are written.

:func:`condition` is the whole scope over one table (turns or memories): the owner (tenant,
user), liveness (deleted memories, evicted turns, rows expired at ``live_at``) and the
narrowing (session, kinds, agent view, filter), joined by ``AND``, with its bound parameters
in order. The parts are there on their own for the statements that place them apart: a
full-text table that holds no removed rows needs no liveness test, PostgreSQL's BM25 takes
its statistics over the owner's live rows and marks which candidates the narrowing keeps.

The owner conditions are always written first and never built from the filter, so a filter
only narrows what the caller may see. The filter's fragment holds only bound parameters
(:func:`mnemo.filters.to_sql`); on PostgreSQL it reads the jsonb copies of the JSON columns
(migration 0012, :func:`stored_json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mnemo.filters import MEMORIES, MESSAGES, Columns, Filter, to_sql
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import MEMORY, MESSAGE
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.expiry import live as unexpired

#: Each table's columns for a filter, by ref table.
COLUMNS = {MESSAGE: MESSAGES, MEMORY: MEMORIES}
#: The row tables, by ref table.
TABLES = {MESSAGE: "messages", MEMORY: "memories"}
#: The column that marks a row taken out of the working set, by ref table: an evicted turn
#: (the row stays as the event log), a soft-deleted memory (history keeps it).
REMOVED = {MESSAGE: "evicted_at", MEMORY: "deleted_at"}


@dataclass(frozen=True)
class Where:
    """Conditions joined by ``AND`` (``sql``, empty for none) and their parameters, in order."""

    sql: str = ""
    args: tuple[Any, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.sql)

    def __and__(self, other: Where) -> Where:
        if not other:
            return self
        if not self:
            return other
        return Where(f"{self.sql} AND {other.sql}", self.args + other.args)

    @property
    def suffix(self) -> str:
        """``" AND conditions"`` to append to a WHERE that has conditions already."""
        return f" AND {self.sql}" if self.sql else ""


def _all(parts: list[tuple[str, tuple[Any, ...]]]) -> Where:
    out = Where()
    for sql, args in parts:
        out = out & Where(sql, args)
    return out


def _col(alias: str, column: str) -> str:
    return f"{alias}.{column}" if alias else column


def stored_json(columns: Columns) -> Columns:
    """``columns`` reading metadata and tags from PostgreSQL's jsonb copies (migration 0012:
    ``metadata_jsonb``, ``tags_jsonb``), which a filter reads without a cast per row."""
    meta, tags = columns.column("metadata"), columns.column("tags")
    return columns.replaced(
        metadata=None if meta is None else f"{meta}_jsonb",
        tags=None if tags is None else f"{tags}_jsonb",
    )


def kept(table: int, alias: str = "") -> str:
    """The condition of a row of ``table`` still in the working set (not evicted / deleted)."""
    return f"{_col(alias, REMOVED[table])} IS NULL"


def agent_where(view: AgentView | None, d: Dialect, column: str = "agent_id") -> Where:
    """The rows ``view`` sees (no condition for no view): ``AgentView("A")`` is
    ``(agent_id IS NULL OR agent_id = 'A')``; exact views drop one side."""
    if view is None:
        return Where()
    if view.agent_id is None:
        return Where(f"{column} IS NULL") if view.shared else Where("1 = 0")
    if view.shared:
        return Where(f"({column} IS NULL OR {column} = {d.mark})", (view.agent_id,))
    return Where(f"{column} = {d.mark}", (view.agent_id,))


def filtered(where: Filter | None, table: int, d: Dialect, alias: str = "") -> Where:
    """The filter's fragment over ``table`` (parenthesised), no condition without one."""
    if where is None:
        return Where()
    columns = COLUMNS[table].aliased(alias) if alias else COLUMNS[table]
    frag = to_sql(where, d, stored_json(columns) if d.name == "postgresql" else columns)
    return Where(f"({frag.sql})", tuple(frag.params))


def owner(scope: ReadScope, d: Dialect, alias: str = "", *, tenant_index: bool = True) -> Where:
    """The tenant and, when the scope names one, the user (``tenant_index`` False: the tenant
    spelled off its index, for rows looked up by rowid)."""
    tenant = _col(alias, "tenant")
    parts = [(f"{tenant if tenant_index else d.unindexed(tenant)} = {d.mark}", (scope.tenant,))]
    if scope.user_id is not None:
        parts.append((f"{_col(alias, 'user_id')} = {d.mark}", (scope.user_id,)))
    return _all(parts)


def live(scope: ReadScope, table: int, d: Dialect, alias: str = "") -> Where:
    """Liveness: rows taken out of the working set left out unless the scope sees them,
    rows expired at the scope's ``live_at`` (when set) left out."""
    seen = scope.evicted if table == MESSAGE else scope.deleted
    parts: list[tuple[str, tuple[Any, ...]]] = [] if seen else [(kept(table, alias), ())]
    if scope.live_at is not None:
        parts.append((unexpired(d, _col(alias, "expires_at")), (scope.live_at,)))
    return _all(parts)


def narrowing(scope: ReadScope, table: int, d: Dialect, alias: str = "") -> Where:
    """The session, the kinds, the agent view and the filter (what narrows a user's rows)."""
    parts: list[tuple[str, tuple[Any, ...]]] = []
    if scope.session_id is not None:
        parts.append((f"{_col(alias, 'session_id')} = {d.mark}", (scope.session_id,)))
    if table == MESSAGE and not scope.turns:
        parts.append(("1 = 0", ()))
    kinds = scope.memory_kinds
    if table == MEMORY and kinds is not None:
        wanted = f"{_col(alias, 'kind')} IN ({d.marks(len(kinds))})" if kinds else "1 = 0"
        parts.append((wanted, kinds))
    out = _all(parts) & agent_where(scope.agents, d, _col(alias, "agent_id"))
    return out & filtered(scope.filter, table, d, alias)


def condition(scope: ReadScope, table: int, d: Dialect, alias: str = "") -> Where:
    """The whole scope over ``table``: owner, liveness, narrowing."""
    return owner(scope, d, alias) & live(scope, table, d, alias) & narrowing(scope, table, d, alias)


__all__ = [
    "COLUMNS",
    "REMOVED",
    "TABLES",
    "Where",
    "agent_where",
    "condition",
    "filtered",
    "kept",
    "live",
    "narrowing",
    "owner",
    "stored_json",
]
