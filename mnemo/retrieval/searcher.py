"""Searching one tenant's memory: the query validated, then the retrieval pipeline."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from mnemo.filters import parse_where
from mnemo.retrieval.asof import as_of_time
from mnemo.retrieval.duplicates import exclusion_keys
from mnemo.retrieval.pipeline import Pipeline
from mnemo.retrieval.request import RetrievalRequest
from mnemo.schemas import Hit
from mnemo.search_query import SearchQuery
from mnemo.storage.caller_scope import scope_of
from mnemo.storage.clock import SYSTEM_CLOCK, Clock
from mnemo.storage.scope import ReadScope

if TYPE_CHECKING:
    from mnemo.config.settings import Settings


class Searcher:
    """Runs a :class:`~mnemo.search_query.SearchQuery` on ``pipeline`` for
    ``settings.tenant``; besides the pipeline's settings it reads ``search_limit`` (hits when
    no limit is given), ``tenant`` and ``max_content_chars`` (a longer query is cut to it)."""

    def __init__(self, pipeline: Pipeline, settings: Settings, clock: Clock = SYSTEM_CLOCK) -> None:
        self.pipeline = pipeline
        self.settings = settings
        #: the store's clock: an ``as_of`` after its now is refused
        self.clock = clock

    def search(self, q: SearchQuery) -> list[Hit]:
        """The memories and turns most relevant to the query's text, best first, one hit per
        thing said (duplicates collapse into ``hit.duplicates``).

        Every hit carries each stage's score in ``hit.scores``; ``explain`` keeps the ranks
        too. The query's fields are documented on :class:`~mnemo.search_query.SearchQuery`;
        here the rules that need more than one of them: a user or an agent is required
        (:mod:`mnemo.storage.agent_scope`), ``as_of`` must not be after the store's clock
        (:mod:`mnemo.retrieval.asof`), the filter is parsed (:mod:`mnemo.filters`) and applied
        in the store before each retriever takes its candidates, and no limit means the
        ``search_limit`` setting.
        """
        where = parse_where(q.filters)
        scope = scope_of(self.settings.tenant, q.user_id, q.agent_id, q.session)
        as_of_time(q.as_of, self.clock)  # refuses a time after the store's clock
        if not q.query.strip():
            return []
        hits = self.pipeline.search(self.request(q, replace(scope, kinds=q.kinds, where=where)))
        if not q.explain:
            for hit in hits:
                hit.scores = {k: v for k, v in hit.scores.items() if not k.endswith("_rank")}
        return hits

    def request(self, q: SearchQuery, scope: ReadScope) -> RetrievalRequest:
        """The pipeline's request of a checked query over ``scope`` (the caller's user,
        session and agent view, narrowed by the query's kinds and parsed filter)."""
        now = q.reference_time
        return RetrievalRequest(
            query=q.query[: self.settings.max_content_chars],
            scope=scope,
            limit=self.settings.search_limit if q.limit is None else q.limit,
            now=None if now is None else now.timestamp(),
            recency_weight=q.recency_weight,
            score_threshold=q.score_threshold,
            exclude=exclusion_keys(q.exclude),
            widen=q.current_session is not None,
            as_of=q.as_of,
        )
