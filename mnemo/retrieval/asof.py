"""Searching the past: what a search finds "as of" a time T (``search(..., as_of=T)``).

A search as of T sees each user's memory as it stood at T:

* turns created after T are left out (a turn never changes; erasure removes it for good);
* memories created after T are left out; a memory updated or deleted after T is taken in its
  version current at T, read from ``history`` (:func:`mnemo.storage.sql.asof.memory_versions`);
  a memory deleted at or before T is gone.

How the past is ranked, with the same pipeline as the present: :func:`the_past` builds, per
user searched, a *past index*: the live vector index's rows of time <= T, without the memories
changed since T, plus those memories' versions at T. A version's vector is the stored one when
some row of the tenant still holds that text (a soft-deleted memory keeps its vector), else it
is embedded on the fly. The search then reads a :class:`PastSource`, the store seen through
that index: its full-text candidates are the store's BM25 candidates still in the past index
(asked for more while the time cut takes places, as the turn-kind pools are), plus the
versions at T, scored by :func:`version_bm25`; its rows are the versions' fields for the
memories changed since T.

Cost, paid only by a search given ``as_of``: one history read of the user's changes after T;
a copy of the user's vectors of time <= T (O(rows x dim), about 15 MB and a few milliseconds
for 10k rows of 384 dimensions); one embedding call for the versions whose text no row holds
any more (none for deleted memories); nothing is cached between searches. A search without
``as_of`` runs exactly as before.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import numpy as np

from mnemo.embedders.base import Embedder
from mnemo.errors import ValidationError
from mnemo.index.embed import Embedding
from mnemo.index.vectors import VectorIndex
from mnemo.retrieval.lexical import query_terms
from mnemo.retrieval.request import RetrievalRequest
from mnemo.schemas import bounded_time, format_time
from mnemo.storage.base import MEMORY, MemoryVersion, Ref, VectorRows
from mnemo.storage.clock import Clock
from mnemo.storage.ports.search import SearchRows, SearchSource
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql.rows import epoch_seconds

#: How many times its pool the full text is asked for at most while the time cut takes places.
MAX_LEXICAL_FACTOR = 8
#: Characters of a query term a word of a version must start with (a crude stem, as FTS5's
#: porter stemmer matches "drives" for "driving"); a shorter term matches itself or its plural.
STEM_CHARS = 4
_WORD = re.compile(r"\w+", re.UNICODE)


def as_of_time(value: Any, clock: Clock) -> datetime | None:
    """``as_of`` as an aware UTC time (None stays None); ValidationError when it is not a
    time or lies after ``clock``'s now (the store's clock: the future is not known yet)."""
    if value is None:
        return None
    at = bounded_time(value, "as_of")
    now = clock()
    if at > now:
        raise ValidationError(
            f"as_of must not be in the future: {format_time(at)} is after the store's clock"
            f" ({format_time(now)})"
        )
    return at


def version_bm25(query: str, text: str, ceiling: float) -> float:
    """The full-text score of a memory version that no full-text table holds any more.

    ``score = ceiling x matched / terms``: the BM25 an average-length row holding every query
    term once scores (``ceiling``, the store's idf sum of the query's terms), scaled by the
    share of the query's terms the text holds (a term matches a word that starts with its
    first :data:`STEM_CHARS` characters; a shorter term, itself or its plural). An
    approximation: term frequency and length are not weighed, and each term counts alike.
    """
    terms = query_terms(query)
    if not terms:
        return 0.0
    words = [w.lower() for w in _WORD.findall(text)]
    matched = sum(any(_matches(t, w) for w in words) for t in terms)
    return ceiling * matched / len(terms)


def _matches(term: str, word: str) -> bool:
    if len(term) < STEM_CHARS:
        return word in (term, term + "s")
    return word.startswith(term[:STEM_CHARS])


def past_index(
    index: VectorIndex, at: float, changed: set[int], versions: VectorRows
) -> VectorIndex:
    """A new index of ``index``'s rows of time <= ``at``, the memories whose rowid is in
    ``changed`` left out, with ``versions`` (their versions at ``at``) appended."""
    n = index.n
    keep = index.times[:n] <= at
    memories = index.tables[:n] == MEMORY
    if changed:
        keep &= ~(memories & np.isin(index.rowids[:n], list(changed)))
    kept = np.flatnonzero(keep)
    sessions = {code: name for name, code in index.session_names.items()}
    kinds = {code: name for name, code in index.kind_names.items()}
    roles = {code: name for name, code in index.role_names.items()}
    speakers = {code: name for name, code in index.speaker_names.items()}
    agents = {code: name for name, code in index.agent_names.items()}
    owners = index.key_owners[: index.k]
    # each row's new position, -1 when left out; keys of rows appended meanwhile (>= n) too
    new_pos = np.full(n + 1, -1, np.int64)
    new_pos[kept] = np.arange(len(kept))
    keyed = np.flatnonzero(new_pos[np.minimum(owners, n)] >= 0)
    rows = VectorRows(
        tables=index.tables[kept].copy(),
        rowids=index.rowids[kept].copy(),
        sessions=[sessions[int(c)] for c in index.session_codes[kept]],
        kinds=[kinds[int(c)] for c in index.kind_codes[kept]],
        times=index.times[kept].copy(),
        vectors=index.matrix[kept].copy(),
        roles=[roles[int(c)] for c in index.role_codes[kept]],
        names=[speakers[int(c)] for c in index.name_codes[kept]],
        key_vectors=index.key_matrix[keyed].copy(),
        key_owners=new_pos[owners[keyed]],
        expires=index.expires[kept].copy(),
        agents=[agents[int(c)] for c in index.agent_codes[kept]],
    )
    return VectorIndex.of(rows, versions)


def version_rows(versions: list[MemoryVersion], embed: Embedding) -> VectorRows:
    """The versions as vector-index rows (memories), their vectors reused or embedded."""
    if not versions:
        return VectorRows(
            np.zeros(0, np.int8),
            np.zeros(0, np.int64),
            [],
            [],
            np.zeros(0, np.float64),
            np.zeros((0, 0), np.float32),
        )
    _, vectors = embed([v.fields["content"] for v in versions])
    return VectorRows(
        tables=np.full(len(versions), MEMORY, np.int8),
        rowids=np.array([v.rowid for v in versions], np.int64),
        sessions=[v.fields["session_id"] for v in versions],
        kinds=[v.fields["kind"] for v in versions],
        times=epoch_seconds([v.fields["created_at"] for v in versions]),
        vectors=np.asarray(vectors, np.float32),
        roles=[None] * len(versions),
        names=[None] * len(versions),
        agents=[v.fields.get("agent_id") for v in versions],
    )


class PastSource(SearchRows):
    """The rows a search as of T reads (see the module docstring): full text cut to the past
    indexes plus the versions at T, the rows of a scope and the hit fields with each memory
    changed since T in its version at T. The pipeline reads what a past search does not change
    (the clock, vectors, session sizes) from the store itself; only the idf sums, which the
    full text of a past search is scored with, are the store's read through here."""

    def __init__(
        self,
        store: SearchSource,
        query: str,
        indexes: dict[str, VectorIndex],
        versions: dict[str, list[MemoryVersion]],
    ) -> None:
        self.store = store
        self.query = query
        self.indexes = indexes
        self.versions = versions
        self.fields: dict[Ref, dict[str, Any]] = {
            (MEMORY, v.rowid): v.fields for vs in versions.values() for v in vs
        }

    def lexical(self, scope: ReadScope, terms: list[str], limit: int) -> list[tuple[Ref, float]]:
        """The store's BM25 candidates held by the user's past index, plus the user's
        versions at T that hold a query term and are in ``scope`` in their version at T
        (:meth:`~mnemo.storage.scope.ReadScope.admits`), best first."""
        user_id = scope.user_key
        index = self.indexes[user_id]
        n = limit
        while True:
            got = self.store.lexical(scope, terms, n)
            # held by the past index, and not a memory changed since (scored on today's text)
            out = [(r, score) for r, score in got if r in index.pos and r not in self.fields]
            if len(out) >= limit or len(got) < n or n >= MAX_LEXICAL_FACTOR * limit:
                break
            n = min(2 * n, MAX_LEXICAL_FACTOR * limit)
        versions = self.versions.get(user_id, [])
        ceiling = 0.0
        if versions:
            words = query_terms(self.query)
            ceiling = self.store.lexical_idf(scope.tenant, user_id, words).get(MEMORY, 0.0)
        for v in versions:
            if not scope.admits(v.fields):
                continue
            score = version_bm25(self.query, v.fields["content"], ceiling)
            if score > 0:
                out.append(((MEMORY, v.rowid), score))
        out.sort(key=lambda x: -x[1])
        return out[:limit]

    def matching_rowids(self, scope: ReadScope) -> dict[int, np.ndarray]:
        """The store's rows of ``scope``, with each memory changed since T judged by its
        version at T instead (a version of a memory deleted since is no live row)."""
        out = dict(self.store.matching_rowids(scope))
        mine = self.versions.get(scope.user_key, [])
        changed = np.array([v.rowid for v in mine], np.int64)
        kept = [v.rowid for v in mine if scope.admits(v.fields)]
        live = out.get(MEMORY, np.zeros(0, np.int64))
        live = live[~np.isin(live, changed)]
        out[MEMORY] = np.unique(np.concatenate([live, np.array(kept, np.int64)]))
        return out

    def matching_among(self, scope: ReadScope, refs: list[Ref]) -> set[Ref]:
        """The refs among ``refs`` that are rows of ``scope``: a memory changed since T in
        its version at T, any other row as the store judges it."""
        mine = {r for r in refs if r in self.fields}
        out = {r for r in mine if scope.admits(self.fields[r])}
        return out | self.store.matching_among(scope, [r for r in refs if r not in mine])

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """The store's idf sums: a past search scores with today's statistics."""
        return self.store.lexical_idf(tenant, user_id, terms)

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """The store's hit fields, a memory changed since T in its version at T."""
        out = self.store.fetch([r for r in refs if r not in self.fields])
        out.update({r: dict(self.fields[r]) for r in refs if r in self.fields})
        return out


def the_past(
    store: SearchSource,
    embedder: Embedder,
    req: RetrievalRequest,
    scoped: list[tuple[ReadScope, VectorIndex]],
) -> tuple[PastSource, list[tuple[ReadScope, VectorIndex]]]:
    """The source and scoped past indexes a search as of ``req.as_of`` reads."""
    assert req.as_of is not None
    at, at_text = req.as_of.timestamp(), format_time(req.as_of)
    tenant = req.scope.tenant
    embed = Embedding(store, embedder, tenant)
    indexes: dict[str, VectorIndex] = {}
    versions: dict[str, list[MemoryVersion]] = {}
    for scope, index in scoped:
        user = scope.user_key
        if user in indexes:
            continue
        found = store.memory_versions(tenant, user, at_text)
        versions[user] = found
        changed = {v.rowid for v in found}
        indexes[user] = past_index(index, at, changed, version_rows(found, embed))
    source = PastSource(store, req.query, indexes, versions)
    return source, [(scope, indexes[scope.user_key]) for scope, _ in scoped]


__all__ = ["PastSource", "as_of_time", "past_index", "the_past", "version_bm25", "version_rows"]
