"""The SQLite store's full text: FTS5 with bm25.

``lexical`` runs an FTS5 ``MATCH`` over ``messages_fts`` and ``memories_fts``, confined to one
owner by the ``owner`` column the triggers write (:func:`owner_token`). Vectors, hit fields and
the rest of the search port are the shared :class:`~mnemo.storage.sql.search.SQLSearch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mnemo.filters import Filter, walk
from mnemo.schemas import format_time
from mnemo.storage.base import MEMORY, MESSAGE, Ref
from mnemo.storage.sql import expiry, filtering
from mnemo.storage.sql.agents import agent_where
from mnemo.storage.sql.dialect import SQLITE
from mnemo.storage.sql.search import LexicalQuery, SQLSearch
from mnemo.storage.sqlite import fts_stats
from mnemo.storage.sqlite.conn import Connections


def owner_token(tenant: str, user_id: str) -> str:
    """The FTS token that confines a query to one (tenant, user), as the triggers write it."""
    return "o" + (tenant + "\x1f" + user_id).encode("utf-8").hex().upper()


Found = list[tuple[Ref, float]]


class SQLiteSearch(SQLSearch):
    """:class:`~mnemo.storage.ports.search.SearchSource` over one SQLite file (the search role
    of :class:`~mnemo.storage.sqlite.store.SQLiteStore`)."""

    db: Connections

    def bm25(self, q: LexicalQuery) -> list[tuple[Ref, float]]:
        """BM25 candidates for an FTS5 query over messages and memories. With a filter, each
        table's best matching rows are read best first (:func:`mnemo.filters.walk.best_matching`:
        the unfiltered ranking's rows asked about, the filtered query once past its limit)."""
        c = self.db.get()
        owners = c.execute("SELECT tenant, user_id FROM users LIMIT 2").fetchall()
        if [tuple(o) for o in owners] == [(q.tenant, q.user_id)]:
            query = q.match  # the only owner: confining to it would cost a full doclist read
        else:
            query = f'owner : "{owner_token(q.tenant, q.user_id)}" AND ({q.match})'
        out: list[tuple[Ref, float]] = []
        now = format_time(self.clock())
        for table, wanted in ((MESSAGE, q.messages), (MEMORY, bool(q.memory_kinds))):
            if wanted:
                out += self._table(c, table, q, query, now)
        return out

    def _table(self, c: Any, table: int, q: LexicalQuery, query: str, now: str) -> Found:
        """One table's BM25 candidates (see :meth:`bm25`); rows expired at ``now`` or not in
        the query's agent view are never among them, filter or not."""

        def ranked(limit: int, where: Filter | None = None) -> Found:
            sql, args = self._statement(table, q, query, where, now)
            return [((table, r[0]), r[1]) for r in c.execute(sql, [*args, limit])]

        tree = q.where
        if tree is None:
            return ranked(q.limit)

        def keep(rows: Sequence[tuple[Ref, float]]) -> list[bool]:
            ok = self.matching_among(q.tenant, tree, [ref for ref, _ in rows])
            return [ref in ok for ref, _ in rows]

        def scan() -> Found:
            return ranked(q.limit, tree)

        return walk.best_matching(ranked, keep, q.limit, scan)

    @staticmethod
    def _statement(
        table: int, q: LexicalQuery, query: str, where: Filter | None, now: str
    ) -> tuple[str, list[Any]]:
        """The FTS5 query of one table (its ``LIMIT ?`` last, unbound) and its arguments: the
        user's rows live at ``now``, in the query's agent view, matching ``where`` (if given)."""
        if table == MESSAGE:
            sql = (
                "SELECT f.rowid, -bm25(messages_fts, 1.0, 0.0) FROM messages_fts f"
                " WHERE messages_fts MATCH ?"
            )
            sql += " AND f.rowid NOT IN (SELECT rowid FROM messages WHERE tenant=? AND user_id=?"
            sql += " AND expires_at <= ?)"  # the user's expired turns: an index range, often empty
            args: list[Any] = [query, q.tenant, q.user_id, now]
            extra, extra_args = filtering.narrowing(where, SQLITE, filtering.MESSAGES)
            if q.session_id is not None or extra:
                sql += " AND f.rowid IN (SELECT rowid FROM messages WHERE tenant=? AND user_id=?"
                args += [q.tenant, q.user_id]
                if q.session_id is not None:
                    sql += " AND session_id=?"
                    args.append(q.session_id)
                sql += f"{extra})"
                args += extra_args
            seen, more = agent_where(q.agents, SQLITE, "m.agent_id")
            if seen:
                sql += f" AND EXISTS (SELECT 1 FROM messages m WHERE m.rowid = f.rowid AND {seen})"
                args += more
            return sql + " ORDER BY bm25(messages_fts, 1.0, 0.0) LIMIT ?", args
        sql = (
            "SELECT f.rowid, -bm25(memories_fts, 1.0, 0.0) FROM memories_fts f"
            " JOIN memories m ON m.rowid = f.rowid WHERE memories_fts MATCH ?"
            f" AND m.kind IN ({','.join('?' * len(q.memory_kinds))})"
        )
        sql += f" AND {expiry.live(SQLITE, 'm.expires_at')}"
        args = [query, *q.memory_kinds, now]
        if q.session_id is not None:
            sql += " AND m.session_id = ?"
            args.append(q.session_id)
        seen, more = agent_where(q.agents, SQLITE, "m.agent_id")
        if seen:
            sql += f" AND {seen}"
            args += more
        extra, extra_args = filtering.narrowing(where, SQLITE, filtering.MEMORIES.aliased("m"))
        return sql + extra + " ORDER BY bm25(memories_fts, 1.0, 0.0) LIMIT ?", args + extra_args

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the bm25 idf of the query's terms in each full-text table (MESSAGE, MEMORY).

        FTS5 takes its statistics over the whole table, every owner's rows, so ``tenant`` and
        ``user_id`` do not change the result (see :mod:`mnemo.storage.sqlite.fts_stats`).
        """
        c = self.db.get()
        return {
            MESSAGE: fts_stats.idf_total(c, "messages_fts", terms),
            MEMORY: fts_stats.idf_total(c, "memories_fts", terms),
        }
