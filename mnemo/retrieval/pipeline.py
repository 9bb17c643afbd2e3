"""The read path: scopes, candidates, fusion, the ranking signals, recency, MMR, hits.

Stages and the score each leaves on a hit (``Hit.scores``):

1. candidates per scope, ``pool = max(limit x pool_factor, min_pool)`` from each retriever:
   ``lexical`` (BM25, higher is better) and ``dense`` (cosine); see ``retrieval.candidates``;
2. ``relevance``: fusion of the two rankings (RRF or normalised blend, whose lexical side is
   scaled by how much of the query its best match covers, ``lexical_scale``, see
   ``retrieval.coverage``), or under ``fusion = "cosine"`` (the seed presets) the dense cosine
   itself, lexical unused; turns that tell nothing (see ``retrieval.talk``) are left out of
   the fusion's normalisation (``fusion.weighted_blend``'s basis), so a stored copy of the
   query cannot rescale every other candidate;
3. the ranking signals (``retrieval.signals``), each active one in turn: a share of the best
   neighbouring turn's relevance (and a question's, for its reply), a speaker prior
   (``speaker_prior``), a date prior (``date_prior``), optionally a share of the session's
   relevance, optionally a reranker (``rerank``: its raw score), and last the turn-kind prior
   (``turn_prior``: a question that asks without telling, an assistant non-answer, a courtesy,
   which also lowers the turn's recency); ``score_threshold`` then drops what falls below it;
4. ``recency`` = exp(-age_days / tau), blended: ``final = (1-w)*relevance + w*recency``; age is
   measured from the request's ``now``, else from the user's newest turn (so imported history
   keeps a meaningful recency), else from the clock;
5. optional MMR over embedding cosine, then the top ``limit`` distinct hits: duplicates
   collapse into the best-ranked of them (``hit.duplicates``; see ``retrieval.duplicates``) and
   turns whose text is in the request being answered (``exclude``) are left out;
6. ``hit.relevance``: the calibrated probability that the hit is evidence, from its scores
   and its place, made non-increasing down the list (``retrieval.relevance``); it changes
   no ranking;
7. the learned last stage (``retrieval.signals.learned``, on in the default preset, off in
   the seed presets): stages 1-6 keep ``max(limit, ranker_depth)`` distinct hits of the
   same candidate pools (sized by ``limit`` as in stage 1), a model fitted
   on the development splits gives each the probability that it is evidence, from the
   features of ``retrieval.pool_features``, and the hits are re-ordered by it; that
   probability becomes ``hit.score`` and ``hit.relevance`` (``scores["learned"]``). A
   search with fewer distinct hits than ``ranker_depth`` (a short history) keeps the order
   and the relevance of stages 1-6: the model was fitted on full pools only.

A search ``as_of`` a time reads the past instead: the same stages over each user's memory as it
stood then (see ``retrieval.asof``).

Scopes: the session (``session_id`` narrows to it, always); for the conversation being
answered (``current_session``) also the user's other sessions when it holds fewer than
``cross_session_threshold`` items (`llmplatform`: 50; `agent-cli`: 0, never); all of the
user's sessions when no session is given; and the shared ``global_user_id``. With
``dense_window`` N, the dense side of each scope compares only its N most recent vectors
(`llmplatform`'s "up to 200 recent").
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mnemo.config.embedding import EmbeddingSettings
from mnemo.config.search import RetrievalSettings
from mnemo.embedders.base import Embedder
from mnemo.index.vectors import IndexCache
from mnemo.retrieval import aliases, asof, coverage, fusion, ranker_model, speakers
from mnemo.retrieval import hits as hit_rows
from mnemo.retrieval import relevance as calibrated
from mnemo.retrieval.candidates import Candidates, Retrievers, classify
from mnemo.retrieval.duplicates import Collapser, Kept
from mnemo.retrieval.mmr import mmr_select
from mnemo.retrieval.request import RetrievalRequest
from mnemo.retrieval.rerank import Reranker, create_reranker
from mnemo.retrieval.scoring import blend, recency
from mnemo.retrieval.signals import Learned, Ranking, Signal, signals_for
from mnemo.retrieval.talk import is_talk
from mnemo.schemas import Hit
from mnemo.storage.base import MESSAGE, Ref
from mnemo.storage.ports.search import SearchRows, SearchSource
from mnemo.storage.scope import ReadScope


class QueryCache:
    """LRU of query embeddings, so a repeated query is embedded once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vector(self, embedder: Embedder, text: str) -> np.ndarray:
        """The unit embedding of ``text``."""
        with self._lock:
            vec = self._data.get(text)
            if vec is not None:
                self._data.move_to_end(text)
                return vec
        vec = np.asarray(embedder.embed_query(text), np.float32)
        if self.size:
            with self._lock:
                self._data[text] = vec
                while len(self._data) > self.size:
                    self._data.popitem(last=False)
        return vec


@dataclass
class Fused:
    """The fusion stage's output: relevance, and each retriever's scores and ranks."""

    relevance: dict[Ref, float]
    lists: dict[str, dict[Ref, float]]
    ranks: dict[str, dict[Ref, int]]
    #: the blend's factor on the lexical side (retrieval.coverage)
    lexical_scale: float = 1.0


class Pipeline:
    """Runs searches for one store and embedder with one retrieval settings group.

    ``reranker`` defaults to the one ``settings.reranker`` names; ``queries`` (the query
    embedding cache, sized by ``query_cache_size``) to one of that setting's default size.
    """

    def __init__(
        self,
        store: SearchSource,
        embedder: Embedder,
        settings: RetrievalSettings,
        reranker: Reranker | None = None,
        queries: QueryCache | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker if reranker is not None else create_reranker(settings)
        self.indexes = IndexCache()
        if queries is None:
            queries = QueryCache(int(EmbeddingSettings.model_fields["query_cache_size"].default))
        self.queries = queries
        blended = settings.fusion == "blend"
        #: the calibrated relevance's coefficients for this embedder (retrieval.relevance)
        self.calibration = calibrated.model_for(embedder.id) if blended else None
        ranker = ranker_model.load(embedder.id) if blended and settings.ranker_depth else None
        #: every ranking signal, in the order they apply (the inactive ones are skipped)
        self.signals: list[Signal] = signals_for(settings, self.reranker, ranker)
        #: the learned last stage (signals.learned), which orders the de-duplicated hits
        self.learned = next(sig for sig in self.signals if isinstance(sig, Learned))
        #: whether turn kinds are needed at all (the seeds' presets turn every use off)
        self.uses_kinds = any(sig.active and sig.needs_kinds for sig in self.signals)
        self.retrievers = Retrievers(store, settings, self.uses_kinds)

    def scopes(self, req: RetrievalRequest) -> list[ReadScope]:
        """The scopes a request searches, nearest first: the request's scope, then the same
        over the user's other sessions (a small current session only) and over the shared
        global user."""
        s = self.settings
        scope = req.scope
        user = scope.user_key
        out = [scope]
        if scope.session_id is not None and req.widen:
            held = self.store.count_items(scope.tenant, user, scope.session_id)
            if held < s.cross_session_threshold:
                out.append(scope.of(user, None))
        if s.global_user_id and user != s.global_user_id:
            out.append(scope.of(s.global_user_id, None))
        return out

    def search(self, req: RetrievalRequest) -> list[Hit]:
        """The ``limit`` best hits for a request, each with its per-stage scores: with the
        learned stage on, the hand-tuned stages rank ``max(limit, ranker_depth)`` distinct
        hits of the request's own candidate pool and the stage orders them (stage 7)."""
        if not self.learned.active:
            return self.pool(req)
        pool = self.pool(replace(req, depth=self.learned.depth))
        if len(pool) < self.learned.depth:  # a short history: a pool the model never saw
            hits = pool[: req.limit]
            calibrated.attach(hits, self.calibration)
            return hits
        return self.learned.order(pool, req.query, self.calibration)[: req.limit]

    def pool(self, req: RetrievalRequest) -> list[Hit]:
        """The ``max(limit, depth)`` best distinct hits of every stage but the learned one,
        in their order, from candidate pools sized by the request's ``limit``: what the
        learned stage reads, and what ``bench/ranker.py`` fits it on."""
        s = self.settings
        pool = max(req.limit * s.pool_factor, s.min_pool)
        req = replace(req, scope=req.scope.at_clock(self.store.clock))  # one "now" throughout
        tenant = req.scope.tenant
        scoped = [
            (scope, self.indexes.get(self.store, tenant, scope.user_key, self.embedder.id))
            for scope in self.scopes(req)
        ]
        store: SearchRows = self.store
        if req.as_of is not None:
            store, scoped = asof.the_past(self.store, self.embedder, req, scoped)
        if req.now is None:
            seen = req.scope.agents
            newest = [t for _, index in scoped if (t := index.newest_turn(agents=seen)) is not None]
            req = replace(req, now=max(newest) if newest else time.time())
        names = sorted({n for _, index in scoped for n in index.names()})
        learned: dict[str, str] = {}
        if s.speaker_aliases and (s.speaker_weight > 0 or s.strip_speaker_names):
            for _, index in reversed(scoped):  # the nearest scope's alias wins
                learned.update(aliases.learned(index, self.store))
        about = speakers.analyze(req.query, names, s.strip_speaker_names, learned)
        qvec = self.queries.vector(self.embedder, about.dense_text) if s.dense_weight > 0 else None
        retrievers = self.retrievers
        if store is not self.store:
            retrievers = Retrievers(store, s, self.uses_kinds)
        cands = retrievers.gather(req, scoped, qvec, pool)
        return self._rank(req, cands, about, store)

    def _fuse(self, cands: Candidates) -> Fused:
        """Relevance from the two rankings (see the module docstring, stage 2)."""
        s = self.settings
        weights = {"lexical": s.lexical_weight, "dense": s.dense_weight}
        lists: dict[str, dict[Ref, float]] = {
            k: v for k, v in (("lexical", cands.lexical), ("dense", cands.dense)) if v
        }
        basis: set[Ref] | None = None
        if self.uses_kinds:
            basis = {r for r, k in cands.kinds.items() if not is_talk(k)}
        ranks = {name: fusion.ranks(scores, basis) for name, scores in lists.items()}
        if s.fusion == "cosine":
            return Fused(dict(cands.dense), lists, ranks)
        if s.fusion == "rrf":
            return Fused(fusion.rrf(ranks, weights, s.rrf_k), lists, ranks)
        lexical_scale = 1.0
        if "lexical" in lists and cands.covered:
            covered = {r: cands.covered[r] for r in lists["lexical"] if r in cands.covered}
            lexical_scale = coverage.lexical_scale(covered, basis, s.lexical_coverage_power)
        relevance = fusion.weighted_blend(lists, weights, basis, {"lexical": lexical_scale})
        return Fused(relevance, lists, ranks, lexical_scale)

    def _rank(
        self,
        req: RetrievalRequest,
        cands: Candidates,
        about: speakers.QuerySpeakers,
        store: SearchRows,
    ) -> list[Hit]:
        s = self.settings
        now = time.time() if req.now is None else req.now
        fused = self._fuse(cands)
        ranking = Ranking(req, now, about, cands, store)
        relevance = fused.relevance
        for signal in self.signals:
            if signal.active:
                relevance = signal.apply(ranking, relevance)
        relevance = self.retrievers.admitted(req, cands, relevance)  # what a signal brought in
        if self.uses_kinds:  # every hit shows its turn's kind
            classify(store, set(relevance), cands)
        threshold = s.score_threshold if req.score_threshold is None else req.score_threshold
        recency_weight = s.recency_weight if req.recency_weight is None else req.recency_weight
        refs: list[Ref] = [r for r, v in relevance.items() if v >= threshold]
        if not refs:
            return []
        rel = np.array([relevance[r] for r in refs])
        rec = np.zeros(len(refs))
        if recency_weight > 0:
            times = self._times(refs, cands, store)
            rec = np.asarray(recency(now - times, s.recency_tau_days))
        # a turn that tells nothing gains no recency either: final = prior x blend
        prior = np.array([ranking.damped.get(r, 1.0) for r in refs])
        final = blend(rel, rec * prior, recency_weight) if recency_weight > 0 else rel
        order = np.argsort(-final, kind="stable")
        if s.use_mmr:
            order = self._mmr(order, refs, final, cands, req.limit)
        lists, ranks = fused.lists, fused.ranks
        hits = []
        for i, row, kept in self._distinct(req, order, refs, cands, store):
            ref = refs[i]
            scores = {"fused": float(rel[i]), "final": float(final[i])}
            for name in ("lexical", "dense"):
                if ref in lists.get(name, {}):
                    scores[name] = float(lists[name][ref])
                    scores[f"{name}_rank"] = float(ranks[name][ref])
            if ref in lists.get("lexical", {}) and fused.lexical_scale < 1.0:
                scores["lexical_scale"] = fused.lexical_scale
            scores.update(ranking.priors.get(ref, {}))
            scores.update(ranking.notes.get(ref, {}))
            if recency_weight > 0:
                scores["recency"] = float(rec[i])
            kind = cands.kinds.get(ref) if ref[0] == MESSAGE else None
            hits.append(hit_rows.to_hit(ref, row, float(final[i]), scores, kind, kept.duplicates))
        if not req.depth:  # the learned stage sets every relevance itself
            calibrated.attach(hits, self.calibration)
        return hits

    def _distinct(
        self,
        req: RetrievalRequest,
        order: np.ndarray,
        refs: list[Ref],
        cands: Candidates,
        store: SearchRows,
    ) -> list[tuple[int, dict[str, Any], Kept]]:
        """The first ``max(limit, depth)`` candidates in ``order`` that are neither in the
        request nor duplicates of a better one, with their rows (fetched a few more than needed at a
        time); each duplicate's id is recorded on the hit it repeats."""
        s = self.settings
        collapse = Collapser(s.duplicate_similarity, s.source_similarity, req.exclude)
        # the rows a search may return: its scope's agent view (a signal brings in rows that
        # were no candidate; the store applied the rest of the scope, its filter included)
        seen = ReadScope(req.scope.tenant, agents=req.scope.agents)
        out: list[tuple[int, dict[str, Any], Kept]] = []
        at = 0
        want = max(req.limit, req.depth)
        while len(out) < want and at < len(order):
            batch = [int(i) for i in order[at : at + want - len(out) + 8]]
            at += len(batch)
            rows = store.fetch([refs[i] for i in batch])
            for i in batch:
                row = rows.get(refs[i])
                if row is None or collapse.excluded(row["content"]):
                    continue  # erased meanwhile, or already in the request
                if not seen.admits(row):
                    continue  # another agent's private row (a neighbour of a candidate)
                loc = cands.located.get(refs[i])
                vector = loc[0].matrix[loc[1]] if loc is not None else None
                sources = row.get("source_message_ids") or []
                if collapse.admit(row["id"], row["content"], vector, sources) is None:
                    out.append((i, row, collapse.kept[-1]))
                    if len(out) == want:
                        break
        return out

    def _times(self, refs: list[Ref], cands: Candidates, store: SearchRows) -> np.ndarray:
        """Each ref's time: from its vector index, else from its fetched row."""
        out = np.zeros(len(refs))
        unknown = []
        for i, ref in enumerate(refs):
            loc = cands.located.get(ref)
            if loc is None:
                unknown.append(i)
            else:
                out[i] = loc[0].times[loc[1]]
        if unknown:
            rows = store.fetch([refs[i] for i in unknown])
            for i in unknown:
                row = rows.get(refs[i])
                out[i] = hit_rows.epoch(row["created_at"]) if row else 0.0
        return out

    def _mmr(
        self, order: np.ndarray, refs: list[Ref], final: np.ndarray, cands: Candidates, limit: int
    ) -> np.ndarray:
        """``order`` re-picked by MMR among the refs that have a vector, the others after."""
        with_vec = [int(i) for i in order if refs[int(i)] in cands.located]
        without = [int(i) for i in order if refs[int(i)] not in cands.located]
        if not with_vec:
            return order
        vecs = np.stack(
            [cands.located[refs[i]][0].matrix[cands.located[refs[i]][1]] for i in with_vec]
        )
        picked = mmr_select(final[with_vec], vecs, limit, self.settings.mmr_lambda)
        return np.array([with_vec[p] for p in picked] + without, dtype=np.int64)


__all__ = ["Fused", "Pipeline", "QueryCache"]
