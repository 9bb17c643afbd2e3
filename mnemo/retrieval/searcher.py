"""Searching one tenant's memory: the query validated, then the retrieval pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.filters import parse_where
from mnemo.retrieval.asof import as_of_time
from mnemo.retrieval.duplicates import exclusion_keys
from mnemo.retrieval.pipeline import Pipeline
from mnemo.retrieval.request import RetrievalRequest
from mnemo.schemas import Hit, format_time, parse_time
from mnemo.storage.caller_scope import scope_of
from mnemo.storage.clock import SYSTEM_CLOCK, Clock

if TYPE_CHECKING:
    from mnemo.config.settings import Settings


class Searcher:
    """Validates a search and runs it on ``pipeline`` for ``settings.tenant``; besides the
    pipeline's settings it reads ``search_limit`` (hits when no limit is given), ``tenant`` and
    ``max_content_chars`` (a longer query is cut to it)."""

    def __init__(self, pipeline: Pipeline, settings: Settings, clock: Clock = SYSTEM_CLOCK) -> None:
        self.pipeline = pipeline
        self.settings = settings
        #: the store's clock: an ``as_of`` after its now is refused
        self.clock = clock

    def search(
        self,
        query: str,
        user_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
        explain: bool = False,
        now: datetime | float | str | None = None,
        *,
        recency_weight: float | None = None,
        score_threshold: float | None = None,
        exclude: Sequence[str] = (),
        as_of: datetime | float | str | None = None,
        agent_id: str | None = None,
        filters: Any = None,
    ) -> list[Hit]:
        """The memories and turns most relevant to ``query``, best first, one hit per thing
        said (duplicates collapse into ``hit.duplicates``).

        Every hit carries each stage's score in ``hit.scores``; ``explain=True`` keeps the
        ranks too. ``now`` sets the reference time for recency and relative dates (default:
        the user's newest turn, else the clock). ``recency_weight`` and ``score_threshold``
        override the settings for this search; turns whose text is one of ``exclude`` (the
        request being answered) are left out. ``as_of`` answers from what was known at that
        time (see :mod:`mnemo.retrieval.asof`; not after the store's clock) and is then the
        default ``now``. ``agent_id`` narrows the search to what that agent sees (see
        :mod:`mnemo.storage.agent_scope`). ``filters`` (mem0's syntax, see
        :mod:`mnemo.filters`) keeps only the memories and turns that match, applied in the
        store before each retriever takes its candidates.
        """
        where = parse_where(filters)
        query = check.query(query)
        scope = scope_of(self.settings.tenant, user_id, agent_id, session_id)
        n = self.settings.search_limit if limit is None else limit
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
            raise ValidationError("limit must be an integer in [1, 1000]")
        kinds_t = check.hit_kinds(kinds)
        past = as_of_time(as_of, self.clock)
        if not query.strip():
            return []
        if now is None and past is not None:
            now = past
        ref_time = None if now is None else parse_time(now, "now").timestamp()
        if isinstance(exclude, str) or not all(isinstance(t, str) for t in exclude):
            raise ValidationError("exclude must be a list of strings")
        req = RetrievalRequest(
            query=query[: self.settings.max_content_chars],
            scope=replace(scope, kinds=kinds_t, where=where),
            limit=n,
            now=ref_time,
            recency_weight=recency_weight,
            score_threshold=score_threshold,
            exclude=exclusion_keys(exclude),
            as_of=None if past is None else past.timestamp(),
            as_of_text=None if past is None else format_time(past),
        )
        hits = self.pipeline.search(req)
        if not explain:
            for hit in hits:
                hit.scores = {k: v for k, v in hit.scores.items() if not k.endswith("_rank")}
        return hits
