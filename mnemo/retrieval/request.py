"""What a search asks for: the validated request, whose read scope every scope it looks in
narrows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from mnemo.storage.scope import ReadScope


@dataclass
class RetrievalRequest:
    """A validated query over the rows of ``scope`` (:class:`~mnemo.storage.scope.ReadScope`:
    the tenant, the user key, the session, the kinds, the agent view and the filter, every
    candidate matching it before each retriever takes its top k). The pipeline searches the
    scope and, around it, the user's other sessions (only when ``widen``: the scope's
    session is the conversation being answered, not a narrowing) and a shared global user
    (:meth:`mnemo.retrieval.pipeline.Pipeline.scopes`): the same scope over another user or
    session.

    ``recency_weight`` and ``score_threshold``, when set, override the settings of the same
    name for this one search (a per-call option of context assembly). ``now`` is the reference
    time of recency and relative dates (None: the user's newest turn, else the clock);
    ``exclude`` holds the text keys (``retrieval.duplicates.text_key``) of the request's own
    turns, which are left out of the hits; ``as_of``, when set, is the time the search answers
    as of (:mod:`mnemo.retrieval.asof`).
    """

    query: str
    scope: ReadScope
    limit: int
    now: float | None = None
    recency_weight: float | None = None
    score_threshold: float | None = None
    exclude: frozenset[str] = frozenset()
    #: whether a small session widens to the user's others (``current_session``)
    widen: bool = False
    #: answer as of this time (an aware UTC time): see retrieval.asof
    as_of: datetime | None = None
    #: distinct hits the stages before the learned one keep, when more than ``limit`` (the
    #: learned stage's ``ranker_depth``; the candidate pools stay sized by ``limit``)
    depth: int = 0


__all__ = ["RetrievalRequest"]
