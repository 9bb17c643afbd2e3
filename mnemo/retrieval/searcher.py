"""Searching one tenant's memory: the query validated, then the retrieval pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.retrieval.duplicates import exclusion_keys
from mnemo.retrieval.pipeline import Pipeline
from mnemo.retrieval.request import RetrievalRequest
from mnemo.schemas import Hit, parse_time


class SearchDefaults(Protocol):
    """The settings a search reads besides the pipeline's: the default limit (retrieval),
    the tenant and the longest text kept of a query (storage)."""

    @property
    def search_limit(self) -> int:
        """Hits returned when no limit is given."""
        ...

    @property
    def tenant(self) -> str:
        """The tenant searched."""
        ...

    @property
    def max_content_chars(self) -> int:
        """A query longer than this is cut to it."""
        ...


class Searcher:
    """Validates a search and runs it on ``pipeline`` for ``settings.tenant``."""

    def __init__(self, pipeline: Pipeline, settings: SearchDefaults) -> None:
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
    ) -> list[Hit]:
        """The memories and turns most relevant to ``query``, best first, one hit per thing
        said (duplicates collapse into ``hit.duplicates``).

        Every hit carries each stage's score in ``hit.scores``; ``explain=True`` keeps the
        ranks too. ``now`` sets the reference time for recency and relative dates (default:
        the user's newest turn, else the clock). ``recency_weight`` and ``score_threshold``
        override the settings for this search; turns whose text is one of ``exclude`` (the
        request being answered) are left out.
        """
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
        )
        hits = self.pipeline.search(req)
        if not explain:
            for hit in hits:
                hit.scores = {k: v for k, v in hit.scores.items() if not k.endswith("_rank")}
        return hits
