"""The search-side reads both stores share: vectors, hit fields, session sizes, embedders.

:class:`SQLSearch` implements every :class:`~mnemo.storage.ports.search.SearchSource` method
but the full-text scoring: ``lexical`` picks the tables and merges their candidates, and each
backend adds ``bm25`` and ``lexical_idf`` in its own subclass (FTS5 with bm25 in
:mod:`mnemo.storage.sqlite.search`; tsvector and a BM25 of its own in
:mod:`mnemo.storage.postgres.search`); it is one of the role classes a store is assembled
from (:mod:`mnemo.storage.sql.role`). The statements here are spelled through the
:class:`~mnemo.storage.sql.dialect.Dialect`, and read vectors as the :class:`~mnemo.storage.
sql.tx.Tx` returns them (float32 bytes on both backends), so both stores give the same rows
in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from mnemo.storage.base import MEMORY, MESSAGE, MemoryVersion, Ref, VectorRows, VectorState
from mnemo.storage.clock import Clock
from mnemo.storage.ports.search import SearchSource, VectorLoad
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql import asof as asof_sql
from mnemo.storage.sql import expiry, filtering, rows, scoping
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import auto, reads
from mnemo.storage.sql.tx import Row, Tx
from mnemo.text.turn_rules import stored_text

#: Rows per ``IN (...)`` list of a batched lookup.
CHUNK = 500
#: The columns a search hit is built from (:func:`mnemo.storage.sql.rows.fetched`), by table.
HIT_COLUMNS = {
    MESSAGE: "rowid, id, content, created_at, user_id, session_id, role, name, metadata, seq,"
    " agent_id, turn_rules, turn_kind, name_cues",
    MEMORY: ", ".join(["rowid", *(f.selected for f in rows.HIT_FIELDS)]),
}
#: The full-text tables' row tables, by ref table.
TABLES = {MESSAGE: "messages", MEMORY: "memories"}


def embedders(c: Tx) -> list[str]:
    """Distinct embedder ids of stored vectors.

    A loose index scan (one index probe per distinct value) instead of ``DISTINCT``, which
    would read the whole embedder index: this runs every time a store is opened.
    """
    out: set[str] = set()
    for table in TABLES.values():
        found = c.execute(
            f"WITH RECURSIVE e(v) AS (SELECT min(embedder) FROM {table}"
            f" UNION ALL SELECT (SELECT min(embedder) FROM {table} WHERE embedder > e.v)"
            " FROM e WHERE e.v IS NOT NULL) SELECT v FROM e WHERE v IS NOT NULL"
        )
        out.update(r[0] for r in found)
    return sorted(out)


def _by_hash(
    c: Tx,
    tables: Iterable[str],
    tenant: str | None,
    embedder: str,
    hashes: list[str],
    keyed: bool = False,
) -> Iterator[Row]:
    """``content_hash, embedding`` of the embedded rows of ``tables`` whose content hash is
    among ``hashes``, made by ``embedder`` (of ``tenant``; None: any tenant's), looked up by
    the content-hash index, a chunk of hashes at a time; ``keyed``: only turns with extra
    keys, their ``key_vectors`` last."""
    d = c.dialect
    select = "content_hash, embedding, key_vectors" if keyed else "content_hash, embedding"
    for chunk in chunks(hashes):
        for table in tables:
            sql = (
                f"SELECT {select} FROM {table} WHERE content_hash IN ({d.marks(len(chunk))})"
                f" AND {d.unindexed('embedder')}={d.mark} AND embedding IS NOT NULL"
            )
            args: list[Any] = [*chunk, embedder]
            if tenant is not None:
                sql += f" AND {d.unindexed('tenant')}={d.mark}"
                args.append(tenant)
            if keyed:
                sql += " AND length(key_vectors) > 0"
            yield from c.execute(sql, args)


def chunks(values: list[Any]) -> list[list[Any]]:
    """``values`` without repeats, in slices of at most :data:`CHUNK`."""
    uniq = list(dict.fromkeys(values))
    return [uniq[i : i + CHUNK] for i in range(0, len(uniq), CHUNK)]


@dataclass(frozen=True)
class LexicalQuery:
    """One full-text search: the rows of ``scope`` (one user's, bound to a time: its
    ``live_at``) that hold any of ``terms`` (the query's words; each backend writes them in
    its own syntax), at most ``limit`` of each table;
    the scope's filter applies before the limit."""

    scope: ReadScope
    terms: list[str]
    limit: int


class SQLSearch(SQLRole, SearchSource):
    """The shared half of a backend's search role (``store.search``), over the store's core; a
    backend adds its full text (:meth:`bm25` and ``lexical_idf``). The port
    (:class:`~mnemo.storage.ports.search.SearchSource`) documents every method."""

    @property
    def clock(self) -> Clock:
        return self.core.clock

    def lexical(self, scope: ReadScope, terms: list[str], limit: int) -> list[tuple[Ref, float]]:
        if scope.user_id is None:
            raise ValueError("a full-text search reads one user's rows")
        out = self.bm25(LexicalQuery(scope.at_clock(self.core.clock), terms, limit))
        out.sort(key=lambda x: -x[1])
        return out[:limit]

    def bm25(self, q: LexicalQuery) -> list[tuple[Ref, float]]:
        """The backend's BM25 candidates of each table ``q`` asks for (messages first), each
        table's best first; scores are higher-is-better."""
        raise NotImplementedError

    @reads
    def matching_rowids(self, c: Tx, scope: ReadScope) -> dict[int, np.ndarray]:
        return filtering.matching_rowids(c, scope)

    @reads
    def matching_among(self, c: Tx, scope: ReadScope, refs: list[Ref]) -> set[Ref]:
        return filtering.matching_among(c, scope, refs)

    @auto
    def count_items(self, c: Tx, tenant: str, user_id: str, session_id: str) -> int:
        return stats_sql.count_items(c, tenant, user_id, session_id)

    @auto
    def vector_state(self, c: Tx, tenant: str, user_id: str) -> VectorState:
        q = c.dialect.mark
        r = c.execute(
            f"SELECT (SELECT generation FROM users WHERE tenant={q} AND user_id={q}),"
            f" (SELECT coalesce(max(rowid), 0) FROM messages WHERE tenant={q}"
            f" AND user_id={q}),"
            f" (SELECT coalesce(max(rowid), 0) FROM memories WHERE tenant={q}"
            f" AND user_id={q})",
            (tenant, user_id) * 3,
        ).fetchone()
        return VectorState(-1 if r[0] is None else int(r[0]), int(r[1]), int(r[2]))

    @reads
    def load_vectors(self, c: Tx, load: VectorLoad) -> VectorRows:
        """Newer than ``after`` (if given) and no newer than ``upto``: bounding both ends keeps
        concurrent inserts from being loaded twice. Messages first, each table in rowid order
        (equal rows then give bit-equal products on both backends)."""
        after, upto = load.after, load.upto
        lo_msg = after.max_message_rowid if after else 0
        lo_mem = after.max_memory_rowid if after else 0
        user = (load.tenant, load.user_id, load.embedder)
        d = c.dialect
        q, emb = d.mark, d.unindexed("embedder")
        where = f"tenant={q} AND user_id={q} AND {emb}={q} AND rowid>{q} AND rowid<={q}"
        messages = c.execute(
            "SELECT 0, rowid, session_id, 'message', created_at, embedding, role, name,"
            " key_vectors, expires_at, agent_id, turn_rules, turn_kind"
            f" FROM messages WHERE {where}"
            f" AND {scoping.kept(MESSAGE)} ORDER BY rowid",  # the user index's order: no sort
            (*user, lo_msg, upto.max_message_rowid),
        ).fetchall()
        memories = c.execute(
            "SELECT 1, rowid, session_id, kind, created_at, embedding, NULL, NULL, NULL,"
            " expires_at, agent_id, NULL, NULL FROM memories"
            f" WHERE {where} AND {scoping.kept(MEMORY)} ORDER BY rowid",
            (*user, lo_mem, upto.max_memory_rowid),
        ).fetchall()
        return rows.vector_rows(messages + memories)

    @auto
    def turn_cues(self, c: Tx, rowids: list[int]) -> dict[int, tuple[str | None, str]]:
        """Each live turn's stored name cues (None when the current rules have not computed
        them) and, for those only, its text (else ""), by rowid: what alias learning reads,
        without building rows or reading the texts it does not need."""
        cues: dict[int, str | None] = {}
        now = self.core.now()
        live = expiry.live(c.dialect)
        for chunk in chunks(rowids):
            marks = c.dialect.marks(len(chunk))
            sql = f"SELECT rowid, turn_rules, name_cues FROM messages WHERE rowid IN ({marks})"
            for r in c.execute(f"{sql} AND {live}", [*chunk, now]):
                cues[r["rowid"]] = stored_text(r["turn_rules"], r["name_cues"])
        texts: dict[int, str] = {}
        for chunk in chunks([i for i, text in cues.items() if text is None]):
            marks = c.dialect.marks(len(chunk))
            sql = f"SELECT rowid, content FROM messages WHERE rowid IN ({marks})"
            texts.update((r["rowid"], r["content"]) for r in c.execute(sql, chunk))
        return {i: (text, texts.get(i, "")) for i, text in cues.items()}

    @auto
    def fetch(self, c: Tx, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Rows not expired by the store's clock; see :func:`mnemo.storage.sql.rows.fetched`."""
        out: dict[Ref, dict[str, Any]] = {}
        now = self.core.now()
        for table, name in TABLES.items():
            for chunk in chunks([r for t, r in refs if t == table]):
                sql = (
                    f"SELECT {HIT_COLUMNS[table]} FROM {name}"
                    f" WHERE rowid IN ({c.dialect.marks(len(chunk))})"
                    f" AND {expiry.live(c.dialect)}"
                )
                for r in c.execute(sql, [*chunk, now]):
                    out[(table, r["rowid"])] = rows.fetched(table == MESSAGE, r)
        return out

    @auto
    def embeddings_for(
        self, c: Tx, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        found = _by_hash(c, TABLES.values(), tenant, embedder, hashes)
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in found}

    @auto
    def key_vectors_for(
        self, c: Tx, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        found = _by_hash(c, ["messages"], tenant, embedder, hashes, keyed=True)
        return {h: rows.unpack_keys(keys, len(vec) // 4) for h, vec, keys in found}

    @reads
    def memory_versions(self, c: Tx, tenant: str, user_id: str, at: str) -> list[MemoryVersion]:
        return asof_sql.memory_versions(c, tenant, user_id, at, live_at=self.core.now())

    @auto
    def embedders_in_use(self, c: Tx) -> list[str]:
        return embedders(c)


__all__ = ["CHUNK", "HIT_COLUMNS", "LexicalQuery", "SQLSearch", "chunks", "embedders"]
