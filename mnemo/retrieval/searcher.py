"""Searching one tenant's memory: the query validated, then the retrieval pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.filters import parse_where
from mnemo.retrieval.duplicates import exclusion_keys
from mnemo.retrieval.pipeline import Pipeline
from mnemo.retrieval.request import RetrievalRequest
from mnemo.schemas import Hit, parse_time

if TYPE_CHECKING:
    from mnemo.config.settings import Settings


class Searcher:
    """Validates a search and runs it on ``pipeline`` for ``settings.tenant``; besides the
    pipeline's settings it reads ``search_limit`` (hits when no limit is given), ``tenant`` and
    ``max_content_chars`` (a longer query is cut to it)."""

    def __init__(self, pipeline: Pipeline, settings: Settings) -> None:
        self.pipeline = pipeline
        self.settings = settings

    def search(
        self,
        query: str,
        user_id: str,
        session_id: str | None = None,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
        explain: bool = False,
        now: datetime | float | str | None = None,
        *,
        recency_weight: float | None = None,
        score_threshold: float | None = None,
        exclude: Sequence[str] = (),
        filters: Any = None,
    ) -> list[Hit]:
        """The memories and turns most relevant to ``query``, best first, one hit per thing
        said (duplicates collapse into ``hit.duplicates``).

        Every hit carries each stage's score in ``hit.scores``; ``explain=True`` keeps the
        ranks too. ``now`` sets the reference time for recency and relative dates (default:
        the user's newest turn, else the clock). ``recency_weight`` and ``score_threshold``
        override the settings for this search; turns whose text is one of ``exclude`` (the
        request being answered) are left out. ``filters`` (mem0's syntax, see
        :mod:`mnemo.filters`) keeps only the memories and turns that match, applied in the
        store before each retriever takes its candidates.
        """
        where = parse_where(filters)
        query = check.query(query)
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        n = self.settings.search_limit if limit is None else limit
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
            raise ValidationError("limit must be an integer in [1, 1000]")
        kinds_t = check.hit_kinds(kinds)
        if not query.strip():
            return []
        ref_time = None if now is None else parse_time(now, "now").timestamp()
        if isinstance(exclude, str) or not all(isinstance(t, str) for t in exclude):
            raise ValidationError("exclude must be a list of strings")
        req = RetrievalRequest(
            query=query[: self.settings.max_content_chars],
            tenant=self.settings.tenant,
            user_id=user_id,
            session_id=session_id,
            limit=n,
            kinds=kinds_t,
            now=ref_time,
            recency_weight=recency_weight,
            score_threshold=score_threshold,
            exclude=exclusion_keys(exclude),
            filter=where,
        )
        hits = self.pipeline.search(req)
        if not explain:
            for hit in hits:
                hit.scores = {k: v for k, v in hit.scores.items() if not k.endswith("_rank")}
        return hits
