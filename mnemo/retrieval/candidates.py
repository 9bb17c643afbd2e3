"""Candidates: what the lexical and dense retrievers find in each scope of a search.

Each retriever is asked for ``pool`` candidates per scope: ``lexical`` (BM25, higher is better)
and ``dense`` (cosine). When turn kinds are used, each retriever is asked for 1.25 times the
pool (then twice as many, up to :data:`MAX_POOL_FACTOR` times the pool, while it finds fewer
than ``pool`` statements) and keeps its first ``pool`` statements (and the talk ranked among
them), so stored questions and non-answers take no statement's place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mnemo.config.search import RetrievalSettings
from mnemo.index.vectors import VectorIndex
from mnemo.retrieval import coverage, filtered, lexical
from mnemo.retrieval.request import RetrievalRequest
from mnemo.retrieval.talk import STATEMENT, is_talk
from mnemo.storage.base import MESSAGE, Ref
from mnemo.storage.ports.search import SearchRows
from mnemo.storage.scope import ReadScope
from mnemo.text.turn_kinds import TURN_KINDS, TurnKind
from mnemo.text.turn_kinds import classify as classify_turn

#: How many times its pool a retriever is asked for at most, while talk takes the places.
MAX_POOL_FACTOR = 8


@dataclass
class Candidates:
    """Per-retriever scores of every candidate, and where its vector lives."""

    lexical: dict[Ref, float] = field(default_factory=dict)
    #: each lexical candidate's BM25 over its query's idf sum (see retrieval.coverage)
    covered: dict[Ref, float] = field(default_factory=dict)
    dense: dict[Ref, float] = field(default_factory=dict)
    located: dict[Ref, tuple[VectorIndex, int]] = field(default_factory=dict)
    #: what each turn is (see text.turn_kinds); memories are statements
    kinds: dict[Ref, TurnKind] = field(default_factory=dict)


def classify(store: SearchRows, refs: set[Ref], cands: Candidates) -> None:
    """The turn kind of every ref not yet known (see text.turn_kinds), cached per row in
    its vector index; memories are statements. A turn's kind is the one stored with it
    (text.turn_rules), read from its index or its row; computed only when the stored one is
    of older rules."""
    unknown = []
    for ref in refs:
        if ref in cands.kinds:
            continue
        if ref[0] != MESSAGE:
            cands.kinds[ref] = STATEMENT
            continue
        loc = cands.located.get(ref)
        code = int(loc[0].labels[loc[1]]) if loc is not None else -1
        if code >= 0:
            cands.kinds[ref] = TURN_KINDS[code]
        else:
            unknown.append(ref)
    if not unknown:
        return
    rows = store.fetch(unknown)
    for ref in unknown:
        row = rows.get(ref)
        kind = (
            STATEMENT
            if row is None
            else row.get("turn_kind") or classify_turn(row["role"], row["content"])
        )
        cands.kinds[ref] = kind
        loc = cands.located.get(ref)
        if loc is not None and row is not None:
            loc[0].labels[loc[1]] = TURN_KINDS.index(kind)


class Retrievers:
    """The lexical and dense retrievers over one store, with one settings group.

    ``uses_kinds``: some ranking signal reads turn kinds, so the pools are filled up to
    ``pool`` statements (see the module docstring).
    """

    def __init__(self, store: SearchRows, settings: RetrievalSettings, uses_kinds: bool) -> None:
        self.store = store
        self.settings = settings
        self.uses_kinds = uses_kinds
        #: fusion ``cosine`` (the seed presets) and ``lexical_weight`` 0 leave BM25 unused
        self.lexical_on = settings.lexical_weight > 0 and settings.fusion != "cosine"

    def gather(
        self,
        req: RetrievalRequest,
        scoped: list[tuple[ReadScope, VectorIndex]],
        qvec: np.ndarray | None,
        pool: int,
    ) -> Candidates:
        """Every scope's candidates: BM25 over the query's terms, when lexical is on, and
        cosine to ``qvec``, when given; each candidate located in its scope's vector index."""
        cands = Candidates()
        terms = lexical.query_terms(req.query)
        ceilings: dict[str, dict[int, float]] = {}
        for scope, index in scoped:
            if terms and self.lexical_on:

                def bm25(n: int, scope: ReadScope = scope) -> list[tuple[Ref, float]]:
                    return self.store.lexical(scope, terms, n)

                ceiling = self._ceiling(req, scope, terms, ceilings)
                for ref, score in self._fill(bm25, index, pool, cands):
                    cands.lexical[ref] = max(score, cands.lexical.get(ref, -np.inf))
                    c = coverage.coverage(score, ceiling.get(ref[0], 0.0))
                    cands.covered[ref] = max(c, cands.covered.get(ref, -np.inf))
            if qvec is not None:
                self._dense(index, qvec, scope, req, pool, cands)
            self._locate(index, cands)
        if self.uses_kinds:
            cands.lexical = self._statement_pool(cands.lexical, cands, pool)
            cands.dense = self._statement_pool(cands.dense, cands, pool)
        return cands

    def admitted(
        self, req: RetrievalRequest, cands: Candidates, scores: dict[Ref, float]
    ) -> dict[Ref, float]:
        """``scores`` of the refs the search's filter admits (all of them without one): the
        candidates matched it; a ref a signal brought in is asked about
        (:func:`mnemo.retrieval.filtered.admitted`)."""
        if req.scope.filter is None:
            return scores
        known = set(cands.lexical) | set(cands.dense)
        return filtered.admitted(self.store, req.scope, scores, known)

    def _ceiling(
        self,
        req: RetrievalRequest,
        scope: ReadScope,
        terms: list[str],
        known: dict[str, dict[int, float]],
    ) -> dict[int, float]:
        """The query terms' idf sum per full-text table for the scope's user (once per user
        and search; not asked for when coverage is off or fusion is not the blend)."""
        if self.settings.lexical_coverage_power <= 0 or self.settings.fusion != "blend":
            return {}
        user = scope.user_key
        if user not in known:
            known[user] = self.store.lexical_idf(scope.tenant, user, terms)
        return known[user]

    def _fill(
        self,
        fetch: Callable[[int], list[tuple[Ref, float]]],
        index: VectorIndex,
        pool: int,
        cands: Candidates,
    ) -> list[tuple[Ref, float]]:
        """One retriever's candidates in one scope: ``pool`` of them; with turn kinds in use,
        as many as hold ``pool`` statements (asked for 1.25 times the pool, then twice as many
        each time, up to 8 times, while talk takes the places), classified on the way."""
        if not self.uses_kinds:
            return fetch(pool)
        n = pool + max(pool // 4, 8)
        while True:
            got = fetch(n)
            refs = [r for r, _ in got]
            for ref, p in index.positions([r for r in refs if r not in cands.located]).items():
                cands.located[ref] = (index, p)
            classify(self.store, set(refs), cands)
            told = sum(not is_talk(cands.kinds[r]) for r in refs)
            if told >= pool or len(got) < n or n >= MAX_POOL_FACTOR * pool:
                return got
            n = min(2 * n, MAX_POOL_FACTOR * pool)

    @staticmethod
    def _statement_pool(scores: dict[Ref, float], cands: Candidates, pool: int) -> dict[Ref, float]:
        """The best candidates of one retriever up to its ``pool``-th statement (the talk
        among them kept too)."""
        out: dict[Ref, float] = {}
        told = 0
        for ref in sorted(scores, key=lambda r: -scores[r]):
            if told >= pool:
                break
            out[ref] = scores[ref]
            told += not is_talk(cands.kinds.get(ref, STATEMENT))
        return out

    def _dense(
        self,
        index: VectorIndex,
        qvec: np.ndarray,
        scope: ReadScope,
        req: RetrievalRequest,
        pool: int,
        cands: Candidates,
    ) -> None:
        """The scope's dense candidates: cosine (blended with the best key's) at least
        ``min_similarity``, among the ``dense_window`` newest vectors when that is set; with
        a filter, the nearest rows that match it (:mod:`mnemo.retrieval.filtered`; under a
        window, the window is taken among the matching rows)."""
        mask = index.mask(scope)
        filtered_scope = None if scope.filter is None else scope
        if filtered_scope is not None and self.settings.dense_window is not None:
            allowed = index.matching(self.store.matching_rowids(filtered_scope))
            mask = allowed if mask is None else mask[: len(allowed)] & allowed[: len(mask)]
            filtered_scope = None  # the mask holds the filter
        if self.settings.dense_window is not None:
            mask = index.most_recent(mask, self.settings.dense_window)
        floor = self.settings.min_similarity
        weight = self.settings.key_weight

        def cosine(n: int) -> list[tuple[Ref, float]]:
            if filtered_scope is None:
                positions, sims = index.search(qvec, n, mask, weight)
            else:
                positions, sims = filtered.nearest_matching(
                    self.store, index, qvec, n, mask, weight, filtered_scope
                )
            out = []
            for p, sim in zip(positions.tolist(), sims.tolist(), strict=True):
                if sim >= floor:
                    ref = (int(index.tables[p]), int(index.rowids[p]))
                    cands.located[ref] = (index, p)
                    out.append((ref, float(sim)))
            return out

        for ref, sim in self._fill(cosine, index, pool, cands):
            cands.dense[ref] = sim

    @staticmethod
    def _locate(index: VectorIndex, cands: Candidates) -> None:
        missing = [r for r in cands.lexical if r not in cands.located]
        for ref, p in index.positions(missing).items():
            cands.located[ref] = (index, p)


__all__ = ["MAX_POOL_FACTOR", "Candidates", "Retrievers", "classify"]
