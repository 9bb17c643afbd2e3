"""The read path: scopes, lexical and dense candidates, fusion, recency, MMR, hits.

Stages and the score each leaves on a hit (``Hit.scores``):

1. candidates per scope, ``pool = max(limit x pool_factor, min_pool)`` from each retriever:
   ``lexical`` (BM25, higher is better) and ``dense`` (cosine); when turn kinds are used,
   each retriever is asked for 1.25 times the pool (then twice as many, up to 8 times the
   pool, while it finds fewer than ``pool`` statements) and keeps its first ``pool``
   statements (and the talk ranked among them), so stored questions and non-answers take no
   statement's place;
2. ``relevance``: fusion of the two rankings (RRF or normalised blend, whose lexical side is
   scaled by how much of the query its best match covers, see ``retrieval.coverage``), or under
   ``fusion = "cosine"`` (the seed presets) the dense cosine itself, lexical unused; then
   context: a share of the best neighbouring turn's relevance, a speaker prior (see
   ``retrieval.speakers``), a date prior for turns written when the query's date expressions
   say (see ``retrieval.dates``) and, optionally, a share of the session's relevance;
   optionally ``rerank``: a cross-encoder rescores the ``rerank_top_n`` best candidates and its
   score is blended into their relevance (see ``retrieval.rerank``), or, with
   ``rerank_relevance = "sigmoid"`` (`agent-cli`), rescores them all and relevance becomes
   sigmoid(logit); ``score_threshold`` drops what falls below it;
   ``turn_prior``: a turn that tells nothing (a question that asks without telling, an
   assistant non-answer, a courtesy; see ``retrieval.talk``) has its relevance (and, below,
   its recency) multiplied by its kind's prior, after it has lent its relevance to its
   neighbours and, a question, to its reply; such turns are left out of the fusion's
   normalisation (``fusion.weighted_blend``'s basis), so a stored copy of the query cannot
   rescale every other candidate;
3. ``recency`` = exp(-age_days / tau), blended: ``final = (1-w)*relevance + w*recency``; age is
   measured from the request's ``now``, else from the user's newest turn (so imported history
   keeps a meaningful recency), else from the clock;
4. optional MMR over embedding cosine, then the top ``limit`` distinct hits: duplicates
   collapse into the best-ranked of them (``hit.duplicates``; see ``retrieval.duplicates``) and
   turns whose text is in the request being answered (``exclude``) are left out.

Scopes: the session; the user's other sessions when the session holds fewer than
``cross_session_threshold`` items (`llmplatform`: 50; `agent-cli`: 0, never), or all of the
user's sessions when no session is given; and the shared ``global_user_id``. With
``dense_window`` N, the dense side of each scope compares only its N most recent vectors
(`llmplatform`'s "up to 200 recent").
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mnemo.config.settings import Settings
from mnemo.embedders.base import Embedder
from mnemo.index.vectors import IndexCache, VectorIndex
from mnemo.retrieval import coverage, dates, fusion, lexical, speakers
from mnemo.retrieval import hits as hit_rows
from mnemo.retrieval.duplicates import Collapser, Kept
from mnemo.retrieval.mmr import mmr_select
from mnemo.retrieval.neighbours import neighbor_boost, session_boost
from mnemo.retrieval.rerank import Reranker, create_reranker, rerank_blend, sigmoid, top_n
from mnemo.retrieval.scoring import blend, recency
from mnemo.retrieval.talk import STATEMENT, KindPriors, apply_priors, is_talk
from mnemo.schemas import Hit
from mnemo.storage.base import MESSAGE, Ref
from mnemo.storage.ports.search import SearchSource
from mnemo.text.turn_kinds import TURN_KINDS, TurnKind, classify

#: How many times its pool a retriever is asked for at most, while talk takes the places.
MAX_POOL_FACTOR = 8


@dataclass(frozen=True)
class Scope:
    """Where to look: one user, optionally one session of theirs."""

    user_id: str
    session_id: str | None = None


@dataclass
class SearchRequest:
    """A validated query.

    ``recency_weight`` and ``score_threshold``, when set, override the settings of the same
    name for this one search (a per-call option of context assembly). ``now`` is the reference
    time of recency and relative dates (None: the user's newest turn, else the clock);
    ``exclude`` holds the text keys (``retrieval.duplicates.text_key``) of the request's own
    turns, which are left out of the hits.
    """

    query: str
    tenant: str
    user_id: str
    session_id: str | None
    limit: int
    kinds: tuple[str, ...] | None
    now: float | None = None
    recency_weight: float | None = None
    score_threshold: float | None = None
    exclude: frozenset[str] = frozenset()


@dataclass
class Candidates:
    """Per-retriever scores of every candidate, and where its vector lives."""

    lexical: dict[Ref, float] = field(default_factory=dict)
    #: each lexical candidate's BM25 over its query's idf sum (see retrieval.coverage)
    covered: dict[Ref, float] = field(default_factory=dict)
    dense: dict[Ref, float] = field(default_factory=dict)
    located: dict[Ref, tuple[VectorIndex, int]] = field(default_factory=dict)
    #: multipliers other than 1 applied to a candidate's relevance, by name (shown on hits)
    priors: dict[Ref, dict[str, float]] = field(default_factory=dict)
    #: what each turn is (see text.turn_kinds); memories are statements
    kinds: dict[Ref, TurnKind] = field(default_factory=dict)


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


class Pipeline:
    """Runs searches for one store and embedder with one Settings."""

    def __init__(
        self,
        store: SearchSource,
        embedder: Embedder,
        settings: Settings,
        reranker: Reranker | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker if reranker is not None else create_reranker(settings)
        self.indexes = IndexCache()
        self.queries = QueryCache(settings.query_cache_size)
        self.priors = KindPriors(
            settings.question_prior, settings.non_answer_prior, settings.greeting_prior
        )
        #: whether turn kinds are needed at all (the seeds' presets turn every use off)
        self.uses_kinds = settings.reply_weight > 0 or self.priors != KindPriors()

    def scopes(self, req: SearchRequest) -> list[Scope]:
        """The scopes a request searches, nearest first."""
        s = self.settings
        out = [Scope(req.user_id, req.session_id)]
        if req.session_id is not None:
            held = self.store.count_items(req.tenant, req.user_id, req.session_id)
            if held < s.cross_session_threshold:
                out.append(Scope(req.user_id, None))
        if s.global_user_id and req.user_id != s.global_user_id:
            out.append(Scope(s.global_user_id, None))
        return out

    def search(self, req: SearchRequest) -> list[Hit]:
        """The ``limit`` best hits for a request, each with its per-stage scores."""
        s = self.settings
        pool = max(req.limit * s.pool_factor, s.min_pool)
        cands = Candidates()
        terms = lexical.query_terms(req.query)
        match = lexical.match_expression(terms)
        scoped = [
            (scope, self.indexes.get(self.store, req.tenant, scope.user_id, self.embedder.id))
            for scope in self.scopes(req)
        ]
        if req.now is None:
            newest = [t for _, index in scoped if (t := index.newest_turn()) is not None]
            req = replace(req, now=max(newest) if newest else time.time())
        names = sorted({n for _, index in scoped for n in index.names()})
        about = speakers.analyze(req.query, names, s.strip_speaker_names)
        qvec = self.queries.vector(self.embedder, about.dense_text) if s.dense_weight > 0 else None
        lexical_on = s.lexical_weight > 0 and s.fusion != "cosine"
        ceilings: dict[str, dict[int, float]] = {}
        for scope, index in scoped:
            if match is not None and lexical_on:

                def bm25(n: int, scope: Scope = scope) -> list[tuple[Ref, float]]:
                    return self.store.lexical(
                        req.tenant, scope.user_id, match, n, scope.session_id, req.kinds
                    )

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
        return self._rank(req, cands, about)

    def _ceiling(
        self,
        req: SearchRequest,
        scope: Scope,
        terms: list[str],
        known: dict[str, dict[int, float]],
    ) -> dict[int, float]:
        """The query terms' idf sum per full-text table for the scope's user (once per user
        and search; not asked for when coverage is off or fusion is not the blend)."""
        if self.settings.lexical_coverage_power <= 0 or self.settings.fusion != "blend":
            return {}
        if scope.user_id not in known:
            known[scope.user_id] = self.store.lexical_idf(req.tenant, scope.user_id, terms)
        return known[scope.user_id]

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
            self._classify(set(refs), cands)
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
        scope: Scope,
        req: SearchRequest,
        pool: int,
        cands: Candidates,
    ) -> None:
        mask = index.mask(scope.session_id, req.kinds)
        if self.settings.dense_window is not None:
            mask = index.most_recent(mask, self.settings.dense_window)
        floor = self.settings.min_similarity

        def cosine(n: int) -> list[tuple[Ref, float]]:
            positions, sims = index.search(qvec, n, mask, self.settings.key_weight)
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

    def _rank(
        self, req: SearchRequest, cands: Candidates, about: speakers.QuerySpeakers
    ) -> list[Hit]:
        s = self.settings
        now = time.time() if req.now is None else req.now
        weights = {"lexical": s.lexical_weight, "dense": s.dense_weight}
        lists: dict[str, dict[Ref, float]] = {
            k: v for k, v in (("lexical", cands.lexical), ("dense", cands.dense)) if v
        }
        basis: set[Ref] | None = None
        if self.uses_kinds:
            basis = {r for r, k in cands.kinds.items() if not is_talk(k)}
        ranks = {name: fusion.ranks(scores, basis) for name, scores in lists.items()}
        lexical_scale = 1.0  # the blend's factor on the lexical side (retrieval.coverage)
        if s.fusion == "cosine":
            relevance = dict(cands.dense)
        elif s.fusion == "rrf":
            relevance = fusion.rrf(ranks, weights, s.rrf_k)
        else:
            if "lexical" in lists and cands.covered:
                covered = {r: cands.covered[r] for r in lists["lexical"] if r in cands.covered}
                lexical_scale = coverage.lexical_scale(covered, basis, s.lexical_coverage_power)
            relevance = fusion.weighted_blend(lists, weights, basis, {"lexical": lexical_scale})
        if s.neighbor_weight > 0 or s.reply_weight > 0:
            relevance = self._neighbors(relevance, cands)
        if s.speaker_weight > 0:
            relevance = self._speakers(relevance, cands, about)
        if s.date_weight > 0:
            spans = dates.windows(req.query, now)
            if spans:
                relevance = self._dates(relevance, cands, spans)
        if s.session_weight > 0:
            relevance = self._sessions(relevance, cands)
        reranked: dict[Ref, float] = {}
        if self.reranker is not None:
            relevance, reranked = self._rerank(self.reranker, req.query, relevance)
        applied: dict[Ref, float] = {}
        if self.uses_kinds:
            self._classify(set(relevance), cands)
            relevance, applied = apply_priors(relevance, cands.kinds, self.priors)
            for ref, p in applied.items():
                cands.priors.setdefault(ref, {})["turn_prior"] = p
        threshold = s.score_threshold if req.score_threshold is None else req.score_threshold
        recency_weight = s.recency_weight if req.recency_weight is None else req.recency_weight
        refs: list[Ref] = [r for r, v in relevance.items() if v >= threshold]
        if not refs:
            return []
        rel = np.array([relevance[r] for r in refs])
        rec = np.zeros(len(refs))
        if recency_weight > 0:
            times = self._times(refs, cands)
            rec = np.asarray(recency(now - times, s.recency_tau_days))
        # a turn that tells nothing gains no recency either: final = prior x blend
        prior = np.array([applied.get(r, 1.0) for r in refs])
        final = blend(rel, rec * prior, recency_weight) if recency_weight > 0 else rel
        order = np.argsort(-final, kind="stable")
        if s.use_mmr:
            order = self._mmr(order, refs, final, cands, req.limit)
        hits = []
        for i, row, kept in self._distinct(req, order, refs, cands):
            ref = refs[i]
            scores = {"relevance": float(rel[i]), "final": float(final[i])}
            for name in ("lexical", "dense"):
                if ref in lists.get(name, {}):
                    scores[name] = float(lists[name][ref])
                    scores[f"{name}_rank"] = float(ranks[name][ref])
            if ref in lists.get("lexical", {}) and lexical_scale < 1.0:
                scores["lexical_scale"] = lexical_scale
            scores.update(cands.priors.get(ref, {}))
            if ref in reranked:
                scores["rerank"] = reranked[ref]
            if recency_weight > 0:
                scores["recency"] = float(rec[i])
            kind = cands.kinds.get(ref) if ref[0] == MESSAGE else None
            hits.append(hit_rows.to_hit(ref, row, float(final[i]), scores, kind, kept.duplicates))
        return hits

    def _distinct(
        self, req: SearchRequest, order: np.ndarray, refs: list[Ref], cands: Candidates
    ) -> list[tuple[int, dict[str, Any], Kept]]:
        """The first ``limit`` candidates in ``order`` that are neither in the request nor
        duplicates of a better one, with their rows (fetched a few more than needed at a
        time); each duplicate's id is recorded on the hit it repeats."""
        s = self.settings
        collapse = Collapser(s.duplicate_similarity, s.source_similarity, req.exclude)
        out: list[tuple[int, dict[str, Any], Kept]] = []
        at = 0
        while len(out) < req.limit and at < len(order):
            batch = [int(i) for i in order[at : at + req.limit - len(out) + 8]]
            at += len(batch)
            rows = self.store.fetch([refs[i] for i in batch])
            for i in batch:
                row = rows.get(refs[i])
                if row is None or collapse.excluded(row["content"]):
                    continue  # erased meanwhile, or already in the request
                loc = cands.located.get(refs[i])
                vector = loc[0].matrix[loc[1]] if loc is not None else None
                sources = row.get("source_message_ids") or []
                if collapse.admit(row["id"], row["content"], vector, sources) is None:
                    out.append((i, row, collapse.kept[-1]))
                    if len(out) == req.limit:
                        break
        return out

    def _classify(self, refs: set[Ref], cands: Candidates) -> None:
        """The turn kind of every ref not yet known (see text.turn_kinds), cached per row in
        its vector index; memories are statements."""
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
        rows = self.store.fetch(unknown)
        for ref in unknown:
            row = rows.get(ref)
            kind = classify(row["role"], row["content"]) if row is not None else STATEMENT
            cands.kinds[ref] = kind
            loc = cands.located.get(ref)
            if loc is not None and row is not None:
                loc[0].labels[loc[1]] = TURN_KINDS.index(kind)

    def _rerank(
        self, reranker: Reranker, query: str, relevance: dict[Ref, float]
    ) -> tuple[dict[Ref, float], dict[Ref, float]]:
        """Relevance with the reranker's score blended in for the ``rerank_top_n`` best
        candidates (see retrieval.rerank.rerank_blend), and the raw score of each of them.

        ``rerank_relevance = "sigmoid"`` (`agent-cli`): every candidate is rescored and its
        relevance is sigmoid(logit); a candidate erased meanwhile is left out.
        """
        as_sigmoid = self.settings.rerank_relevance == "sigmoid"
        best = list(relevance) if as_sigmoid else top_n(relevance, self.settings.rerank_top_n)
        rows = self.store.fetch(best)
        head = [r for r in best if r in rows]  # a row erased meanwhile is not rescored
        if not head:
            return ({} if as_sigmoid else relevance), {}
        raw = reranker.score(query, [str(rows[r]["content"]) for r in head])
        if as_sigmoid:
            squashed = sigmoid(raw)
            return (
                {r: float(v) for r, v in zip(head, squashed, strict=True)},
                {r: float(v) for r, v in zip(head, raw, strict=True)},
            )
        blended = rerank_blend(
            np.array([relevance[r] for r in head]), raw, self.settings.rerank_weight
        )
        out = dict(relevance)
        out.update({r: float(v) for r, v in zip(head, blended, strict=True)})
        return out, {r: float(v) for r, v in zip(head, raw, strict=True)}

    def _neighbors(self, relevance: dict[Ref, float], cands: Candidates) -> dict[Ref, float]:
        """Adjacent turns of every candidate, boosted by it; the turn right after a question
        by another speaker, by ``reply_weight`` of it (see retrieval.neighbours)."""
        s = self.settings
        near: dict[Ref, list[Ref]] = {}
        replies: dict[Ref, Ref] = {}
        for ref in list(relevance):
            loc = cands.located.get(ref)
            if loc is None or ref[0] != MESSAGE:
                continue
            index, pos = loc
            asks = cands.kinds.get(ref) == "question" and s.reply_weight > 0
            for p in index.neighbors(pos, max(s.neighbor_span, 1)):
                other = index.ref(p)
                cands.located.setdefault(other, (index, p))
                near.setdefault(other, []).append(ref)
                if asks and p == pos + 1 and not index.same_speaker(pos, p):
                    replies[other] = ref
        return neighbor_boost(relevance, near, s.neighbor_weight, replies, s.reply_weight)

    def _speakers(
        self, relevance: dict[Ref, float], cands: Candidates, about: speakers.QuerySpeakers
    ) -> dict[Ref, float]:
        """Relevance times the speaker prior of each located candidate."""
        spoken: dict[int, np.ndarray] = {}
        out = dict(relevance)
        for ref, value in relevance.items():
            loc = cands.located.get(ref)
            if loc is None:
                continue
            index, pos = loc
            if id(index) not in spoken:
                spoken[id(index)] = speakers.speaker_prior(
                    index.spoken_by(about.names, about.role), self.settings.speaker_weight
                )
            prior = spoken[id(index)]
            if pos < len(prior):  # a reload in another thread may have shrunk the index
                out[ref] = value * float(prior[pos])
                if prior[pos] != 1.0:
                    cands.priors.setdefault(ref, {})["speaker_prior"] = float(prior[pos])
        return out

    def _dates(
        self, relevance: dict[Ref, float], cands: Candidates, spans: list[tuple[float, float]]
    ) -> dict[Ref, float]:
        """Relevance times the date prior (see retrieval.dates) of each located candidate."""
        located = [r for r in relevance if r in cands.located]
        if not located:
            return relevance
        times = np.array([cands.located[r][0].times[cands.located[r][1]] for r in located])
        prior = dates.date_prior(times, spans, self.settings.date_weight)
        out = dict(relevance)
        for r, p in zip(located, prior.tolist(), strict=True):
            out[r] = relevance[r] * p
            if p != 1.0:
                cands.priors.setdefault(r, {})["date_prior"] = p
        return out

    def _sessions(self, relevance: dict[Ref, float], cands: Candidates) -> dict[Ref, float]:
        """Session aggregation (see retrieval.context.session_boost)."""
        codes: dict[tuple[int, str | None], int] = {}
        session_of: dict[Ref, int] = {}
        for ref in relevance:
            loc = cands.located.get(ref)
            if loc is None:
                continue
            index, pos = loc
            key = (id(index), str(index.session_codes[pos]))
            session_of[ref] = codes.setdefault(key, len(codes))
        return session_boost(relevance, session_of, self.settings.session_weight)

    def _times(self, refs: list[Ref], cands: Candidates) -> np.ndarray:
        out = np.zeros(len(refs))
        unknown = []
        for i, ref in enumerate(refs):
            loc = cands.located.get(ref)
            if loc is None:
                unknown.append(i)
            else:
                out[i] = loc[0].times[loc[1]]
        if unknown:
            rows = self.store.fetch([refs[i] for i in unknown])
            for i in unknown:
                row = rows.get(refs[i])
                out[i] = hit_rows.epoch(row["created_at"]) if row else 0.0
        return out

    def _mmr(
        self, order: np.ndarray, refs: list[Ref], final: np.ndarray, cands: Candidates, limit: int
    ) -> np.ndarray:
        with_vec = [int(i) for i in order if refs[int(i)] in cands.located]
        without = [int(i) for i in order if refs[int(i)] not in cands.located]
        if not with_vec:
            return order
        vecs = np.stack(
            [cands.located[refs[i]][0].matrix[cands.located[refs[i]][1]] for i in with_vec]
        )
        picked = mmr_select(final[with_vec], vecs, limit, self.settings.mmr_lambda)
        return np.array([with_vec[p] for p in picked] + without, dtype=np.int64)
