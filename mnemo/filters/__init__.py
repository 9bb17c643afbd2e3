"""Filters: one language for search, context, list, count and deletes (mem0's syntax).

``parse_filter({"AND": [{"category": "work"}, {"priority": {"gte": 5}}]})`` checks a filter
and returns its typed tree (:mod:`~mnemo.filters.nodes`); :func:`matches` decides a row in
Python (:mod:`~mnemo.filters.evaluate`, which also states the semantics); :func:`to_sql`
turns the tree into a ``WHERE`` fragment with bound parameters for SQLite or PostgreSQL
(:mod:`~mnemo.filters.sql`). The syntax is in :mod:`~mnemo.filters.parse`, the size limits
in :mod:`~mnemo.filters.limits`.

How it is wired into storage (issue 24), so that a filter applies *before* ranking takes its
top k and a search whose filter matches 500 rows still returns a full page:

1. The facade parses once: ``Memory.search/context/list/count/delete_many(..., filters=)``
   call ``parse_filter`` before anything runs (a bad filter is a ValidationError / HTTP 422
   and changes nothing), and pass the tree down on the request
   (a ``filter`` field to add to ``retrieval.request.RetrievalRequest``), never the raw dict.
2. The store compiles it where it builds each statement, with its own dialect and the
   table's :class:`Columns` (``MEMORIES``, ``MESSAGES``, or ``.aliased("m")`` in a join):
   ``frag = to_sql(tree, tx.dialect, MEMORIES)``; the statement appends
   ``AND ({frag.sql})`` after the scope conditions (tenant, user, live rows) and
   ``frag.params`` after the scope's parameters. The scope conditions stay first and are
   never built from the filter, so a filter can only narrow the caller's scope.
3. Where it goes:
   * lexical candidates: in the ``WHERE`` of the FTS5 / tsvector query, before its
     ``ORDER BY rank LIMIT n`` (so BM25's top n are taken among matching rows);
   * dense candidates: the in-process index holds every vector of the user, so the store
     returns the ids (rowids) of the matching rows (``SELECT rowid FROM memories WHERE
     scope AND frag``) and the index masks its matrix with them before its top k; on
     PostgreSQL's HNSW path the fragment goes in the ``WHERE`` of the ``ORDER BY embedding
     <=> q LIMIT k`` query (with ``hnsw.iterative_scan`` so a selective filter still fills
     the page);
   * ``list`` / ``count`` / cursor pages and deletes: the same ``WHERE``, so the count and
     the pages agree and a delete removes exactly what a list shows.
   * turns (``messages``) use ``MESSAGES``: ``kind`` is ``message`` there, and fields a turn
     lacks (tags, updated_at) are absent, so ``{"tags": "x"}`` selects no turn.
4. Cost. The fragment is evaluated on every row of the caller's scope (no index helps a
   JSON condition on a text column). Measured with ``SELECT count(*)`` over 100k memories of
   one user on a loaded 2-core box (the same count without a filter: 20-40 ms on SQLite,
   50-80 ms on PostgreSQL): one metadata or tag condition costs SQLite 0.15-0.45 s and
   PostgreSQL 0.35-1.2 s, most of it casting the ``metadata`` text to jsonb on every row.
   A PostgreSQL migration that keeps the JSON in a stored ``jsonb`` column too (generated
   from the text one) needs no change here, ``Columns(metadata="metadata_jsonb",
   tags="tags_jsonb")`` (a cast of jsonb to jsonb costs nothing): in an interleaved A/B over
   50k rows a scalar condition went from 420 / 160 ms (text) to 100 / 85 ms (jsonb). A GIN
   index on it could later serve plain equality with ``@>``.
5. Profile facts and documents are not filtered rows; a search with a filter leaves them
   out unless the filter allows ``kind: profile``.
"""

from mnemo.filters.evaluate import matches
from mnemo.filters.nodes import EVERYTHING, And, Condition, Field, Filter, Not, Or
from mnemo.filters.parse import parse_filter, parse_where
from mnemo.filters.sql import MEMORIES, MESSAGES, Columns, Fragment, to_sql

__all__ = [
    "EVERYTHING",
    "MEMORIES",
    "MESSAGES",
    "And",
    "Columns",
    "Condition",
    "Field",
    "Filter",
    "Fragment",
    "Not",
    "Or",
    "matches",
    "parse_filter",
    "parse_where",
    "to_sql",
]
